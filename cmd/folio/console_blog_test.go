package main

import (
	"strings"
	"testing"

	"folio/auth/authtest"
)

// TestBlogDashboardShowsTheFileHostsStorage checks the wiring of the blog's
// dashboard to the file host's totals (server.go), which neither package
// can test alone.
func TestBlogDashboardShowsTheFileHostsStorage(t *testing.T) {
	_, c := newTestApp(t)
	api := c.Clone()
	api.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	img := testPNG(t)
	api.Upload("/api/v1/upload", "file", "a.png", img).Expect(200)

	b := consoleAdmin(t, c)
	res := b.Do("GET", "/console/blog", nil).Expect(200)
	body := string(res.Body)
	for _, want := range []string{`id="storage-usage"`, "<dt>Files</dt><dd>1</dd>", "<title>Blog · "} {
		if !strings.Contains(body, want) {
			t.Fatalf("dashboard lacks %q: %s", want, body)
		}
	}
}

// TestAdministratorsDashboardShowsTheBlog checks the wiring of the
// administrator's dashboard, which the file host serves, to the blog's
// numbers (server.go's blogOverview): the administrator's console starts
// there, with both sides.
func TestAdministratorsDashboardShowsTheBlog(t *testing.T) {
	_, c := newTestApp(t)
	api := c.Clone()
	api.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	api.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "A draft to finish", "content_markdown": "Soon."}).Expect(201)
	api.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Out now", "content_markdown": "Here.", "status": "published"}).Expect(201)
	api.Upload("/api/v1/upload", "file", "a.png", testPNG(t)).Expect(200)

	b := consoleAdmin(t, c)
	if got := b.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/admin" {
		t.Errorf("the administrator's console starts at %q, want /console/admin", got)
	}
	body := string(b.Do("GET", "/console/admin", nil).Expect(200).Body)
	for _, want := range []string{`id="dash-blog"`, `?status=draft">Drafts</a></dt><dd>1</dd>`, `?status=published">Published</a></dt><dd>1</dd>`,
		`id="dash-files"`, "<dt>Files</dt><dd>1</dd>", `<img src="/t/`} {
		if !strings.Contains(body, want) {
			t.Fatalf("dashboard lacks %q: %s", want, body)
		}
	}
}

// TestBlogConsoleImportPageDownloadsTheExportWithTheConsoleSession checks
// the export button of the console's import page in the whole app: a
// console session (signed in through the console's own form) opens the
// admin API's export, which the page links to.
func TestBlogConsoleImportPageDownloadsTheExportWithTheConsoleSession(t *testing.T) {
	_, c := newTestApp(t)
	b := consoleAdmin(t, c)
	page := b.Do("GET", "/console/blog/import", nil).Expect(200)
	if !strings.Contains(string(page.Body), `href="/api/v1/admin/export" download>`) {
		t.Fatalf("import page: %s", page.Body)
	}
	res := b.Do("GET", "/api/v1/admin/export", nil).Expect(200)
	if ct := res.Header.Get("Content-Type"); ct != "application/zip" || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("export: %s, %s", ct, res.Header.Get("Content-Disposition"))
	}
	c.Do("GET", "/api/v1/admin/export", nil).Expect(401)
}

// TestEmptySiteWelcomeLeadsToTheNewPostEditor follows the first-run
// welcome's link (docs/operating.md#first-start) through the console's
// sign-in, which neither the blog nor auth can test alone.
func TestEmptySiteWelcomeLeadsToTheNewPostEditor(t *testing.T) {
	_, c := newTestApp(t)
	const link = "/console/login?next=%2Fconsole%2Fblog%2Fposts%2Fnew"
	home := string(c.Do("GET", "/", nil).Expect(200).Body)
	if !strings.Contains(home, `href="`+link+`"`) {
		t.Fatalf("empty home page lacks the sign-in link: %s", home)
	}
	b := c.Clone()
	tok := b.Do("GET", link, nil).Expect(200).FormToken()
	res := b.PostForm("/console/login", "form_token", tok, "username", authtest.AdminUsername, "password", authtest.AdminPassword,
		"next", "/console/blog/posts/new").Expect(303)
	if loc := res.Location(); loc != "/console/blog/posts/new" {
		t.Fatalf("signing in from the welcome leads to %q", loc)
	}
	b.Do("GET", "/console/blog/posts/new", nil).Expect(200)
}
