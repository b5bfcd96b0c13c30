package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// consoleAdmin signs a new browser in to the console as the administrator.
func consoleAdmin(t *testing.T, c *httpxtest.Client) *httpxtest.Client {
	t.Helper()
	b := c.Clone()
	tok := b.Do("GET", "/console/login", nil).Expect(200).FormToken()
	b.PostForm("/console/login", "form_token", tok, "username", authtest.AdminUsername, "password", authtest.AdminPassword).Expect(303)
	return b
}

func TestConsoleServesBothRenderModes(t *testing.T) {
	for _, mode := range []string{"classic", "headless"} {
		t.Run(mode, func(t *testing.T) {
			_, c := newTestAppOn(t, sqlstoretest.NewConfig(t), "FOLIO_RENDER_RENDER_MODE="+mode)
			b := consoleAdmin(t, c)
			res := b.Do("GET", "/console/upload", nil).Expect(200)
			if !strings.Contains(string(res.Body), "<title>Upload · ") {
				t.Errorf("upload page: %.300s", res.Body)
			}
		})
	}
}

func TestConsoleCanBeTurnedOff(t *testing.T) {
	_, c := newTestAppOn(t, sqlstoretest.NewConfig(t), "FOLIO_CONSOLE_ENABLED=false", "FOLIO_UPLOAD_ALLOW_GUEST_UPLOAD=true")
	for _, path := range []string{"/console/login", "/console/", "/console/upload", "/upload"} {
		res := c.Do("GET", path, nil).Expect(404)
		if res.Header.Get("Content-Security-Policy") == auth.ConsoleCSP {
			t.Errorf("%s: answered by the console although it is off", path)
		}
	}
	// The API stays.
	c.Do("GET", "/api/v1/health", nil).Expect(200)
}

// TestEveryConsolePageSendsTheCSP asks every console GET route, signed in
// as the administrator, and wants the console's security headers on
// whatever answers: the page, its error page, or a redirect.
func TestEveryConsolePageSendsTheCSP(t *testing.T) {
	a, c := newTestApp(t)
	b := consoleAdmin(t, c)
	wildcard := regexp.MustCompile(`\{[^}]*\}`)
	n := 0
	for _, r := range a.router.Routes() {
		method, path, _ := strings.Cut(r.Pattern, " ")
		if (r.Surface != "console" && r.Surface != "console-blog") || r.Fallback || method != "GET" || path == "/console" {
			continue
		}
		path = strings.ReplaceAll(path, "{$}", "")
		path = wildcard.ReplaceAllString(path, "0190aaaa-0000-7000-8000-000000000000")
		res := b.Do("GET", path, nil)
		n++
		if got := res.Header.Get("Content-Security-Policy"); got != auth.ConsoleCSP {
			t.Errorf("GET %s (%s): %d with CSP %q", path, r.Pattern, res.Status, got)
		}
		if got := res.Header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("GET %s: X-Frame-Options %q", path, got)
		}
		if res.Status >= 500 {
			t.Errorf("GET %s: %d", path, res.Status)
		}
	}
	if n < 5 {
		t.Fatalf("only %d console pages found", n)
	}
}

// formRefused is the console's page for a form it refuses.
const formRefused = "This form came from another site or has expired"

// TestEveryConsoleWriteMustNameTheSite posts to every console write route
// of both domains, signed in as the administrator with a good form token,
// but with neither Origin nor Referer: each is refused. The same post from
// the site is not refused by the form check (the sign-in forms, which
// take the token of the form cookie instead, have their own test).
func TestEveryConsoleWriteMustNameTheSite(t *testing.T) {
	a, c := newTestAppOn(t, sqlstoretest.NewConfig(t), "FOLIO_UPLOAD_ALLOW_GUEST_UPLOAD=true", "FOLIO_UPLOAD_ALLOW_REGISTER=true")
	b := consoleAdmin(t, c)
	tok := b.Do("GET", "/console/upload", nil).Expect(200).FormToken()
	open := map[string]bool{"/console/login": true, "/console/login/code": true, "/console/register": true, "/upload": true}
	wildcard := regexp.MustCompile(`\{[^}]*\}`)
	post := func(method, path string, headers ...string) *httpxtest.Response {
		req, err := http.NewRequest(method, c.Base+path+"?form_token="+url.QueryEscape(tok), strings.NewReader(url.Values{"form_token": {tok}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Form-Token", tok)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		return b.Send(req)
	}
	n := 0
	for _, r := range a.router.Routes() {
		method, path, _ := strings.Cut(r.Pattern, " ")
		if (r.Surface != "console" && r.Surface != "console-blog") || r.Fallback || method == "GET" || method == "HEAD" {
			continue
		}
		path = wildcard.ReplaceAllString(path, "0190aaaa-0000-7000-8000-000000000000")
		n++
		if res := post(method, path); res.Status != 403 || !strings.Contains(string(res.Body), formRefused) {
			t.Errorf("%s %s without Origin or Referer: %d %.200s", method, path, res.Status, res.Body)
		}
		if res := post(method, path, "Origin", "null", "Referer", c.Base+"/console/"); res.Status != 403 {
			t.Errorf("%s %s with Origin null: %d", method, path, res.Status)
		}
		if open[path] || path == "/console/logout" {
			continue
		}
		if res := post(method, path, "Origin", c.Base); res.Status == 403 && strings.Contains(string(res.Body), formRefused) || res.Status >= 500 {
			t.Errorf("%s %s from the site: %d %.200s", method, path, res.Status, res.Body)
		}
	}
	if n < 30 {
		t.Fatalf("only %d console write routes found", n)
	}
}

// TestConsoleFormsNameTheSiteByOriginOrReferer signs in, steps through the
// code form and posts a file-host and a blog form, each named by Origin,
// by Referer alone, by another host, or by nothing.
func TestConsoleFormsNameTheSiteByOriginOrReferer(t *testing.T) {
	_, c := newTestApp(t)
	b := consoleAdmin(t, c)
	for i, tt := range []struct {
		name    string
		headers func(site string) []string
		ok      bool
	}{
		{"Origin of the site", func(site string) []string { return []string{"Origin", site} }, true},
		{"Referer of the site, no Origin", func(site string) []string { return []string{"Referer", site + "/console/login"} }, true},
		{"neither", func(string) []string { return nil }, false},
		{"Origin of another host", func(string) []string { return []string{"Origin", "https://evil.example"} }, false},
		{"Referer of another host, no Origin", func(string) []string { return []string{"Referer", "https://evil.example/x"} }, false},
		{"Origin of another host, Referer of the site", func(site string) []string {
			return []string{"Origin", "https://evil.example", "Referer", site + "/console/"}
		}, false},
		{"Origin null", func(string) []string { return []string{"Origin", "null"} }, false},
	} {
		// Each case from its own address: the sign-in forms spend a
		// per-address allowance.
		visitor := func() *httpxtest.Client {
			v := c.Clone()
			v.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i+1))
			return v
		}
		t.Run(tt.name, func(t *testing.T) {
			send := func(v *httpxtest.Client, path string, want int, fields ...string) {
				t.Helper()
				form := url.Values{}
				for i := 0; i+1 < len(fields); i += 2 {
					form.Add(fields[i], fields[i+1])
				}
				req, _ := http.NewRequest("POST", c.Base+path, strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				h := tt.headers(c.Base)
				for i := 0; i+1 < len(h); i += 2 {
					req.Header.Set(h[i], h[i+1])
				}
				res := v.Send(req)
				if !tt.ok {
					want = 403
				}
				if res.Status != want || (want == 403) != strings.Contains(string(res.Body), formRefused) {
					t.Errorf("POST %s: %d, want %d: %.200s", path, res.Status, want, res.Body)
				}
			}
			v := visitor()
			login := v.Do("GET", "/console/login", nil).Expect(200).FormToken()
			send(v, "/console/login", 303, "form_token", login, "username", authtest.AdminUsername, "password", authtest.AdminPassword)
			// A stale ticket is the code step's own 401, past the form check.
			send(visitor(), "/console/login/code", 403, "form_token", "x")
			v2 := visitor()
			anon := v2.Do("GET", "/console/login", nil).Expect(200).FormToken()
			send(v2, "/console/login/code", 401, "form_token", anon, "ticket", "stale", "code", "123456")
			send(b, "/console/albums", 303, "form_token", pageToken(t, b, "/console/albums"), "name", "Album "+tt.name)
			send(b, "/console/blog/tags", 303, "form_token", pageToken(t, b, "/console/blog/tags"), "name", "Tag "+tt.name)
		})
	}
}

// pageToken is the form token of a console page.
func pageToken(t *testing.T, b *httpxtest.Client, path string) string {
	t.Helper()
	return b.Do("GET", path, nil).Expect(200).FormToken()
}
