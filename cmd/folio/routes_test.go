package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
)

// TestEveryRouteAnswersMissesInItsSurface walks every registered pattern
// and checks that an unknown method and an unknown sub-path under it are
// answered by the surface that owns it: 404 or 405 (with Allow) in its
// envelope, the site's 404 page for page paths, 401 first under
// /api/v1/admin without credentials. A route whose misses another surface
// answers (a group without its fallback), a surface declared in the wrong
// envelope, or a surface this test does not know fails it.
func TestEveryRouteAnswersMissesInItsSurface(t *testing.T) {
	a, anon := newTestApp(t)
	admin := anon.Clone()
	admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)

	// What each surface answers in, as docs/api.md documents it: a new
	// surface must be added here, with what its clients expect.
	surfaces := map[string]struct {
		env   httpx.Envelope
		pages bool
	}{
		"system": {httpx.BlogAPI, false},
		"blog":   {httpx.BlogAPI, false},
		// ActivityPub's routes: JSON for other servers, the API's 404
		// while federation is off.
		"federation": {httpx.BlogAPI, false},
		"site":       {httpx.BlogAPI, true},
		"files":      {httpx.FileAPI, false},
		"links":      {httpx.FileAPI, true},
		// Share links: pages for anyone; a missing link answers as a
		// short link does.
		"shares": {httpx.FileAPI, true},
		// The console's pages answer 404 with its own page, other
		// errors of the router in envelope A.
		"console": {httpx.FileAPI, true},
		// The blog's console pages, under /console/blog: their misses are
		// the console's, so they answer as the console does.
		"console-blog": {httpx.FileAPI, true},
	}
	routes := a.router.Routes()
	patterns := map[string]bool{}
	for _, r := range routes {
		patterns[r.Pattern] = true
		s, ok := surfaces[r.Surface]
		if !ok {
			t.Fatalf("%q is in surface %q, which this test does not know", r.Pattern, r.Surface)
		}
		if r.Envelope != s.env || r.Pages != s.pages {
			t.Errorf("%q: surface %q declared as envelope %d pages %v, want %d %v", r.Pattern, r.Surface, r.Envelope, r.Pages, s.env, s.pages)
		}
	}
	for p := range patterns {
		if p != "/" && strings.HasSuffix(p, "/") && !patterns[strings.TrimSuffix(p, "/")] {
			t.Errorf("fallback %q without %q: the mux would redirect %[2]q into it", p, strings.TrimSuffix(p, "/"))
		}
	}

	wildcard := regexp.MustCompile(`\{[^}]*\}`)
	var walked int
	for _, r := range routes {
		method, path, _ := strings.Cut(r.Pattern, " ")
		if r.Fallback {
			method, path = "", r.Pattern
		}
		multi := strings.HasSuffix(path, "...}")
		path = wildcard.ReplaceAllStringFunc(path, func(w string) string {
			switch {
			case w == "{$}":
				return ""
			case strings.HasSuffix(w, "...}"):
				return "x/y"
			}
			return "x"
		})
		guarded := path == "/api/v1/admin" || strings.HasPrefix(path, "/api/v1/admin/")
		clients := []*httpxtest.Client{anon}
		if guarded {
			clients = append(clients, admin)
		}
		for _, c := range clients {
			who := "anonymous"
			if c == admin {
				who = "administrator"
			}
			// check asks reqMethod reqPath; when routeAllowed, a 405's
			// Allow must list the route's own method.
			check := func(reqMethod, reqPath string, routeAllowed bool, allowed ...int) {
				t.Helper()
				walked++
				res := c.Do(reqMethod, reqPath, nil)
				what := reqMethod + " " + reqPath + " (" + who + ", route " + r.Pattern + ", surface " + r.Surface + ")"
				if guarded && c == anon {
					allowed = []int{401}
				}
				if !slices.Contains(allowed, res.Status) {
					t.Errorf("%s: status %d, want one of %v; body %s", what, res.Status, allowed, res.Body)
					return
				}
				s := surfaces[r.Surface]
				if res.Status == 404 && s.pages {
					if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || !strings.Contains(string(res.Body), "Page not found") {
						t.Errorf("%s: 404 is not the site's page: %s %.200s", what, ct, res.Body)
					}
					return
				}
				if err := inEnvelope(res.Body, s.env, res.Status); err != "" {
					t.Errorf("%s: %s; body %s", what, err, res.Body)
				}
				allow := res.Header.Get("Allow")
				switch {
				case res.Status == 405 && routeAllowed && !slices.Contains(strings.Split(allow, ", "), method):
					t.Errorf("%s: Allow %q lacks %s", what, allow, method)
				case res.Status == 405 && allow == "":
					t.Errorf("%s: 405 without Allow", what)
				case res.Status != 405 && allow != "":
					t.Errorf("%s: Allow %q on a %d", what, allow, res.Status)
				}
			}
			if r.Fallback {
				// Under the fallback itself: nothing, or another method.
				if strings.HasSuffix(path, "/") {
					path += "no-such"
				}
				check("BREW", path, false, 404, 405)
				continue
			}
			check("BREW", path, true, 405)
			if !multi { // a trailing {name...} has no unknown sub-path
				check(method, strings.TrimSuffix(path, "/")+"/no-such/thing/at-all", false, 404, 405)
			}
		}
	}
	if walked < 2*len(routes) {
		t.Fatalf("walked %d requests for %d patterns", walked, len(routes))
	}
	t.Logf("%d patterns, %d requests", len(routes), walked)
}

// inEnvelope says what is wrong with body as env's error answer for
// status, or "" when nothing is.
func inEnvelope(body []byte, env httpx.Envelope, status int) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return "not JSON: " + err.Error()
	}
	keys, code := []string{"code", "data", "msg"}, status
	if env == httpx.FileAPI {
		keys, code = []string{"code", "data", "message"}, status*100
	}
	if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, keys) {
		return "keys " + strings.Join(got, ",") + ", want " + strings.Join(keys, ",")
	}
	var got int
	if json.Unmarshal(fields["code"], &got) != nil || got != code {
		return "code " + string(fields["code"])
	}
	return ""
}

// TestEveryRouteIsInTheAPIReference fails when a route is registered that
// docs/api.md does not name as "METHOD /path", so the reference cannot
// fall behind the route table. A preflight is covered by its GET (the
// reference says every public read answers OPTIONS); a few patterns are
// written for readers in the form clients send.
func TestEveryRouteIsInTheAPIReference(t *testing.T) {
	a, _ := newTestApp(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	asDocumented := map[string][]string{
		"GET /{$}":                           {"GET /"},
		"DELETE /api/v1/images/{key...}":     {"DELETE /api/v1/images/{key}"},
		"GET /api/v1/posts/{id}/{sub}":       {"GET /api/v1/posts/slug/{slug}", "GET /api/v1/posts/{id}/comments"},
		"OPTIONS /api/v1/posts/{id}/{sub}":   {"GET /api/v1/posts/slug/{slug}"},
		"GET /api/v1/admin/posts/{id}/{sub}": {"GET /api/v1/admin/posts/slug/{slug}", "GET /api/v1/admin/posts/{id}/revisions"},
		"OPTIONS /api/v1/tus/{$}":            {"OPTIONS /api/v1/tus/"},
		"OPTIONS /api/v1/tus/{id}":           {"OPTIONS /api/v1/tus/{id}"},
		"POST /api/v1/tus/{$}":               {"POST /api/v1/tus/"},
	}
	for _, r := range a.router.Routes() {
		if r.Fallback {
			continue
		}
		names, ok := asDocumented[r.Pattern]
		if !ok {
			names = []string{r.Pattern}
			if rest, ok := strings.CutPrefix(r.Pattern, "OPTIONS "); ok {
				names = []string{"GET " + rest}
			}
		}
		for _, n := range names {
			if !strings.Contains(doc, "`"+n+"`") {
				t.Errorf("route %q: docs/api.md does not name `%s`", r.Pattern, n)
			}
		}
	}
}
