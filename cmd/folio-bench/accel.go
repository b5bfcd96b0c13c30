package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
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
)

// accelBench compares five ways of sending the short link of one picture
// (~200 KB, or -size bytes): Folio alone, nginx in front of Folio sending the bytes Folio
// sends it (offload off), nginx in front of Folio answering with
// X-Accel-Redirect (storage.local.accel_redirect, offload on), the same
// with Folio on a Unix socket, and nginx sending the file alone, the
// limit. The sides run in turn in each round; the table shows the medians
// and each one's ratio to the limit, in requests a second and in requests
// per CPU-second of the servers, and the CPU time of servers and client
// together per request (docs/operating.md#what-offload-costs-against-folio-alone).
func accelBench(args []string) error {
	fs := flag.NewFlagSet("accel", flag.ExitOnError)
	bin := fs.String("folio", "", "folio binary (default: built from ./cmd/folio into the work folder)")
	rounds, loadGen := loadFlags(fs)
	keep := fs.Bool("keep", false, "keep the work folder (data, logs, nginx configuration)")
	size := fs.Int("size", 200_000, "bytes of the picture, about; above 512 KiB Folio alone sends it from disk, not from its memory cache")
	fs.Parse(args)
	gen, err := loadGen()
	if err != nil {
		return err
	}
	if *size < 100_000 || *size > 100<<20 {
		return errors.New("-size must be between 100000 and 104857600 bytes")
	}
	nginxBin, err := exec.LookPath("nginx")
	if err != nil {
		return errors.New("nginx is not on PATH (Debian package nginx): the benchmark compares with it")
	}
	location, err := accelLocation("docs/operating.md")
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "folio-accel-")
	if err != nil {
		return err
	}
	if *keep {
		defer fmt.Printf("work folder kept: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	if *bin, err = buildFolio(*bin, work); err != nil {
		return err
	}

	// Three sites with the same picture: one sends the bytes, two hand
	// them to nginx, over TCP and over a Unix socket
	// (docs/operating.md#a-unix-socket).
	var sites [3]struct {
		p    *folioProcess
		dir  string
		path string // the short link
	}
	var picture []byte
	for i, accel := range []string{"", "/_folio_files/", "/_folio_files/"} {
		dir := filepath.Join(work, fmt.Sprintf("site%d", i))
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
		p, err := startFolioWith(*bin, dir, "", filepath.Join(dir, "folio.log"), func(string) string {
			return fmt.Sprintf("storage.local.accel_redirect = %s\n", accel)
		})
		if err != nil {
			return err
		}
		defer p.stop()
		path, b, err := seedAccel(p.base, *size)
		if err != nil {
			return err
		}
		if i == 2 {
			p.stop()
			if p, err = restartOnSocket(*bin, dir, filepath.Join(work, "folio.sock")); err != nil {
				return err
			}
			defer p.stop()
		}
		sites[i].p, sites[i].dir, sites[i].path = p, dir, path
		picture = b
	}
	locationOf := func(site int) string {
		return strings.Replace(location, "alias /var/lib/folio/files/;", "alias "+filepath.Join(sites[site].dir, "files")+"/;", 1)
	}
	ngx, err := startAccelNginx(nginxBin, filepath.Join(work, "nginx"), []accelUpstream{
		{sites[0].p.base, ""}, {sites[1].p.base, locationOf(1)}, {sites[2].p.base, locationOf(2)}}, picture)
	if err != nil {
		return err
	}
	defer ngx.stop()

	type accelSide struct {
		label string
		url   string
		pid   int // the Folio process the run waits to settle
		side
		cpu []runCPU
	}
	pid := func(site int) int { return sites[site].p.cmd.Process.Pid }
	sides := []*accelSide{
		{label: "a. Folio alone", url: sites[0].p.base + sites[0].path, pid: pid(0)},
		{label: "b. nginx → Folio, offload off", url: ngx.bases[0] + sites[0].path, pid: pid(0)},
		{label: "c. nginx → Folio, offload on", url: ngx.bases[1] + sites[1].path, pid: pid(1)},
		{label: "d. the same over a Unix socket", url: ngx.bases[2] + sites[2].path, pid: pid(2)},
		{label: "e. nginx alone (the limit)", url: ngx.bases[3] + "/picture", pid: pid(1)},
	}
	for _, s := range sides {
		b, _, err := fetch(s.url)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		if string(b) != string(picture) {
			return fmt.Errorf("%s: %d bytes, not the picture's %d", s.label, len(b), len(picture))
		}
	}

	fmt.Printf("folio-bench accel: one %d-byte short link, %s, %d round(s), medians\n", len(picture), gen, *rounds)
	var failures []string
	for round := 1; round <= *rounds; round++ {
		for _, s := range sides {
			busy := settle(s.pid)
			if err := warmUp(s.url); err != nil {
				return fmt.Errorf("%s: %w", s.label, err)
			}
			folios := []int{pid(0), pid(1), pid(2)}
			before := takeCPU(folios, ngx.cmd.Process.Pid)
			r, err := gen.run(s.url)
			if err != nil {
				return err
			}
			c := takeCPU(folios, ngx.cmd.Process.Pid).since(before, r.requests)
			s.runs, s.cpu = append(s.runs, r), append(s.cpu, c)
			fmt.Printf("round %d/%d  %-30s %12s req/s  p99 %-10s CPU µs a request: folio %4.0f, nginx %4.0f, client %4.0f (CPUs %2.0f%% busy just before)\n",
				round, *rounds, s.label, thousands(r.perSecond), p99String(r.p99), us(c.folio), us(c.nginx), us(c.client), 100*busy)
			if f := r.failed(); f != "" {
				failures = append(failures, fmt.Sprintf("round %d, %s: %s", round, s.label, f))
			}
		}
	}
	limit, _, _ := sides[4].median()
	fmt.Println()
	fmt.Printf("Command: `go run ./cmd/folio-bench accel %s`  \n", strings.Join(args, " "))
	fmt.Printf("Load: %s; %d round(s), the %d sides in turn in each; medians of the rounds.  \n", gen, *rounds, len(sides))
	fmt.Printf("Machine: %d CPUs, %s; %s.\n\n", runtime.NumCPU(), runtime.Version(), nginxVersion(nginxBin))
	fmt.Println("CPU: user and system time of the Folio processes, of nginx's master and workers and of the load generator")
	fmt.Println("over each run (/proc/PID/stat, getrusage of the waited load generator), per request answered; the")
	fmt.Println("servers' requests per CPU-second are those of Folio and nginx together, the measure when the machine is busy.")
	fmt.Println()
	fmt.Println("| side | req/s | p99 | of nginx alone | Folio µs/req | nginx µs/req | client µs/req | all µs/req | req per server CPU-s | of nginx alone |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	perCPU := make([]float64, len(sides))
	all := make([]time.Duration, len(sides))
	for i, s := range sides {
		c := medianCPU(s.cpu)
		if srv := c.folio + c.nginx; srv > 0 {
			perCPU[i] = float64(time.Second) / float64(srv)
		}
		// Over loopback the kernel's work for a response is shared between
		// sender and receiver as their timing falls, not as each caused it:
		// the servers' sum can drop while the client's grows. All three
		// together are the machine's cost of a request.
		all[i] = c.folio + c.nginx + c.client
	}
	for i, s := range sides {
		rate, p99, _ := s.median()
		c := medianCPU(s.cpu)
		fmt.Printf("| %s | %s | %s | %.2f | %.0f | %.0f | %.0f | %.0f | %s | %.2f |\n", s.label, thousands(rate), p99String(p99),
			rate/limit, us(c.folio), us(c.nginx), us(c.client), us(all[i]), thousands(perCPU[i]), perCPU[i]/perCPU[4])
	}
	alone, _, _ := sides[0].median()
	off, _, _ := sides[1].median()
	for _, i := range []int{2, 3} {
		on, _, _ := sides[i].median()
		fmt.Printf("\n%s: on / off %.2f, on / Folio alone %.2f, on / nginx alone %.2f (req/s); ", sides[i].label, on/off, on/alone, on/limit)
		fmt.Printf("on / off %.2f, on / Folio alone %.2f, on / nginx alone %.2f (req per server CPU-second); ",
			perCPU[i]/perCPU[1], perCPU[i]/perCPU[0], perCPU[i]/perCPU[4])
		fmt.Printf("on / off %.2f, on / Folio alone %.2f (req per CPU-second of servers and client).\n",
			float64(all[1])/float64(all[i]), float64(all[0])/float64(all[i]))
	}
	if len(failures) > 0 {
		fmt.Println("\nRuns with errors (their numbers are not a benchmark):")
		for _, f := range failures {
			fmt.Println("  " + f)
		}
		return fmt.Errorf("%d run(s) had non-2xx responses or socket errors", len(failures))
	}
	return nil
}

// seedAccel logs in as the administrator and uploads one picture of about
// size bytes, returning its short link and bytes.
func seedAccel(base string, size int) (string, []byte, error) {
	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/auth/login", "", "application/json",
		strings.NewReader(`{"username":"admin","password":"`+benchPassword+`"}`), &login); err != nil {
		return "", nil, fmt.Errorf("log in: %w", err)
	}
	var up struct {
		Data struct {
			Links struct {
				URL string `json:"url"`
			} `json:"links"`
		} `json:"data"`
	}
	picture := noisyPNG(size)
	ct, body := uploadBody(picture, "1")
	if err := call("POST", base+"/api/v1/upload", login.Data.AccessToken, ct, body, &up); err != nil {
		return "", nil, fmt.Errorf("upload: %w", err)
	}
	return pathOf(up.Data.Links.URL), picture, nil
}

// accelLocation is the nginx block of docs/operating.md's "nginx sends
// the files", which the benchmark runs as documented.
func accelLocation(doc string) (string, error) {
	raw, err := os.ReadFile(doc)
	if err != nil {
		return "", fmt.Errorf("%v (run from the repository's root)", err)
	}
	_, sec, ok := strings.Cut(string(raw), "\n### nginx sends the files\n")
	if !ok {
		return "", fmt.Errorf("%s has no section \"nginx sends the files\"", doc)
	}
	_, block, ok := strings.Cut(sec, "```nginx\n")
	if !ok {
		return "", fmt.Errorf("%s: the section has no nginx block", doc)
	}
	block, _, _ = strings.Cut(block, "```")
	if strings.Count(block, "alias /var/lib/folio/files/;") != 1 {
		return "", fmt.Errorf("%s: the nginx block does not say alias /var/lib/folio/files/; once", doc)
	}
	return block, nil
}

// accelUpstream is a Folio nginx proxies to: its address, host:port or
// unix:PATH, and the internal location of its files ("": no offload).
type accelUpstream struct {
	addr, location string
}

// accelNginx is nginx with a server in front of each upstream and one
// sending a copy of the picture, the last of bases.
type accelNginx struct {
	cmd   *exec.Cmd
	bases []string
	done  chan struct{}
}

// startAccelNginx starts nginx in the foreground under dir, tuned as
// startNginx's (two workers, sendfile, long keep-alive), with keep-alive
// connections to the upstreams.
func startAccelNginx(bin, dir string, ups []accelUpstream, picture []byte) (*accelNginx, error) {
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o750); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(www, "picture"), picture, 0o640); err != nil {
		return nil, err
	}
	n := &accelNginx{done: make(chan struct{})}
	listen := make([]string, len(ups)+1)
	for i := range listen {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listen[i] = ln.Addr().String()
		ln.Close()
		n.bases = append(n.bases, "http://"+listen[i])
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // else workers run as nobody, who cannot read the work folder
	}
	var servers strings.Builder
	for i, up := range ups {
		fmt.Fprintf(&servers, `	upstream folio%d { server %s; keepalive 32; }
	server {
		listen %s;
		location / {
			proxy_pass http://folio%d;
			proxy_http_version 1.1;
			proxy_set_header Host $http_host;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_set_header Connection "";
		}
%s
	}
`, i, strings.TrimPrefix(up.addr, "http://"), listen[i], i, up.location)
	}
	conf := fmt.Sprintf(`# written by folio-bench accel
%sworker_processes 2;
pid %q;
error_log %q;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	client_body_temp_path %q;
	proxy_temp_path %q;
%s
	server {
		listen %s;
		root %q;
		location = /picture { default_type image/png; }
	}
}
`, user, filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"), filepath.Join(dir, "body"), filepath.Join(dir, "proxy"),
		servers.String(), listen[len(ups)], www)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o640); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "nginx.out"))
	if err != nil {
		return nil, err
	}
	n.cmd = exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", confPath, "-g", "daemon off;")
	n.cmd.Stdout, n.cmd.Stderr = logFile, logFile
	if err := n.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { n.cmd.Wait(); logFile.Close(); close(n.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-n.done:
			out, _ := os.ReadFile(logFile.Name())
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx exited at start-up: %s%s", out, errLog)
		default:
		}
		if _, _, err := fetch(n.bases[len(ups)] + "/picture"); err == nil {
			return n, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.stop()
	return nil, errors.New("nginx did not answer within 10 s")
}

func (n *accelNginx) stop() { stopProcess(n.cmd, n.done, syscall.SIGQUIT, 10*time.Second) }

// cpuSample is the CPU time used so far by the Folio processes, by nginx
// (its master and workers) and by the load generator.
type cpuSample struct{ folio, nginx, client time.Duration }

// runCPU is a run's CPU time per request answered.
type runCPU cpuSample

// takeCPU samples the CPU time of folios, of nginx's master and its
// children, and of this process's waited children (wrk, once a run has
// ended) and itself (the built-in generator).
func takeCPU(folios []int, nginxMaster int) cpuSample {
	var c cpuSample
	for _, pid := range folios {
		c.folio += cpuTime(pid)
	}
	c.nginx = cpuTime(nginxMaster)
	for _, pid := range childrenOf(nginxMaster) {
		c.nginx += cpuTime(pid)
	}
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			c.client += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return c
}

// since is the CPU time per request of n requests answered between
// before and c.
func (c cpuSample) since(before cpuSample, n int) runCPU {
	if n <= 0 {
		return runCPU{}
	}
	d := time.Duration(n)
	return runCPU{folio: (c.folio - before.folio) / d, nginx: (c.nginx - before.nginx) / d, client: (c.client - before.client) / d}
}

// medianCPU is the median of each process's CPU time per request.
func medianCPU(runs []runCPU) runCPU {
	med := func(f func(runCPU) time.Duration) time.Duration {
		v := make([]time.Duration, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v) == 0 {
			return 0
		}
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return runCPU{folio: med(func(r runCPU) time.Duration { return r.folio }),
		nginx:  med(func(r runCPU) time.Duration { return r.nginx }),
		client: med(func(r runCPU) time.Duration { return r.client })}
}

// childrenOf lists the processes whose parent is pid, from /proc/*/stat.
func childrenOf(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, child)
		}
	}
	return kids
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// restartOnSocket starts Folio again on the site in dir, as configured
// but listening on the Unix socket sock, and waits for it to answer there.
func restartOnSocket(bin, dir, sock string) (*folioProcess, error) {
	confPath := filepath.Join(dir, "folio.conf")
	raw, err := os.ReadFile(confPath)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "server.addr = ") {
			lines[i] = "server.addr = unix:" + sock
		}
	}
	if err := os.WriteFile(confPath, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "folio.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "-config", confPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &folioProcess{cmd: cmd, base: "unix:" + sock, done: make(chan struct{})}
	go func() { cmd.Wait(); logFile.Close(); close(p.done) }()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-p.done:
			log, _ := os.ReadFile(filepath.Join(dir, "folio.log"))
			return nil, fmt.Errorf("folio exited at start-up on %s: %s", sock, log)
		default:
		}
		if res, err := client.Get("http://folio/api/v1/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
	p.stop()
	return nil, fmt.Errorf("folio did not answer on %s within 60 s", sock)
}
