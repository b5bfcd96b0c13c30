package main

import (
	"context"
	"crypto/rand"
	"regexp"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// newSettingsApp wires Folio over a database that already holds the given
// settings rows, and returns a client logged in as the administrator.
func newSettingsApp(t *testing.T, rows [][2]string) *httpxtest.Client {
	t.Helper()
	dbc := sqlstoretest.NewConfig(t)
	db := dbc.Open(t)
	for _, r := range rows {
		if _, err := db.Exec(context.Background(), "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, 0)", r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	_, c := newTestAppOn(t, dbc)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	return c
}

func TestSettingsDocumentShape(t *testing.T) {
	c := newSettingsApp(t, nil)
	const want = `{"code":200,"data":{` +
		`"site":{"site_name":"Folio","site_url":"","description":"A blog and file host","keywords":"","favicon":"","logo":"","icp":"","footer":""},` +
		`"post":{"posts_per_page":10,"enable_comment":true,"enable_toc":true,"summary_length":200,"default_cover_url":"","revisions_kept":20},` +
		`"render":{"render_mode":"classic","api_prefix":"/api/v1","enable_cors":false},` +
		`"ai":{"enabled":false,"provider":"openai","api_key":"","model":"","base_url":"","auto_summary":false,"auto_tag":false},` +
		`"federation":{"enabled":false,"username":"blog","approve_followers":false,"authorized_fetch":false},` +
		`"upload":{"allow_guest_upload":false,"allow_duplicate":false,"allow_register":false,"max_file_size":104857600,` +
		`"forbidden_exts":"php,phtml,exe,bat,cmd,sh,js,html,htm,xhtml,jar,msi","allowed_types":"",` +
		`"path_pattern":"{year}/{month}/{md5_8}/{uuid}.{ext}","default_quota_bytes":1073741824,"strip_metadata":true}},"msg":"ok"}`
	if got := strings.TrimSpace(string(c.Do("GET", "/api/v1/admin/settings", nil).Expect(200).Body)); got != want {
		t.Fatalf("GET settings =\n%s\nwant\n%s", got, want)
	}
}

func TestSettingsRowsOfEarlierVersionsAreServed(t *testing.T) {
	c := newSettingsApp(t, [][2]string{
		{"site.site_name", `"Stored"`},
		{"post.posts_per_page", `42`},
		{"render.render_mode", `"headless"`},
		{"ai.api_key", `"sk-secret-value-1234"`},
		{"upload.forbidden_exts", `"exe,php"`},
		{"upload.allow_register", `true`},
	})
	var got struct {
		Site struct {
			SiteName string `json:"site_name"`
		}
		Post struct {
			PostsPerPage int `json:"posts_per_page"`
		}
		Render struct {
			RenderMode string `json:"render_mode"`
		}
		AI struct {
			APIKey string `json:"api_key"`
		}
		Upload struct {
			ForbiddenExts string `json:"forbidden_exts"`
			AllowRegister bool   `json:"allow_register"`
		}
	}
	httpxtest.Into(t, c.Do("GET", "/api/v1/admin/settings", nil).Expect(200).B().Data, &got)
	if got.Site.SiteName != "Stored" || got.Post.PostsPerPage != 42 || got.Render.RenderMode != "headless" ||
		got.AI.APIKey != "****1234" || got.Upload.ForbiddenExts != "exe,php" || !got.Upload.AllowRegister {
		t.Fatalf("settings from stored rows = %+v", got)
	}
	var health map[string]string
	httpxtest.Into(t, c.Do("GET", "/api/v1/health", nil).Expect(200).B().Data, &health)
	if health["render_mode"] != "headless" {
		t.Fatalf("health render_mode = %q, want the stored headless", health["render_mode"])
	}
}

func TestSettingsPutSpansOwnersInOneStep(t *testing.T) {
	c := newSettingsApp(t, nil)
	bad := map[string]any{"site": map[string]any{"site_name": "Renamed"}, "upload": map[string]any{"max_file_size": 0}}
	r := c.Do("PUT", "/api/v1/admin/settings", bad).Expect(422)
	if msg := r.B().Msg; msg != "upload.max_file_size: must be a positive number of bytes" {
		t.Fatalf("422 msg = %q", msg)
	}
	var got struct {
		Site struct {
			SiteName string `json:"site_name"`
		}
		Upload struct {
			MaxFileSize   int64  `json:"max_file_size"`
			AllowedTypes  string `json:"allowed_types"`
			ForbiddenExts string `json:"forbidden_exts"`
		}
	}
	httpxtest.Into(t, c.Do("GET", "/api/v1/admin/settings", nil).Expect(200).B().Data, &got)
	if got.Site.SiteName != "Folio" || got.Upload.MaxFileSize != 100<<20 {
		t.Fatalf("a rejected PUT changed settings: %+v", got)
	}
	good := map[string]any{"site": map[string]any{"site_name": "Renamed"}, "upload": map[string]any{"allowed_types": []string{"image/*", ".PDF"}}}
	httpxtest.Into(t, c.Do("PUT", "/api/v1/admin/settings", good).Expect(200).B().Data, &got)
	if got.Site.SiteName != "Renamed" || got.Upload.AllowedTypes != "image/*,pdf" || got.Upload.ForbiddenExts == "" {
		t.Fatalf("after PUT: %+v", got)
	}
}

// TestSettingsPutRefusesPathPatternsTheStoreCannotHold: every pattern that
// would give a key the storage refuses is 422 naming the problem, nothing
// is stored, and uploads keep working.
func TestSettingsPutRefusesPathPatternsTheStoreCannotHold(t *testing.T) {
	c := newSettingsApp(t, nil)
	n := func(k int) string { return strings.Repeat("n", k) }
	const prefix = "upload.path_pattern: "
	tests := []struct {
		name, pattern, msg string
	}{
		{"temporary folder", ".tmp/{uuid}", `must not start with a name beginning with "."`},
		{"inside the temporary folder", ".tmp/x/{uuid}.{ext}", `must not start with a name beginning with "."`},
		{"a 512-byte name", strings.Repeat("{md5}", 16), "would give storage keys with a folder or file name longer than 255 bytes"},
		{"600 folders", strings.Repeat("a/", 600) + "{uuid}", "would give storage keys with more than 1024 bytes"},
		{"control character in the middle", "{year}/a\tb/{uuid}", "must not contain control characters"},
		{"a name of 256 bytes", "{year}/" + n(220) + "{uuid}", "would give storage keys with a folder or file name longer than 255 bytes"},
		{"17 names", strings.Repeat("d/", 16) + "{uuid}", "would give storage keys with more than 16 names (folders and the file)"},
		{"thumbnails folder", "thumbs/{uuid}", "must not put files in the thumbs folder, which holds thumbnails"},
		{"extension as first folder", "{ext}/{uuid}", "must not start with a folder that may be named thumbs"},
		{"hidden first folder", ".files/{uuid}", `must not start with a name beginning with "."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Do("PUT", "/api/v1/admin/settings", map[string]any{"upload": map[string]any{"path_pattern": tt.pattern}}).Expect(422)
			if msg := r.B().Msg; !strings.HasPrefix(msg, prefix+tt.msg) {
				t.Fatalf("422 msg = %q, want %q", msg, prefix+tt.msg)
			}
			uploadWorks(t, c, `^\d{4}/\d{2}/[0-9a-f]{8}/[0-9a-f-]{36}\.png$`)
		})
	}
	// A NUL cannot travel in a settings document at all: 400, as for any
	// JSON body with one (docs/design.md, HTTP).
	r := c.Do("PUT", "/api/v1/admin/settings", map[string]any{"upload": map[string]any{"path_pattern": "{md5}\x00"}}).Expect(400)
	if msg := r.B().Msg; msg != "invalid request payload" {
		t.Fatalf("400 msg = %q", msg)
	}
	uploadWorks(t, c, `^\d{4}/\d{2}/[0-9a-f]{8}/[0-9a-f-]{36}\.png$`)

	// At the limits the patterns are taken and used.
	for pattern, key := range map[string]string{
		"{year}/" + n(219) + "{uuid}":       `^\d{4}/n{219}[0-9a-f-]{36}$`,
		strings.Repeat("d/", 15) + "{uuid}": `^(d/){15}[0-9a-f-]{36}$`,
	} {
		c.Do("PUT", "/api/v1/admin/settings", map[string]any{"upload": map[string]any{"path_pattern": pattern}}).Expect(200)
		uploadWorks(t, c, key)
	}
}

// uploadWorks uploads a new content named a.png through c and checks its
// storage key. (A content uploaded before would share the stored object,
// and so its key.)
func uploadWorks(t *testing.T, c *httpxtest.Client, keyPattern string) {
	t.Helper()
	env := c.Upload("/api/v1/upload", "file", "a.png", []byte(rand.Text())).Expect(200).U()
	var got struct {
		Key string `json:"key"`
	}
	httpxtest.Into(t, env.Data, &got)
	if !regexp.MustCompile(keyPattern).MatchString(got.Key) {
		t.Fatalf("upload stored under %q, want %s", got.Key, keyPattern)
	}
}

// TestSettingsStoredPathPatternTheRulesRefuseIsIgnored: a pattern an older
// version stored, which the rules now refuse, gives way to the configured
// one, so uploads do not fail; saving the settings again clears it.
func TestSettingsStoredPathPatternTheRulesRefuseIsIgnored(t *testing.T) {
	c := newSettingsApp(t, [][2]string{{"upload.path_pattern", `".tmp/x/{uuid}.{ext}"`}, {"upload.allow_register", `true`}})
	var got struct {
		Upload struct {
			PathPattern   string `json:"path_pattern"`
			AllowRegister bool   `json:"allow_register"`
		}
	}
	httpxtest.Into(t, c.Do("GET", "/api/v1/admin/settings", nil).Expect(200).B().Data, &got)
	if got.Upload.PathPattern != "{year}/{month}/{md5_8}/{uuid}.{ext}" || !got.Upload.AllowRegister {
		t.Fatalf("upload settings = %+v, want the configured pattern and the stored allow_register", got.Upload)
	}
	uploadWorks(t, c, `^\d{4}/\d{2}/[0-9a-f]{8}/[0-9a-f-]{36}\.png$`)
	doc := c.Do("GET", "/api/v1/admin/settings", nil).Expect(200).B().Data
	c.Do("PUT", "/api/v1/admin/settings", doc).Expect(200)
}
