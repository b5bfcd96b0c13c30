package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// scrape is one parsed exposition: every sample by its line's name and
// labels as written, and the text itself.
type scrape struct {
	text    string
	samples map[string]float64
}

func (s scrape) value(t *testing.T, series string) float64 {
	t.Helper()
	v, ok := s.samples[series]
	if !ok {
		t.Fatalf("no series %s in\n%s", series, s.text)
	}
	return v
}

// metricsApp is a test app with metrics.addr on, its /metrics served on a
// listener of its own as folio serve does.
func metricsApp(t *testing.T, env ...string) (*app, *httpxtest.Client, func() scrape) {
	t.Helper()
	a, c := newTestAppOn(t, sqlstoretest.NewConfig(t), append([]string{"FOLIO_METRICS_ADDR=127.0.0.1:0"}, env...)...)
	ln, err := listenMetrics(&Config{MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveMetrics(ctx, ln, a.obs.reg, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + ln.Addr().String() + "/metrics"
	return a, c, func() scrape {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != httpx.ExpositionType {
			t.Fatalf("GET /metrics: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		s := scrape{text: string(body), samples: map[string]float64{}}
		for line := range strings.SplitSeq(s.text, "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			i := strings.LastIndexByte(line, ' ')
			v, err := strconv.ParseFloat(line[i+1:], 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			s.samples[line[:i]] = v
		}
		return s
	}
}

func TestMetricsCountRequestsUploadsDedupAndServedBytes(t *testing.T) {
	_, c, get := metricsApp(t)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	before := get()

	png := testPNG(t)
	up := c.Upload("/api/v1/upload", "file", "a.png", png).Expect(200).U()
	var res struct {
		Size  int64 `json:"size"`
		Links struct {
			URL string `json:"url"`
		} `json:"links"`
	}
	httpxtest.Into(t, up.Data, &res)
	c.Upload("/api/v1/upload", "file", "b.png", png).Expect(200) // the same bytes again
	link := linkPathOf(t, res.Links.URL)
	served := c.Do("GET", link, nil).Expect(200)
	c.Do("GET", link, nil).Expect(200) // from memory this time
	c.Do("GET", "/api/v1/posts/"+"00000000-0000-4000-8000-000000000000", nil).Expect(404)
	c.Do("GET", "/no/such/page/at/all", nil).Expect(404)
	after := get()

	delta := func(series string) float64 { return after.value(t, series) - before.samples[series] }
	for _, tt := range []struct {
		series string
		want   float64
	}{
		{"folio_upload_bytes_total", float64(2 * res.Size)},
		{`folio_uploads_total{outcome="stored"}`, 1},
		{`folio_uploads_total{outcome="deduplicated"}`, 1},
		{"folio_dedup_saved_bytes_total", float64(res.Size)},
		{"folio_served_bytes_total", float64(2 * len(served.Body))},
		{`folio_http_requests_total{route="/api/v1/upload",method="POST",code="200"}`, 2},
		{`folio_http_requests_total{route="/i/{hash}",method="GET",code="200"}`, 2},
		{`folio_http_requests_total{route="/api/v1/posts/{id}",method="GET",code="404"}`, 1},
		{`folio_http_request_duration_seconds_count{route="/api/v1/upload",method="POST"}`, 2},
	} {
		if got := delta(tt.series); got != tt.want {
			t.Errorf("%s rose by %v, want %v", tt.series, got, tt.want)
		}
	}
	// A path no route owns counts as unmatched or under the fallback of
	// the surface that answers it, never under its own path.
	if strings.Contains(after.text, "/no/such/page") || strings.Contains(after.text, link) {
		t.Errorf("a raw path became a label:\n%s", after.text)
	}
	miss := 0.0
	for k, v := range after.samples {
		if strings.HasPrefix(k, "folio_http_requests_total{") && strings.HasSuffix(k, `method="GET",code="404"}`) && !strings.Contains(k, "/api/v1/posts/{id}") {
			miss += v
		}
	}
	if miss < 1 {
		t.Errorf("the 404 of an unknown page was not counted:\n%s", after.text)
	}

	// Histograms: buckets never fall, +Inf equals _count.
	for k, v := range after.samples {
		base, ok := strings.CutPrefix(k, "folio_http_request_duration_seconds_count")
		if !ok {
			continue
		}
		inf := after.value(t, "folio_http_request_duration_seconds_bucket"+strings.TrimSuffix(base, "}")+`,le="+Inf"}`)
		if inf != v {
			t.Errorf("%s = %v but +Inf bucket = %v", k, v, inf)
		}
		last := 0.0
		for _, le := range httpx.DurationBuckets() {
			b := after.value(t, "folio_http_request_duration_seconds_bucket"+strings.TrimSuffix(base, "}")+`,le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"}`)
			if b < last || b > inf {
				t.Errorf("%s: bucket %v = %v after %v (count %v)", k, le, b, last, inf)
			}
			last = b
		}
	}

	for _, name := range []string{
		`folio_db_open_connections{pool=`, `folio_db_in_use_connections{pool=`, `folio_db_idle_connections{pool=`,
		`folio_db_max_open_connections{pool=`, `folio_db_wait_count_total{pool=`, `folio_db_wait_duration_seconds_total{pool=`,
		"go_goroutines ", "go_gc_cycles_total ", "go_gc_cpu_seconds_total ", "go_memory_total_bytes ", `go_info{version="go`,
		"process_resident_memory_bytes ", "process_open_fds ", "process_start_time_seconds ", `folio_build_info{version=`,
	} {
		if !strings.Contains(after.text, "\n"+name) {
			t.Errorf("no %s in the scrape", name)
		}
	}
	promtoolCheck(t, after.text)
}

// linkPathOf is the path of an absolute link.
func linkPathOf(t *testing.T, link string) string {
	t.Helper()
	i := strings.Index(link, "/i/")
	if i < 0 {
		t.Fatalf("link %q", link)
	}
	return link[i:]
}

// promtoolCheck runs promtool check metrics on text: skipped where
// promtool is missing, except in CI, which must have it.
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not on PATH (Debian package prometheus); CI must run promtool check metrics")
		}
		t.Log("promtool not on PATH: promtool check metrics skipped (install Debian's prometheus package)")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestMetricsCountAICallsByKindAndOutcome(t *testing.T) {
	var fail atomic.Bool
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, `{"error":"overloaded"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"A summary."},"done":true}`)
	}))
	defer provider.Close()
	_, c, get := metricsApp(t, "FOLIO_AI_ENABLED=true", "FOLIO_AI_PROVIDER=ollama", "FOLIO_AI_MODEL=m",
		"FOLIO_AI_BASE_URL="+provider.URL)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	body := map[string]string{"title": "T", "content_markdown": "Some text to summarise."}
	c.Do("POST", "/api/v1/admin/ai/summary", body).Expect(200)
	fail.Store(true)
	c.Do("POST", "/api/v1/admin/ai/summary", body).Expect(502)
	s := get()
	for series, want := range map[string]float64{
		`folio_ai_jobs_total{kind="summary",outcome="ok"}`:               1,
		`folio_ai_jobs_total{kind="summary",outcome="error"}`:            1,
		`folio_ai_jobs_total{kind="tags",outcome="ok"}`:                  0,
		`folio_ai_job_duration_seconds_count{kind="summary"}`:            2,
		`folio_ai_job_duration_seconds_bucket{kind="summary",le="+Inf"}`: 2,
	} {
		if got := s.value(t, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	promtoolCheck(t, s.text)
}

func TestMetricsOffRegistersNothing(t *testing.T) {
	a, _ := newTestApp(t)
	if a.obs != nil {
		t.Error("metrics.addr is empty, yet metrics are on")
	}
}

func TestBusyMetricsPortStopsStartUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("FOLIO_METRICS_ADDR", ln.Addr().String())
	t.Setenv("FOLIO_SERVER_ADDR", "127.0.0.1:0")
	var stderr strings.Builder
	if code := run([]string{"serve"}, strings.NewReader(""), io.Discard, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "metrics.addr: listen on "+ln.Addr().String()) {
		t.Errorf("stderr does not name the busy metrics address:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("start-up work (the data folder) happened before the metrics port was found busy")
	}
}

func TestMetricsAddrIsValidated(t *testing.T) {
	for _, tt := range []struct {
		value string
		ok    bool
	}{{"", true}, {":9464", true}, {"127.0.0.1:9464", true}, {"[::1]:9464", true}, {"9464", false}, {"localhost", false}, {"host:", false}} {
		_, err := LoadConfig("", nil, []string{"FOLIO_METRICS_ADDR=" + tt.value})
		if (err == nil) != tt.ok {
			t.Errorf("metrics.addr = %q: err %v", tt.value, err)
		} else if err != nil && !strings.Contains(err.Error(), "metrics.addr") {
			t.Errorf("error does not name the key: %v", err)
		}
	}
}
