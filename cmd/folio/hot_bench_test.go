package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// discardWriter is a ResponseWriter that keeps nothing, so that a benchmark
// measures the handler chain, not a recorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkHotPaths runs the whole handler chain, without a network, for
// the answers Folio serves from memory: a cached page, a short link and a
// thumbnail. It shows what Folio itself costs per request beside what the
// kernel and net/http cost (docs/design.md#caches-across-processes).
//
//	go test -run '^$' -bench HotPaths -benchmem ./cmd/folio/
func BenchmarkHotPaths(b *testing.B) { benchmarkHotPaths(b, nil) }

// BenchmarkHotPathsAccessLog is BenchmarkHotPaths with the server's own
// logger, the access log on (its lines written to nothing) and off
// (log.level warn): the difference is what an access log line costs.
//
//	go test -run '^$' -bench HotPathsAccessLog -benchmem ./cmd/folio/
func BenchmarkHotPathsAccessLog(b *testing.B) {
	for _, format := range []string{"text", "json"} {
		for _, level := range []string{"info", "warn"} {
			name := format + "/on"
			if level != "info" {
				name = format + "/off"
			}
			b.Run(name, func(b *testing.B) {
				cfg, err := LoadConfig("", nil, []string{"FOLIO_LOG_FORMAT=" + format, "FOLIO_LOG_LEVEL=" + level})
				if err != nil {
					b.Fatal(err)
				}
				logs := newAsyncLog(io.Discard)
				defer logs.close()
				benchmarkHotPaths(b, newLoggerAsync(cfg, logs))
			})
		}
	}
}

// BenchmarkHotPathsWithMetrics is BenchmarkHotPaths with metrics.addr on:
// the difference is what recording a request's metrics costs.
func BenchmarkHotPathsWithMetrics(b *testing.B) {
	benchmarkHotPaths(b, nil, "FOLIO_METRICS_ADDR=127.0.0.1:0")
}

// benchmarkHotPaths runs the hot paths of an app logging to logger, nil:
// to nothing through slog's text handler.
func benchmarkHotPaths(b *testing.B, logger *slog.Logger, env ...string) {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, c := newTestAppLogging(b, sqlstoretest.NewConfig(b), logger, env...)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	up := c.Upload("/api/v1/upload", "file", "a.png", testPNG(b)).Expect(200).U()
	var res struct {
		Links struct {
			URL          string `json:"url"`
			ThumbnailURL string `json:"thumbnail_url"`
		} `json:"links"`
	}
	httpxtest.Into(b, up.Data, &res)
	link := res.Links.URL[strings.Index(res.Links.URL, "/i/"):]
	thumb := res.Links.ThumbnailURL[strings.Index(res.Links.ThumbnailURL, "/t/"):]
	for _, tt := range []struct{ name, path string }{{"page", "/"}, {"shortlink", link}, {"thumbnail", thumb}} {
		path := tt.path
		b.Run(tt.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = "127.0.0.1:1234"
			w := &discardWriter{h: http.Header{}}
			a.handler.ServeHTTP(w, req) // warm the caches
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				clear(w.h)
				a.handler.ServeHTTP(w, req)
			}
			if cpu := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// connRequestContext is the context of a request on a keep-alive
// connection of serve's server, as net/http makes it: the server's
// values, the connection's client record (httpx.ConnContext), the local
// address, and the connection's and the request's cancellation.
func connRequestContext(b *testing.B) context.Context {
	ctx := context.WithValue(context.Background(), http.ServerContextKey, &http.Server{})
	ctx = httpx.ConnContext(ctx, nil)
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	ctx, cancelConn := context.WithCancel(ctx)
	b.Cleanup(cancelConn)
	ctx, cancel := context.WithCancel(ctx)
	b.Cleanup(cancel)
	return ctx
}

// headerWriter is a discardWriter that also serializes its headers at
// WriteHeader, as net/http does, so that a header more costs what it
// costs a real server.
type headerWriter struct{ discardWriter }

func (w *headerWriter) WriteHeader(int) { w.h.Write(io.Discard) }

// BenchmarkHotPathsVsPlain runs the four answers `folio-bench serve`
// measures (a short link, a thumbnail, an image size and the cached home
// page) through the whole handler chain, each beside a plain net/http
// handler behind a ServeMux that writes the same bytes with the same
// headers, made once. Folio's own cost per request is the difference of
// their cpu-ns/op (process CPU time: the machine's other load barely
// counts in it, as it does in wall-clock ns/op).
//
//	go test -run '^$' -bench HotPathsVsPlain -count 3 ./cmd/folio/
func BenchmarkHotPathsVsPlain(b *testing.B) {
	logs := newAsyncLog(io.Discard)
	defer logs.close()
	cfg, err := LoadConfig("", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	a, c := newTestAppLogging(b, sqlstoretest.NewConfig(b), newLoggerAsync(cfg, logs))
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	img := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	rand.Read(img.Pix)
	var png_ bytes.Buffer
	if err := png.Encode(&png_, img); err != nil {
		b.Fatal(err)
	}
	up := c.Upload("/api/v1/upload", "file", "a.png", png_.Bytes()).Expect(200).U()
	var res struct {
		Links struct {
			URL          string `json:"url"`
			ThumbnailURL string `json:"thumbnail_url"`
		} `json:"links"`
	}
	httpxtest.Into(b, up.Data, &res)
	// The background making of the upload's sizes would count in the
	// process's CPU time.
	waitForImageJobs(b, a.db)
	link := res.Links.URL[strings.Index(res.Links.URL, "/i/"):]
	thumb := res.Links.ThumbnailURL[strings.Index(res.Links.ThumbnailURL, "/t/"):]
	for _, tt := range []struct{ name, path string }{
		{"shortlink", link}, {"thumbnail", thumb}, {"variant", link + "?w=320"}, {"home", "/"},
	} {
		req := httptest.NewRequest("GET", tt.path, nil)
		req.RemoteAddr = "127.0.0.1:1234"
		req = req.WithContext(connRequestContext(b))
		rec := httptest.NewRecorder()
		a.handler.ServeHTTP(rec, req) // makes and caches the answer
		rec = httptest.NewRecorder()
		a.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", tt.path, rec.Code, rec.Body)
		}
		body, hdr := rec.Body.Bytes(), rec.Header().Clone()
		mux := http.NewServeMux()
		mux.HandleFunc("GET "+req.URL.Path, func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			for k, v := range hdr {
				h[k] = v
			}
			w.WriteHeader(http.StatusOK)
			w.Write(body)
		})
		for _, h := range []struct {
			name string
			h    http.Handler
		}{{"folio", a.handler}, {"plain", mux}} {
			b.Run(tt.name+"/"+h.name, func(b *testing.B) {
				w := &headerWriter{discardWriter{h: http.Header{}}}
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					clear(w.h)
					h.h.ServeHTTP(w, req)
				}
				if cpu := processCPU() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// BenchmarkHotPathsAccel is BenchmarkHotPaths with offload on
// (storage.local.accel_redirect): the short link and the thumbnail answer
// with X-Accel-Redirect and a stat of their file instead of their bytes
// (docs/operating.md#nginx-sends-the-files).
//
//	go test -run '^$' -bench HotPathsAccel -benchmem ./cmd/folio/
func BenchmarkHotPathsAccel(b *testing.B) {
	benchmarkHotPaths(b, nil, "FOLIO_STORAGE_LOCAL_ACCEL_REDIRECT=/_folio_files/")
}
