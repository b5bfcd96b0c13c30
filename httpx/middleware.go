package httpx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"
)

// Chain applies middleware so that the first one listed runs first.
func Chain(h http.Handler, mw ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// Logger is the request's logger (set by AccessLog), or slog's default.
func Logger(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	if ci, ok := r.Context().Value(clientKey).(*clientInfo); ok && ci.logger != nil {
		return ci.logger
	}
	return slog.Default()
}

// statusWriter records the status and size of a response. It forwards
// ReadFrom so http.ServeContent keeps using sendfile, and Flush and Unwrap
// for streaming and http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(w.ResponseWriter, src)
	}
	w.bytes += n
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijack not supported")
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TrackStatus returns w and a function reporting the status written
// through it (0 until one is): w itself when it records the status already
// (under AccessLog), else a wrapper.
func TrackStatus(w http.ResponseWriter) (http.ResponseWriter, func() int) {
	sw, ok := w.(*statusWriter)
	if !ok {
		sw = &statusWriter{ResponseWriter: w}
	}
	return sw, func() int { return sw.status }
}

// AccessLine is one request's access log line.
type AccessLine struct {
	End      time.Time // when the response was written: the line's time
	Method   string
	Path     string
	Status   int
	Bytes    int64
	Duration time.Duration
	IP       string
}

// Record is the line as a slog record: message "request" at Info, the
// fields as attributes in the order above.
func (l *AccessLine) Record() slog.Record {
	rec := slog.NewRecord(l.End, slog.LevelInfo, "request", 0)
	rec.AddAttrs(
		slog.String("method", l.Method),
		slog.String("path", l.Path),
		slog.Int("status", l.Status),
		slog.Int64("bytes", l.Bytes),
		slog.Duration("duration", l.Duration),
		slog.String("ip", l.IP),
	)
	return rec
}

// AccessHandler is a slog.Handler that takes an access log line as it is,
// sparing the request the building of a slog record (cmd/folio's
// asynchronous log makes it on its own goroutine). HandleAccess must log
// what Handle would log of the line's Record.
type AccessHandler interface {
	slog.Handler
	HandleAccess(AccessLine)
}

// AccessLog logs one line per request and makes logger the request's logger.
// The record carries no caller: every line would name this function, and
// finding it costs a stack walk per request.
func AccessLog(logger *slog.Logger) func(http.Handler) http.Handler {
	access, _ := logger.Handler().(AccessHandler)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			var sw *statusWriter
			// Under Proxies.Middleware the request's client record
			// carries the logger and the writer: one context value, one
			// copy of the request and one allocation fewer. A connection's
			// record (ConnContext) keeps the logger its first request set
			// and lends its writer to one request at a time.
			ci, ok := r.Context().Value(clientKey).(*clientInfo)
			if ok && !ci.swBusy && (ci.logger == nil || ci.logger == logger) {
				if ci.logger == nil {
					ci.logger = logger
				}
				ci.sw = statusWriter{ResponseWriter: w}
				ci.swBusy = true
				sw = &ci.sw
				defer func() { ci.swBusy = false }()
			} else {
				sw = &statusWriter{ResponseWriter: w}
				r = r.WithContext(context.WithValue(r.Context(), loggerKey, logger))
			}
			next.ServeHTTP(sw, r)
			if !logger.Enabled(r.Context(), slog.LevelInfo) {
				return
			}
			line := AccessLine{Method: r.Method, Path: r.URL.Path, Status: sw.status, Bytes: sw.bytes}
			// The record found above: on a connection's record, a context
			// lookup walks net/http's contexts of the request.
			if ok {
				line.IP = ci.ip
			} else {
				line.IP = ClientIP(r)
			}
			if line.Status == 0 {
				line.Status = http.StatusOK
			}
			// One reading of the monotonic clock, where time.Now reads it
			// and the wall clock: the end is the start moved on by it.
			line.Duration = time.Since(start)
			line.End = start.Add(line.Duration)
			if access != nil {
				access.HandleAccess(line)
				return
			}
			_ = logger.Handler().Handle(r.Context(), line.Record())
		})
	}
}

// Recover turns a panic into a logged stack trace and a 500 in envelope B
// with no internals, unless the response had already started.
func Recover(next http.Handler) http.Handler {
	return recoverer(next, BlogAPI)
}

// recoverer is Recover answering in env; a Router recovers in the envelope
// of the surface owning the route.
func recoverer(next http.Handler, env Envelope) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw, ok := w.(*statusWriter)
		if !ok {
			sw = &statusWriter{ResponseWriter: w}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			Logger(r).Error("panic serving request", "method", r.Method, "path", r.URL.Path,
				"ip", ClientIP(r), "panic", v, "stack", string(debug.Stack()))
			if sw.status == 0 {
				env.Error(sw, r, E(http.StatusInternalServerError, "internal server error"))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// SecurityHeaders sets the headers every response carries. The keys are
// written in canonical form and the values shared between responses: a
// header value slice of length 1 is never appended to in place (an Add
// makes a new one), and this runs on every request.
func SecurityHeaders(next http.Handler) http.Handler {
	nosniff := []string{"nosniff"}
	referrer := []string{"strict-origin-when-cross-origin"}
	frames := []string{"SAMEORIGIN"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniff
		h["Referrer-Policy"] = referrer
		h["X-Frame-Options"] = frames
		next.ServeHTTP(w, r)
	})
}
