package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// configFor writes a configuration file naming the database db.
func configFor(t *testing.T, db sqlstoretest.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "folio.conf")
	conf := "database.driver = " + db.Driver + "\ndatabase.dsn = \"" + db.DSN + "\"\nstorage.dir = \"" + t.TempDir() + "\"\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExportAndImportCommandsMoveABlog(t *testing.T) {
	srcDB := sqlstoretest.NewConfig(t)
	_, anon := newTestAppOn(t, srcDB)
	admin := anon.Clone()
	admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	admin.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Moved", "status": "published", "content_markdown": "Hi"}).Expect(201)

	archive := filepath.Join(t.TempDir(), "site.zip")
	code, out, errOut := folio("export", "-config", configFor(t, srcDB), archive)
	if code != 0 || out != "exported 1 posts, 0 pages, 0 categories, 0 tags, 0 comments, 0 friend links and the settings to "+archive+"\n" {
		t.Fatalf("export: exit %d, %q, %q", code, out, errOut)
	}
	if st, err := os.Stat(archive); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("archive: %v %v", st, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(archive), ".folio-export-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}

	// A new site: the import creates its database.
	dstDB := sqlstoretest.NewConfig(t)
	dstConf := configFor(t, dstDB)
	code, out, errOut = folio("import", "-config", dstConf, archive)
	if code != 0 || !strings.Contains(out, "imported "+archive+" (folio)\n") || !strings.Contains(out, "  posts                 1        0        0\n") {
		t.Fatalf("import: exit %d, %q, %q", code, out, errOut)
	}
	code, out, _ = folio("import", "-config", dstConf, "-format", "folio", archive)
	if code != 0 || !strings.Contains(out, "  posts                 0        1        0\n") {
		t.Fatalf("second import: exit %d, %q", code, out)
	}
	_, dst := newTestAppOn(t, dstDB)
	dst.Do("GET", "/api/v1/posts/slug/moved", nil).Expect(200)
	// Both imports are in the audit log, as the command line's.
	dstAdmin := dst.Clone()
	dstAdmin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	var page struct {
		Items []auth.AuditEntry `json:"items"`
	}
	httpxtest.Into(t, dstAdmin.Do("GET", "/api/v1/admin/audit-log?action=command", nil).Expect(200).B().Data, &page)
	if len(page.Items) != 2 || page.Items[0].Path != "folio import site.zip" || page.Items[0].Via != "command" {
		t.Errorf("audit log of commands: %+v", page.Items)
	}
}

// TestImportCommandReachesARunningServer imports into the database of a
// running server, which must show the new posts on its very next page.
func TestImportCommandReachesARunningServer(t *testing.T) {
	db := sqlstoretest.NewConfig(t)
	_, anon := newTestAppOn(t, db)
	before := anon.Do("GET", "/", nil, "Accept", "text/html").Expect(200)
	if strings.Contains(string(before.Body), "Welcome to Ghost") {
		t.Fatal("the post is there before the import")
	}
	anon.Do("GET", "/api/v1/posts", nil).Expect(200)
	code, out, errOut := folio("import", "-config", configFor(t, db), filepath.Join("..", "..", "testdata", "import", "ghost-5.json"))
	if code != 0 || !strings.Contains(out, "(ghost)") || !strings.Contains(out, "warnings:\n  1 internal Ghost tags (#name) skipped\n") {
		t.Fatalf("import: exit %d, %q, %q", code, out, errOut)
	}
	after := anon.Do("GET", "/", nil, "Accept", "text/html").Expect(200)
	if !strings.Contains(string(after.Body), "Welcome to Ghost") {
		t.Fatal("the running server's home page does not show the imported post")
	}
	if r := anon.Do("GET", "/api/v1/posts", nil).Expect(200); !strings.Contains(string(r.Body), `"total":1`) {
		t.Fatalf("the running server's post list: %s", r.Body)
	}
}

func TestExportAndImportCommandsRefuseBadUsage(t *testing.T) {
	db := sqlstoretest.NewConfig(t)
	newTestAppOn(t, db)
	conf := configFor(t, db)
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyDir := t.TempDir()
	missingDB := configFor(t, sqlstoretest.Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "none.db")})
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"export without a file", []string{"export", "-config", conf}, 2, "folio export: missing argument\nusage: folio export [-config PATH] FILE.zip"},
		{"export of two files", []string{"export", "-config", conf, "a.zip", "b.zip"}, 2, "folio export: unexpected argument \"b.zip\"\nusage: folio export"},
		{"export with an unknown flag", []string{"export", "-zip", "a.zip"}, 2, "flag provided but not defined: -zip"},
		{"export into a missing folder", []string{"export", "-config", conf, filepath.Join(t.TempDir(), "no", "a.zip")}, 1, "folio export: open "},
		{"export of a missing database", []string{"export", "-config", missingDB, filepath.Join(t.TempDir(), "a.zip")}, 1, "folio export: database: stat "},
		{"import without a file", []string{"import", "-config", conf}, 2, "folio import: missing argument\nusage: folio import [-config PATH] [-format folio|ghost|wxr|markdown] [-media [-from URL] [-owner NAME] [-fetch-allow LIST]] FILE|DIR"},
		{"import of an unknown format", []string{"import", "-config", conf, "-format", "blogger", notes}, 2, `folio import: unknown -format "blogger" (want folio, ghost, wxr or markdown)`},
		{"import of a missing file", []string{"import", "-config", conf, filepath.Join(t.TempDir(), "gone.zip")}, 1, "folio import: open "},
		{"import of a folder without posts", []string{"import", "-config", conf, emptyDir}, 1, "folio import: " + emptyDir + ": not a Hugo or Jekyll site: it has no Markdown posts or pages"},
		{"import of a folder as another format", []string{"import", "-config", conf, "-format", "wxr", emptyDir}, 1, "folio import: " + emptyDir + `: a folder is read as a Hugo or Jekyll site (format markdown), not as "wxr"`},
		{"import of an unknown file", []string{"import", "-config", conf, notes}, 1, "folio import: " + notes + ": unknown file format: not a Folio archive, a Ghost JSON export, a WordPress WXR file or an archive of a Hugo or Jekyll site"},
		{"import of the wrong format", []string{"import", "-config", conf, "-format", "wxr", notes}, 1, "folio import: " + notes + ": not a WordPress export: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := folio(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.stderr)
			}
		})
	}
}

// TestImportCommandReadsASiteFolder imports the folder of a Jekyll site
// and of a Hugo site as they are checked out, into a running server's
// database: the posts, pages and the aliases' redirects are served at
// once, and a second import adds nothing.
func TestImportCommandReadsASiteFolder(t *testing.T) {
	db := sqlstoretest.NewConfig(t)
	_, anon := newTestAppOn(t, db)
	conf := configFor(t, db)
	jekyll := filepath.Join("..", "..", "testdata", "import", "jekyll")
	code, out, errOut := folio("import", "-config", conf, jekyll)
	if code != 0 || !strings.Contains(out, "imported "+jekyll+" (markdown)\n") || !strings.Contains(out, "  posts                 5        0 ") ||
		!strings.Contains(out, "  pages                 2        0 ") ||
		!strings.Contains(out, "  _posts/undated-entry.md skipped: a Jekyll post's file name starts with its date (YYYY-MM-DD-name.md)\n") {
		t.Fatalf("import: exit %d, %q, %q", code, out, errOut)
	}
	hugo := filepath.Join("..", "..", "testdata", "import", "hugo")
	code, out, errOut = folio("import", "-config", conf, "-format", "markdown", hugo)
	if code != 0 || !strings.Contains(out, "  posts                 6        0 ") {
		t.Fatalf("import: exit %d, %q, %q", code, out, errOut)
	}
	code, out, _ = folio("import", "-config", conf, jekyll)
	if code != 0 || !strings.Contains(out, "  posts                 0        5        0\n") || !strings.Contains(out, "  pages                 0        2        0\n") {
		t.Fatalf("second import: exit %d, %q", code, out)
	}
	anon.Do("GET", "/api/v1/posts/slug/second-entry", nil).Expect(200)
	anon.Do("GET", "/api/v1/pages/slug/about", nil).Expect(200)
	if r := anon.Do("GET", "/posts/old-toml-notes", nil).Expect(301); r.Location() != "/posts/toml-front-matter" {
		t.Fatalf("the alias leads to %q", r.Location())
	}
}
