package httpx

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics are written in the Prometheus text exposition format 0.0.4
// (docs/observability.md) by a registry of our own: a client library would
// be a new module, and what Folio needs is small. Series are resolved ahead
// (With returns a pointer kept by the caller), so that recording on the
// request path is an atomic add; every method of a series is a no-op on a
// nil receiver, so that code holding no series (metrics off) pays a nil
// check.

// ExpositionType is the Content-Type of the text exposition format.
const ExpositionType = "text/plain; version=0.0.4; charset=utf-8"

// Registry holds metric families and writes them, sorted by name.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{families: map[string]*family{}} }

type family struct {
	name, help, typ string
	labels          []string
	buckets         []float64 // histograms

	mu     sync.Mutex
	series map[string]*series // by joined label values
	// collect, for metrics read when scraped, yields each series' label
	// values and value.
	collect func(emit func(value float64, labelValues ...string))
}

type series struct {
	labelValues []string
	counter     *Counter
	gauge       *Gauge
	hist        *Histogram
}

func (r *Registry) add(f *family) *family {
	if !validName(f.name) {
		panic("httpx: invalid metric name " + f.name)
	}
	for _, l := range f.labels {
		if !validName(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic("httpx: invalid label name " + l + " of " + f.name)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.families[f.name]; dup {
		panic("httpx: metric " + f.name + " registered twice")
	}
	f.series = map[string]*series{}
	r.families[f.name] = f
	return f
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// with finds or makes the series of labelValues.
func (f *family) with(labelValues []string, newSeries func() *series) *series {
	if len(labelValues) != len(f.labels) {
		panic(fmt.Sprintf("httpx: metric %s wants %d label values, got %d", f.name, len(f.labels), len(labelValues)))
	}
	key := strings.Join(labelValues, "\xff")
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.series[key]; ok {
		return s
	}
	s := newSeries()
	s.labelValues = slices.Clone(labelValues)
	f.series[key] = s
	return s
}

// Counter is a monotonic count.
type Counter struct{ v atomic.Uint64 }

// Add adds n; on a nil counter it does nothing.
func (c *Counter) Add(n uint64) {
	if c != nil {
		c.v.Add(n)
	}
}

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Value is the count so far.
func (c *Counter) Value() uint64 {
	if c == nil {
		return 0
	}
	return c.v.Load()
}

// CounterVec is a counter family with labels.
type CounterVec struct{ f *family }

// Counter registers an unlabelled counter.
func (r *Registry) Counter(name, help string) *Counter {
	return r.CounterVec(name, help).With()
}

// CounterVec registers a counter family with the given label names.
func (r *Registry) CounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.add(&family{name: name, help: help, typ: "counter", labels: labels})}
}

// With returns the counter of the label values, made on first use.
func (v *CounterVec) With(labelValues ...string) *Counter {
	return v.f.with(labelValues, func() *series { return &series{counter: &Counter{}} }).counter
}

// Gauge is a value that goes up and down.
type Gauge struct{ bits atomic.Uint64 }

// Set sets the value; on a nil gauge it does nothing.
func (g *Gauge) Set(v float64) {
	if g != nil {
		g.bits.Store(math.Float64bits(v))
	}
}

// Value is the current value.
func (g *Gauge) Value() float64 {
	if g == nil {
		return 0
	}
	return math.Float64frombits(g.bits.Load())
}

// GaugeVec is a gauge family with labels.
type GaugeVec struct{ f *family }

// GaugeVec registers a gauge family with the given label names.
func (r *Registry) GaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.add(&family{name: name, help: help, typ: "gauge", labels: labels})}
}

// With returns the gauge of the label values, made on first use.
func (v *GaugeVec) With(labelValues ...string) *Gauge {
	return v.f.with(labelValues, func() *series { return &series{gauge: &Gauge{}} }).gauge
}

// GaugeFunc registers an unlabelled gauge whose value f reads when scraped.
func (r *Registry) GaugeFunc(name, help string, f func() float64) {
	r.Collect(name, help, "gauge", nil, func(emit func(float64, ...string)) { emit(f()) })
}

// CounterFunc registers an unlabelled counter whose value f reads when
// scraped; f must never decrease.
func (r *Registry) CounterFunc(name, help string, f func() float64) {
	r.Collect(name, help, "counter", nil, func(emit func(float64, ...string)) { emit(f()) })
}

// Collect registers a family of type typ ("counter" or "gauge") whose
// series collect emits when scraped, each with one value per label name;
// it may emit none (the family is then left out).
func (r *Registry) Collect(name, help, typ string, labels []string, collect func(emit func(value float64, labelValues ...string))) {
	if typ != "counter" && typ != "gauge" {
		panic("httpx: metric " + name + " of unknown type " + typ)
	}
	r.add(&family{name: name, help: help, typ: typ, labels: labels, collect: collect})
}

// Histogram counts observations into fixed buckets.
type Histogram struct {
	upper  []float64       // bucket upper bounds, ascending, without +Inf
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	count  atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

// Observe records v; on a nil histogram it does nothing.
func (h *Histogram) Observe(v float64) {
	if h == nil {
		return
	}
	i, _ := slices.BinarySearch(h.upper, v) // le: v <= upper[i]
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			break
		}
	}
	h.count.Add(1)
}

// ObserveSince records the seconds since start.
func (h *Histogram) ObserveSince(start time.Time) {
	if h != nil {
		h.Observe(time.Since(start).Seconds())
	}
}

// Count is the number of observations.
func (h *Histogram) Count() uint64 {
	if h == nil {
		return 0
	}
	return h.count.Load()
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct{ f *family }

// DurationBuckets are upper bounds in seconds for request latencies, from
// half a millisecond (pages served from memory) to ten seconds.
func DurationBuckets() []float64 {
	return []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

// HistogramVec registers a histogram family with the given ascending
// bucket upper bounds (+Inf is implied) and label names.
func (r *Registry) HistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if len(buckets) == 0 || !slices.IsSorted(buckets) || math.IsInf(buckets[len(buckets)-1], 1) {
		panic("httpx: histogram " + name + " needs ascending finite buckets")
	}
	return &HistogramVec{r.add(&family{name: name, help: help, typ: "histogram", labels: labels, buckets: slices.Clone(buckets)})}
}

// With returns the histogram of the label values, made on first use.
func (v *HistogramVec) With(labelValues ...string) *Histogram {
	return v.f.with(labelValues, func() *series {
		return &series{hist: &Histogram{upper: v.f.buckets, counts: make([]atomic.Uint64, len(v.f.buckets)+1)}}
	}).hist
}

// WriteTo writes every family in the text exposition format: families by
// name, series by label values, so that two scrapes of the same state are
// the same text.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	fams := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	for _, f := range fams {
		f.write(bw)
	}
	err := bw.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (f *family) write(w *bufio.Writer) {
	type sample struct {
		labels []string
		value  float64
	}
	var samples []sample
	var list []*series
	if f.collect != nil {
		f.collect(func(v float64, lv ...string) {
			if len(lv) != len(f.labels) {
				panic(fmt.Sprintf("httpx: metric %s wants %d label values, got %d", f.name, len(f.labels), len(lv)))
			}
			samples = append(samples, sample{slices.Clone(lv), v})
		})
	} else {
		f.mu.Lock()
		for _, s := range f.series {
			list = append(list, s)
		}
		f.mu.Unlock()
	}
	if len(samples) == 0 && len(list) == 0 {
		return // a family with no series says nothing
	}
	w.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n")
	w.WriteString("# TYPE " + f.name + " " + f.typ + "\n")
	slices.SortFunc(samples, func(a, b sample) int { return slices.Compare(a.labels, b.labels) })
	for _, s := range samples {
		writeSample(w, f.name, f.labels, s.labels, "", "", formatFloat(s.value))
	}
	slices.SortFunc(list, func(a, b *series) int { return slices.Compare(a.labelValues, b.labelValues) })
	for _, s := range list {
		switch {
		case s.counter != nil:
			writeSample(w, f.name, f.labels, s.labelValues, "", "", strconv.FormatUint(s.counter.Value(), 10))
		case s.gauge != nil:
			writeSample(w, f.name, f.labels, s.labelValues, "", "", formatFloat(s.gauge.Value()))
		case s.hist != nil:
			h := s.hist
			// Count first and buckets after: a concurrent Observe then
			// leaves the +Inf bucket no lower than _count, never a
			// cumulative count that goes down.
			count := h.count.Load()
			sum := math.Float64frombits(h.sum.Load())
			var cum uint64
			for i, le := range h.upper {
				cum += h.counts[i].Load()
				writeSample(w, f.name+"_bucket", f.labels, s.labelValues, "le", formatFloat(le), strconv.FormatUint(cum, 10))
			}
			cum += h.counts[len(h.upper)].Load()
			cum = max(cum, count)
			writeSample(w, f.name+"_bucket", f.labels, s.labelValues, "le", "+Inf", strconv.FormatUint(cum, 10))
			writeSample(w, f.name+"_sum", f.labels, s.labelValues, "", "", formatFloat(sum))
			writeSample(w, f.name+"_count", f.labels, s.labelValues, "", "", strconv.FormatUint(cum, 10))
		}
	}
}

func writeSample(w *bufio.Writer, name string, labels, values []string, extraName, extraValue, value string) {
	w.WriteString(name)
	if len(labels) > 0 || extraName != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l + `="` + escapeLabel(values[i]) + `"`)
		}
		if extraName != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extraName + `="` + extraValue + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(value)
	w.WriteByte('\n')
}

// escapeHelp escapes a HELP text: backslash and line feed.
func escapeHelp(s string) string { return escape(s, false) }

// escapeLabel escapes a label value: backslash, double quote and line feed.
func escapeLabel(s string) string { return escape(s, true) }

func escape(s string, quote bool) string {
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '"' && quote:
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// MetricsHandler serves r at GET (and HEAD) /metrics and nothing else.
func MetricsHandler(r *Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ExpositionType)
		w.Header().Set("Cache-Control", "no-store")
		_, _ = r.WriteTo(w)
	})
	return mux
}
