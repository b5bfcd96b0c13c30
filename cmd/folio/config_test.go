package main

import (
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigDefaultsNeedNothing(t *testing.T) {
	c, err := LoadConfig("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.SocketMode != 0o660 || c.DBDriver != "sqlite" || c.DBDSN != "data/folio.db" || c.StorageDir != "data/files" {
		t.Errorf("defaults = %+v", c)
	}
	if c.SessionTTL != 168*time.Hour || !c.AdminEnabled || c.AdminUsername != "admin" {
		t.Errorf("admin defaults = %v %v %q", c.SessionTTL, c.AdminEnabled, c.AdminUsername)
	}
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0] != want[0] || c.TrustedProxies[1] != want[1] {
		t.Errorf("trusted proxies = %v", c.TrustedProxies)
	}
	if c.Settings.Render.RenderMode != "classic" || c.Settings.Upload.MaxFileSize != 100<<20 {
		t.Errorf("settings defaults = %+v", c.Settings)
	}
}

func TestLoadConfigPrecedenceFileThenEnvironment(t *testing.T) {
	file := `
# a comment
server.addr = :9000
site.site_name = "  My Site  "
upload.max_file_size = 5MiB
upload.forbidden_exts = exe, .PHP
admin.profile.display_name = Alice
render.render_mode = headless
storage.local.accel_redirect = /_folio_files/
`
	env := []string{"FOLIO_SERVER_ADDR=127.0.0.1:7000", "FOLIO_RENDER_RENDER_MODE=classic", "HOME=/root",
		"FOLIO_TEST_POSTGRES_DSN=ignored", "FOLIO_CONFIG=ignored.conf"}
	c, err := LoadConfig("folio.conf", strings.NewReader(file), env)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"env wins over file", c.Addr, "127.0.0.1:7000"},
		{"quoted value keeps spaces", c.Settings.Site.SiteName, "  My Site  "},
		{"size suffix", c.Settings.Upload.MaxFileSize, int64(5 << 20)},
		{"list normalised", strings.Join(c.Settings.Upload.ForbiddenExts, ","), "exe,php"},
		{"profile", c.Profile.DisplayName, "Alice"},
		{"env setting wins", c.Settings.Render.RenderMode, "classic"},
		{"accel redirect", c.AccelRedirect, "/_folio_files/"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s: got %v, want %v", ck.name, ck.got, ck.want)
		}
	}
}

func TestLoadConfigErrorsNameKeyAndLine(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  []string
		want []string
	}{
		{"unknown key", "server.adr = :1\n", nil, []string{"folio.conf:1", `unknown key "server.adr"`}},
		{"line without equals", "\n\nserver.addr :1\n", nil, []string{"folio.conf:3", "want key = value"}},
		{"empty key", "= x\n", nil, []string{"folio.conf:1"}},
		{"bad boolean", "admin.enabled = maybe\n", nil, []string{"folio.conf:1", "admin.enabled"}},
		{"bad integer setting", "post.posts_per_page = many\n", nil, []string{"folio.conf:1", "post.posts_per_page", "whole number"}},
		{"out of range setting", "post.posts_per_page = 1000\n", nil, []string{"post.posts_per_page", "between 1 and 100"}},
		{"bad render mode", "render.render_mode = spa\n", nil, []string{"render.render_mode"}},
		{"bad api prefix", "render.api_prefix = /v2\n", nil, []string{"render.api_prefix"}},
		{"bad path pattern", "upload.path_pattern = ../{uuid}\n", nil, []string{"upload.path_pattern"}},
		{"path pattern in the temporary folder", "upload.path_pattern = .tmp/x/{uuid}.{ext}\n", nil,
			[]string{`upload.path_pattern: must not start with a name beginning with "."`}},
		{"path pattern with a 512-byte name", "upload.path_pattern = " + strings.Repeat("{md5}", 16) + "\n", nil,
			[]string{"upload.path_pattern: would give storage keys with a folder or file name longer than 255 bytes"}},
		{"path pattern 600 folders deep", "", []string{"FOLIO_UPLOAD_PATH_PATTERN=" + strings.Repeat("a/", 600) + "{uuid}"},
			[]string{"upload.path_pattern: would give storage keys with more than 1024 bytes"}},
		{"path pattern with a NUL", "upload.path_pattern = {md5}\x00\n", nil,
			[]string{"upload.path_pattern: must not contain control characters"}},
		{"path pattern in the thumbnails folder", "", []string{"FOLIO_UPLOAD_PATH_PATTERN=thumbs/{uuid}"},
			[]string{"upload.path_pattern: must not put files in the thumbs folder"}},
		{"bad driver", "database.driver = mysql\n", nil, []string{"folio.conf:1", "database.driver"}},
		{"postgres without dsn", "database.driver = postgres\n", nil, []string{"database.dsn"}},
		{"bad proxies", "server.trusted_proxies = 10.0.0.0/99\n", nil, []string{"server.trusted_proxies"}},
		{"bad base url", "server.base_url = example.com\n", nil, []string{"server.base_url"}},
		{"bad log level", "log.level = loud\n", nil, []string{"log.level"}},
		{"bad log format", "log.format = xml\n", nil, []string{"log.format"}},
		{"bad username", "admin.username = a\n", nil, []string{"admin.username"}},
		{"bad password hash", "admin.password_hash = secret\n", nil, []string{"admin.password_hash", "hash-password"}},
		{"truncated password hash", "admin.password_hash = $2a$12$abc\n", nil, []string{"folio.conf:1", "admin.password_hash"}},
		{"short secret", "admin.session_secret = short\n", nil, []string{"admin.session_secret"}},
		{"bad ttl", "admin.session_ttl_hours = 0\n", nil, []string{"admin.session_ttl_hours"}},
		{"empty addr", "server.addr =\n", nil, []string{"server.addr"}},
		{"unix socket without a path", "server.addr = unix:\n", nil, []string{"folio.conf:1", "server.addr", "needs the socket's path"}},
		{"unix socket path too long", "server.addr = unix:/" + strings.Repeat("s", 120) + "\n", nil, []string{"server.addr", "107 at most"}},
		{"unix socket path a folder", "server.addr = unix:/run/folio/\n", nil, []string{"server.addr", "names a folder"}},
		{"socket mode not octal", "server.socket_mode = 0960\n", nil, []string{"folio.conf:1", "server.socket_mode", "octal"}},
		{"socket mode too wide", "server.socket_mode = 01777\n", nil, []string{"server.socket_mode", "octal"}},
		{"socket mode a word", "", []string{"FOLIO_SERVER_SOCKET_MODE=rw"}, []string{"FOLIO_SERVER_SOCKET_MODE", "server.socket_mode"}},
		{"empty storage dir", "storage.dir = \n", nil, []string{"storage.dir"}},
		{"bad storage driver", "storage.driver = ftp\n", nil, []string{"storage.driver", "local or s3"}},
		{"s3 without its keys", "storage.driver = s3\n", nil, []string{"storage.s3", "endpoint is required", "bucket name", "access key and a secret key"}},
		{"s3 endpoint not a URL", "", []string{"FOLIO_STORAGE_DRIVER=s3", "FOLIO_STORAGE_S3_ENDPOINT=127.0.0.1:7070", "FOLIO_STORAGE_S3_BUCKET=folio",
			"FOLIO_STORAGE_S3_ACCESS_KEY=a", "FOLIO_STORAGE_S3_SECRET_KEY=s"}, []string{"storage.s3", "http:// or https://"}},
		{"accel redirect not a folder", "storage.local.accel_redirect = _folio_files\n", nil, []string{"folio.conf:1", "storage.local.accel_redirect", "starts and ends with /"}},
		{"accel redirect with a query", "storage.local.accel_redirect = /files/?x=/\n", nil, []string{"storage.local.accel_redirect"}},
		{"accel redirect climbing out", "storage.local.accel_redirect = /a/../b/\n", nil, []string{"storage.local.accel_redirect"}},
		{"accel redirect with s3", "", []string{"FOLIO_STORAGE_DRIVER=s3", "FOLIO_STORAGE_S3_ENDPOINT=http://127.0.0.1:7070", "FOLIO_STORAGE_S3_BUCKET=folio",
			"FOLIO_STORAGE_S3_ACCESS_KEY=a", "FOLIO_STORAGE_S3_SECRET_KEY=s", "FOLIO_STORAGE_LOCAL_ACCEL_REDIRECT=/_folio_files/"},
			[]string{"storage.local.accel_redirect: only with storage.driver local"}},
		{"unknown env", "", []string{"FOLIO_SERVR_ADDR=:1"}, []string{"FOLIO_SERVR_ADDR", "unknown key"}},
		{"bad env value", "", []string{"FOLIO_UPLOAD_ALLOW_DUPLICATE=perhaps"}, []string{"FOLIO_UPLOAD_ALLOW_DUPLICATE", "upload.allow_duplicate"}},
		{"all errors together", "a = 1\nb = 2\n", nil, []string{"folio.conf:1", "folio.conf:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig("folio.conf", strings.NewReader(tt.file), tt.env)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEveryKeyHasAnEnvironmentNameThatRoundTrips(t *testing.T) {
	seen := map[string]string{}
	for _, k := range allKeys() {
		env := EnvName(k)
		if other, dup := seen[env]; dup {
			t.Errorf("%s and %s share %s", k, other, env)
		}
		seen[env] = k
	}
	if EnvName("admin.password_hash") != "FOLIO_ADMIN_PASSWORD_HASH" {
		t.Errorf("EnvName = %s", EnvName("admin.password_hash"))
	}
	for _, k := range []string{"site.site_name", "post.enable_toc", "render.enable_cors", "ai.api_key",
		"upload.allow_guest_upload", "upload.default_quota_bytes", "admin.session_secret", "theme.dir"} {
		if _, ok := seen[EnvName(k)]; !ok {
			t.Errorf("key %s missing", k)
		}
	}
}

func TestConfigPathPrecedence(t *testing.T) {
	t.Chdir(t.TempDir())
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p, req := configPath("", env(nil)); p != "" || req {
		t.Errorf("no file: %q %v", p, req)
	}
	if p, req := configPath("x.conf", env(map[string]string{"FOLIO_CONFIG": "y.conf"})); p != "x.conf" || !req {
		t.Errorf("flag: %q %v", p, req)
	}
	if p, req := configPath("", env(map[string]string{"FOLIO_CONFIG": "y.conf"})); p != "y.conf" || !req {
		t.Errorf("env: %q %v", p, req)
	}
}

func TestREADMEDocumentsEveryKey(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range allKeys() {
		if !strings.Contains(string(raw), "`"+k+"`") || !strings.Contains(string(raw), "`"+EnvName(k)+"`") {
			t.Errorf("README.md does not document %s (%s)", k, EnvName(k))
		}
	}
}
