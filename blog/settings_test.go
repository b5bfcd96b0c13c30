package blog_test

import (
	"errors"
	"testing"

	"folio/blog"
	"folio/sqlstore"
)

func TestDefaultSettingsValidate(t *testing.T) {
	if err := blog.DefaultSettings().Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestSettingsValidateNamesBadKey(t *testing.T) {
	tests := []struct {
		key    string
		mutate func(*blog.Settings)
	}{
		{"render.render_mode", func(s *blog.Settings) { s.Render.RenderMode = "spa" }},
		{"render.api_prefix", func(s *blog.Settings) { s.Render.APIPrefix = "/api/v2" }},
		{"post.posts_per_page", func(s *blog.Settings) { s.Post.PostsPerPage = 0 }},
		{"post.posts_per_page", func(s *blog.Settings) { s.Post.PostsPerPage = 101 }},
		{"post.summary_length", func(s *blog.Settings) { s.Post.SummaryLength = 0 }},
		{"ai.provider", func(s *blog.Settings) { s.AI.Provider = "skynet" }},
		{"ai.base_url", func(s *blog.Settings) { s.AI.BaseURL = "ftp://x" }},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			s := blog.DefaultSettings()
			tt.mutate(&s)
			var fe *sqlstore.FieldError
			if err := s.Validate(); !errors.As(err, &fe) || fe.Key != tt.key {
				t.Fatalf("Validate = %v, want a FieldError for %s", err, tt.key)
			}
		})
	}
	ok := blog.DefaultSettings()
	ok.Render.RenderMode, ok.Post.PostsPerPage, ok.AI.Provider, ok.AI.BaseURL = "headless", 100, "ollama", "http://127.0.0.1:11434"
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid non-default settings rejected: %v", err)
	}
}

func TestSettingsMaskingAndPersistence(t *testing.T) {
	e := newEnv(t)
	s := e.settings.Get(t.Context())
	s.AI.APIKey = "sk-secret-value-1234"
	if err := e.settings.Put(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	var got blog.Settings
	data(t, e.admin.Do("GET", "/api/v1/admin/settings", nil), 200, &got)
	if got.AI.APIKey != "****1234" || got.Site.SiteName != "Folio" {
		t.Fatalf("GET settings: %+v", got.AI)
	}
	// Sending back the masked value, or leaving the field out, keeps the key.
	got.Site.SiteName = "Renamed"
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", got), 200, &got)
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"render": map[string]any{"render_mode": "headless"}}), 200, &got)
	if got.AI.APIKey != "****1234" || got.Site.SiteName != "Renamed" || got.Render.RenderMode != "headless" || got.Post.PostsPerPage != 10 {
		t.Fatalf("after PUTs: %+v", got)
	}
	stored := e.settings.Get(t.Context())
	if stored.AI.APIKey != "sk-secret-value-1234" || stored.Render.RenderMode != "headless" {
		t.Fatalf("stored: %+v", stored.AI)
	}
	// Survives a fresh store over the same database (a restart).
	again := openSettings(t, e.db)
	if a := again.Get(t.Context()); a.Site.SiteName != "Renamed" || a.AI.APIKey != "sk-secret-value-1234" {
		t.Fatalf("after restart: %+v", a.Site)
	}
	// A new key replaces it; an empty one clears it.
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"ai": map[string]any{"api_key": "new-key-abcdefgh"}}), 200, &got)
	if got.AI.APIKey != "****efgh" {
		t.Errorf("new key masked as %q", got.AI.APIKey)
	}
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"ai": map[string]any{"api_key": ""}}), 200, &got)
	if got.AI.APIKey != "" || e.settings.Get(t.Context()).AI.APIKey != "" {
		t.Errorf("cleared key = %q", got.AI.APIKey)
	}
}

func TestSettingsValidation(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"render mode", map[string]any{"render": map[string]any{"render_mode": "spa"}}, 422, "render.render_mode: must be classic or headless"},
		{"posts per page", map[string]any{"post": map[string]any{"posts_per_page": 0}}, 422, "post.posts_per_page: must be between 1 and 100"},
		{"api prefix", map[string]any{"render": map[string]any{"api_prefix": "/api/v2"}}, 422, "render.api_prefix: must be /api/v1"},
		{"wrong type", `{"post": {"posts_per_page": "ten"}}`, 400, "invalid request payload"},
		{"malformed", `{`, 400, "invalid request payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Do("PUT", "/api/v1/admin/settings", tt.body), tt.status, tt.msg)
		})
	}
	if s := e.settings.Get(t.Context()); s.Render.RenderMode != "classic" || s.Post.PostsPerPage != 10 {
		t.Errorf("a rejected PUT changed settings: %+v", s)
	}
}

func TestCORSOnPublicReads(t *testing.T) {
	e := newEnv(t)
	p := e.publish("Hi")
	paths := []string{"/api/v1/posts", "/api/v1/posts/" + p.ID, "/api/v1/posts/slug/hi", "/api/v1/posts/" + p.ID + "/comments",
		"/api/v1/pages", "/api/v1/categories", "/api/v1/tags", "/api/v1/friend-links"}
	for _, path := range paths {
		if r := e.anon.Do("GET", path, nil, "Origin", "https://other.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS header while disabled", path)
		}
	}
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"render": map[string]any{"enable_cors": true}}), 200, nil)
	for _, path := range paths {
		r := e.anon.Do("GET", path, nil, "Origin", "https://other.example")
		r.Expect(200)
		if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: CORS headers %v", path, r.Header)
		}
		pre := e.anon.Do("OPTIONS", path, nil, "Origin", "https://other.example", "Access-Control-Request-Method", "GET")
		if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: preflight %d %v", path, pre.Status, pre.Header)
		}
	}
	// Never on admin endpoints.
	if r := e.admin.Do("GET", "/api/v1/admin/posts", nil, "Origin", "https://other.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS header on an admin endpoint")
	}
}
