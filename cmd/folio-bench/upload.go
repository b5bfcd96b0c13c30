package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// uploadBench is `folio-bench upload`: many small uploads at once through
// POST /api/v1/upload of a real folio process, against a plain net/http
// handler in a process of its own that writes each file and fsyncs it and
// its folder, as Folio does (docs/filehost.md#crash-consistency). Rounds
// alternate between the two; the medians and their ratio are printed.
//
//	go run ./cmd/folio-bench upload -size 10k -clients 64 -count 640 -rounds 3 -db sqlite
func uploadBench(args []string) error {
	fs := flag.NewFlagSet("upload", flag.ExitOnError)
	bin := fs.String("folio", "", "folio binary (default: built from ./cmd/folio into the work folder)")
	sizeFlag := fs.String("size", "10k", "size of each file (bytes, or with k or m)")
	clients := fs.Int("clients", 64, "concurrent clients")
	count := fs.Int("count", 640, "uploads a round, for each server")
	rounds := fs.Int("rounds", 3, "rounds; each round measures both servers, in alternating order")
	dedup := fs.Bool("dedup", false, "upload the same 8 contents over and over (de-duplication hits) instead of fresh random bytes")
	dbKind := fs.String("db", "sqlite", "sqlite or postgres")
	dsn := fs.String("dsn", os.Getenv("FOLIO_TEST_POSTGRES_DSN"), "with -db postgres: a postgres:// URL of the server; the benchmark creates a fresh database there and drops it afterwards (default: $FOLIO_TEST_POSTGRES_DSN)")
	logPath := fs.String("log", "", "keep the server's log in this file")
	fs.Parse(args)
	size, err := parseBytes(*sizeFlag)
	switch {
	case err != nil || size < 1:
		return fmt.Errorf("-size %q: want a positive size such as 10k", *sizeFlag)
	case *clients < 1 || *count < 1 || *rounds < 1:
		return errors.New("-clients, -count and -rounds must be at least 1")
	}
	fresh, drop, err := benchDatabase(*dbKind, *dsn)
	if err != nil {
		return err
	}
	defer drop()
	*dsn = fresh

	dir, err := os.MkdirTemp("", "folio-upload-")
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
	p, err := startFolio(*bin, dir, *dsn, *logPath)
	if err != nil {
		return err
	}
	defer p.stop()
	token, err := logIn(p.base)
	if err != nil {
		return err
	}
	ref, err := startUploadRef(filepath.Join(dir, "ref"))
	if err != nil {
		return err
	}
	defer ref.stop()
	fmt.Printf("folio pid %d, reference pid %d\n", p.cmd.Process.Pid, ref.cmd.Process.Pid)

	transport := &http.Transport{MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 2 * time.Minute}
	targets := []uploadTarget{
		{name: "folio", url: p.base + "/api/v1/upload", token: token, pid: p.cmd.Process.Pid},
		{name: "plain write+fsync", url: ref.base + "/upload", pid: ref.cmd.Process.Pid},
	}
	var dedupFiles [][]byte
	if *dedup {
		dedupFiles = make([][]byte, 8)
		for i := range dedupFiles {
			dedupFiles[i] = randomBytes(size)
		}
	}
	files := func() [][]byte {
		out := make([][]byte, *count)
		for i := range out {
			if dedupFiles != nil {
				out[i] = dedupFiles[i%len(dedupFiles)]
			} else {
				out[i] = randomBytes(size)
			}
		}
		return out
	}
	// Warm up: connections, the database's caches, the page cache.
	for _, t := range targets {
		if _, err := t.run(client, files()[:min(*count, 2**clients)], *clients); err != nil {
			return fmt.Errorf("%s: warm-up: %w", t.name, err)
		}
	}
	results := make([][]uploadRound, len(targets))
	for r := range *rounds {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			res, err := targets[i].run(client, files(), *clients)
			if err != nil {
				return fmt.Errorf("%s: round %d: %w", targets[i].name, r+1, err)
			}
			results[i] = append(results[i], res)
			fmt.Printf("round %d  %-18s %8.0f uploads/s  p50 %6.1f ms  p99 %6.1f ms  server CPU %.2f ms an upload\n", r+1, targets[i].name, res.rate, ms(res.p50), ms(res.p99), ms(res.cpu))
		}
	}
	mode := "distinct random bytes"
	if *dedup {
		mode = "8 contents repeated (de-duplication)"
	}
	fmt.Printf("\n%d uploads of %s, %d at a time, %s, %s, median of %d rounds\n\n", *count, *sizeFlag, *clients, *dbKind, mode, *rounds)
	fmt.Println("| server | uploads/s | p50 ms | p99 ms | server CPU ms an upload |")
	fmt.Println("|---|---:|---:|---:|---:|")
	var rates []float64
	for i, t := range targets {
		m := medianRound(results[i])
		rates = append(rates, m.rate)
		fmt.Printf("| %s | %.0f | %.1f | %.1f | %.2f |\n", t.name, m.rate, ms(m.p50), ms(m.p99), ms(m.cpu))
	}
	fmt.Printf("\nratio folio / plain write+fsync: %.2f\n", rates[0]/rates[1])
	return nil
}

// logIn gets the administrator's access token.
func logIn(base string) (string, error) {
	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	if err := call("POST", base+"/api/v1/auth/login", "", "application/json",
		strings.NewReader(`{"username":"admin","password":"`+benchPassword+`"}`), &login); err != nil {
		return "", fmt.Errorf("log in: %w", err)
	}
	return login.Data.AccessToken, nil
}

// parseBytes reads 10240, 10k or 1m.
func parseBytes(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(strings.ToLower(s), "k"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(strings.ToLower(s), "m"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	return n * mult, err
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// cpuTime is the user and system CPU time of process pid so far (0 when
// unknown), from /proc/<pid>/stat in clock ticks of 10 ms.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// uploadTarget is a server to upload to.
type uploadTarget struct {
	name, url, token string
	pid              int // the server's process, whose CPU time is read
}

// uploadRound is one round's throughput and latencies.
type uploadRound struct {
	rate     float64 // uploads a second
	p50, p99 time.Duration
	cpu      time.Duration // the server's CPU time (user and system) an upload
}

// medianRound takes each figure's median over the rounds.
func medianRound(rs []uploadRound) uploadRound {
	med := func(get func(uploadRound) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return uploadRound{
		rate: med(func(r uploadRound) float64 { return r.rate }),
		p50:  time.Duration(med(func(r uploadRound) float64 { return float64(r.p50) })),
		p99:  time.Duration(med(func(r uploadRound) float64 { return float64(r.p99) })),
		cpu:  time.Duration(med(func(r uploadRound) float64 { return float64(r.cpu) })),
	}
}

// run uploads every file, clients at a time; any answer but a 2xx with
// "status":true fails the round.
func (t uploadTarget) run(client *http.Client, files [][]byte, clients int) (uploadRound, error) {
	type body struct {
		contentType string
		b           []byte
	}
	bodies := make([]body, len(files))
	for i, f := range files {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", fmt.Sprintf("upload-%d.bin", i))
		fw.Write(f)
		mw.Close()
		bodies[i] = body{mw.FormDataContentType(), b.Bytes()}
	}
	lat := make([]time.Duration, len(files))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	cpu0 := cpuTime(t.pid)
	start := time.Now()
	for range min(clients, len(files)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				t0 := time.Now()
				err := t.post(client, bodies[i].contentType, bodies[i].b)
				lat[i] = time.Since(t0)
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime(t.pid) - cpu0
	if firstErr != nil {
		return uploadRound{}, firstErr
	}
	slices.Sort(lat)
	return uploadRound{rate: float64(len(files)) / elapsed.Seconds(),
		p50: lat[len(lat)/2], p99: lat[min(len(lat)-1, len(lat)*99/100)], cpu: cpu / time.Duration(len(files))}, nil
}

func (t uploadTarget) post(client *http.Client, contentType string, b []byte) error {
	req, err := http.NewRequest("POST", t.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 || !bytes.Contains(out, []byte(`"status":true`)) {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, out)
	}
	return nil
}

// startUploadRef starts `folio-bench upload-ref` writing into dir.
func startUploadRef(dir string) (*selfProcess, error) {
	return startSelf("upload-ref", "-dir", dir)
}

// uploadRef is the hidden subcommand `upload-ref`: a plain net/http server
// on loopback whose POST /upload reads a multipart body, writes the file
// part to a new file in -dir, fsyncs the file and then the folder (so the
// new name is durable too, as Folio's local store does), and answers a
// small JSON. It prints its address on the first line of stdout.
func uploadRef(args []string) error {
	fs := flag.NewFlagSet("upload-ref", flag.ExitOnError)
	dir := fs.String("dir", "", "folder to write into")
	fs.Parse(args)
	if err := os.MkdirAll(*dir, 0o750); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		name, size, err := refSave(r, *dir)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"status": false, "message": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"status": true, "message": "ok", "data": map[string]any{"name": name, "size": size}})
	})
	return (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

func refSave(r *http.Request, dir string) (string, int64, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", 0, err
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return "", 0, fmt.Errorf("no file part: %w", err)
		}
		if p.FormName() != "file" {
			continue
		}
		f, err := os.CreateTemp(dir, "up-*")
		if err != nil {
			return "", 0, err
		}
		n, err := io.Copy(f, p)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			syncDir(dir)
		}
		if err != nil {
			os.Remove(f.Name())
			return "", 0, err
		}
		return filepath.Base(f.Name()), n, nil
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
