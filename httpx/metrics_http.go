package httpx

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPMetrics are the request metrics a Router records: a count by route,
// method and status, and a latency histogram by route and method. The
// route is the registered pattern's path, never the request's, so that the
// series are as many as the routes; what no route owns is "unmatched".
type HTTPMetrics struct {
	requests  *CounterVec
	duration  *HistogramVec
	unmatched *routeSeries
}

// NewHTTPMetrics registers the request metrics in reg.
func NewHTTPMetrics(reg *Registry) *HTTPMetrics {
	m := &HTTPMetrics{
		requests: reg.CounterVec("folio_http_requests_total",
			"HTTP requests answered, by route pattern, method and status code.", "route", "method", "code"),
		duration: reg.HistogramVec("folio_http_request_duration_seconds",
			"Time from the request reaching the router to the handler's return, by route pattern and method.",
			DurationBuckets(), "route", "method"),
	}
	m.unmatched = m.route("unmatched")
	return m
}

// methodCount is the number of method labels: the methods counted by
// name, and "other" for any other, so that a client cannot make new series
// by sending made-up methods.
const methodCount = 8

func methodLabel(i int) string {
	return [methodCount]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}[i]
}

func methodIndex(m string) int {
	switch m {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodPatch:
		return 4
	case http.MethodDelete:
		return 5
	case http.MethodOptions:
		return 6
	}
	return 7
}

// routeSeries are one route's series, made on first use per method, so
// that a route never asked for costs a few words.
type routeSeries struct {
	m        *HTTPMetrics
	route    string
	byMethod [methodCount]atomic.Pointer[methodSeries]
}

type methodSeries struct {
	method   string
	duration *Histogram
	mu       sync.Mutex
	codes    atomic.Pointer[[]codeCounter] // replaced, never changed in place
}

type codeCounter struct {
	code int
	c    *Counter
}

func (m *HTTPMetrics) route(route string) *routeSeries {
	return &routeSeries{m: m, route: route}
}

// observe records one answered request.
func (rs *routeSeries) observe(method string, status int, d time.Duration) {
	i := methodIndex(method)
	ms := rs.byMethod[i].Load()
	if ms == nil {
		ms = &methodSeries{method: methodLabel(i), duration: rs.m.duration.With(rs.route, methodLabel(i))}
		if !rs.byMethod[i].CompareAndSwap(nil, ms) {
			ms = rs.byMethod[i].Load()
		}
	}
	ms.duration.Observe(d.Seconds())
	ms.counter(rs, status).Inc()
}

// counter is the request counter of status, a short scan of the codes
// this route and method have answered.
func (ms *methodSeries) counter(rs *routeSeries, status int) *Counter {
	if list := ms.codes.Load(); list != nil {
		for _, cc := range *list {
			if cc.code == status {
				return cc.c
			}
		}
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var old []codeCounter
	if list := ms.codes.Load(); list != nil {
		old = *list
		for _, cc := range old {
			if cc.code == status {
				return cc.c
			}
		}
	}
	c := rs.m.requests.With(rs.route, ms.method, strconv.Itoa(status))
	next := append(old[:len(old):len(old)], codeCounter{status, c})
	ms.codes.Store(&next)
	return c
}

// routeLabel is the path of a pattern: "GET /api/v1/posts/{id}" is
// "/api/v1/posts/{id}".
func routeLabel(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return pattern
}

// Observe makes rt record m for every request. Call it before serving.
func (rt *Router) Observe(m *HTTPMetrics) {
	rt.metrics = m
	for pattern, o := range rt.owners {
		o.series = m.route(routeLabel(pattern))
	}
}

// serveObserved serves r as ServeHTTP does and records it under o's route.
func (rt *Router) serveObserved(o *owner, w http.ResponseWriter, r *http.Request) {
	rs := rt.metrics.unmatched
	if o != nil {
		rs = o.series
	}
	sw, ok := w.(*statusWriter)
	if !ok {
		sw = &statusWriter{ResponseWriter: w}
	}
	start := time.Now()
	if o != nil {
		o.surface.serve.ServeHTTP(sw, r)
	} else {
		rt.mux.ServeHTTP(sw, r)
	}
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	rs.observe(r.Method, status, time.Since(start))
}

// CountBytes returns w counting the bytes written through it into c, and
// w itself when c is nil. It keeps ReadFrom, so that http.ServeContent
// still uses sendfile.
func CountBytes(w http.ResponseWriter, c *Counter) http.ResponseWriter {
	if c == nil {
		return w
	}
	return &countingWriter{ResponseWriter: w, c: c}
}

type countingWriter struct {
	http.ResponseWriter
	c *Counter
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.c.Add(uint64(n))
	return n, err
}

func (w *countingWriter) ReadFrom(src io.Reader) (int64, error) {
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(w.ResponseWriter, src)
	}
	w.c.Add(uint64(n))
	return n, err
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
