package blog_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/blog"
)

// testAPIKey is the key the fake provider checks; it must never show up in
// a response or a log line.
const testAPIKey = "sk-test-5ecret-key-0123456789"

// fakeAI is a local provider speaking the real OpenAI chat-completions or
// Ollama /api/chat format. It answers summary requests with summary and tag
// requests with tags, after delay, or fails as fail says.
type fakeAI struct {
	provider string
	srv      *httptest.Server

	mu       sync.Mutex
	summary  string
	tags     string
	delay    time.Duration
	fail     string // "": answer; "500": error status echoing the key; "401"; "garbage": 200 with non-JSON
	requests []fakeRequest
	inFlight int
}

// fakeRequest is what the fake saw of one request.
type fakeRequest struct {
	Auth   string
	Model  string
	Stream *bool
	System string
	User   string
}

func newFakeAI(t testing.TB, provider string) *fakeAI {
	t.Helper()
	f := &fakeAI{provider: provider, summary: "A generated summary.", tags: `["go"]`}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// baseURL is what ai.base_url must be for this fake.
func (f *fakeAI) baseURL() string {
	if f.provider == "openai" {
		return f.srv.URL + "/v1"
	}
	return f.srv.URL
}

func (f *fakeAI) set(mod func(f *fakeAI)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mod(f)
}

func (f *fakeAI) seen() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeAI) active() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inFlight
}

func (f *fakeAI) serve(w http.ResponseWriter, r *http.Request) {
	want := "/v1/chat/completions"
	if f.provider == "ollama" {
		want = "/api/chat"
	}
	if r.Method != http.MethodPost || r.URL.Path != want {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Model    string `json:"model"`
		Stream   *bool  `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req := fakeRequest{Auth: r.Header.Get("Authorization"), Model: body.Model, Stream: body.Stream}
	for _, m := range body.Messages {
		switch m.Role {
		case "system":
			req.System = m.Content
		case "user":
			req.User = m.Content
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.inFlight++
	summary, tags, delay, fail := f.summary, f.tags, f.delay, f.fail
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()

	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	switch fail {
	case "500":
		// Providers do echo keys back; the blog must not pass them on.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": "overloaded, your key is " + req.Auth}})
		return
	case "401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + strings.TrimPrefix(req.Auth, "Bearer ")}})
		return
	case "garbage":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "<html>not json at all")
		return
	}
	content := tags
	if strings.Contains(req.System, "summarize") {
		content = summary
	}
	w.Header().Set("Content-Type", "application/json")
	if f.provider == "openai" {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"model": body.Model, "created_at": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": content},
		"done":    true, "done_reason": "stop", "total_duration": 12345,
	})
}

// logBuffer collects log output from the blog's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// aiEnv is the blog test env with the Blog itself at hand (to Close it)
// and its log captured.
type aiEnv struct {
	*env
	blog *blog.Blog
	log  *logBuffer
}

// newAIEnv builds an env as newEnv does, but keeps the Blog and closes it
// (cancelling AI jobs still running) before the database closes.
func newAIEnv(t testing.TB) *aiEnv {
	t.Helper()
	logs := &logBuffer{}
	e, b := newEnvWith(t, setup{log: logs})
	return &aiEnv{env: e, blog: b, log: logs}
}

// useAI points the ai settings at f; ai holds further ai fields and post
// further post fields.
func (e *aiEnv) useAI(f *fakeAI, ai map[string]any, post map[string]any) {
	e.t.Helper()
	group := map[string]any{"enabled": true, "provider": f.provider, "base_url": f.baseURL(),
		"api_key": testAPIKey, "model": "test-model", "auto_summary": false, "auto_tag": false}
	for k, v := range ai {
		group[k] = v
	}
	body := map[string]any{"ai": group}
	if post != nil {
		body["post"] = post
	}
	r := e.admin.Do("PUT", "/api/v1/admin/settings", body).Expect(200)
	if strings.Contains(string(r.Body), testAPIKey) {
		e.t.Fatalf("settings answer shows the API key: %s", r.Body)
	}
}

// getPost reads a post through the admin API.
func (e *aiEnv) getPost(id string) post {
	e.t.Helper()
	var p post
	data(e.t, e.admin.Do("GET", "/api/v1/admin/posts/"+id, nil), 200, &p)
	return p
}

// eventually polls cond for up to 5 s: background work on a loaded machine
// is slow, but it must end.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// aiWorkers counts the goroutines running AI queue workers in this process.
func aiWorkers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "folio/blog/ai.(*Queue).work(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

func providers() []string { return []string{"openai", "ollama"} }
