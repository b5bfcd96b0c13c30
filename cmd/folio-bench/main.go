// Command folio-bench measures Folio.
//
// With no subcommand it measures the upload path: it uploads one large file
// through the real file-host handler over loopback HTTP and compares the
// throughput with md5sum reading the same file, then reports the process's
// peak resident memory (VmHWM).
//
//	go run ./cmd/folio-bench -size 256
//
// `memory` starts a real folio process, puts it under a mixed load of many
// clients and reports its resident memory before, at the peak of and after
// the load:
//
//	go run ./cmd/folio-bench memory -clients 500 -duration 60s
//
// `tus` uploads one large file through the resumable upload routes in
// chunks and through /api/v1/upload on the same server, and prints the
// throughput of each and their ratio:
//
//	go run ./cmd/folio-bench tus -size 256 -chunk 32
//
// `serve` starts a real folio process on a site of 100,000 posts and one
// 200 KB image, measures requests a second for the image's short link, its
// thumbnail, the cached classic home page and a middle page of the public
// post list (against the first page), and the first three against nginx
// serving the same bytes when nginx is on PATH, and all four against a
// plain net/http handler (its own process) serving the same bytes too. It uses wrk when it is on
// PATH, a built-in generator otherwise, prints a Markdown table of the
// ratios and Folio's idle memory after the load, and fails when any run
// saw a non-2xx answer or a socket error:
//
//	go run ./cmd/folio-bench serve -duration 10s -rounds 3
//
// `federation` starts a real folio process with federation on and a fleet
// of test inboxes on 1,000 loopback addresses, seeds 10,000 followers,
// publishes one post and reports the time until every inbox got it, the
// requests made (one per shared inbox), Folio's peak memory and the
// deliveries a second:
//
//	go run ./cmd/folio-bench federation -followers 10000 -hosts 1000 -db sqlite
//
// `upload` sends many small uploads at once to a real folio process and
// to a plain net/http handler that writes and fsyncs each file, and prints
// the uploads a second of each, their latencies and the ratio:
//
//	go run ./cmd/folio-bench upload -size 10k -clients 64 -count 640 -rounds 3 -db sqlite
//
// `variant` times the first request for a size of a JPEG (/i/{hash}?w=N)
// and its peak memory; scripts/bench-variants.sh compares it with
// vipsthumbnail and ImageMagick:
//
//	go run ./cmd/folio-bench variant -in /tmp/12mp.jpg -w 1280
//
// `accel` measures the ~200 KB short link four ways, in turn in each
// round: Folio alone, nginx in front with Folio sending the bytes, nginx
// in front sending them itself on Folio's X-Accel-Redirect
// (storage.local.accel_redirect, with docs/operating.md's location), and
// nginx sending the file alone; it prints the medians and their ratios to
// the last:
//
//	go run ./cmd/folio-bench accel -duration 10s -rounds 3
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/filehost"
	"folio/httpx"
	"folio/sqlstore"
	"folio/storage"
)

func main() {
	if len(os.Args) > 1 {
		sub := map[string]func([]string) error{"memory": memoryBench, "serve": serveBench, "serve-plain": servePlain, "cluster": clusterBench, "federation": federationBench, "variant": variantBench, "tus": tusBench, "accel": accelBench, "upload": uploadBench, "upload-ref": uploadRef}[os.Args[1]]
		if sub != nil {
			if err := sub(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "folio-bench:", err)
				os.Exit(1)
			}
			return
		}
	}
	sizeMiB := flag.Int("size", 256, "file size in MiB")
	dir := flag.String("dir", "", "work folder (default: a new temp folder, removed afterwards)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the upload to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "folio-bench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*sizeMiB, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "folio-bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(sizeMiB int, dir string) error {
	ctx := context.Background()
	if dir == "" {
		d, err := os.MkdirTemp("", "folio-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	src := filepath.Join(dir, "input.bin")
	if err := writeRandom(src, int64(sizeMiB)<<20); err != nil {
		return err
	}

	// md5sum, twice: the first run warms the page cache for both contenders.
	var md5Time time.Duration
	for i := 0; i < 2; i++ {
		start := time.Now()
		if out, err := exec.Command("md5sum", src).CombinedOutput(); err != nil {
			return fmt.Errorf("md5sum: %v: %s", err, out)
		}
		md5Time = time.Since(start)
	}

	base, token, stop, err := benchServer(ctx, dir, int64(sizeMiB+1)<<20)
	if err != nil {
		return err
	}
	defer stop()

	upTime, body, err := upload(base+"/api/v1/upload", token, src)
	if err != nil {
		return err
	}
	if !strings.Contains(body, `"status":true`) {
		return fmt.Errorf("upload failed: %s", body)
	}
	mb := float64(sizeMiB)
	fmt.Printf("file: %d MiB\n", sizeMiB)
	fmt.Printf("md5sum:       %7.3fs  %7.1f MiB/s\n", md5Time.Seconds(), mb/md5Time.Seconds())
	fmt.Printf("folio upload: %7.3fs  %7.1f MiB/s  (ratio %.2f of md5sum)\n", upTime.Seconds(), mb/upTime.Seconds(),
		md5Time.Seconds()/upTime.Seconds())
	fmt.Printf("peak RSS (VmHWM, client and server in this process): %s\n", vmHWM())
	return nil
}

// benchServer serves the file host on loopback over a SQLite database and
// a local store under dir, with files up to maxFileSize; it returns the
// base URL, the administrator's access token and how to stop it.
func benchServer(ctx context.Context, dir string, maxFileSize int64) (base, token string, stop func(), err error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := sqlstore.Open(ctx, "sqlite", filepath.Join(dir, "folio.db"))
	if err != nil {
		return "", "", nil, err
	}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	if err := db.MigrateCore(ctx); err != nil {
		return "", "", nil, err
	}
	set := filehost.DefaultUploadSettings()
	set.MaxFileSize = maxFileSize
	reg := sqlstore.NewRegistry()
	settings := filehost.RegisterSettings(reg, set)
	if err := reg.Open(ctx, db); err != nil {
		return "", "", nil, err
	}
	hash, _ := bcrypt.GenerateFromPassword([]byte("bench password"), bcrypt.MinCost)
	authSvc, err := auth.New(ctx, db, auth.Config{AdminEnabled: true, AdminUsername: "admin",
		AdminPasswordHash: string(hash), BcryptCost: bcrypt.MinCost, Logger: logger})
	if err != nil {
		return "", "", nil, err
	}
	store, err := storage.NewLocal(filepath.Join(dir, "files"))
	if err != nil {
		return "", "", nil, err
	}
	fh, err := filehost.New(ctx, filehost.Deps{DB: db, Auth: authSvc, Settings: settings, Store: store, Logger: logger})
	if err != nil {
		return "", "", nil, err
	}
	routes := httpx.NewRouter()
	fh.Routes(routes)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	srv := &http.Server{Handler: httpx.Chain(routes, httpx.Proxies{Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}.Middleware),
		ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	token, _ = authSvc.NewAccessToken(authSvc.AdminID())
	return "http://" + ln.Addr().String(), token, func() { srv.Close(); db.Close() }, nil
}

// upload streams a multipart body from the file with a known length, as
// PicGo and curl do.
func upload(url, token, path string) (time.Duration, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	var head strings.Builder
	mw := multipart.NewWriter(&head)
	if _, err := mw.CreateFormFile("file", "input.bin"); err != nil {
		return 0, "", err
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	body := io.MultiReader(strings.NewReader(head.String()), f, strings.NewReader(tail))
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return 0, "", err
	}
	req.ContentLength = int64(head.Len()) + st.Size() + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return time.Since(start), string(b), err
}

func writeRandom(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := io.CopyN(w, rand.Reader, size); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}
