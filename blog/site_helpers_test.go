package blog_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/blog"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/templates"
)

// siteEnv is the blog API plus the classic site, wired as cmd/folio does:
// the site answers the paths no other surface owns.
type siteEnv struct {
	*env
	site  *blog.Site
	clock *testClock
}

// testClock is the blog's clock in site tests: real time, plus what the
// test has skipped ahead.
type testClock struct {
	mu   sync.Mutex
	skip time.Duration
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skip)
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.skip += d
	c.mu.Unlock()
}

func newSiteEnv(t testing.TB) *siteEnv {
	t.Helper()
	clock := &testClock{}
	var site *blog.Site
	e, _ := newEnvWith(t, setup{now: clock.now, handler: func(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler {
		eng, err := templates.New(templates.Options{Pages: templates.FS})
		if err != nil {
			t.Fatal(err)
		}
		if site, err = blog.NewSite(b, eng); err != nil {
			t.Fatal(err)
		}
		site.Routes(routes)
		return httpx.Chain(routes, httpx.Proxies{}.Middleware)
	}})
	return &siteEnv{env: e, site: site, clock: clock}
}

// setMode switches render.render_mode through the settings API.
func (e *siteEnv) setMode(mode string) {
	e.t.Helper()
	data(e.t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"render": map[string]any{"render_mode": mode}}), 200, nil)
}

// putSettings changes settings through the API; groups holds partial groups.
func (e *siteEnv) putSettings(groups map[string]any) {
	e.t.Helper()
	data(e.t, e.admin.Do("PUT", "/api/v1/admin/settings", groups), 200, nil)
}

// html fetches a classic page and checks its status and content type.
func (e *siteEnv) html(path string, status int) string {
	e.t.Helper()
	r := e.anon.Do("GET", path, nil).Expect(status)
	if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		e.t.Fatalf("GET %s: content type %q, want HTML; body: %s", path, ct, r.Body)
	}
	return string(r.Body)
}

// form posts an HTML form as a browser would.
func (e *siteEnv) form(path string, fields url.Values) *httpxtest.Response {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.anon.Base+path, strings.NewReader(fields.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.anon.Send(req)
}

// siteHas fails unless every want appears in body.
func siteHas(t testing.TB, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// siteLacks fails if any of the unwanted strings appears in body.
func siteLacks(t testing.TB, what, body string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(body, u) {
			t.Errorf("%s contains %q", what, u)
		}
	}
}
