package filehost

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

// from is a client of e at address ip (the test server trusts loopback
// proxies).
func from(e *testEnv, ip string) *httpxtest.Client {
	c := e.c.Clone()
	c.Header.Set("X-Forwarded-For", ip)
	return c
}

// expectTooMany checks a 429 of the link routes: Retry-After within the
// minute, and the shape of a miss (a page for a browser, envelope A
// otherwise).
func expectTooMany(t *testing.T, res *httpxtest.Response, page bool) {
	t.Helper()
	res.Expect(429)
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q, want 1 to 60 seconds", res.Header.Get("Retry-After"))
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a 429 that may be cached: %v", res.Header)
	}
	if page {
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !contains(res, "links that do not exist") {
			t.Fatalf("a browser's 429: %v %s", res.Header, res.Body)
		}
		return
	}
	if env := res.A(); env.Code != 42900 {
		t.Fatalf("429: %+v", env)
	}
}

func TestWalkingShortLinkPrefixesIsRefused(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	var real []string
	for i := range 4 {
		u := mustUpload(t, alice, "a.png", pngBytes(t, 10+i, 10))
		real = append(real, "/i/"+u.hash(), "/t/"+u.hash(), "/f/"+u.hash()+".png")
	}
	sh := mustShare(t, alice, mustUpload(t, alice, "b.png", pngBytes(t, 5, 5)).ID, nil)
	real = append(real, sh.path())

	// A reader fetching 200 real links in a minute (and a few dead ones,
	// as a page with a deleted picture has) is never refused.
	reader := from(e, "192.0.2.10")
	for i := range 200 {
		reader.Do("GET", real[i%len(real)], nil).Expect(200)
		if i%20 == 0 {
			reader.Do("GET", "/i/"+strings.Repeat("0", 8), nil).Expect(404)
		}
	}

	// A client walking random prefixes gets its 60 misses, then 429 for
	// every link, real ones too, until its allowance grows back.
	for _, tt := range []struct {
		name, ip string
		page     bool
	}{
		{"JSON client", "198.51.100.7", false},
		{"browser", "198.51.100.8", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			walker := from(e, tt.ip)
			if tt.page {
				walker = browser(walker)
				walker.Header.Set("X-Forwarded-For", tt.ip)
			}
			for i := 1; i <= 100; i++ {
				res := walker.Do("GET", "/i/"+randomPrefix(real), nil)
				if i <= missesPerMinute {
					res.Expect(404)
					continue
				}
				expectTooMany(t, res, tt.page)
			}
			for _, path := range real {
				expectTooMany(t, walker.Do("GET", path, nil), tt.page)
			}
			// Other addresses are served as before.
			reader.Do("GET", real[0], nil).Expect(200)
			reader.Do("GET", "/i/"+strings.Repeat("1", 8), nil).Expect(404)
		})
	}
}

func TestShareLinkMissesCountWithShortLinkMisses(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 6, 6))
	sh := mustShare(t, alice, u.ID, map[string]any{"max_views": 1})
	dead := mustShare(t, alice, u.ID, map[string]any{"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	alice.Do("DELETE", "/api/v1/files/"+u.ID+"/shares/"+dead.ID, nil).Expect(200)

	c := from(e, "203.0.113.9")
	c.Do("GET", sh.path(), nil).Expect(200) // its one view
	misses := []string{
		sh.path(),   // exhausted
		dead.path(), // revoked
		"/s/" + strings.Repeat("A", 32),
		"/s/raw/" + strings.Repeat("B", 32) + "?t=x",
		"/s/not-a-token",
		"/t/" + strings.Repeat("2", 8),
	}
	for i := range missesPerMinute {
		c.Do("GET", misses[i%len(misses)], nil).Expect(404)
	}
	expectTooMany(t, c.Do("GET", "/i/"+strings.Repeat("3", 8), nil), false)
	expectTooMany(t, c.PostForm(sh.path(), "password", "anything at all"), false)
	expectTooMany(t, c.Do("GET", "/i/"+u.hash(), nil), false)
	// The pages' assets are no link: not refused.
	c.Do("GET", "/s/static/nope.css", nil).Expect(404)
}

// randomPrefix is a random 8-hex-digit short-link hash that no link of
// real starts with.
func randomPrefix(real []string) string {
	for {
		b := make([]byte, 4)
		rand.Read(b)
		h := hex.EncodeToString(b)
		taken := false
		for _, p := range real {
			taken = taken || strings.Contains(p, "/"+h)
		}
		if !taken {
			return h
		}
	}
}
