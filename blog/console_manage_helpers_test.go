package blog_test

import (
	"net/http"
	"strings"
	"testing"

	"folio/blog"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/templates"
)

// newConsoleSiteEnv is the blog with its console pages and the classic
// site, so that a change in the console can be seen on the site.
func newConsoleSiteEnv(t testing.TB) *env {
	t.Helper()
	e, _ := newEnvWith(t, setup{console: true, handler: withSite})
	return e
}

// withSite serves the classic site beside the routes (setup.handler).
func withSite(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler {
	eng, err := templates.New(templates.Options{Pages: templates.FS})
	if err != nil {
		t.Fatal(err)
	}
	site, err := blog.NewSite(b, eng)
	if err != nil {
		t.Fatal(err)
	}
	site.Routes(routes)
	return httpx.Chain(routes, httpx.Proxies{}.Middleware)
}

// adminToken is a form token of e.admin's console session.
func (e *env) adminToken() string {
	e.t.Helper()
	_, tok := consolePage(e.t, e.admin, "/console/blog", 200)
	return tok
}

// submit posts a console form as e.admin with its token; fields in pairs.
func (e *env) submit(path string, fields ...string) *httpxtest.Response {
	e.t.Helper()
	return e.admin.PostForm(path, append([]string{"form_token", e.adminToken()}, fields...)...)
}

// consoleFlash follows a 303 and returns the page it leads to.
func consoleFlash(t testing.TB, c *httpxtest.Client, res *httpxtest.Response, flash string) *httpxtest.Response {
	t.Helper()
	res.Expect(303)
	page := c.Do("GET", res.Location(), nil).Expect(200)
	if flash != "" && !has(page, flash) {
		t.Fatalf("%s: no flash %q: %.400s", res.Location(), flash, page.Body)
	}
	return page
}

// TestBlogConsoleManagePagesAreTheAdministrators asks every page of the
// dashboard, pages, terms, links, comments, settings and import as a user (403),
// signed out (to the sign-in page) and, for the forms, as the
// administrator without a form token (403).
func TestBlogConsoleManagePagesAreTheAdministrators(t *testing.T) {
	e := newConsoleEnv(t)
	const id = "0190aaaa-0000-7000-8000-000000000000"
	gets := []string{"/console/blog", "/console/blog/pages", "/console/blog/pages/new", "/console/blog/pages/" + id,
		"/console/blog/categories", "/console/blog/tags", "/console/blog/links", "/console/blog/links/" + id,
		"/console/blog/comments", "/console/blog/settings", "/console/blog/import"}
	posts := []string{"/console/blog/pages", "/console/blog/pages/" + id, "/console/blog/pages/" + id + "/delete",
		"/console/blog/categories", "/console/blog/categories/" + id, "/console/blog/categories/" + id + "/delete",
		"/console/blog/tags", "/console/blog/tags/" + id, "/console/blog/tags/" + id + "/delete",
		"/console/blog/links", "/console/blog/links/" + id, "/console/blog/links/" + id + "/delete",
		"/console/blog/comments/batch", "/console/blog/settings", "/console/blog/import"}
	user := e.userSession()
	for _, p := range gets {
		t.Run("GET "+p, func(t *testing.T) {
			user.Do("GET", p, nil).Expect(403)
			if loc := e.anon.Clone().Do("GET", p, nil).Expect(303).Location(); !strings.HasPrefix(loc, "/console/login?next=") {
				t.Errorf("signed out: to %q", loc)
			}
		})
	}
	for _, p := range posts {
		t.Run("POST "+p, func(t *testing.T) {
			user.PostForm(p, "name", "x").Expect(403)
			e.admin.PostForm(p, "name", "x", "title", "x").Expect(403)
			e.admin.PostForm(p, "form_token", "not-a-token", "name", "x").Expect(403)
		})
	}
}
