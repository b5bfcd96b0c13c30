package blog_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

const aiPostMarkdown = "Folio stores posts in **SQLite** or PostgreSQL.\n\nThis post explains how the two databases differ and why both are supported by the same hand-written SQL."

func TestAIAutoSummaryReplacesTheFallback(t *testing.T) {
	for _, provider := range providers() {
		t.Run(provider, func(t *testing.T) {
			f := newFakeAI(t, provider)
			e := newAIEnv(t)
			long := "Summary: " + strings.Repeat("Folio keeps one SQL for both databases. ", 10)
			f.set(func(f *fakeAI) { f.summary = long })
			e.useAI(f, map[string]any{"auto_summary": true}, map[string]any{"summary_length": 60})

			p := e.createPost(map[string]any{"title": "Two databases", "content_markdown": aiPostMarkdown})
			fallback := "Folio stores posts in SQLite or PostgreSQL."
			if !strings.HasPrefix(p.Summary, fallback) {
				t.Fatalf("create answered summary %q, want the fallback starting %q", p.Summary, fallback)
			}
			var got post
			eventually(t, "the generated summary", func() bool {
				got = e.getPost(p.ID)
				return got.Summary != p.Summary
			})
			if n := utf8.RuneCountInString(got.Summary); n > 60 {
				t.Errorf("generated summary has %d runes, want at most 60: %q", n, got.Summary)
			}
			if !strings.HasPrefix(got.Summary, "Folio keeps one SQL") || !strings.HasSuffix(got.Summary, "…") {
				t.Errorf("summary %q: want the reply without its label, cut with …", got.Summary)
			}
			reqs := f.seen()
			if len(reqs) != 1 {
				t.Fatalf("provider saw %d requests, want 1 (auto_tag is off)", len(reqs))
			}
			r := reqs[0]
			if r.Auth != "Bearer "+testAPIKey || r.Model != "test-model" || !strings.Contains(r.User, "Two databases") ||
				!strings.Contains(r.User, "hand-written SQL") || !strings.Contains(r.System, "60") {
				t.Errorf("provider request = %+v", r)
			}
			if provider == "ollama" && (r.Stream == nil || *r.Stream) {
				t.Errorf("ollama request must say stream: false, got %v", r.Stream)
			}
			// Saving again without touching the text keeps the generated
			// summary and asks the provider nothing more.
			var again post
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"status": "published"}), 200, &again)
			if again.Summary != got.Summary {
				t.Errorf("after an unrelated PATCH summary = %q, want %q", again.Summary, got.Summary)
			}
			time.Sleep(200 * time.Millisecond)
			if n := len(f.seen()); n != 1 {
				t.Errorf("provider saw %d requests after an unrelated PATCH, want still 1", n)
			}
		})
	}
}

func TestAINeverOverwritesAHandWrittenSummary(t *testing.T) {
	f := newFakeAI(t, "openai")
	e := newAIEnv(t)
	f.set(func(f *fakeAI) { f.tags = `["databases"]` })
	e.useAI(f, map[string]any{"auto_summary": true, "auto_tag": true}, nil)

	tagged := func(id string) func() bool {
		return func() bool { return len(e.getPost(id).Tags) > 0 }
	}

	t.Run("written at creation", func(t *testing.T) {
		p := e.createPost(map[string]any{"summary": "Mine, by hand.", "content_markdown": aiPostMarkdown})
		eventually(t, "the job to attach tags", tagged(p.ID))
		if got := e.getPost(p.ID).Summary; got != "Mine, by hand." {
			t.Fatalf("summary = %q, want the hand-written one", got)
		}
	})

	t.Run("written while the provider works", func(t *testing.T) {
		f.set(func(f *fakeAI) { f.delay = 500 * time.Millisecond })
		defer f.set(func(f *fakeAI) { f.delay = 0 })
		before := len(f.seen())
		p := e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
		eventually(t, "the summary request", func() bool { return f.active() > 0 && len(f.seen()) > before })
		data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"summary": "Edited meanwhile."}), 200, nil)
		eventually(t, "the job to attach tags", tagged(p.ID))
		eventually(t, "the provider to go idle", func() bool { return f.active() == 0 })
		time.Sleep(100 * time.Millisecond)
		if got := e.getPost(p.ID).Summary; got != "Edited meanwhile." {
			t.Fatalf("summary = %q, want the one edited while the job ran", got)
		}
	})
}

func TestAIAutoTagsReuseAndCreateAtMostFive(t *testing.T) {
	for _, provider := range providers() {
		t.Run(provider, func(t *testing.T) {
			f := newFakeAI(t, provider)
			e := newAIEnv(t)
			goTag := e.createTerm("tags", "Go")
			f.set(func(f *fakeAI) {
				f.tags = `["go", "Databases", "SQL", "testing", "PostgreSQL", "SQLite", "extra"]`
			})
			e.useAI(f, map[string]any{"auto_tag": true}, nil)

			tagged := func() int {
				var pg page[post]
				data(t, e.admin.Do("GET", "/api/v1/admin/posts?tag_id="+goTag.ID, nil), 200, &pg)
				return pg.Pagination.Total
			}
			p := e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
			if len(p.Tags) != 0 {
				t.Fatalf("create answered tags %v before the job ran", p.Tags)
			}
			tagged() // most likely before the job: caches the tag's total
			// attachTags adds one tag at a time: wait for the job's end.
			eventually(t, "tags attached", func() bool { return strings.Contains(e.log.String(), "tags attached") })
			if n := tagged(); n != 1 {
				t.Errorf("the list of posts tagged Go counts %d, want 1 (the cached total outlived the tagging)", n)
			}
			got := e.getPost(p.ID)
			if len(got.Tags) != 5 {
				t.Fatalf("post has %d tags, want 5: %v", len(got.Tags), got.Tags)
			}
			names := map[string]string{}
			for _, tg := range got.Tags {
				names[tg.Name] = tg.ID
			}
			if names["Go"] != goTag.ID {
				t.Errorf("tags %v: want the existing tag Go (%s) reused", got.Tags, goTag.ID)
			}
			for _, n := range []string{"Databases", "SQL", "testing", "PostgreSQL"} {
				if names[n] == "" {
					t.Errorf("tags %v: missing %q", got.Tags, n)
				}
			}
			var all page[ref]
			data(t, e.admin.Do("GET", "/api/v1/admin/tags?page_size=100", nil), 200, &all)
			if all.Pagination.Total != 5 {
				t.Errorf("%d tags exist, want 5 (Go reused, 4 created)", all.Pagination.Total)
			}
			reqs := f.seen()
			if len(reqs) != 1 || !strings.Contains(reqs[0].System, "Go") {
				t.Errorf("tag request should offer the existing tag Go: %+v", reqs)
			}
		})
	}
}

func TestAISlowProviderDoesNotDelayTheSave(t *testing.T) {
	const delay = 3 * time.Second
	f := newFakeAI(t, "ollama")
	e := newAIEnv(t)
	f.set(func(f *fakeAI) { f.delay = delay })
	e.useAI(f, map[string]any{"auto_summary": true, "auto_tag": true}, nil)

	start := time.Now()
	p := e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
	took := time.Since(start)
	if took > delay/3 {
		t.Fatalf("create took %v with a provider that answers after %v", took, delay)
	}
	if !strings.HasPrefix(p.Summary, "Folio stores posts") {
		t.Fatalf("create answered summary %q, want the fallback", p.Summary)
	}
	eventually(t, "the job to reach the provider", func() bool { return f.active() > 0 })
	if got := e.getPost(p.ID).Summary; got != p.Summary {
		t.Fatalf("summary changed to %q while the provider had not answered", got)
	}
}

func TestAIFailingProviderKeepsTheFallback(t *testing.T) {
	tests := []struct {
		fail     string
		attempts int
		logged   string
	}{
		{"500", 3, "HTTP 500"},
		{"garbage", 1, "not the expected JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.fail, func(t *testing.T) {
			f := newFakeAI(t, "openai")
			e := newAIEnv(t)
			f.set(func(f *fakeAI) { f.fail = tt.fail })
			e.useAI(f, map[string]any{"auto_summary": true, "auto_tag": true}, nil)

			p := e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
			// The tags step runs after the summary step: its failure ends the job.
			eventually(t, "the job to fail", func() bool { return strings.Contains(e.log.String(), "tags not suggested") })
			got := e.getPost(p.ID)
			if got.Summary != p.Summary || len(got.Tags) != 0 {
				t.Fatalf("after failures: summary %q tags %v, want the fallback %q and none", got.Summary, got.Tags, p.Summary)
			}
			if n := len(f.seen()); n != 2*tt.attempts {
				t.Errorf("provider saw %d requests, want %d (2 tasks × %d attempts)", n, 2*tt.attempts, tt.attempts)
			}
			logs := e.log.String()
			if !strings.Contains(logs, "summary not generated") || !strings.Contains(logs, tt.logged) {
				t.Errorf("log lacks the failure naming %q:\n%s", tt.logged, logs)
			}
			if strings.Contains(logs, testAPIKey) {
				t.Errorf("log shows the API key:\n%s", logs)
			}
		})
	}
}

func TestAIOnDemand(t *testing.T) {
	for _, provider := range providers() {
		t.Run(provider, func(t *testing.T) {
			f := newFakeAI(t, provider)
			e := newAIEnv(t)
			e.createTerm("tags", "Databases")
			f.set(func(f *fakeAI) {
				f.summary = `"Why Folio speaks two SQL dialects."`
				f.tags = "1. databases\n2. sql"
			})
			e.useAI(f, nil, nil)
			p := e.createPost(map[string]any{"title": "Two databases", "content_markdown": aiPostMarkdown})

			var s struct {
				Summary string `json:"summary"`
			}
			data(t, e.admin.Do("POST", "/api/v1/admin/ai/summary", map[string]string{"post_id": p.ID}), 200, &s)
			if s.Summary != "Why Folio speaks two SQL dialects." {
				t.Errorf("summary = %q", s.Summary)
			}
			if r := f.seen()[0]; !strings.Contains(r.User, "hand-written SQL") {
				t.Errorf("post_id did not send the post's text: %+v", r)
			}
			var tg struct {
				Tags []string `json:"tags"`
			}
			data(t, e.admin.Do("POST", "/api/v1/admin/ai/tags",
				map[string]string{"title": "Unsaved", "content_markdown": "A draft about SQL"}), 200, &tg)
			if strings.Join(tg.Tags, ",") != "Databases,sql" {
				t.Errorf("tags = %v, want [Databases sql] (existing spelling kept)", tg.Tags)
			}
			if r := f.seen()[1]; !strings.Contains(r.User, "A draft about SQL") || !strings.Contains(r.System, "Databases") {
				t.Errorf("tags request = %+v", r)
			}
			// Nothing was saved.
			if got := e.getPost(p.ID); got.Summary != p.Summary || len(got.Tags) != 0 {
				t.Errorf("on-demand calls changed the post: summary %q tags %v", got.Summary, got.Tags)
			}
		})
	}
}

func TestAIOnDemandErrors(t *testing.T) {
	f := newFakeAI(t, "openai")
	e := newAIEnv(t)
	e.useAI(f, nil, nil)
	p := e.createPost(nil)
	body := map[string]string{"post_id": p.ID}

	for _, path := range []string{"/api/v1/admin/ai/summary", "/api/v1/admin/ai/tags"} {
		t.Run(path, func(t *testing.T) {
			expectError(t, e.anon.Do("POST", path, body), 401, "")
			expectError(t, e.admin.Do("POST", path, `{"post_id":`), 400, "invalid request payload")
			expectError(t, e.admin.Do("POST", path, `{"post_id": 5}`), 400, "invalid request payload")
			expectError(t, e.admin.Do("POST", path, map[string]string{"title": " "}), 422, "")
			expectError(t, e.admin.Do("POST", path, map[string]string{"post_id": "0190a0a0-0000-7000-8000-000000000000"}), 404, "resource not found")
			expectError(t, e.admin.Do("POST", path, map[string]string{"post_id": "not-an-id"}), 404, "resource not found")

			f.set(func(f *fakeAI) { f.fail = "401" })
			r := e.admin.Do("POST", path, body)
			expectError(t, r, 502, "")
			if msg := r.B().Msg; !strings.Contains(msg, "openai") || !strings.Contains(msg, "HTTP 401") || strings.Contains(string(r.Body), testAPIKey) {
				t.Errorf("502 msg %q: want the provider and status, never the key", msg)
			}
			f.set(func(f *fakeAI) { f.fail = "" })

			e.useAI(f, map[string]any{"enabled": false}, nil)
			expectError(t, e.admin.Do("POST", path, body), 422, "ai: AI is disabled")
			e.useAI(f, nil, nil)
		})
	}
	if strings.Contains(e.log.String(), testAPIKey) {
		t.Errorf("log shows the API key:\n%s", e.log.String())
	}
}

func TestBlogCloseWaitsForRunningJobs(t *testing.T) {
	f := newFakeAI(t, "openai")
	e := newAIEnv(t)
	f.set(func(f *fakeAI) { f.delay = 300 * time.Millisecond })
	e.useAI(f, map[string]any{"auto_summary": true}, nil)

	p := e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
	eventually(t, "the job to reach the provider", func() bool { return f.active() > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.blog.Close(ctx); err != nil {
		t.Fatalf("Close = %v, want nil", err)
	}
	if got := e.getPost(p.ID).Summary; got != "A generated summary." {
		t.Fatalf("after Close summary = %q: Close did not wait for the job", got)
	}
	// Saves after Close still work; they just queue nothing.
	before := len(f.seen())
	e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
	time.Sleep(100 * time.Millisecond)
	if n := len(f.seen()); n != before {
		t.Fatalf("a job ran after Close: %d provider requests, want %d", n, before)
	}
}

func TestBlogCloseCancelsJobsWithoutLeaking(t *testing.T) {
	const delay = 30 * time.Second
	workers := aiWorkers()
	f := newFakeAI(t, "ollama")
	e := newAIEnv(t)
	if n := aiWorkers() - workers; n <= 0 {
		t.Fatalf("New started %d AI workers", n)
	}
	f.set(func(f *fakeAI) { f.delay = delay })
	e.useAI(f, map[string]any{"auto_summary": true, "auto_tag": true}, nil)
	for i := 0; i < 4; i++ {
		e.createPost(map[string]any{"content_markdown": aiPostMarkdown})
	}
	eventually(t, "jobs to reach the provider", func() bool { return f.active() > 0 })

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.blog.Close(ctx)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want the context's deadline", err)
	}
	if took > delay/3 {
		t.Fatalf("Close took %v with jobs waiting %v on the provider", took, delay)
	}
	if n := aiWorkers() - workers; n != 0 {
		t.Fatalf("%d AI workers still running after Close", n)
	}
	eventually(t, "the provider requests to be cancelled", func() bool { return f.active() == 0 })
}
