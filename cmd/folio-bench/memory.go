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
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// memoryBench is `folio-bench memory`: it starts a real folio process,
// seeds a site, measures its idle resident memory, puts it under a mixed
// load of many clients, and measures again at the peak and while it idles
// afterwards (docs/design.md, Memory).
func memoryBench(args []string) error {
	fs := flag.NewFlagSet("memory", flag.ExitOnError)
	bin := fs.String("folio", "", "folio binary (default: built from ./cmd/folio into the work folder)")
	clients := fs.Int("clients", 500, "concurrent clients")
	duration := fs.Duration("duration", 60*time.Second, "length of the load")
	idle := fs.Duration("idle", 60*time.Second, "how long to watch the idle process after the load")
	dsn := fs.String("postgres", "", "PostgreSQL DSN of an empty database (default: a SQLite file)")
	posts := fs.Int("posts", 200, "posts to seed")
	logPath := fs.String("log", "", "keep the server's log in this file")
	breakdown := fs.Bool("breakdown", false, "turn the server's metrics listener on and print where its memory goes at each idle sample (the listener costs some memory itself)")
	fs.Parse(args)

	dir, err := os.MkdirTemp("", "folio-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if *bin, err = buildFolio(*bin, dir); err != nil {
		return err
	}
	if *logPath == "" {
		*logPath = filepath.Join(dir, "folio.log")
	}
	var metricsAddr string
	var extra func(string) string
	if *breakdown {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		metricsAddr = ln.Addr().String()
		ln.Close()
		extra = func(string) string { return "metrics.addr = " + metricsAddr + "\n" }
	}
	p, err := startFolioWith(*bin, dir, *dsn, *logPath, extra)
	if err != nil {
		return err
	}
	defer p.stop()

	s, err := seed(p.base, *posts)
	if err != nil {
		return err
	}
	// Let start-up work (the janitor's first pass, the seeding's garbage)
	// settle before the baseline is read.
	time.Sleep(15 * time.Second)
	before := p.memory()
	fmt.Printf("driver: %s, clients: %d, load: %s\n", map[bool]string{true: "postgres", false: "sqlite"}[*dsn != ""], *clients, *duration)
	fmt.Printf("idle RSS before the load: %s\n", before)

	var peak atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				if r := p.rss(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	res := s.load(p.base, *clients, *duration)
	close(stopSampling)
	<-sampled
	res.print()
	fmt.Printf("peak RSS during the load: %s\n", mib(peak.Load()))

	start := time.Now()
	for _, at := range []time.Duration{5 * time.Second, 15 * time.Second, 30 * time.Second, 45 * time.Second, 60 * time.Second, 90 * time.Second, 120 * time.Second} {
		if at > *idle {
			break
		}
		time.Sleep(time.Until(start.Add(at)))
		fmt.Printf("RSS %3.0f s after the load: %s\n", at.Seconds(), p.memory())
		if *breakdown {
			fmt.Printf("  %s\n  %s\n", p.mappings(), goMemory(metricsAddr))
		}
	}
	return nil
}

// mappings sums the resident memory of the process's mappings by kind:
// the program file, other files (shared libraries), the brk heap (C
// allocations), thread stacks and anonymous mappings (the Go heap and
// stacks, and the C heap's other arenas).
func (p *folioProcess) mappings() string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", p.cmd.Process.Pid))
	if err != nil {
		return err.Error()
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.cmd.Process.Pid))
	sums := map[string]int64{}
	kind := ""
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			switch name := strings.Join(f[5:], " "); {
			case name == exe:
				kind = "program"
			case name == "[heap]":
				kind = "brk heap"
			case strings.HasPrefix(name, "[stack"):
				kind = "stack"
			case name == "":
				kind = "anonymous"
			case strings.HasPrefix(name, "["):
				kind = "kernel"
			default:
				kind = "other files"
			}
			continue
		}
		if len(f) >= 2 && f[0] == "Rss:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			sums[kind] += kb << 10
		}
	}
	var out []string
	for _, k := range []string{"program", "other files", "brk heap", "anonymous", "stack", "kernel"} {
		out = append(out, k+" "+mib(sums[k]))
	}
	return "mappings: " + strings.Join(out, ", ")
}

// goMemory reads the Go runtime's view from the server's /metrics.
func goMemory(addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		for _, name := range []string{"go_memory_total_bytes", "go_memory_heap_objects_bytes", "go_goroutines", "folio_db_open_connections", "folio_db_idle_connections"} {
			if v, ok := strings.CutPrefix(line, name); ok && (v[0] == ' ' || v[0] == '{') {
				if strings.HasSuffix(name, "bytes") {
					n, _ := strconv.ParseFloat(strings.Fields(v)[len(strings.Fields(v))-1], 64)
					out = append(out, name+" "+mib(int64(n)))
				} else {
					out = append(out, strings.TrimSpace(line))
				}
			}
		}
	}
	return "runtime: " + strings.Join(out, ", ")
}

// folioProcess is a running folio server.
type folioProcess struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

func startFolio(bin, dir, dsn, logPath string) (*folioProcess, error) {
	return startFolioWith(bin, dir, dsn, logPath, nil)
}

// startFolioWith is startFolio with more configuration lines, made from
// the address the server will listen on (a site URL needs it).
func startFolioWith(bin, dir, dsn, logPath string, extra func(addr string) string) (*folioProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	hash, err := bcrypt.GenerateFromPassword([]byte(benchPassword), bcrypt.MinCost)
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("server.addr = %s\nstorage.dir = %q\nadmin.password_hash = %q\nlog.level = warn\n",
		addr, filepath.Join(dir, "files"), hash)
	if dsn != "" {
		conf += fmt.Sprintf("database.driver = postgres\ndatabase.dsn = %q\n", dsn)
	} else {
		conf += fmt.Sprintf("database.driver = sqlite\ndatabase.dsn = %q\n", filepath.Join(dir, "folio.db"))
	}
	if extra != nil {
		conf += extra(addr)
	}
	confPath := filepath.Join(dir, "folio.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "-config", confPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &folioProcess{cmd: cmd, base: "http://" + addr, done: make(chan struct{})}
	go func() { cmd.Wait(); logFile.Close(); close(p.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			log, _ := os.ReadFile(logFile.Name())
			return nil, fmt.Errorf("folio exited at start-up: %s", log)
		default:
		}
		if resp, err := http.Get(p.base + "/api/v1/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.stop()
	return nil, errors.New("folio did not answer within 60 s")
}

func (p *folioProcess) stop() { stopProcess(p.cmd, p.done, os.Interrupt, 35*time.Second) }

// stopProcess asks cmd to finish with sig and kills it when it has not
// within grace; done closes when it has exited.
func stopProcess(cmd *exec.Cmd, done <-chan struct{}, sig os.Signal, grace time.Duration) {
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}

// rss is the process's resident memory in bytes (VmRSS), 0 if unknown.
func (p *folioProcess) rss() int64 {
	return procField(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmRSS:")
}

// memory describes the resident memory: its total, the anonymous part
// (heaps, stacks) and the part mapped from files (the binary's pages
// touched so far, which the kernel may drop at will).
func (p *folioProcess) memory() string {
	rollup := fmt.Sprintf("/proc/%d/smaps_rollup", p.cmd.Process.Pid)
	return fmt.Sprintf("%s (anonymous %s, file %s)", mib(p.rss()),
		mib(procField(rollup, "Anonymous:")), mib(procField(rollup, "Pss_File:")))
}

// procField reads a "Name:   123 kB" line of a /proc file, in bytes.
func procField(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

const benchPassword = "bench password"

// seeded is what the load asks for.
type seeded struct {
	token  string   // the administrator's access token
	slugs  []string // published posts
	images []string // short-link paths of public images
	thumbs []string
}

func seed(base string, posts int) (*seeded, error) {
	s := &seeded{}
	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/auth/login", "", "application/json",
		strings.NewReader(`{"username":"admin","password":"`+benchPassword+`"}`), &login); err != nil {
		return nil, fmt.Errorf("log in: %w", err)
	}
	s.token = login.Data.AccessToken
	var body strings.Builder
	for i := range 40 {
		fmt.Fprintf(&body, "## Part %d\n\nSome *text* with a [link](https://example.org/%d) and `code`.\n\n| a | b |\n|---|---|\n| %d | x |\n\n", i, i, i)
	}
	for i := range posts {
		post, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Post number %d", i), "status": "published",
			"content_markdown": body.String()})
		var created struct {
			Data struct {
				Slug string `json:"slug"`
			} `json:"data"`
		}
		if err := call("POST", base+"/api/v1/admin/posts", s.token, "application/json", bytes.NewReader(post), &created); err != nil {
			return nil, fmt.Errorf("create a post: %w", err)
		}
		s.slugs = append(s.slugs, created.Data.Slug)
	}
	for i := range 20 {
		var up struct {
			Data struct {
				Links struct {
					URL          string `json:"url"`
					ThumbnailURL string `json:"thumbnail_url"`
				} `json:"links"`
			} `json:"data"`
		}
		ct, body := uploadBody(pngOf(i, 640, 480), "1")
		if err := call("POST", base+"/api/v1/upload", s.token, ct, body, &up); err != nil {
			return nil, fmt.Errorf("upload: %w", err)
		}
		s.images = append(s.images, pathOf(up.Data.Links.URL))
		s.thumbs = append(s.thumbs, pathOf(up.Data.Links.ThumbnailURL))
	}
	return s, nil
}

func pathOf(u string) string {
	if i := strings.Index(u, "//"); i >= 0 {
		if j := strings.Index(u[i+2:], "/"); j >= 0 {
			return u[i+2+j:]
		}
	}
	return u
}

// call sends a request and decodes a 2xx JSON answer into out.
func call(method, url, token, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}

func pngOf(seed, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x + seed), uint8(y * seed), uint8(r.IntN(256)), 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func uploadBody(file []byte, permission string) (string, io.Reader) {
	return uploadForm(file, "image.png", permission)
}

func uploadForm(file []byte, name, permission string) (string, io.Reader) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("permission", permission)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(file)
	mw.Close()
	return mw.FormDataContentType(), &b
}

// loadResult counts answers by kind of request.
type loadResult struct {
	mu       sync.Mutex
	kinds    map[string]*kindResult
	duration time.Duration
}

type kindResult struct {
	n, errs, fivexx int
	latencies       []time.Duration
}

func (r *loadResult) add(kind string, status int, err error, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kinds[kind]
	if k == nil {
		k = &kindResult{}
		r.kinds[kind] = k
	}
	k.n++
	switch {
	case err != nil:
		k.errs++
	case status >= 500:
		k.fivexx++
	}
	k.latencies = append(k.latencies, d)
}

func (r *loadResult) print() {
	names := make([]string, 0, len(r.kinds))
	total := 0
	for name, k := range r.kinds {
		names = append(names, name)
		total += k.n
	}
	slices.Sort(names)
	fmt.Printf("%d requests in %s (%.0f req/s)\n", total, r.duration.Round(time.Millisecond), float64(total)/r.duration.Seconds())
	for _, name := range names {
		k := r.kinds[name]
		slices.Sort(k.latencies)
		q := func(f float64) time.Duration {
			return k.latencies[int(f*float64(len(k.latencies)-1))].Round(time.Microsecond)
		}
		fmt.Printf("  %-10s %7d  errors %d  5xx %d  median %s  p99 %s\n", name, k.n, k.errs, k.fivexx, q(0.5), q(0.99))
	}
}

// load runs clients goroutines for d, each repeating a mix of what
// visitors and uploaders ask for.
func (s *seeded) load(base string, clients int, d time.Duration) *loadResult {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	res := &loadResult{kinds: map[string]*kindResult{}}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 1))
			for ctx.Err() == nil {
				kind, req := s.request(base, r, c)
				t0 := time.Now()
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				res.add(kind, status, err, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	res.duration = time.Since(start)
	return res
}

func (s *seeded) request(base string, r *rand.Rand, client int) (string, *http.Request) {
	get := func(kind, path string) (string, *http.Request) {
		req, _ := http.NewRequest("GET", base+path, nil)
		return kind, req
	}
	switch n := r.IntN(100); {
	case n < 35:
		return get("home", "/")
	case n < 50:
		return get("post", "/posts/"+s.slugs[r.IntN(len(s.slugs))])
	case n < 60:
		return get("list", "/?page="+strconv.Itoa(1+r.IntN(max(1, len(s.slugs)/10))))
	case n < 70:
		return get("api", "/api/v1/posts?page="+strconv.Itoa(1+r.IntN(5)))
	case n < 85:
		return get("image", s.images[r.IntN(len(s.images))])
	case n < 95:
		return get("thumbnail", s.thumbs[r.IntN(len(s.thumbs))])
	default:
		// A small image, new each time, so uploads write rows and files.
		ct, body := uploadBody(pngOf(client*1_000_000+r.IntN(1_000_000), 32, 32), "0")
		req, _ := http.NewRequest("POST", base+"/api/v1/upload", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+s.token)
		return "upload", req
	}
}
