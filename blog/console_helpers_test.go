package blog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/blog"
	"folio/httpx/httpxtest"
	"folio/templates"
)

// newConsoleFrame builds the console frame the blog's console pages hang
// in, as cmd/folio does.
func newConsoleFrame(t testing.TB, a *auth.Service, st blog.SettingsGroups) *auth.Console {
	t.Helper()
	tmpl, err := templates.NewConsole()
	if err != nil {
		t.Fatal(err)
	}
	return auth.NewConsole(a, tmpl, func(ctx context.Context) string { return st.Site.Get(ctx).SiteName })
}

// newConsoleEnv is newEnv with the console served. e.admin's session
// cookie (from the admin login) signs it in to the console too.
func newConsoleEnv(t testing.TB) *env {
	t.Helper()
	e, _ := newEnvWith(t, setup{console: true})
	return e
}

// consolePage loads a console page as c, expects status, and returns the
// answer and the form token it carries ("" when it has none).
func consolePage(t testing.TB, c *httpxtest.Client, path string, status int) (*httpxtest.Response, string) {
	t.Helper()
	res := c.Do("GET", path, nil).Expect(status)
	tok := ""
	if strings.Contains(string(res.Body), `name="form_token"`) {
		tok = res.FormToken()
	}
	return res, tok
}

// has reports whether a page's body holds every one of parts.
func has(res *httpxtest.Response, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(string(res.Body), p) {
			return false
		}
	}
	return true
}

// userSession is a client signed in to the console as a new account of
// role user: the blog's console pages are not theirs.
func (e *env) userSession() *httpxtest.Client {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.auth.CreateUser(ctx, auth.NewUser{Username: fmt.Sprintf("user%d", time.Now().UnixNano()),
		Email: fmt.Sprintf("user%d@example.com", time.Now().UnixNano()), Password: "a long password"})
	if err != nil {
		e.t.Fatal(err)
	}
	v, _, err := e.auth.NewSession(ctx, u.ID, auth.SessionMeta{})
	if err != nil {
		e.t.Fatal(err)
	}
	c := e.anon.Clone()
	c.Header.Set("Cookie", auth.SessionCookie+"="+v)
	return c
}
