package filehost

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

func TestConsoleSignInOpensTheConsole(t *testing.T) {
	e := newTestEnv(t)
	e.createUser("alice", 0)
	b := e.c.Clone()

	res := b.Do("GET", "/console/", nil).Expect(303)
	if got := res.Location(); got != "/console/login" {
		t.Fatalf("unsigned page redirects to %q", got)
	}
	page := b.Do("GET", "/console/login?next=%2Fconsole%2Ffiles", nil).Expect(200)
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("sign-in page CSP = %q", csp)
	}
	if !contains(page, "<title>Sign in · ", `name="next" value="/console/files"`) {
		t.Errorf("sign-in page lacks its title or next: %s", page.Body)
	}
	res = b.PostForm("/console/login", "form_token", page.FormToken(), "username", "alice", "password", testPassword, "next", "/console/files").Expect(303)
	if res.Location() != "/console/files" {
		t.Errorf("signed in to %q", res.Location())
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), auth.SessionCookie+"=") {
		t.Errorf("no session cookie: %v", res.Header["Set-Cookie"])
	}
	// The email signs in too, and a signed-in browser skips the form.
	e.consoleAs("alice@example.com", testPassword)
	if got := b.Do("GET", "/console/login?next=/console/tokens", nil).Expect(303).Location(); got != "/console/tokens" {
		t.Errorf("signed-in login page sends to %q", got)
	}
	if got := b.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/upload" {
		t.Errorf("/console/ sends to %q", got)
	}
	b.Do("GET", "/console", nil).Expect(301)
}

func TestConsoleSignInRefusals(t *testing.T) {
	e := newTestEnv(t)
	id := e.createUser("bob", 0)
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET status = 'disabled' WHERE id = $1", id); err != nil {
		t.Fatal(err)
	}
	e.createUser("carol", 0)
	tests := []struct {
		name          string
		fields        []string
		origin        string
		noToken       bool
		status        int
		want          string
		signedIn      bool
		wantLocation  string
		wrongTokenFor bool
	}{
		{name: "wrong password", fields: []string{"username", "carol", "password", "nope-nope"}, status: 401, want: "Wrong username or password."},
		{name: "unknown user", fields: []string{"username", "nobody", "password", testPassword}, status: 401, want: "Wrong username or password."},
		{name: "empty fields", fields: []string{"username", "", "password", ""}, status: 422, want: "Enter your username"},
		{name: "disabled account", fields: []string{"username", "bob", "password", testPassword}, status: 403, want: "This account is disabled."},
		{name: "guest cannot sign in", fields: []string{"username", "guest", "password", ""}, status: 422},
		{name: "no form token", fields: []string{"username", "carol", "password", testPassword}, noToken: true, status: 403, want: "another site"},
		{name: "token of another browser", fields: []string{"username", "carol", "password", testPassword}, wrongTokenFor: true, status: 403},
		{name: "cross-site form", fields: []string{"username", "carol", "password", testPassword}, origin: "https://evil.example", status: 403},
		{name: "NUL in a field", fields: []string{"username", "car\x00ol", "password", testPassword}, status: 422, want: "cannot be stored"},
		{name: "next elsewhere is ignored", fields: []string{"username", "carol", "password", testPassword, "next", "//evil.example/x"}, status: 303, wantLocation: "/console/"},
		{name: "next outside the console is ignored", fields: []string{"username", "carol", "password", testPassword, "next", "/api/v1/files"}, status: 303, wantLocation: "/console/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := e.c.Clone()
			tok := pageToken(b, "/console/login")
			if tt.wrongTokenFor {
				tok = pageToken(e.c.Clone(), "/console/login")
			}
			fields := append([]string{}, tt.fields...)
			if !tt.noToken {
				fields = append(fields, "form_token", tok)
			}
			var res *httpxtest.Response
			if tt.origin != "" {
				res = b.Do("POST", "/console/login", []byte(formBody(fields...)),
					"Content-Type", "application/x-www-form-urlencoded", "Origin", tt.origin)
			} else {
				res = b.PostForm("/console/login", fields...)
			}
			res.Expect(tt.status)
			if tt.want != "" && !contains(res, tt.want) {
				t.Errorf("page lacks %q: %.400s", tt.want, res.Body)
			}
			if tt.wantLocation != "" && res.Location() != tt.wantLocation {
				t.Errorf("Location = %q, want %q", res.Location(), tt.wantLocation)
			}
			if tt.status >= 400 && res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("error is not a page: %s", res.Header.Get("Content-Type"))
			}
		})
	}
}

// formBody encodes pairs as a form body.
func formBody(pairs ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Add(pairs[i], pairs[i+1])
	}
	return v.Encode()
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestConsoleSignInSharesTheAPILoginLimit(t *testing.T) {
	e := newTestEnv(t)
	for i := 0; i < 20; i++ {
		e.c.Do("POST", "/api/v1/auth/login", map[string]string{"username": "x", "password": "wrong-password"}).Expect(401)
	}
	b := e.c.Clone()
	tok := pageToken(b, "/console/login")
	res := b.PostForm("/console/login", "form_token", tok, "username", authtest.AdminUsername, "password", authtest.AdminPassword).Expect(429)
	if res.Header.Get("Retry-After") == "" || !contains(res, "Too many sign-in attempts") {
		t.Errorf("429 without Retry-After or message: %v %.300s", res.Header, res.Body)
	}
}

func TestConsoleSignOutRevokesTheSession(t *testing.T) {
	e := newTestEnv(t)
	b := e.consoleAdmin()
	cookies := b.HTTP.Jar.Cookies(mustURL(t, b.Base+"/console/"))

	// Without the form token, signing out is refused.
	b.PostForm("/console/logout").Expect(403)
	page := b.Do("GET", "/console/nope", nil).Expect(404)
	b.PostForm("/console/logout", "form_token", page.FormToken()).Expect(303)

	// The old cookie, replayed, opens nothing.
	replay := e.c.Clone()
	replay.HTTP.Jar.SetCookies(mustURL(t, b.Base+"/console/"), cookies)
	if got := replay.Do("GET", "/console/", nil).Expect(303).Location(); !strings.HasPrefix(got, "/console/login") {
		t.Errorf("replayed cookie leads to %q", got)
	}
}

func TestConsoleIgnoresBearerTokens(t *testing.T) {
	e := newTestEnv(t)
	if got := e.admin.Do("GET", "/console/", nil).Expect(303).Location(); !strings.HasPrefix(got, "/console/login") {
		t.Errorf("a Bearer token opened the console: %q", got)
	}
}

func TestConsoleRegistration(t *testing.T) {
	e := newTestEnv(t)
	b := e.c.Clone()
	b.Do("GET", "/console/register", nil).Expect(404)
	login := b.Do("GET", "/console/login", nil).Expect(200)
	if contains(login, `href="/console/register"`) {
		t.Error("sign-in page offers registration while it is off")
	}
	b.PostForm("/console/register", "form_token", login.FormToken(), "username", "dave", "email", "dave@example.com", "password", testPassword).Expect(404)

	e.setUpload(func(u *UploadSettings) { u.AllowRegister = true })
	tok := pageToken(b, "/console/register")
	res := b.PostForm("/console/register", "form_token", tok, "username", "dave", "email", "dave@example.com", "password", testPassword).Expect(303)
	if res.Location() != "/console/upload" {
		t.Errorf("registered to %q", res.Location())
	}
	if got := b.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/upload" {
		t.Errorf("new account is not signed in: %q", got)
	}

	other := e.c.Clone()
	tok = pageToken(other, "/console/register")
	taken := other.PostForm("/console/register", "form_token", tok, "username", "dave", "email", "d2@example.com", "password", testPassword).Expect(409)
	if !contains(taken, `value="d2@example.com"`) {
		t.Errorf("the form does not keep the input: %.400s", taken.Body)
	}
	other.PostForm("/console/register", "form_token", tok, "username", "x", "email", "bad", "password", "short").Expect(400)
	other.PostForm("/console/register", "username", "erin", "email", "erin@example.com", "password", testPassword).Expect(403)
}

func TestConsoleUnknownPageIsTheConsoles404(t *testing.T) {
	e := newTestEnv(t)
	res := e.c.Do("GET", "/console/no/such/page", nil).Expect(404)
	if !contains(res, "Page not found") || res.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("404: %v %.300s", res.Header, res.Body)
	}
	e.c.Do("GET", "/console/static/console.css", nil).Expect(404) // only the hashed name
	url, ok := e.svc.console.Templates().AssetURL("console.css")
	if !ok {
		t.Fatal("no console.css")
	}
	css := e.c.Do("GET", url, nil).Expect(200)
	if css.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") {
		t.Errorf("asset headers: %v", css.Header)
	}
}
