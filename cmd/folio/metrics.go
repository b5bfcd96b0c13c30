package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"folio/blog"
	"folio/filehost"
	"folio/httpx"
	"folio/sqlstore"
)

// observability is what metrics.addr turns on (docs/observability.md): the
// registry the metrics listener serves, and the sinks handed to the
// packages that count. Nil when metrics are off.
type observability struct {
	reg   *httpx.Registry
	http  *httpx.HTTPMetrics
	files filehost.Metrics
	ai    *aiMetrics
}

// newObservability registers every metric. The database pool, the Go
// runtime and the process are read when scraped; the rest is counted as it
// happens.
func newObservability(db *sqlstore.DB) *observability {
	reg := httpx.NewRegistry()
	o := &observability{reg: reg, http: httpx.NewHTTPMetrics(reg)}
	uploads := reg.CounterVec("folio_uploads_total", "Uploads by outcome: stored (a new object), deduplicated (sharing a stored object) or failed (refused or failed request).", "outcome")
	o.files = filehost.Metrics{
		UploadBytes:         reg.Counter("folio_upload_bytes_total", "Bytes of saved uploads, as stored, deduplicated ones included."),
		UploadsStored:       uploads.With("stored"),
		UploadsDeduplicated: uploads.With("deduplicated"),
		UploadsFailed:       uploads.With("failed"),
		DedupSavedBytes:     reg.Counter("folio_dedup_saved_bytes_total", "Bytes not stored because an identical object was already stored."),
		ServedBytes:         reg.Counter("folio_served_bytes_total", "File bytes sent by short links, thumbnails and share links."),
	}
	o.ai = newAIMetrics(reg)
	registerPoolMetrics(reg, db)
	registerRuntimeMetrics(reg)
	registerProcessMetrics(reg)
	bi := reg.GaugeVec("folio_build_info", "Always 1: the version and VCS revision of this build.", "version", "revision")
	bi.With(folioVersion(), buildRevision()).Set(1)
	return o
}

// buildRevision is the VCS revision the binary was built from, or
// "unknown".
func buildRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// aiMetrics counts calls to the AI provider by kind and outcome, series
// resolved ahead.
type aiMetrics struct {
	calls    map[[2]string]*httpx.Counter
	duration map[string]*httpx.Histogram
}

func newAIMetrics(reg *httpx.Registry) *aiMetrics {
	calls := reg.CounterVec("folio_ai_jobs_total", "Calls to the AI provider (background jobs and on-demand requests) by kind and outcome.", "kind", "outcome")
	dur := reg.HistogramVec("folio_ai_job_duration_seconds", "Time the AI provider took to answer, by kind.",
		[]float64{0.25, 0.5, 1, 2.5, 5, 10, 30, 60}, "kind")
	m := &aiMetrics{calls: map[[2]string]*httpx.Counter{}, duration: map[string]*httpx.Histogram{}}
	for _, kind := range []string{"summary", "tags"} {
		m.duration[kind] = dur.With(kind)
		for _, outcome := range []string{"ok", "error"} {
			m.calls[[2]string{kind, outcome}] = calls.With(kind, outcome)
		}
	}
	return m
}

// AICall implements blog.AIMetrics.
func (m *aiMetrics) AICall(kind string, failed bool, took time.Duration) {
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	m.calls[[2]string{kind, outcome}].Inc() // an unknown kind is a nil counter: not counted
	m.duration[kind].Observe(took.Seconds())
}

var _ blog.AIMetrics = (*aiMetrics)(nil)

// registerPoolMetrics reads sql.DBStats of each pool when scraped.
func registerPoolMetrics(reg *httpx.Registry, db *sqlstore.DB) {
	pool := []string{"pool"}
	gauge := func(name, help string, f func(s sqlstore.NamedPoolStats) float64) {
		reg.Collect(name, help, "gauge", pool, func(emit func(float64, ...string)) {
			for _, s := range db.PoolStats() {
				emit(f(s), s.Pool)
			}
		})
	}
	counter := func(name, help string, f func(s sqlstore.NamedPoolStats) float64) {
		reg.Collect(name, help, "counter", pool, func(emit func(float64, ...string)) {
			for _, s := range db.PoolStats() {
				emit(f(s), s.Pool)
			}
		})
	}
	gauge("folio_db_open_connections", "Open database connections, in use and idle.", func(s sqlstore.NamedPoolStats) float64 { return float64(s.Stats.OpenConnections) })
	gauge("folio_db_in_use_connections", "Database connections in use.", func(s sqlstore.NamedPoolStats) float64 { return float64(s.Stats.InUse) })
	gauge("folio_db_idle_connections", "Idle database connections.", func(s sqlstore.NamedPoolStats) float64 { return float64(s.Stats.Idle) })
	gauge("folio_db_max_open_connections", "Most database connections the pool opens (0: no limit).", func(s sqlstore.NamedPoolStats) float64 { return float64(s.Stats.MaxOpenConnections) })
	counter("folio_db_wait_count_total", "Times a query waited for a free database connection.", func(s sqlstore.NamedPoolStats) float64 { return float64(s.Stats.WaitCount) })
	counter("folio_db_wait_duration_seconds_total", "Time spent waiting for a free database connection.", func(s sqlstore.NamedPoolStats) float64 { return s.Stats.WaitDuration.Seconds() })
}

// registerRuntimeMetrics reads the Go runtime through runtime/metrics when
// scraped.
func registerRuntimeMetrics(reg *httpx.Registry) {
	read := func(name string) float64 {
		s := []metrics.Sample{{Name: name}}
		metrics.Read(s)
		switch s[0].Value.Kind() {
		case metrics.KindUint64:
			return float64(s[0].Value.Uint64())
		case metrics.KindFloat64:
			return s[0].Value.Float64()
		}
		return 0 // not supported by this runtime
	}
	for _, m := range []struct{ name, help, typ, sample string }{
		{"go_goroutines", "Goroutines that currently exist.", "gauge", "/sched/goroutines:goroutines"},
		{"go_threads_max", "GOMAXPROCS: threads that may run Go code at once.", "gauge", "/sched/gomaxprocs:threads"},
		{"go_gc_cycles_total", "Completed garbage collection cycles.", "counter", "/gc/cycles/total:gc-cycles"},
		{"go_gc_cpu_seconds_total", "Estimated CPU time spent collecting garbage.", "counter", "/cpu/classes/gc/total:cpu-seconds"},
		{"go_gc_heap_goal_bytes", "Heap size the collector aims to stay under.", "gauge", "/gc/heap/goal:bytes"},
		{"go_memory_heap_objects_bytes", "Bytes of live and not yet swept heap objects.", "gauge", "/memory/classes/heap/objects:bytes"},
		{"go_memory_total_bytes", "All memory mapped by the Go runtime.", "gauge", "/memory/classes/total:bytes"},
	} {
		sample := m.sample
		reg.Collect(m.name, m.help, m.typ, nil, func(emit func(float64, ...string)) { emit(read(sample)) })
	}
	reg.GaugeVec("go_info", "Always 1: the Go version the binary was built with.", "version").With(runtime.Version()).Set(1)
}

// listenMetrics binds metrics.addr, when set, before any start-up work, so
// that a busy port stops start-up with a clear message.
func listenMetrics(cfg *Config) (net.Listener, error) {
	if cfg.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := listen(cfg.MetricsAddr, 0)
	if err != nil {
		return nil, fmt.Errorf("metrics.addr: listen on %s: %w", cfg.MetricsAddr, err)
	}
	return ln, nil
}

// serveMetrics serves GET /metrics on ln until ctx ends.
func serveMetrics(ctx context.Context, ln net.Listener, reg *httpx.Registry, logger *slog.Logger) {
	srv := &http.Server{
		Handler:           httpx.MetricsHandler(reg),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("metrics listening", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener stopped", "err", err)
		}
		return
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
}
