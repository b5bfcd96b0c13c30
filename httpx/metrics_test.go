package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func exposition(t *testing.T, reg *Registry) string {
	t.Helper()
	var b strings.Builder
	if _, err := reg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestExpositionSortsFamiliesAndSeriesAndEscapes(t *testing.T) {
	reg := NewRegistry()
	v := reg.CounterVec("z_things_total", "Things.\nSecond line with a \\ backslash.", "kind")
	v.With("b").Add(2)
	v.With(`a "quoted"` + "\n\\").Inc()
	v.With("b").Inc() // the same series again
	reg.GaugeFunc("a_gauge", "A gauge.", func() float64 { return 1.5 })
	reg.CounterVec("m_unused_total", "Never used.", "x") // no series: not written
	got := exposition(t, reg)
	want := `# HELP a_gauge A gauge.
# TYPE a_gauge gauge
a_gauge 1.5
# HELP z_things_total Things.\nSecond line with a \\ backslash.
# TYPE z_things_total counter
z_things_total{kind="a \"quoted\"\n\\"} 1
z_things_total{kind="b"} 3
`
	if got != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got, want)
	}
	if again := exposition(t, reg); again != got {
		t.Errorf("a second scrape of the same state differs:\n%s", again)
	}
}

func TestHistogramBucketsAreCumulativeWithSumAndCount(t *testing.T) {
	reg := NewRegistry()
	h := reg.HistogramVec("req_seconds", "Latency.", []float64{0.1, 1, 10}, "route").With("/x")
	for _, v := range []float64{0.05, 0.1, 0.5, 2, 20, 30} {
		h.Observe(v)
	}
	got := exposition(t, reg)
	want := `# HELP req_seconds Latency.
# TYPE req_seconds histogram
req_seconds_bucket{route="/x",le="0.1"} 2
req_seconds_bucket{route="/x",le="1"} 3
req_seconds_bucket{route="/x",le="10"} 4
req_seconds_bucket{route="/x",le="+Inf"} 6
req_seconds_sum{route="/x"} 52.65
req_seconds_count{route="/x"} 6
`
	if got != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got, want)
	}
}

func TestNilSeriesDoNothing(t *testing.T) {
	var c *Counter
	var g *Gauge
	var h *Histogram
	c.Add(3)
	g.Set(1)
	h.Observe(1)
	if c.Value() != 0 || g.Value() != 0 || h.Count() != 0 {
		t.Error("a nil series reports a value")
	}
}

func TestRegistryRefusesBadNamesAndDuplicates(t *testing.T) {
	for name, f := range map[string]func(*Registry){
		"bad name":        func(r *Registry) { r.Counter("1abc", "x") },
		"bad label":       func(r *Registry) { r.CounterVec("abc", "x", "a-b") },
		"reserved label":  func(r *Registry) { r.HistogramVec("abc", "x", []float64{1}, "le") },
		"duplicate":       func(r *Registry) { r.Counter("abc", "x"); r.Counter("abc", "y") },
		"unsorted bucket": func(r *Registry) { r.HistogramVec("abc", "x", []float64{2, 1}) },
		"label count":     func(r *Registry) { r.CounterVec("abc", "x", "a").With("1", "2") },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f(NewRegistry())
		})
	}
}

func TestRouterCountsRequestsByPattern(t *testing.T) {
	reg := NewRegistry()
	rt := NewRouter()
	api := rt.API("api", FileAPI)
	api.Handle("GET /api/things/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	api.Fallback("/api/things/")
	rt.Observe(NewHTTPMetrics(reg))
	api.Handle("POST /api/later", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/things/1"}, {"GET", "/api/things/2"}, {"POST", "/api/later"},
		{"DELETE", "/api/things/3"}, {"GET", "/nowhere"}, {"BREW", "/nowhere"},
	} {
		rt.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.path, nil))
	}
	got := exposition(t, reg)
	for _, want := range []string{
		`folio_http_requests_total{route="/api/things/{id}",method="GET",code="418"} 2`,
		`folio_http_requests_total{route="/api/later",method="POST",code="200"} 1`,
		`folio_http_requests_total{route="/api/things/",method="DELETE",code="405"} 1`,
		`folio_http_requests_total{route="unmatched",method="GET",code="404"} 1`,
		`folio_http_requests_total{route="unmatched",method="other",code="404"} 1`,
		`folio_http_request_duration_seconds_count{route="/api/things/{id}",method="GET"} 2`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	if strings.Contains(got, "/api/things/1") || strings.Contains(got, "BREW") {
		t.Errorf("a raw path or method became a label:\n%s", got)
	}
}

// BenchmarkRouterMetrics is the router alone with a handler that does
// nothing, without and with metrics: the difference is what observing a
// request costs (docs/observability.md).
func BenchmarkRouterMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			rt := NewRouter()
			rt.API("api", FileAPI).Handle("GET /api/things/{id}", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			if on {
				rt.Observe(NewHTTPMetrics(NewRegistry()))
			}
			req := httptest.NewRequest("GET", "/api/things/1", nil)
			w := &statusWriter{ResponseWriter: httptest.NewRecorder()}
			b.ReportAllocs()
			for b.Loop() {
				w.status = 0
				rt.ServeHTTP(w, req)
			}
		})
	}
}
