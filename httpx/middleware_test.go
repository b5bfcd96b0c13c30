package httpx

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

func TestRecoverAnswers500AndKeepsServing(t *testing.T) {
	logs := &logRecorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /panic", func(w http.ResponseWriter, r *http.Request) {
		panic("secret internals: password=hunter2")
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "fine") })
	c := httpxtest.NewServer(t, Chain(mux, AccessLog(slog.New(logs)), Recover))

	res := c.Do("GET", "/panic", nil).Expect(500)
	if strings.Contains(string(res.Body), "hunter2") || strings.Contains(string(res.Body), "goroutine") {
		t.Fatalf("500 body leaks internals: %s", res.Body)
	}
	if !strings.Contains(string(res.Body), "internal server error") || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("500 is not the JSON error: %s %s", res.Header.Get("Content-Type"), res.Body)
	}
	attrs := logs.wait(t, "panic serving request")
	if !strings.Contains(attrs["stack"].String(), "TestRecoverAnswers500AndKeepsServing") {
		t.Errorf("logged stack lacks the panicking frame: %.300s", attrs["stack"])
	}
	if !strings.Contains(attrs["panic"].String(), "hunter2") {
		t.Errorf("logged panic value %q lacks the cause", attrs["panic"])
	}
	if acc := logs.wait(t, "request"); acc["status"].Int64() != 500 {
		t.Errorf("access log status = %v, want 500", acc["status"])
	}
	if res := c.Do("GET", "/ok", nil).Expect(200); string(res.Body) != "fine" {
		t.Fatalf("after the panic: %q", res.Body)
	}
}

func TestRecoverAfterHeadersSentWritesNothingMore(t *testing.T) {
	logs := &logRecorder{}
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(202)
		io.WriteString(w, "partial")
		panic("late")
	}), AccessLog(slog.New(logs)), Recover)
	w := serve(h, httptest.NewRequest("GET", "/", nil))
	if w.Code != 202 || w.Body.String() != "partial" {
		t.Fatalf("got %d %q, want the started response untouched", w.Code, w.Body)
	}
	if _, ok := logs.find("panic serving request"); !ok {
		t.Fatal("late panic not logged")
	}
}

func TestAccessLogFields(t *testing.T) {
	logs := &logRecorder{}
	trusted, _ := ParsePrefixes("127.0.0.0/8")
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, "12345")
		io.WriteString(w, "678")
	}), Proxies{Trusted: trusted}.Middleware, AccessLog(slog.New(logs)))
	r := httptest.NewRequest("PUT", "/things/1?q=secret", nil)
	r.RemoteAddr = "127.0.0.1:4000"
	r.Header.Set("X-Forwarded-For", "198.51.100.4")
	serve(h, r)
	attrs, ok := logs.find("request")
	if !ok {
		t.Fatal("no access log line")
	}
	want := map[string]string{"method": "PUT", "path": "/things/1", "status": "201", "bytes": "8", "ip": "198.51.100.4"}
	for k, v := range want {
		if got := attrs[k].String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if d, ok := attrs["duration"]; !ok || d.Kind() != slog.KindDuration || d.Duration() < 0 {
		t.Errorf("duration = %v, want a non-negative duration", d)
	}
}

func TestAccessLogDefaultsTo200AndSetsRequestLogger(t *testing.T) {
	logs := &logRecorder{}
	h := AccessLog(slog.New(logs))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Logger(r).Info("from handler")
	}))
	serve(h, httptest.NewRequest("GET", "/", nil))
	if _, ok := logs.find("from handler"); !ok {
		t.Error("Logger(r) is not the access logger")
	}
	if attrs, _ := logs.find("request"); attrs["status"].Int64() != 200 || attrs["bytes"].Int64() != 0 {
		t.Errorf("empty response logged as %v/%v, want 200/0", attrs["status"], attrs["bytes"])
	}
}

// TestAccessLogKeepsReaderFrom serves a file through ServeContent behind
// AccessLog over real HTTP: the handler must still see an io.ReaderFrom (so
// the server can use sendfile) and the logged size must be the file's.
func TestAccessLogKeepsReaderFrom(t *testing.T) {
	content := bytes.Repeat([]byte("folio "), 100_000)
	path := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &logRecorder{}
	var isReaderFrom bool
	h := AccessLog(slog.New(logs))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, isReaderFrom = w.(io.ReaderFrom)
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "big.bin", time.Time{}, f)
	}))
	c := httpxtest.NewServer(t, h)
	res := c.Do("GET", "/big.bin", nil).Expect(200)
	if !bytes.Equal(res.Body, content) {
		t.Fatalf("body is %d bytes, want %d", len(res.Body), len(content))
	}
	attrs := logs.wait(t, "request") // also orders the handler's writes before the reads below
	if !isReaderFrom {
		t.Error("handler's writer lost io.ReaderFrom")
	}
	if attrs["bytes"].Int64() != int64(len(content)) {
		t.Errorf("logged bytes = %v, want %d", attrs["bytes"], len(content))
	}
	res = c.Do("GET", "/big.bin", nil, "Range", "bytes=0-9").Expect(206)
	if string(res.Body) != "folio foli" {
		t.Errorf("range body %q", res.Body)
	}
}

func TestStatusWriterForwardsToResponseController(t *testing.T) {
	flushed := make(chan error, 1)
	h := AccessLog(slog.New(slog.NewTextHandler(io.Discard, nil)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "x")
		flushed <- http.NewResponseController(w).Flush()
	}))
	httpxtest.NewServer(t, h).Do("GET", "/", nil).Expect(200)
	if flushErr := <-flushed; flushErr != nil {
		t.Fatalf("Flush through statusWriter: %v", flushErr)
	}
}

func TestSecurityHeaders(t *testing.T) {
	w := serve(SecurityHeaders(http.NotFoundHandler()), httptest.NewRequest("GET", "/", nil))
	want := map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "strict-origin-when-cross-origin",
		"X-Frame-Options":        "SAMEORIGIN",
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestChainOrder(t *testing.T) {
	var order []string
	mw := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	serve(Chain(http.NotFoundHandler(), mw("a"), mw("b"), mw("c")), httptest.NewRequest("GET", "/", nil))
	if strings.Join(order, "") != "abc" {
		t.Fatalf("order %v, want a b c", order)
	}
}

// TestClientRecordAndAccessLogAllocateTwice: behind Proxies.Middleware a
// request costs the access log no allocation of its own; the client
// record and the request's copy carrying it are all there is.
func TestClientRecordAndAccessLogAllocateTwice(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}), Proxies{}.Middleware, AccessLog(logger))
	req := httptest.NewRequest("GET", "/x", nil)
	w := &nopWriter{h: http.Header{}}
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, req) }); n > 2 {
		t.Fatalf("%v allocations a request, want at most 2", n)
	}
}

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *nopWriter) WriteHeader(int)             {}
