package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"folio/sqlstore"
)

// serveBench is `folio-bench serve`: it seeds a site with many posts and
// one image, then measures how many requests a second a real folio process
// answers for an image's short link, its thumbnail, the cached classic home
// page and a page from the middle of the public post list, beside nginx
// serving the same bytes as static files and a plain net/http handler
// serving them with the same headers (docs/testing.md#folio-bench-serve).
// Every run that saw a non-2xx answer or a socket error is reported and
// fails the command.
func serveBench(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	bin := fs.String("folio", "", "folio binary (default: built from ./cmd/folio into the work folder)")
	rounds, loadGen := loadFlags(fs)
	posts := fs.Int("posts", 100_000, "published posts to seed")
	nginxMode := fs.String("nginx", "auto", "auto: compare with nginx when it is on PATH; off: Folio alone")
	keep := fs.Bool("keep", false, "keep the work folder (data, logs, nginx configuration)")
	dir := fs.String("dir", "", "work folder, new or empty, kept afterwards (default: a new temp folder, removed unless -keep)")
	fs.Parse(args)
	gen, err := loadGen()
	if err != nil {
		return err
	}
	switch {
	case *posts < 10:
		return errors.New("-posts must be at least 10")
	case *nginxMode != "auto" && *nginxMode != "off":
		return errors.New("-nginx must be auto or off")
	}

	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "folio-serve-")
		if err != nil {
			return err
		}
		work = d
		if *keep {
			defer fmt.Printf("work folder kept: %s\n", work)
		} else {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	} else if _, err := os.Stat(filepath.Join(work, "folio.db")); err == nil {
		return fmt.Errorf("%s already holds a folio.db: -dir wants a new or empty folder", work)
	}
	if *bin, err = buildFolio(*bin, work); err != nil {
		return err
	}
	nginxBin := ""
	if *nginxMode == "auto" {
		if p, err := exec.LookPath("nginx"); err == nil {
			nginxBin = p
		}
	}

	// Folio as deployed, its access log on: every request's line is
	// written to folio.log, which the plain reference does not pay for
	// (docs/testing.md#folio-bench-serve).
	p, err := startFolioWith(*bin, work, "", filepath.Join(work, "folio.log"), func(string) string {
		return "log.level = info\n"
	})
	if err != nil {
		return err
	}
	defer p.stop()
	site, err := seedServe(p.base, filepath.Join(work, "folio.db"), *posts)
	if err != nil {
		return err
	}

	files, bodies := site.copies()
	var ngx *nginxProcess
	if nginxBin != "" {
		ngx, err = startNginx(nginxBin, filepath.Join(work, "nginx"), files, bodies)
		if err != nil {
			return err
		}
		defer ngx.stop()
	}
	plain, err := startPlain(filepath.Join(work, "plain"), files, bodies)
	if err != nil {
		return err
	}
	defer plain.stop()
	workloads := site.workloads(p.base, p.cmd.Process.Pid, plain, ngx)

	fmt.Printf("folio-bench serve: %d posts, %s, %d round(s), medians\n", *posts, gen, *rounds)
	var failures []string
	var busies []float64
	for round := 1; round <= *rounds; round++ {
		for _, w := range workloads {
			for _, side := range rotate(w.sides(), round-1) {
				if side.url == "" {
					continue
				}
				r, busy, err := measure(gen, p.cmd.Process.Pid, side.url, side.pids)
				if err != nil {
					return err
				}
				side.runs = append(side.runs, r)
				busies = append(busies, busy)
				fmt.Printf("round %d/%d  %-11s %-14s %12s req/s  p99 %-16s server CPU %5.1f µs a request (CPUs %2.0f%% busy just before)\n",
					round, *rounds, w.short, side.label, thousands(r.perSecond), p99String(r.p99), us(r.cpu), 100*busy)
				if f := r.failed(); f != "" {
					failures = append(failures, fmt.Sprintf("round %d, %s, %s (%s): %s", round, w.short, side.label, side.url, f))
				}
			}
		}
	}

	afterLoad := p.rss()
	// The server releases memory once a busy period of releasePeriod (10 s)
	// is followed by a quiet one: wait for two periods and a margin.
	time.Sleep(25 * time.Second)
	idle := p.memory()
	peak := procField(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmHWM:")

	fmt.Println()
	fmt.Printf("Command: `%s`  \n", commandLine(args))
	fmt.Printf("Load: %s; %d round(s), each running every workload on each side in turn, from the next side each round; medians of the rounds.  \n", gen, *rounds)
	slices.Sort(busies)
	fmt.Printf("Machine: %d CPUs, %s; %s; CPUs %.0f%% busy (median) just before the runs, with Folio idle.\n",
		runtime.NumCPU(), runtime.Version(), nginxVersion(nginxBin), 100*busies[len(busies)/2])
	fmt.Println()
	writeServeTable(os.Stdout, workloads, ngx != nil)
	fmt.Println()
	fmt.Printf("Folio RSS right after the load: %s; idle after the load (25 s later): %s (aim ≤ 25 MiB); peak (VmHWM): %s.\n",
		mib(afterLoad), idle, mib(peak))
	if abandoned, other := logErrors(filepath.Join(work, "folio.log")); abandoned+len(other) > 0 {
		fmt.Printf("folio.log: %d error line(s) for requests the load generator abandoned at the end of a run (context canceled)",
			abandoned)
		if len(other) > 0 {
			fmt.Printf(", and %d other(s), the first: %s", len(other), other[0])
		}
		fmt.Println(".")
	}
	if len(failures) > 0 {
		fmt.Println()
		fmt.Println("Runs with errors (their numbers are not a benchmark):")
		for _, f := range failures {
			fmt.Println("  " + f)
		}
		return fmt.Errorf("%d run(s) had non-2xx responses or socket errors", len(failures))
	}
	return nil
}

// logErrors counts the error lines of Folio's log: those of requests whose
// client went away (a load generator closes its connections at the end of
// a run, with requests in flight), and the others.
func logErrors(path string) (abandoned int, other []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, []string{err.Error()}
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case !strings.Contains(line, "level=ERROR"):
		case strings.Contains(line, "context canceled"):
			abandoned++
		default:
			other = append(other, line)
		}
	}
	return abandoned, other
}

// measure waits for Folio (pid) to settle, warms the target up with
// sequential requests, 50 or a second's worth, which also fail fast on a
// wrong answer, then runs the load, counting the CPU time the server's
// processes (servers) used for it. It also returns how busy the machine
// was just before.
func measure(gen loadGenerator, pid int, url string, servers func() []int) (loadRun, float64, error) {
	busy := settle(pid)
	if err := warmUp(url); err != nil {
		return loadRun{}, 0, err
	}
	before := serverCPU(servers)
	r, err := gen.run(url)
	if err == nil && r.requests > 0 {
		r.cpu = (serverCPU(servers) - before) / time.Duration(r.requests)
	}
	return r, busy, err
}

// serverCPU is the CPU time the processes servers lists have used so far.
func serverCPU(servers func() []int) time.Duration {
	var d time.Duration
	if servers != nil {
		for _, pid := range servers() {
			d += cpuTime(pid)
		}
	}
	return d
}

// warmUp sends url 50 sequential requests, or a second's worth, failing
// fast on a wrong answer.
func warmUp(url string) error {
	start := time.Now()
	for i := 0; i < 50 && (i == 0 || time.Since(start) < time.Second); i++ {
		body, _, err := fetch(url)
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		if len(body) == 0 {
			return fmt.Errorf("warm-up: GET %s: empty body", url)
		}
	}
	return nil
}

// settle waits, for up to 30 s, until Folio (pid) has used less than 5%
// of one CPU over half a second, so that no run starts while the last
// one's work goes on (requests the server is still finishing after the
// load generator gave up on them, a memory release). It returns the share
// of the machine's CPU time that was busy over that half second: the
// servers, the load generator and whatever else runs share the machine.
func settle(pid int) float64 {
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy0, total0 := cpuTimes()
		proc0 := procTicks(pid)
		time.Sleep(500 * time.Millisecond)
		busy1, total1 := cpuTimes()
		proc1 := procTicks(pid)
		if total1 <= total0 {
			return 0
		}
		perCPU := float64(total1-total0) / float64(runtime.NumCPU())
		if float64(proc1-proc0) < 0.05*perCPU || time.Now().After(deadline) {
			return float64(busy1-busy0) / float64(total1-total0)
		}
	}
}

// procTicks is the CPU time a process has used, in clock ticks: utime and
// stime, the 14th and 15th fields of /proc/PID/stat.
func procTicks(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, the second field, is in parentheses and may hold
	// spaces: count from after it.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest) // f[0] is the 3rd field
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	return utime + stime
}

// cpuTimes reads the time all CPUs spent busy and in all, in clock ticks,
// from the first line of /proc/stat: "cpu user nice system idle iowait
// irq softirq steal …". Zeros when it cannot be read.
func cpuTimes() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0
	}
	for i, f := range fields[1:] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0
		}
		if i >= 8 { // guest time is counted in user time already
			break
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// side is one column of a workload: Folio, or what it is compared with.
type side struct {
	label string
	url   string       // empty: not measured
	pids  func() []int // the server's processes, whose CPU time a run counts
	runs  []loadRun
}

// median is the median rate, the median 99th percentile and the median
// server CPU time per request of the runs.
func (s *side) median() (float64, time.Duration, time.Duration) {
	rates := make([]float64, len(s.runs))
	p99s := make([]time.Duration, len(s.runs))
	cpus := make([]time.Duration, len(s.runs))
	for i, r := range s.runs {
		rates[i], p99s[i], cpus[i] = r.perSecond, r.p99, r.cpu
	}
	slices.Sort(rates)
	slices.Sort(p99s)
	slices.Sort(cpus)
	n := len(rates)
	if n%2 == 1 {
		return rates[n/2], p99s[n/2], cpus[n/2]
	}
	return (rates[n/2-1] + rates[n/2]) / 2, (p99s[n/2-1] + p99s[n/2]) / 2, (cpus[n/2-1] + cpus[n/2]) / 2
}

// serveWorkload is one row of the table.
type serveWorkload struct {
	name  string // as the table shows it
	short string // in progress lines
	aim   string
	folio side
	// plain is the plain net/http handler serving the same bytes; for
	// the post list, Folio's own first page.
	plain side
	nginx side
	list  bool // the post list: Folio compared with itself
}

// sides are the columns of a workload, in the order the first round runs
// them.
func (w *serveWorkload) sides() []*side { return []*side{&w.nginx, &w.plain, &w.folio} }

// rotate is sides starting from the (k mod len)-th: each round starts
// from the next side, so that no side always runs right after the same
// other one, in a machine state the other left (its connections closing,
// a CPU's frequency, a neighbour's load), and the medians share that out.
func rotate(sides []*side, k int) []*side {
	k %= len(sides)
	return append(slices.Clone(sides[k:]), sides[:k]...)
}

// servedSite is what seeding made and what nginx and the plain handler
// serve a copy of.
type servedSite struct {
	posts        int
	middlePage   int
	imagePath    string // the short link, /i/{hash}
	thumbPath    string // /t/{hash}
	variantPath  string // /i/{hash}?w=…, made while seeding
	variant      []byte
	variantType  string
	image, thumb []byte
	imageType    string
	thumbType    string
	home         []byte
	homeType     string
	// headers are Folio's other headers of each copy, by its name in
	// copies: the plain reference sends them too.
	headers map[string]map[string]string
}

// copies are the seeded responses nginx and the plain handler serve, by
// the path they serve each under (without its slash).
func (s *servedSite) copies() (map[string]plainFile, map[string][]byte) {
	return map[string]plainFile{
			"image": {Type: s.imageType, Headers: s.headers["image"]}, "thumb": {Type: s.thumbType, Headers: s.headers["thumb"]},
			"variant": {Type: s.variantType, Headers: s.headers["variant"]}, "home": {Type: s.homeType, Headers: s.headers["home"]}},
		map[string][]byte{"image": s.image, "thumb": s.thumb, "variant": s.variant, "home": s.home}
}

func (s *servedSite) workloads(folio string, folioPid int, plain *selfProcess, ngx *nginxProcess) []*serveWorkload {
	nginxURL := func(path string) string {
		if ngx == nil {
			return ""
		}
		return ngx.base + path
	}
	folioPids := func() []int { return []int{folioPid} }
	plainPids := func() []int { return []int{plain.cmd.Process.Pid} }
	var nginxPids func() []int
	if ngx != nil {
		// The master and its workers, listed at each sample: a worker
		// that died would be replaced by a new one.
		nginxPids = func() []int {
			master := ngx.cmd.Process.Pid
			return append([]int{master}, childrenOf(master)...)
		}
	}
	list := func(page int) string {
		return folio + "/api/v1/posts?page=" + strconv.Itoa(page) + "&page_size=10"
	}
	row := func(name, short, aim, folioPath, copyPath string) *serveWorkload {
		return &serveWorkload{name: name, short: short, aim: aim,
			folio: side{label: "folio", url: folio + folioPath, pids: folioPids},
			plain: side{label: "plain net/http", url: plain.base + copyPath, pids: plainPids},
			nginx: side{label: "nginx", url: nginxURL(copyPath), pids: nginxPids}}
	}
	return []*serveWorkload{
		row(fmt.Sprintf("Short link GET, %d KB PNG", len(s.image)/1000), "short link", "≥ 0.9x plain, ≥ 0.85x nginx",
			s.imagePath, "/image"),
		row(fmt.Sprintf("Thumbnail GET (%d KB PNG)", len(s.thumb)/1000), "thumbnail", "≥ 0.9x plain, ≥ 0.85x nginx",
			s.thumbPath, "/thumb"),
		row(fmt.Sprintf("Image size `?w=%d` GET (%d KB)", benchVariantWidth, len(s.variant)/1000), "image size", "≥ 0.9x plain, ≥ 0.85x nginx",
			s.variantPath, "/variant"),
		row(fmt.Sprintf("Classic home `/`, cached (%d KB HTML)", len(s.home)/1000), "home", "≥ 0.9x plain, ≥ 0.6x nginx",
			"/", "/home"),
		{name: fmt.Sprintf("Public list `GET /api/v1/posts?page=%d&page_size=10` (offset %s), %s posts", s.middlePage,
			thousands(float64((s.middlePage-1)*10)), thousands(float64(s.posts))), short: "post list", aim: "≥ 0.5x of page 1",
			plain: side{label: "folio page 1", url: list(1), pids: folioPids},
			folio: side{label: "folio middle", url: list(s.middlePage), pids: folioPids},
			list:  true},
	}
}

// writeServeTable writes the Markdown table of the medians: for each row
// Folio's rate and server CPU time per request, the plain handler's and
// nginx's, Folio's rate as a ratio to each, and Folio's requests per
// CPU-second as a ratio to the plain handler's: the measure a busy machine
// moves least, since other programs' load does not count in a process's
// CPU time. The post list's row compares a middle page with Folio's first.
func writeServeTable(out io.Writer, workloads []*serveWorkload, withNginx bool) {
	cell := func(s *side) string {
		if len(s.runs) == 0 {
			return "—"
		}
		rate, p99, cpu := s.median()
		c := ""
		if cpu > 0 {
			c = fmt.Sprintf(", %.1f µs CPU", us(cpu))
		}
		return fmt.Sprintf("%s req/s, p99 %s%s", thousands(rate), p99String(p99), c)
	}
	ratio := func(of, to *side) string {
		if len(of.runs) == 0 || len(to.runs) == 0 {
			return "—"
		}
		f, _, _ := of.median()
		r, _, _ := to.median()
		if r == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2fx", f/r)
	}
	// perCPU is of's requests per CPU-second over to's: to's CPU time per
	// request over of's.
	perCPU := func(of, to *side) string {
		if len(of.runs) == 0 || len(to.runs) == 0 {
			return "—"
		}
		_, _, f := of.median()
		_, _, r := to.median()
		if f == 0 || r == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2fx", float64(r)/float64(f))
	}
	fmt.Fprintln(out, "| Workload | Folio | plain net/http | nginx | Folio / plain | Folio / nginx | Folio / plain, per CPU-second | Aim |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
	for _, w := range workloads {
		folio, plain, ngx := cell(&w.folio), cell(&w.plain), cell(&w.nginx)
		toPlain, toNginx, cpuToPlain := ratio(&w.folio, &w.plain), ratio(&w.folio, &w.nginx), perCPU(&w.folio, &w.plain)
		switch {
		case w.list:
			folio, plain = "middle page: "+folio, "Folio page 1: "+plain
			if toPlain != "—" {
				toPlain += " of page 1"
			}
			if cpuToPlain != "—" {
				cpuToPlain += " of page 1"
			}
		case !withNginx:
			ngx = "— (no nginx)"
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", w.name, folio, plain, ngx, toPlain, toNginx, cpuToPlain, w.aim)
	}
}

// p99String rounds a latency for the table; 0 means no request was answered
// within the timeout.
func p99String(d time.Duration) string {
	if d == 0 {
		return "— (none in time)"
	}
	return d.Round(10 * time.Microsecond).String()
}

// thousands formats a rate as a whole number with thousands separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// commandLine is the command as one would type it from the repository.
func commandLine(args []string) string {
	parts := []string{"go run ./cmd/folio-bench serve"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

func nginxVersion(bin string) string {
	if bin == "" {
		return "no nginx"
	}
	out, _ := exec.Command(bin, "-v").CombinedOutput()
	return strings.TrimSpace(string(out))
}

// seedServe prepares the site: classic render mode, posts many published
// posts written straight into the database (through the API they would
// take hours), and one image uploaded through the real upload API, whose
// thumbnail it has made. It returns the bytes each workload serves.
func seedServe(base, dbPath string, posts int) (*servedSite, error) {
	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/auth/login", "", "application/json",
		strings.NewReader(`{"username":"admin","password":"`+benchPassword+`"}`), &login); err != nil {
		return nil, fmt.Errorf("log in: %w", err)
	}
	token := login.Data.AccessToken
	var settings json.RawMessage
	if err := call("PUT", base+"/api/v1/admin/settings", token, "application/json",
		strings.NewReader(`{"render":{"render_mode":"classic"}}`), &settings); err != nil {
		return nil, fmt.Errorf("set the classic render mode: %w", err)
	}

	// One post through the API, as a draft, gives the HTML, table of
	// contents and summary Folio's renderer makes of the Markdown.
	markdown := benchMarkdown()
	draft, _ := json.Marshal(map[string]any{"title": "Template", "status": "draft", "content_markdown": markdown})
	var tmpl struct {
		Data struct {
			Summary     string          `json:"summary"`
			ContentHTML string          `json:"content_html"`
			TOC         json.RawMessage `json:"toc"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/admin/posts", token, "application/json", bytes.NewReader(draft), &tmpl); err != nil {
		return nil, fmt.Errorf("create the template post: %w", err)
	}
	toc := string(tmpl.Data.TOC)
	if toc == "" || toc == "null" {
		toc = "[]"
	}
	start := time.Now()
	if err := insertPosts(dbPath, posts, markdown, tmpl.Data.ContentHTML, toc, tmpl.Data.Summary); err != nil {
		return nil, err
	}
	fmt.Printf("seeded %d posts (%d B Markdown, %d B HTML each) in %s\n", posts, len(markdown),
		len(tmpl.Data.ContentHTML), time.Since(start).Round(time.Millisecond))

	var up struct {
		Data struct {
			Links struct {
				URL          string `json:"url"`
				ThumbnailURL string `json:"thumbnail_url"`
			} `json:"links"`
		} `json:"data"`
	}
	ct, body := uploadBody(noisyPNG(200_000), "1")
	if err := call("POST", base+"/api/v1/upload", token, ct, body, &up); err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	s := &servedSite{posts: posts, middlePage: posts / 2 / 10,
		imagePath: pathOf(up.Data.Links.URL), thumbPath: pathOf(up.Data.Links.ThumbnailURL)}
	if s.thumbPath == "" {
		return nil, errors.New("the upload has no thumbnail link")
	}
	var err error
	s.headers = map[string]map[string]string{}
	var h http.Header
	if s.image, h, err = fetchHeaders(base + s.imagePath); err != nil {
		return nil, err
	}
	s.imageType, s.headers["image"] = h.Get("Content-Type"), plainHeaders(h)
	if s.thumb, h, err = fetchHeaders(base + s.thumbPath); err != nil { // made now
		return nil, err
	}
	s.thumbType, s.headers["thumb"] = h.Get("Content-Type"), plainHeaders(h)
	s.variantPath = s.imagePath + "?w=" + strconv.Itoa(benchVariantWidth)
	if s.variant, h, err = fetchHeaders(base + s.variantPath); err != nil { // made now
		return nil, err
	}
	s.variantType, s.headers["variant"] = h.Get("Content-Type"), plainHeaders(h)

	// A page is cached only once the site's last change is settledAfter
	// (2 s) old.
	time.Sleep(3 * time.Second)
	if s.home, h, err = fetchHeaders(base + "/"); err != nil {
		return nil, err
	}
	s.homeType, s.headers["home"] = h.Get("Content-Type"), plainHeaders(h)
	var mid struct {
		Data struct {
			Items      []json.RawMessage `json:"items"`
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		} `json:"data"`
	}
	if err := call("GET", base+"/api/v1/posts?page_size=10&page="+strconv.Itoa(s.middlePage), "", "", nil, &mid); err != nil {
		return nil, err
	}
	if len(mid.Data.Items) != 10 || mid.Data.Pagination.Total != posts {
		return nil, fmt.Errorf("page %d of the public list has %d posts of %d, want 10 of %d",
			s.middlePage, len(mid.Data.Items), mid.Data.Pagination.Total, posts)
	}
	return s, nil
}

// insertPosts writes n published posts, one a minute back from now, in
// one transaction, spread over 10 categories and tagged with 2 of 20 tags,
// and marks the posts and the site changed as saving a post through the
// API does, so that no cache of the running server outlives them.
func insertPosts(dbPath string, n int, markdown, html, toc, summary string) error {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite", dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now()
	stamp := sqlstore.FromTime(now)
	return db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var categories, tags []string
		for i := range 10 {
			id := sqlstore.NewID()
			if _, err := tx.Exec(ctx, `INSERT INTO categories (id, name, slug, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5)`, id, fmt.Sprintf("Category %d", i), fmt.Sprintf("category-%d", i), stamp, stamp); err != nil {
				return fmt.Errorf("seed categories: %w", err)
			}
			categories = append(categories, id)
		}
		for i := range 20 {
			id := sqlstore.NewID()
			if _, err := tx.Exec(ctx, `INSERT INTO tags (id, name, slug, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5)`, id, fmt.Sprintf("Tag %d", i), fmt.Sprintf("tag-%d", i), stamp, stamp); err != nil {
				return fmt.Errorf("seed tags: %w", err)
			}
			tags = append(tags, id)
		}
		for i := range n {
			id := sqlstore.NewID()
			at := sqlstore.FromTime(now.Add(-time.Duration(i+1) * time.Minute))
			if _, err := tx.Exec(ctx, `INSERT INTO posts (id, title, slug, summary, summary_source, content_markdown,
				content_html, toc, status, cover_image, published_at, show_comments, category_id, created_at, updated_at)
				VALUES ($1, $2, $3, $4, 'auto', $5, $6, $7, 'published', '', $8, TRUE, $9, $8, $8)`,
				id, fmt.Sprintf("Notes on building things, part %d", n-i), fmt.Sprintf("notes-%06d", n-i), summary,
				markdown, html, toc, at, categories[i%len(categories)]); err != nil {
				return fmt.Errorf("seed posts: %w", err)
			}
			for _, t := range []string{tags[i%len(tags)], tags[(i*7+3)%len(tags)]} {
				if _, err := tx.Exec(ctx, `INSERT INTO post_tags (post_id, tag_id) VALUES ($1, $2)
					ON CONFLICT DO NOTHING`, id, t); err != nil {
					return fmt.Errorf("seed post tags: %w", err)
				}
			}
		}
		for _, key := range []string{"blog.posts_version", "blog.site_changed"} {
			value := sqlstore.NewID()
			if key == "blog.site_changed" {
				value = strconv.FormatInt(stamp, 10)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
				return fmt.Errorf("seed: mark %s: %w", key, err)
			}
		}
		return nil
	})
}

// benchMarkdown is a post of about 4 KB: headings, prose with emphasis
// and links, a list, a code block and a table.
func benchMarkdown() string {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "## Part %d: what we learned\n\n", i+1)
		b.WriteString("The first version was *simple*: one process, one database file and a folder of images. " +
			"It grew the way small tools do, a feature at a time, until the [old notes](https://example.org/notes) " +
			"no longer described it. This part goes through **what changed** and why, with the numbers we measured " +
			"along the way and the mistakes we made before we measured anything.\n\n")
		b.WriteString("- start from the request a reader actually makes\n- keep what is hot in memory, and nothing else\n" +
			"- measure before and after, on the same machine\n\n")
		if i%2 == 0 {
			b.WriteString("```go\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tpage, err := cache.Get(r.URL.Path)\n" +
				"\tif err != nil {\n\t\thttp.Error(w, \"not found\", 404)\n\t\treturn\n\t}\n\tw.Write(page)\n}\n```\n\n")
		} else {
			b.WriteString("| Step | Before | After |\n|---|---:|---:|\n| parse | 120 µs | 40 µs |\n| render | 300 µs | 90 µs |\n" +
				"| write | 15 µs | 15 µs |\n\n")
		}
		b.WriteString("In the end the `simplest` change won: we stopped doing work nobody asked for. That is the whole " +
			"lesson, and it took three rewrites to learn it.\n\n")
	}
	return b.String()
}

// benchVariantWidth is the image size the serve benchmark asks for: one
// of filehost's widths below the seeded PNG's 800 pixels.
const benchVariantWidth = 640

// noisyPNG is a PNG 800 pixels wide of about size bytes: a band of random
// noise at the top, which does not compress, as high as the size asks for,
// over a smooth gradient, which compresses to almost nothing. Its thumbnail
// is a real resize, about a quarter of its size, as a photo's would be. It
// is 600 pixels high, or higher when noise that high is not size bytes
// (about 1.4 MB): the offload benchmark's larger files (folio-bench accel
// -size).
func noisyPNG(size int) []byte {
	const w = 800
	h := max(600, size/(3*w)+60)
	encode := func(noisyRows int) []byte {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		r := rand.New(rand.NewPCG(1, 2))
		for y := range h {
			noisy := y < noisyRows
			for x := range w {
				c := color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255}
				if noisy {
					c = color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		return b.Bytes()
	}
	plain := len(encode(0))
	guess := min(h, (size-plain)/(3*w))
	b := encode(guess)
	// One correction from the measured cost of a noisy row.
	perRow := float64(len(b)-plain) / float64(guess)
	return encode(min(h, int(float64(size-plain)/perRow+0.5)))
}

// fetch GETs url and returns its body and Content-Type; anything but a 200
// is an error.
func fetch(url string) ([]byte, string, error) {
	b, h, err := fetchHeaders(url)
	return b, h.Get("Content-Type"), err
}

// fetchHeaders is fetch giving every header of the answer.
func fetchHeaders(url string) ([]byte, http.Header, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return b, resp.Header, nil
}

// nginxProcess is nginx serving a copy of the seeded bytes.
type nginxProcess struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

// startNginx writes a configuration and the files under dir and starts
// nginx in the foreground on a free loopback port. Each file is served
// under a fixed path with the Content-Type Folio gave it.
func startNginx(bin, dir string, files map[string]plainFile, bodies map[string][]byte) (*nginxProcess, error) {
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o750); err != nil {
		return nil, err
	}
	var locations strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(www, name), bodies[name], 0o640); err != nil {
			return nil, err
		}
		fmt.Fprintf(&locations, "\t\tlocation = /%s { default_type %q; }\n", name, files[name].Type)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	user := ""
	if os.Geteuid() == 0 {
		// Workers would otherwise run as nobody, who cannot read the
		// private temp folder.
		user = "user root;\n"
	}
	conf := fmt.Sprintf(`# written by folio-bench serve
%sworker_processes 2;
pid %q;
error_log %q;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	etag on;
	types {}
	server {
		listen %s;
		root %q;
%s	}
}
`, user, filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"), addr, www, locations.String())
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o640); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "nginx.out"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", confPath, "-g", "daemon off;")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	n := &nginxProcess{cmd: cmd, base: "http://" + addr, done: make(chan struct{})}
	go func() { cmd.Wait(); logFile.Close(); close(n.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-n.done:
			out, _ := os.ReadFile(logFile.Name())
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx exited at start-up: %s%s", out, errLog)
		default:
		}
		if b, ctype, err := fetch(n.base + "/image"); err == nil {
			if !bytes.Equal(b, bodies["image"]) || ctype != files["image"].Type {
				n.stop()
				return nil, fmt.Errorf("nginx serves %d bytes of %s, want %d of %s", len(b), ctype, len(bodies["image"]), files["image"].Type)
			}
			return n, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.stop()
	return nil, errors.New("nginx did not answer within 10 s")
}

// stop asks nginx to finish (SIGQUIT: graceful) and kills it if it has not
// within 10 s.
func (n *nginxProcess) stop() { stopProcess(n.cmd, n.done, syscall.SIGQUIT, 10*time.Second) }
