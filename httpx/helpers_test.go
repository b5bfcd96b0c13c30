package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// logRecorder is a slog handler that keeps every record, for asserting on
// what was logged.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

// find returns the attributes of the first record with message msg.
func (h *logRecorder) find(msg string) (map[string]slog.Value, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if r.Message == msg {
			attrs := map[string]slog.Value{}
			r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
			return attrs, true
		}
	}
	return nil, false
}

// serve runs one request through h and returns the recorder.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// compactJSON re-encodes body so exact-shape comparisons ignore spacing.
func compactJSON(t *testing.T, body []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	return buf.String()
}

// wait returns the attributes of the first record with message msg, waiting
// for it: over real HTTP the access line is written after the client has
// its response.
func (h *logRecorder) wait(t *testing.T, msg string) map[string]slog.Value {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if attrs, ok := h.find(msg); ok {
			return attrs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log record %q", msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
