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

// AccessLog logs one line per request and makes logger the request's logger.
// The record carries no caller: every line would name this function, and
// finding it costs a stack walk per request.
func AccessLog(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			r = r.WithContext(context.WithValue(r.Context(), loggerKey, logger))
			next.ServeHTTP(sw, r)
			if !logger.Enabled(r.Context(), slog.LevelInfo) {
				return
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			end := time.Now()
			rec := slog.NewRecord(end, slog.LevelInfo, "request", 0)
			rec.AddAttrs(
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", sw.bytes),
				slog.Duration("duration", end.Sub(start)),
				slog.String("ip", ClientIP(r)),
			)
			_ = logger.Handler().Handle(r.Context(), rec)
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
