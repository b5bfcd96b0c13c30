package sqlstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestDefaultSettingsValidate(t *testing.T) {
	if err := sqlstore.DefaultSettings().Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestSettingsValidateNamesBadKey(t *testing.T) {
	tests := []struct {
		key    string
		mutate func(*sqlstore.Settings)
	}{
		{"render.render_mode", func(s *sqlstore.Settings) { s.Render.RenderMode = "spa" }},
		{"render.api_prefix", func(s *sqlstore.Settings) { s.Render.APIPrefix = "/api/v2" }},
		{"post.posts_per_page", func(s *sqlstore.Settings) { s.Post.PostsPerPage = 0 }},
		{"post.posts_per_page", func(s *sqlstore.Settings) { s.Post.PostsPerPage = 101 }},
		{"post.summary_length", func(s *sqlstore.Settings) { s.Post.SummaryLength = 0 }},
		{"ai.provider", func(s *sqlstore.Settings) { s.AI.Provider = "skynet" }},
		{"ai.base_url", func(s *sqlstore.Settings) { s.AI.BaseURL = "ftp://x" }},
		{"upload.max_file_size", func(s *sqlstore.Settings) { s.Upload.MaxFileSize = 0 }},
		{"upload.default_quota_bytes", func(s *sqlstore.Settings) { s.Upload.DefaultQuotaBytes = -1 }},
		{"upload.path_pattern", func(s *sqlstore.Settings) { s.Upload.PathPattern = "../{uuid}" }},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			s := sqlstore.DefaultSettings()
			tt.mutate(&s)
			var fe *sqlstore.FieldError
			if err := s.Validate(); !errors.As(err, &fe) || fe.Key != tt.key {
				t.Fatalf("Validate = %v, want a FieldError for %s", err, tt.key)
			}
		})
	}
	ok := sqlstore.DefaultSettings()
	ok.Render.RenderMode, ok.Post.PostsPerPage, ok.AI.Provider, ok.AI.BaseURL = "headless", 100, "ollama", "http://127.0.0.1:11434"
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid non-default settings rejected: %v", err)
	}
}

func TestSetText(t *testing.T) {
	tests := []struct {
		name, key, text string
		check           func(s sqlstore.Settings) bool
	}{
		{"bool true", "post.enable_comment", "off", func(s sqlstore.Settings) bool { return !s.Post.EnableComment }},
		{"bool yes", "upload.allow_register", "yes", func(s sqlstore.Settings) bool { return s.Upload.AllowRegister }},
		{"int", "post.posts_per_page", " 25 ", func(s sqlstore.Settings) bool { return s.Post.PostsPerPage == 25 }},
		{"size with suffix", "upload.max_file_size", "5 MiB", func(s sqlstore.Settings) bool { return s.Upload.MaxFileSize == 5<<20 }},
		{"size plain", "upload.default_quota_bytes", "0", func(s sqlstore.Settings) bool { return s.Upload.DefaultQuotaBytes == 0 }},
		{"list", "upload.forbidden_exts", " .EXE, php ,,", func(s sqlstore.Settings) bool {
			return slices.Equal(s.Upload.ForbiddenExts, sqlstore.List{"exe", "php"})
		}},
		{"empty list", "upload.allowed_types", "", func(s sqlstore.Settings) bool { return len(s.Upload.AllowedTypes) == 0 }},
		{"string", "site.site_name", "My \"quoted\" site", func(s sqlstore.Settings) bool { return s.Site.SiteName == `My "quoted" site` }},
		{"string that looks like a number", "site.icp", "12345", func(s sqlstore.Settings) bool { return s.Site.ICP == "12345" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sqlstore.DefaultSettings()
			if err := s.SetText(tt.key, tt.text); err != nil {
				t.Fatalf("SetText(%s, %q): %v", tt.key, tt.text, err)
			}
			if !tt.check(s) {
				t.Fatalf("SetText(%s, %q) gave %+v", tt.key, tt.text, s)
			}
		})
	}
}

func TestSetTextErrorsNameTheKey(t *testing.T) {
	tests := []struct{ name, key, text string }{
		{"unknown key", "site.nope", "x"},
		{"unknown group", "nope", "x"},
		{"bad bool", "post.enable_toc", "maybe"},
		{"bad int", "post.posts_per_page", "ten"},
		{"bad size", "upload.max_file_size", "12 parsecs"},
		{"overflowing size", "upload.max_file_size", "9999999999999999999G"},
		{"negative overflowing size", "upload.max_file_size", "-9007199254740993K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sqlstore.DefaultSettings()
			err := s.SetText(tt.key, tt.text)
			var fe *sqlstore.FieldError
			if !errors.As(err, &fe) || fe.Key != tt.key {
				t.Fatalf("SetText(%s, %q) = %v, want a FieldError naming the key", tt.key, tt.text, err)
			}
			if !equalJSON(t, s, sqlstore.DefaultSettings()) {
				t.Fatalf("failed SetText changed the settings")
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"123", 123, true}, {"1K", 1 << 10, true}, {"1kb", 1 << 10, true},
		{"2 MiB", 2 << 20, true}, {"3G", 3 << 30, true}, {"-1", -1, true},
		{"", 0, false}, {"1.5M", 0, false}, {"M", 0, false}, {"1T", 0, false},
		{"9999999999G", 0, false}, {"-9999999999G", 0, false},
	}
	for _, tt := range tests {
		got, err := sqlstore.ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestListJSON(t *testing.T) {
	raw, err := json.Marshal(sqlstore.List{"jpg", "png"})
	if err != nil || string(raw) != `"jpg,png"` {
		t.Fatalf("Marshal = %s, %v; want \"jpg,png\"", raw, err)
	}
	tests := []struct {
		in   string
		want sqlstore.List
		ok   bool
	}{
		{`"jpg, .PNG"`, sqlstore.List{"jpg", "png"}, true},
		{`["jpg", ".PNG", ""]`, sqlstore.List{"jpg", "png"}, true},
		{`""`, sqlstore.List{}, true},
		{`[]`, sqlstore.List{}, true},
		{`5`, nil, false},
		{`[1, 2]`, nil, false},
	}
	for _, tt := range tests {
		var l sqlstore.List
		err := json.Unmarshal([]byte(tt.in), &l)
		if (err == nil) != tt.ok || (tt.ok && !slices.Equal(l, tt.want)) {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q, ok=%v", tt.in, l, err, tt.want, tt.ok)
		}
	}
}

func TestValidatePathPattern(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{sqlstore.DefaultPathPattern, true},
		{"{md5}.{ext}", true},
		{"{year}/{month}/{day}/{timestamp}-{uuid}", true},
		{"", false},
		{"/abs/{uuid}", false},
		{`C:/x/{uuid}`, false},
		{`a\{uuid}`, false},
		{"a/../{uuid}", false},
		{"./{uuid}", false},
		{"a//{uuid}", false},
		{"{year}/{md5_8}.{ext}", false},
		{"{uuid}/{hostname}", false},
		{"{uuid}/{year", false},
		{"{uuid}/", false},
	}
	for _, tt := range tests {
		if err := sqlstore.ValidatePathPattern(tt.in); (err == nil) != tt.ok {
			t.Errorf("ValidatePathPattern(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}

func TestKeysListsEverySetting(t *testing.T) {
	keys := sqlstore.Keys()
	for _, k := range []string{"site.site_name", "post.posts_per_page", "render.render_mode", "ai.api_key", "upload.path_pattern"} {
		if !slices.Contains(keys, k) {
			t.Errorf("Keys() lacks %s", k)
		}
	}
	if !slices.IsSorted(keys) {
		t.Error("Keys() is not sorted")
	}
}

func TestSettingsStorePutStoresOnlyDifferences(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	db := cfg.Open(t)
	ctx := context.Background()
	base := sqlstore.DefaultSettings()
	base.Site.SiteName = "From the file"
	store, err := sqlstore.NewSettingsStore(ctx, db, base)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sqlstore.NewSettingsStore(ctx, cfg.Open(t), base)
	if err != nil {
		t.Fatal(err)
	}
	if got := store.Get(ctx); !equalJSON(t, got, base) {
		t.Fatalf("fresh store = %+v, want the base", got)
	}

	next := base
	next.Post.PostsPerPage = 42
	next.Upload.ForbiddenExts = sqlstore.List{"exe"}
	if err := store.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got := storedKeys(t, db); !slices.Equal(got, []string{"post.posts_per_page", "upload.forbidden_exts"}) {
		t.Fatalf("stored keys = %q, want only the two changed ones", got)
	}
	if got := store.Get(ctx); got.Post.PostsPerPage != 42 {
		t.Fatalf("own store after Put: posts_per_page = %d, want 42 at once", got.Post.PostsPerPage)
	}

	time.Sleep(sqlstore.RefreshInterval + 100*time.Millisecond)
	got := other.Get(ctx)
	if got.Post.PostsPerPage != 42 || !slices.Equal(got.Upload.ForbiddenExts, sqlstore.List{"exe"}) || got.Site.SiteName != "From the file" {
		t.Fatalf("other process after RefreshInterval = %+v, want the change", got)
	}

	// A restart with a changed configuration keeps the override and follows
	// the file for the rest.
	base2 := base
	base2.Site.SiteName = "Edited file"
	restarted, err := sqlstore.NewSettingsStore(ctx, db, base2)
	if err != nil {
		t.Fatal(err)
	}
	if got := restarted.Get(ctx); got.Post.PostsPerPage != 42 || got.Site.SiteName != "Edited file" {
		t.Fatalf("after restart = %+v", got)
	}

	// Putting the base values back removes the overrides.
	if err := store.Put(ctx, base); err != nil {
		t.Fatal(err)
	}
	if got := storedKeys(t, db); len(got) != 0 {
		t.Fatalf("stored keys after reverting = %q, want none", got)
	}
}

func TestSettingsStorePutRejectsInvalid(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	store, err := sqlstore.NewSettingsStore(ctx, db, sqlstore.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	bad := sqlstore.DefaultSettings()
	bad.Post.PostsPerPage = 1000
	var fe *sqlstore.FieldError
	if err := store.Put(ctx, bad); !errors.As(err, &fe) || fe.Key != "post.posts_per_page" {
		t.Fatalf("Put(invalid) = %v, want FieldError post.posts_per_page", err)
	}
	if got := storedKeys(t, db); len(got) != 0 {
		t.Fatalf("invalid Put stored %q", got)
	}
	if got := store.Get(ctx); got.Post.PostsPerPage != 10 {
		t.Fatalf("invalid Put changed current settings: %d", got.Post.PostsPerPage)
	}
}

func TestSettingsStoreIgnoresUnknownStoredKeys(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, 0), ($3, $4, 0)",
		"site.removed_in_this_version", `"x"`, "site.site_name", `"Stored"`); err != nil {
		t.Fatal(err)
	}
	store, err := sqlstore.NewSettingsStore(ctx, db, sqlstore.DefaultSettings())
	if err != nil {
		t.Fatalf("NewSettingsStore with an unknown stored key: %v", err)
	}
	if got := store.Get(ctx).Site.SiteName; got != "Stored" {
		t.Fatalf("site_name = %q, want Stored", got)
	}
}

func storedKeys(t *testing.T, db *sqlstore.DB) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT key FROM settings ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ra, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ra) == string(rb)
}
