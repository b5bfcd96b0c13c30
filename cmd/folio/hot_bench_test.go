package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"folio/auth/authtest"
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
func BenchmarkHotPaths(b *testing.B) { benchmarkHotPaths(b) }

// BenchmarkHotPathsWithMetrics is BenchmarkHotPaths with metrics.addr on:
// the difference is what recording a request's metrics costs.
func BenchmarkHotPathsWithMetrics(b *testing.B) {
	benchmarkHotPaths(b, "FOLIO_METRICS_ADDR=127.0.0.1:0")
}

func benchmarkHotPaths(b *testing.B, env ...string) {
	a, c := newTestAppOn(b, sqlstoretest.NewConfig(b), env...)
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
			for b.Loop() {
				clear(w.h)
				a.handler.ServeHTTP(w, req)
			}
		})
	}
}
