package main

import (
	"regexp"
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
