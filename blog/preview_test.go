package blog_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/blog"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/templates"
)

// newPreviewEnv is the blog API, the classic site and the blog's console
// pages, on a clock the test moves.
func newPreviewEnv(t testing.TB) *siteEnv {
	t.Helper()
	clock := &testClock{}
	var site *blog.Site
	e, _ := newEnvWith(t, setup{now: clock.now, console: true, handler: func(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler {
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

// previewLink is the answer of POST /api/v1/admin/posts/{id}/preview-link.
type previewLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// makePreview makes a link to the post id through the API and returns
// its path on the test server.
func (e *siteEnv) makePreview(id string, body any) (string, previewLink) {
	e.t.Helper()
	var l previewLink
	data(e.t, e.admin.Do("POST", "/api/v1/admin/posts/"+id+"/preview-link", body), 201, &l)
	path, ok := strings.CutPrefix(l.URL, e.anon.Base+"/preview/")
	if !ok {
		e.t.Fatalf("preview URL %q is not under %s/preview/", l.URL, e.anon.Base)
	}
	return "/preview/" + path, l
}

// expectPreviewHeaders checks what every answer of /preview/ carries.
func expectPreviewHeaders(t testing.TB, r *httpxtest.Response) {
	t.Helper()
	for k, want := range map[string]string{
		"Cache-Control":   "no-store",
		"X-Robots-Tag":    "noindex",
		"Referrer-Policy": "no-referrer",
		"Content-Type":    "text/html; charset=utf-8",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}

func TestPreviewLinkShowsADraftInBothModes(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(map[string]any{"title": "Secret plans", "content_markdown": "Hello **world**", "show_comments": true})
	path, link := e.makePreview(p.ID, nil)
	e.html("/posts/"+p.Slug, 404) // the draft is not public

	for _, mode := range []string{"classic", "headless"} {
		t.Run(mode, func(t *testing.T) {
			e.setMode(mode)
			r := e.anon.Do("GET", path, nil).Expect(200)
			expectPreviewHeaders(t, r)
			body := string(r.Body)
			siteHas(t, "preview", body, "<h1 class=\"post-title\">Secret plans</h1>", "<strong>world</strong>",
				`id="preview-banner"`, "Preview — this post is not public.", "It is a draft",
				`<meta name="robots" content="noindex">`, "valid until",
				`datetime="`+link.ExpiresAt.UTC().Format(time.RFC3339)+`"`)
			siteLacks(t, "preview", body, "comment-form", "Leave a comment", `name="author"`)

			head := e.anon.Do("HEAD", path, nil).Expect(200)
			expectPreviewHeaders(t, head)
			if len(head.Body) != 0 {
				t.Errorf("HEAD sent a body of %d bytes", len(head.Body))
			}
		})
	}
}

func TestPreviewBannerFollowsThePostsState(t *testing.T) {
	e := newPreviewEnv(t)
	future := e.clock.now().Add(72 * time.Hour).UTC().Truncate(time.Second)
	for _, tc := range []struct {
		name   string
		fields map[string]any
		want   []string
	}{
		{"scheduled", map[string]any{"status": "published", "published_at": future},
			[]string{"this post is not public.", "It is scheduled for", `datetime="` + future.Format(time.RFC3339) + `"`}},
		{"archived", map[string]any{"status": "archived"}, []string{"this post is not public.", "It is archived"}},
		{"published", map[string]any{"status": "published", "slug": "out-there"},
			[]string{"this post is public.", `href="/posts/out-there"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := e.createPost(tc.fields)
			path, _ := e.makePreview(p.ID, nil)
			siteHas(t, tc.name, e.html(path, 200), tc.want...)
		})
	}
}

func TestPreviewIsNeverCached(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(map[string]any{"title": "First title"})
	path, _ := e.makePreview(p.ID, nil)
	siteHas(t, "first", e.html(path, 200), "First title")
	// A change behind the site's back (no change mark) shows at once: the
	// page was rendered again, not served from the page cache.
	e.exec("UPDATE posts SET title = $1 WHERE id = $2", "Second title", p.ID)
	e.clock.advance(5 * time.Second) // past the site's settling time
	siteHas(t, "second", e.html(path, 200), "Second title")
}

func TestExpiredPreviewIsGone(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(nil)
	path, _ := e.makePreview(p.ID, map[string]any{"expires_in_hours": 1})
	e.html(path, 200)
	e.clock.advance(time.Hour)
	for _, mode := range []string{"classic", "headless"} {
		e.setMode(mode)
		r := e.anon.Do("GET", path, nil).Expect(410)
		expectPreviewHeaders(t, r)
		siteHas(t, mode, string(r.Body), "This preview link has expired", "Ask the author for a new link", `<meta name="robots" content="noindex">`)
		siteLacks(t, mode, string(r.Body), "A post")
	}
}

func TestForgedPreviewIsNotFound(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(nil)
	path, link := e.makePreview(p.ID, nil)
	tok := strings.TrimPrefix(path, "/preview/")
	id, rest, _ := strings.Cut(tok, ".")
	exp, mac, _ := strings.Cut(rest, ".")
	swap := func(s string, i int) string {
		c := byte('a')
		if s[i] == c {
			c = 'b'
		}
		if s[i] >= '0' && s[i] <= '9' {
			c = '0' + (s[i]-'0'+1)%10
		}
		return s[:i] + string(c) + s[i+1:]
	}
	other := e.createPost(map[string]any{"title": "Another"})
	// The same post and expiry sealed for another use.
	otherPurpose := e.auth.Seal("folio share ticket v1", p.ID, link.ExpiresAt)
	for name, bad := range map[string]string{
		"payload changed":      swap(id, 0) + "." + exp + "." + mac,
		"payload another post": other.ID + "." + exp + "." + mac,
		"expiry changed":       id + "." + swap(exp, len(exp)-3) + "." + mac,
		"mac changed":          id + "." + exp + "." + swap(mac, 10),
		"mac cut":              id + "." + exp + "." + mac[:len(mac)-1],
		"no mac":               id + "." + exp,
		"garbage":              "not-a-token",
		"another purpose":      otherPurpose,
	} {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []string{"classic", "headless"} {
				e.setMode(mode)
				r := e.anon.Do("GET", "/preview/"+bad, nil).Expect(404)
				expectPreviewHeaders(t, r)
				siteHas(t, name, string(r.Body), "Page not found")
			}
			e.setMode("classic")
		})
	}
}

func TestPreviewOfADeletedPostIsNotFound(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(nil)
	path, _ := e.makePreview(p.ID, nil)
	e.html(path, 200)
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
	siteHas(t, "deleted", e.html(path, 404), "Page not found")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/posts/"+p.ID+"/preview-link", nil), 404, "resource not found")
}

func TestPreviewLinkAPI(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(nil)
	start := e.clock.now()
	for _, tc := range []struct {
		name  string
		body  any
		hours int
	}{
		{"no body", nil, 168},
		{"empty object", map[string]any{}, 168},
		{"null hours", map[string]any{"expires_in_hours": nil}, 168},
		{"one hour", map[string]any{"expires_in_hours": 1}, 1},
		{"thirty days", map[string]any{"expires_in_hours": 720}, 720},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.admin.Do("POST", "/api/v1/admin/posts/"+p.ID+"/preview-link", tc.body).Expect(201)
			var got map[string]any
			data(t, r, 201, &got)
			if len(got) != 2 || got["url"] == nil || got["expires_at"] == nil {
				t.Fatalf("answer %s, want exactly url and expires_at", r.Body)
			}
			path, l := e.makePreview(p.ID, tc.body)
			want := start.Add(time.Duration(tc.hours) * time.Hour)
			if d := l.ExpiresAt.Sub(want); d < -time.Second || d > 10*time.Second {
				t.Errorf("expires_at %v, want about %v", l.ExpiresAt, want)
			}
			e.html(path, 200)
		})
	}
	base := "/api/v1/admin/posts/" + p.ID + "/preview-link"
	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"zero hours", map[string]any{"expires_in_hours": 0}, 422},
		{"too many hours", map[string]any{"expires_in_hours": 721}, 422},
		{"negative hours", map[string]any{"expires_in_hours": -1}, 422},
		{"hours as text", map[string]any{"expires_in_hours": "24"}, 400},
		{"fractional hours", map[string]any{"expires_in_hours": 1.5}, 400},
		{"malformed JSON", "{", 400},
		{"an array", "[]", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectError(t, e.admin.Do("POST", base, tc.body), tc.status, "")
		})
	}
	expectError(t, e.admin.Do("POST", "/api/v1/admin/posts/"+unknownID+"/preview-link", nil), 404, "resource not found")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/posts/not-an-id/preview-link", nil), 404, "resource not found")
	expectError(t, e.anon.Do("POST", base, nil), 401, "")
	expectError(t, e.anon.Do("POST", base, nil, "Authorization", "Bearer "+e.userToken()), 403, "")
}

// unknownID is a well-formed id no row has.
const unknownID = "01900000-0000-7000-8000-000000000000"

func TestConsolePreviewPage(t *testing.T) {
	e := newPreviewEnv(t)
	p := e.createPost(map[string]any{"title": "Draft for review", "content_markdown": "Read *me*"})
	page := "/console/blog/posts/" + p.ID + "/preview"

	res, tok := consolePage(t, e.admin, page, 200)
	if !has(res, "<h1>Preview link</h1>", "Draft for review", `name="expires_in_hours"`,
		`<option value="168" selected>7 days</option>`, `<option value="1">1 hour</option>`,
		`<option value="24">1 day</option>`, `<option value="720">30 days</option>`,
		"cannot be withdrawn", "admin.session_secret") {
		t.Fatalf("the page lacks its parts: %s", res.Body)
	}
	if tok == "" {
		t.Fatal("the page has no form token")
	}

	made := e.admin.PostForm(page, "form_token", tok, "expires_in_hours", "24").Expect(200)
	if cc := made.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if !has(made, `id="preview-url"`, `id="preview-open"`, `target="_blank"`, `rel="noopener`, "Open preview",
		`<option value="24" selected>1 day</option>`) {
		t.Fatalf("the answer lacks the link: %s", made.Body)
	}
	body := string(made.Body)
	_, after, _ := strings.Cut(body, `id="preview-url" type="text" readonly value="`)
	url, _, _ := strings.Cut(after, `"`)
	path, ok := strings.CutPrefix(url, e.anon.Base)
	if !ok || !strings.HasPrefix(path, "/preview/") {
		t.Fatalf("link %q is not a preview link of this site", url)
	}
	siteHas(t, "the console's link", e.html(path, 200), "Draft for review", "<em>me</em>", "Preview — this post is not public.")
	e.clock.advance(24 * time.Hour)
	e.anon.Do("GET", path, nil).Expect(410)

	// Refused.
	bad := e.admin.PostForm(page, "form_token", tok, "expires_in_hours", "0").Expect(422)
	if !has(bad, "from 1 hour to 30 days", `<option value="168" selected>`) || has(bad, `id="preview-url"`) {
		t.Errorf("refused form: %s", bad.Body)
	}
	e.admin.PostForm(page, "form_token", tok, "expires_in_hours", "soon").Expect(422)
	e.admin.PostForm(page, "expires_in_hours", "24").Expect(403)
	e.admin.PostForm(page, "form_token", "x"+tok, "expires_in_hours", "24").Expect(403)

	// Wrong ids.
	consolePage(t, e.admin, "/console/blog/posts/"+unknownID+"/preview", 404)
	consolePage(t, e.admin, "/console/blog/posts/nope/preview", 404)
	e.admin.PostForm("/console/blog/posts/"+unknownID+"/preview", "form_token", tok, "expires_in_hours", "24").Expect(404)
	gone := e.createPost(nil)
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+gone.ID, nil), 200, nil)
	consolePage(t, e.admin, "/console/blog/posts/"+gone.ID+"/preview", 404)

	// Other visitors.
	user := e.userSession()
	user.Do("GET", page, nil).Expect(403)
	user.PostForm(page, "expires_in_hours", "24").Expect(403)
	out := e.anon.Do("GET", page, nil).Expect(303)
	if loc := out.Location(); !strings.HasPrefix(loc, "/console/login") {
		t.Errorf("signed out: to %q, want the sign-in page", loc)
	}
}
