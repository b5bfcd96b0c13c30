package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Every route bounds its body before anything else runs, guards included:
// a declared body over the bound is answered 413 in the route's envelope
// at once, without a byte of it read (docs/api.md#limits). The walk sends
// only the headers; a route that waited for the body would never answer.
func TestEveryRouteRefusesADeclaredOversizedBodyAtOnce(t *testing.T) {
	a, anon := newTestApp(t)
	wildcard := regexp.MustCompile(`\{[^}]*\}`)
	// The upload routes answer in the Lsky shape, as every upload error.
	lsky := map[string]bool{"POST /api/v1/upload": true, "POST /api/v1/public/upload": true}
	var walked int
	for _, r := range a.router.Routes() {
		if r.Fallback {
			continue
		}
		method, path, _ := strings.Cut(r.Pattern, " ")
		path = wildcard.ReplaceAllStringFunc(path, func(w string) string {
			switch {
			case w == "{$}":
				return ""
			case strings.HasSuffix(w, "...}"):
				return "x/y"
			}
			return "x"
		})
		res := anon.DeclareBody(method, path, "application/octet-stream", 1<<40)
		walked++
		if res.Status != 413 {
			t.Errorf("%s (%s): status %d, want 413; body %.200s", r.Pattern, path, res.Status, res.Body)
			continue
		}
		if lsky[r.Pattern] {
			var u struct {
				Status  *bool  `json:"status"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(res.Body, &u); err != nil || u.Status == nil || *u.Status || u.Message == "" {
				t.Errorf("%s: not an upload error: %s", r.Pattern, res.Body)
			}
			continue
		}
		if err := inEnvelope(res.Body, r.Envelope, 413); err != "" {
			t.Errorf("%s: %s; body %s", r.Pattern, err, res.Body)
		}
	}
	if walked < 100 {
		t.Fatalf("walked %d routes", walked)
	}
	// The reference says so for every operation that takes a body.
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody any            `json:"requestBody"`
			Responses   map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(anon.Do("GET", "/api/v1/openapi.json", nil).Expect(200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	var withBody int
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.RequestBody == nil {
				continue
			}
			withBody++
			if op.Responses["413"] == nil {
				t.Errorf("the reference's %s %s takes a body and lists no 413", method, path)
			}
		}
	}
	if withBody < 50 {
		t.Fatalf("%d operations with a body in the reference", withBody)
	}
}
