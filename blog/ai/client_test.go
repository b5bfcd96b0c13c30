package ai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCompleteSendsTheProviderFormat(t *testing.T) {
	temp := 0.2
	cases := []struct {
		provider, path string
		key            string
		mods           func(*Config)
		check          func(t *testing.T, body map[string]any)
	}{
		{provider: ProviderOpenAI, path: "/v1/chat/completions", key: testKey,
			check: func(t *testing.T, body map[string]any) {
				if _, ok := body["stream"]; ok {
					t.Errorf("openai body has stream: %v", body)
				}
				if _, ok := body["temperature"]; ok {
					t.Errorf("unset temperature was sent: %v", body)
				}
			}},
		{provider: ProviderOpenAI, path: "/v1/chat/completions", key: testKey,
			mods: func(c *Config) { c.Temperature = &temp; c.MaxTokens = 300 },
			check: func(t *testing.T, body map[string]any) {
				if body["temperature"] != 0.2 || body["max_tokens"] != 300.0 {
					t.Errorf("temperature/max_tokens = %v/%v", body["temperature"], body["max_tokens"])
				}
			}},
		{provider: ProviderOllama, path: "/api/chat", key: testKey,
			check: func(t *testing.T, body map[string]any) {
				if v, ok := body["stream"]; !ok || v != false {
					t.Errorf("ollama stream = %v (present %v), want false", v, ok)
				}
			}},
		{provider: ProviderOllama, path: "/api/chat", key: "",
			mods: func(c *Config) { c.APIKey = ""; c.MaxTokens = 50 },
			check: func(t *testing.T, body map[string]any) {
				opts, _ := body["options"].(map[string]any)
				if opts["num_predict"] != 50.0 {
					t.Errorf("options = %v, want num_predict 50", body["options"])
				}
			}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s key=%v", tc.provider, tc.key != ""), func(t *testing.T) {
			f := newFakeProvider(t, replyWith(tc.provider, "  hello there \n"))
			mods := []func(*Config){}
			if tc.mods != nil {
				mods = append(mods, tc.mods)
			}
			c := newTestClient(t, tc.provider, f.URL, mods...)
			got, err := c.Complete(context.Background(), "be brief", "say hello")
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got != "hello there" {
				t.Errorf("reply = %q, want trimmed %q", got, "hello there")
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Path != tc.path {
				t.Errorf("request = %s %s, want POST %s", r.Method, r.Path, tc.path)
			}
			wantAuth := ""
			if tc.key != "" {
				wantAuth = "Bearer " + tc.key
			}
			if r.Auth != wantAuth {
				t.Errorf("Authorization = %q, want %q", r.Auth, wantAuth)
			}
			if r.ContentType != "application/json" {
				t.Errorf("Content-Type = %q", r.ContentType)
			}
			if r.Body["model"] != "test-model" {
				t.Errorf("model = %v", r.Body["model"])
			}
			msgs, _ := r.Body["messages"].([]any)
			if len(msgs) != 2 {
				t.Fatalf("messages = %v, want system and user", r.Body["messages"])
			}
			for i, want := range [][2]string{{"system", "be brief"}, {"user", "say hello"}} {
				m, _ := msgs[i].(map[string]any)
				if m["role"] != want[0] || m["content"] != want[1] {
					t.Errorf("message %d = %v, want %v", i, m, want)
				}
			}
			tc.check(t, r.Body)
		})
	}
}

func TestNewFillsDefaultsAndKeepsBasePath(t *testing.T) {
	cases := []struct {
		settings Settings
		endpoint string
		model    string
	}{
		{Settings{Provider: "openai"}, "https://api.openai.com/v1/chat/completions", DefaultOpenAIModel},
		{Settings{Provider: " OpenAI ", Model: "gpt-x"}, "https://api.openai.com/v1/chat/completions", "gpt-x"},
		{Settings{Provider: "openai", BaseURL: "https://llm.example.com/proxy/v1/"}, "https://llm.example.com/proxy/v1/chat/completions", DefaultOpenAIModel},
		{Settings{Provider: "openai", BaseURL: "https://llm.example.com/v1?tenant=a"}, "https://llm.example.com/v1/chat/completions?tenant=a", DefaultOpenAIModel},
		{Settings{Provider: "ollama"}, "http://127.0.0.1:11434/api/chat", DefaultOllamaModel},
		{Settings{Provider: "ollama", BaseURL: "http://gpu-box:11434", Model: "qwen2.5"}, "http://gpu-box:11434/api/chat", "qwen2.5"},
	}
	for _, tc := range cases {
		t.Run(tc.endpoint, func(t *testing.T) {
			c, err := NewFromSettings(tc.settings, nil)
			if err != nil {
				t.Fatalf("NewFromSettings: %v", err)
			}
			if got := c.endpoint.String(); got != tc.endpoint {
				t.Errorf("endpoint = %q, want %q", got, tc.endpoint)
			}
			if c.Model() != tc.model {
				t.Errorf("model = %q, want %q", c.Model(), tc.model)
			}
		})
	}
}

func TestNewRejectsBadConfigWithoutLeakingTheKey(t *testing.T) {
	cases := []Config{
		{Provider: ""},
		{Provider: "anthropic"},
		{Provider: ProviderOpenAI, BaseURL: "ftp://example.com/" + testKey},
		{Provider: ProviderOpenAI, BaseURL: "/relative/" + testKey},
		{Provider: ProviderOllama, BaseURL: "http://%zz/" + testKey},
	}
	for _, cfg := range cases {
		t.Run(cfg.Provider+" "+cfg.BaseURL, func(t *testing.T) {
			cfg.APIKey = testKey
			_, err := New(cfg)
			if err == nil {
				t.Fatal("New accepted a bad configuration")
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
}

func TestSlowProviderEndsAtTheCallersDeadline(t *testing.T) {
	const hang = 10 * time.Second
	for _, p := range allProviders() {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, func(_ int, w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(hang):
				}
			})
			c := newTestClient(t, p, f.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.Complete(ctx, "s", "u")
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("Complete succeeded against a hanging provider")
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v is not context.DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the provider", err)
			}
			// Far below the provider's delay: the deadline, not the server, ended the call.
			if elapsed > hang/4 {
				t.Errorf("Complete took %v, the provider hangs for %v", elapsed, hang)
			}
		})
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	f := newFakeProvider(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			<-r.Context().Done() // the first attempt hangs until the client gives up
			return
		}
		writeReply(w, ProviderOpenAI, "ok")
	})
	c := newTestClient(t, ProviderOpenAI, f.URL, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	got, err := c.Complete(context.Background(), "s", "u")
	if err != nil || got != "ok" {
		t.Fatalf("Complete = %q, %v; want ok", got, err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("attempts = %d, want 2", n)
	}
}

func TestRetries(t *testing.T) {
	cases := []struct {
		name        string
		statuses    []int // status of each attempt; 200 answers with a reply
		maxAttempts int
		attempts    int
		wantErr     int // HTTP status of the final error, 0 for success
	}{
		{"500 then success", []int{500, 200}, 3, 2, 0},
		{"502 503 then success", []int{502, 503, 200}, 3, 3, 0},
		{"429 then success", []int{429, 200}, 3, 2, 0},
		{"500 three times gives up", []int{500, 500, 500, 500}, 3, 3, 500},
		{"attempts are configurable", []int{500, 500, 200}, 2, 2, 500},
		{"400 is not retried", []int{400, 200}, 3, 1, 400},
		{"401 is not retried", []int{401, 200}, 3, 1, 401},
		{"501 is not retried", []int{501, 200}, 3, 1, 501},
	}
	for _, p := range allProviders() {
		for _, tc := range cases {
			t.Run(p+" "+tc.name, func(t *testing.T) {
				f := newFakeProvider(t, func(n int, w http.ResponseWriter, r *http.Request) {
					st := tc.statuses[min(n, len(tc.statuses))-1]
					if st == 200 {
						writeReply(w, p, "fine")
						return
					}
					http.Error(w, `{"error":{"message":"try later"}}`, st)
				})
				c := newTestClient(t, p, f.URL, func(c *Config) { c.MaxAttempts = tc.maxAttempts })
				got, err := c.Complete(context.Background(), "s", "u")
				if n := len(f.requests()); n != tc.attempts {
					t.Errorf("attempts = %d, want %d", n, tc.attempts)
				}
				if tc.wantErr == 0 {
					if err != nil || got != "fine" {
						t.Fatalf("Complete = %q, %v; want success", got, err)
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is not an *Error", err, err)
				}
				if e.Status != tc.wantErr || e.Attempts != tc.attempts || !errors.Is(err, ErrStatus) {
					t.Errorf("error = %+v, want status %d after %d attempts", e, tc.wantErr, tc.attempts)
				}
				msg := err.Error()
				for _, want := range []string{p, fmt.Sprintf("HTTP %d", tc.wantErr), "try later"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q lacks %q", msg, want)
					}
				}
			})
		}
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	f := newFakeProvider(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
			return
		}
		writeReply(w, ProviderOpenAI, "after the wait")
	})
	// Backoff alone would wait milliseconds; only Retry-After explains a second.
	c := newTestClient(t, ProviderOpenAI, f.URL)
	got, err := c.Complete(context.Background(), "s", "u")
	if err != nil || got != "after the wait" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("attempts = %d, want 2", len(reqs))
	}
	if gap := reqs[1].At.Sub(reqs[0].At); gap < 900*time.Millisecond {
		t.Errorf("second attempt came %v after the first, Retry-After asked for 1s", gap)
	}
}

func TestRetryAfterPastTheDeadlineFailsAtOnce(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		deadline   time.Duration // 0: none
	}{
		{"longer than the context allows", "30", 5 * time.Second},
		{"longer than MaxRetryAfter", "3600", 0},
		{"http date beyond the deadline", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeProvider(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", tc.retryAfter)
				http.Error(w, "slow down", http.StatusTooManyRequests)
			})
			c := newTestClient(t, ProviderOllama, f.URL)
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err := c.Complete(ctx, "s", "u")
			if err == nil || !strings.Contains(err.Error(), "HTTP 429") {
				t.Fatalf("error = %v, want the 429", err)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("attempts = %d, want 1 (no sleeping into the deadline)", n)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("Complete took %v, it should give up at once", el)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 2 ", 2 * time.Second},
		{"0", 0},
		{"-5", 0},
		{"soon", 0},
		{"999999999", 86400 * time.Second},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tc := range cases {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	c := newTestClient(t, ProviderOpenAI, "http://127.0.0.1:1", func(c *Config) {
		c.BackoffBase = 100 * time.Millisecond
		c.BackoffMax = 400 * time.Millisecond
	})
	for attempt, limit := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 4: 400, 10: 400} {
		limit *= time.Millisecond
		for range 50 {
			if d := c.backoff(attempt); d < limit/2 || d > limit {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, limit/2, limit)
			}
		}
	}
}

func TestUnusableRepliesAreErrors(t *testing.T) {
	type reply struct {
		status int
		body   string
	}
	cases := []struct {
		name     string
		provider string
		reply    reply
		maxBytes int64
		kind     error
	}{
		{"garbage", ProviderOpenAI, reply{200, "<html>oops</html>"}, 0, ErrBadResponse},
		{"empty body", ProviderOpenAI, reply{200, ""}, 0, ErrBadResponse},
		{"wrong shape", ProviderOpenAI, reply{200, `{"message":{"content":"hi"}}`}, 0, ErrBadResponse},
		{"array", ProviderOpenAI, reply{200, `[1,2,3]`}, 0, ErrBadResponse},
		{"empty choices", ProviderOpenAI, reply{200, `{"choices":[]}`}, 0, ErrBadResponse},
		{"null content", ProviderOpenAI, reply{200, `{"choices":[{"message":{"role":"assistant","content":null}}]}`}, 0, ErrBadResponse},
		{"blank content", ProviderOpenAI, reply{200, `{"choices":[{"message":{"content":"  \n "}}]}`}, 0, ErrBadResponse},
		{"content of wrong type", ProviderOpenAI, reply{200, `{"choices":[{"message":{"content":42}}]}`}, 0, ErrBadResponse},
		{"error object with 200", ProviderOpenAI, reply{200, `{"error":{"message":"quota"}}`}, 0, ErrBadResponse},
		{"truncated json", ProviderOllama, reply{200, `{"message":{"content":"hi"`}, 0, ErrBadResponse},
		{"ollama openai shape", ProviderOllama, reply{200, `{"choices":[{"message":{"content":"hi"}}]}`}, 0, ErrBadResponse},
		{"ollama empty content", ProviderOllama, reply{200, `{"message":{"role":"assistant","content":""},"done":true}`}, 0, ErrBadResponse},
		{"ollama message null", ProviderOllama, reply{200, `{"message":null}`}, 0, ErrBadResponse},
		{"too large", ProviderOllama, reply{200, `{"message":{"content":"` + strings.Repeat("x", 2000) + `"}}`}, 1024, ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeProvider(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.reply.status)
				_, _ = w.Write([]byte(tc.reply.body))
			})
			c := newTestClient(t, tc.provider, f.URL, func(c *Config) { c.MaxResponseBytes = tc.maxBytes })
			got, err := c.Complete(context.Background(), "s", "u")
			if err == nil {
				t.Fatalf("Complete = %q, want an error", got)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %v is not %v", err, tc.kind)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("attempts = %d, a bad 2xx reply is not retried", n)
			}
		})
	}
}

func TestErrorsNeverContainTheAPIKey(t *testing.T) {
	echo := func(status int, body string) func(int, http.ResponseWriter, *http.Request) {
		return func(_ int, w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(strings.ReplaceAll(body, "AUTH", r.Header.Get("Authorization"))))
		}
	}
	cases := []struct {
		name    string
		respond func(int, http.ResponseWriter, *http.Request) // nil: nothing listens
		base    func(url string) string
		run     func(c *Client) error
	}{
		{name: "key echoed in openai error JSON",
			respond: echo(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error"}}`)},
		{name: "authorization header echoed in plain text, retried",
			respond: echo(500, "upstream failed for AUTH")},
		{name: "key echoed in ollama error",
			respond: echo(404, `{"error":"model not found for key `+testKey+`"}`)},
		{name: "key in a long body",
			respond: echo(503, strings.Repeat("x", 190)+testKey+strings.Repeat("y", 5000))},
		{name: "key URL-escaped in body",
			respond: echo(400, "bad key "+url.QueryEscape(testKey+"/+"))},
		{name: "key in base URL path, nothing listening",
			base: func(string) string { return closedURL(t) + "/" + testKey + "/v1" }},
		{name: "key in base URL query, 404",
			respond: echo(404, "no route"), base: func(u string) string { return u + "/v1?key=" + testKey }},
		{name: "key in base URL, hanging provider",
			respond: func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			base:    func(u string) string { return u + "/" + testKey }},
		{name: "summarize with garbage reply",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request) { writeReply(w, ProviderOpenAI, `""`) },
			run: func(c *Client) error {
				_, err := c.Summarize(context.Background(), testKey, testKey, 100)
				return err
			}},
		{name: "suggest tags with garbage reply",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request) { writeReply(w, ProviderOpenAI, "{"+testKey+"}") },
			run: func(c *Client) error {
				_, err := c.SuggestTags(context.Background(), "t", "m", []string{testKey}, 5)
				return err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := closedURL(t)
			if tc.respond != nil {
				base = newFakeProvider(t, tc.respond).URL
			}
			if tc.base != nil {
				base = tc.base(base)
			} else {
				base += "/v1"
			}
			key := testKey
			if tc.name == "key URL-escaped in body" {
				key = testKey + "/+"
			}
			c, err := New(Config{Provider: ProviderOpenAI, APIKey: key, BaseURL: base,
				BackoffBase: time.Millisecond, BackoffMax: time.Millisecond, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			run := tc.run
			if run == nil {
				run = func(c *Client) error { _, err := c.Complete(context.Background(), "s", "u"); return err }
			}
			err = run(c)
			if err == nil {
				t.Fatal("want an error")
			}
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				for _, text := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
					if strings.Contains(text, testKey) || strings.Contains(text, url.QueryEscape(key)) {
						t.Fatalf("error leaks the key: %s", text)
					}
				}
			}
			if !strings.Contains(err.Error(), "openai") {
				t.Errorf("error %q does not name the provider", err)
			}
		})
	}
}
