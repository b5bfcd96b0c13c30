package ai

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testKey is the API key of every test client; no error may contain it.
const testKey = "sk-test-Zq8XvL2mNpR7tW4yB9cD"

// seen is one request as a fake provider received it.
type seen struct {
	Method, Path, Query string
	Auth, ContentType   string
	Body                map[string]any
	RawBody             []byte
	At                  time.Time
}

// fakeProvider is a local HTTP server speaking a provider's wire format;
// respond answers the n-th request (from 1).
type fakeProvider struct {
	URL     string
	mu      sync.Mutex
	seen    []seen
	respond func(n int, w http.ResponseWriter, r *http.Request)
}

func newFakeProvider(t testing.TB, respond func(n int, w http.ResponseWriter, r *http.Request)) *fakeProvider {
	t.Helper()
	f := &fakeProvider{respond: respond}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), RawBody: raw, At: time.Now()}
		_ = json.Unmarshal(raw, &s.Body)
		f.mu.Lock()
		f.seen = append(f.seen, s)
		n := len(f.seen)
		f.mu.Unlock()
		f.respond(n, w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeProvider) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

// replyWith answers every request with a success in the provider's format.
func replyWith(provider, content string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { writeReply(w, provider, content) }
}

func writeReply(w http.ResponseWriter, provider, content string) {
	w.Header().Set("Content-Type", "application/json")
	if provider == ProviderOllama {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": "llama3.2", "created_at": "2024-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": content},
			"done":    true, "done_reason": "stop",
		})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

// baseFor is the base URL a fake provider is configured with: OpenAI's
// carries the /v1 the real one has.
func baseFor(provider, url string) string {
	if provider == ProviderOpenAI {
		return url + "/v1"
	}
	return url
}

// newTestClient returns a client for the fake provider at url with fast
// retries; mods adjust the configuration.
func newTestClient(t testing.TB, provider, url string, mods ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{Provider: provider, APIKey: testKey, Model: "test-model", BaseURL: baseFor(provider, url),
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Timeout: 5 * time.Second}
	for _, m := range mods {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// closedURL is the URL of a port nothing listens on any more.
func closedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

func allProviders() []string { return []string{ProviderOpenAI, ProviderOllama} }
