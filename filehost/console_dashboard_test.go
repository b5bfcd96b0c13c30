package filehost

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/sqlstore/sqlstoretest"
	"folio/storage"
)

// fakeBlog answers the dashboard's blog panel as cmd/folio's adapter
// over the blog would.
type fakeBlog struct {
	stats BlogStats
	err   error
}

func (f fakeBlog) BlogOverview(context.Context) (BlogStats, error) { return f.stats, f.err }

func TestConsoleDashboardShowsTotalsAndCharts(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	img := pngBytes(t, 8, 8)
	alice.Upload("/api/v1/upload", "file", "a.png", img).Expect(200)
	bob.Upload("/api/v1/upload", "file", "b.png", img).Expect(200) // the same bytes: stored once
	alice.Upload("/api/v1/upload", "file", "notes.txt", []byte("plain words")).Expect(200)
	_ = aliceID

	admin := e.consoleAdmin()
	page := admin.Do("GET", "/console/admin", nil).Expect(200)
	today := time.Now().UTC().Format("Mon 2 Jan")
	want := []string{
		"<title>Dashboard · ",
		`<svg class="chart-svg"`, `role="img"`,
		today + ": 3 files",
		"alice: ",
		"image: 2 files",
		"<dt>Files</dt><dd>3</dd>",
	}
	for _, w := range want {
		if !strings.Contains(string(page.Body), w) {
			t.Errorf("dashboard lacks %q", w)
		}
	}
	if strings.Contains(string(page.Body), "<dt>Saved by de-duplication</dt><dd>0 B</dd>") {
		t.Error("the shared upload saved nothing")
	}
	if page.Header.Get("Content-Security-Policy") == "" {
		t.Error("no CSP")
	}

	_, user := e.consoleUser("ursula")
	user.Do("GET", "/console/admin", nil).Expect(403)
	if got := e.c.Clone().Do("GET", "/console/admin", nil).Expect(303).Location(); got != "/console/login?next=%2Fconsole%2Fadmin" {
		t.Errorf("anonymous to %q", got)
	}
}

func TestConsoleDashboardOfAnEmptySite(t *testing.T) {
	e := newTestEnv(t)
	page := e.consoleAdmin().Do("GET", "/console/admin", nil).Expect(200)
	if !contains(page, "Nothing yet.", "0 files in the last 30 days") {
		t.Errorf("empty dashboard: %.600s", page.Body)
	}
}

func TestConsoleHomeIsTheDashboardForTheAdministrator(t *testing.T) {
	e := newTestEnv(t)
	_, user := e.consoleUser("ursula")
	for _, tc := range []struct {
		name string
		who  func() string
		want string
	}{
		{"the administrator", func() string { return e.consoleAdmin().Do("GET", "/console/", nil).Expect(303).Location() }, "/console/admin"},
		{"a user", func() string { return user.Do("GET", "/console/", nil).Expect(303).Location() }, "/console/upload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.who(); got != tc.want {
				t.Errorf("/console/ sends %s to %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

func TestConsoleDashboardShowsTheBlogBesideTheFiles(t *testing.T) {
	at := time.Date(2031, 5, 6, 7, 8, 0, 0, time.UTC)
	stats := BlogStats{Drafts: 4, Scheduled: 1, Published: 12, Archived: 2, PendingComments: 3,
		RecentComments: []BlogComment{{Author: "Ann <b>", PostTitle: "Out now", PostPath: "/posts/out-now", Excerpt: "Nice post", Status: "pending"}},
		ComingUp:       []BlogPost{{Title: "Later on", EditPath: "/console/blog/posts/p1", PublishedAt: at}}}
	for _, tc := range []struct {
		name     string
		blog     BlogOverview
		wantBlog bool
	}{
		{"the blog answers", fakeBlog{stats: stats}, true},
		{"the blog fails", fakeBlog{err: errors.New("database gone")}, false},
		{"no blog", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local, err := storage.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			e := newTestEnvStore(t, sqlstoretest.Open(t), local, func(d *Deps) { d.Blog = tc.blog })
			page := e.consoleAdmin().Do("GET", "/console/admin", nil).Expect(200)
			blogParts := []string{`id="dash-blog"`, `href="/console/blog/posts/new"`,
				`href="/console/blog/posts?status=draft">Drafts</a></dt><dd>4</dd>`, `?status=published">Published</a></dt><dd>12</dd>`,
				`href="/console/blog/comments">Comments waiting</a></dt><dd>3</dd>`,
				"Ann &lt;b&gt;", `<a href="/posts/out-now">Out now</a>`, `<a href="/console/blog/posts/p1">Later on</a>`}
			if got := contains(page, blogParts...); got != tc.wantBlog {
				t.Errorf("blog panel shown %v, want %v: %s", got, tc.wantBlog, page.Body)
			}
			if !contains(page, `id="dash-files"`, "<dt>Storage used</dt>", "No uploads yet.") {
				t.Errorf("the file host's side is missing: %s", page.Body)
			}
		})
	}
}

func TestConsoleDashboardShowsRecentUploadsAsThumbnails(t *testing.T) {
	e := newTestEnv(t)
	_, bob := e.newUser("bob", 0)
	bob.Upload("/api/v1/upload", "file", "bob-cat.png", pngBytes(t, 8, 8)).Expect(200)
	mustUpload(t, bob, "bob-secret.png", pngBytes(t, 9, 9), "visibility", "restricted")
	admin := e.consoleAdmin()
	admin.Upload("/api/v1/upload", "file", "mine.txt", []byte("the administrator's own")).Expect(200)

	page := admin.Do("GET", "/console/admin", nil).Expect(200)
	body := string(page.Body)
	items := regexp.MustCompile(`(?s)<ul class="dash-thumbs" id="dash-uploads">(.*?)</ul>`).FindStringSubmatch(body)
	if items == nil {
		t.Fatalf("no recent uploads: %s", body)
	}
	for _, tc := range []struct{ name, want string }{
		{"the administrator's own file opens its page", `<a href="/console/files/[^"]+" title="mine.txt, by admin">`},
		{"another account's file opens its owner's files", `<a href="/console/admin/files\?user=bob" title="bob-cat.png, by bob"><img src="/t/`},
		{"a restricted file of another shows no thumbnail", `title="bob-secret.png, by bob"><span class="file-badge">PNG</span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !regexp.MustCompile(tc.want).MatchString(items[1]) {
				t.Errorf("recent uploads lack %s: %s", tc.want, items[1])
			}
		})
	}
}
