package blog_test

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

// siteEvilTitle must come out as text wherever it appears.
const siteEvilTitle = `<script>alert("pwned")</script> & friends`

var siteStylesheetRE = regexp.MustCompile(`href="(/static/style\.[0-9a-f]+\.css)"`)

// seedSite makes a category, a tag, a published post in both, a page with
// the about template and an approved comment.
func (e *siteEnv) seedSite() (p post, cat, tag ref) {
	e.t.Helper()
	data(e.t, e.admin.Do("POST", "/api/v1/admin/categories", map[string]string{"name": "Field Notes", "slug": "field-notes"}), 201, &cat)
	data(e.t, e.admin.Do("POST", "/api/v1/admin/tags", map[string]string{"name": "golang", "slug": "golang"}), 201, &tag)
	p = e.publish("Hello world", "slug", "hello-world", "summary", "A first post.",
		"content_markdown", "Intro.\n\n## Part one\n\nText.\n\n## Part two\n\nMore.",
		"category_id", cat.ID, "tag_ids", []string{tag.ID})
	data(e.t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{
		"title": "About me", "slug": "about", "content_markdown": "I write **things**.", "status": "published",
		"show_in_nav": true, "template": "about", "config": `{"email":"me@example.test","location":"Lisbon"}`}), 201, nil)
	var rc struct {
		ID string `json:"id"`
	}
	data(e.t, e.anon.Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{
		"author": "Ann", "email": "ann@example.test", "content": "Lovely post"}), 201, &rc)
	data(e.t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+rc.ID, map[string]string{"status": "approved"}), 200, nil)
	return p, cat, tag
}

func TestSiteRoutesInBothModes(t *testing.T) {
	e := newSiteEnv(t)
	e.seedSite()
	css := siteStylesheetRE.FindStringSubmatch(e.html("/", 200))
	if css == nil {
		t.Fatal("home page links no stylesheet")
	}
	routes := []struct {
		method, path string
		status       int
		ctype        string
		want         string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `href="/posts/hello-world"`},
		{"GET", "/posts/hello-world", 200, "text/html; charset=utf-8", `<h1 class="post-title">Hello world</h1>`},
		{"GET", "/pages/about", 200, "text/html; charset=utf-8", `<a href="mailto:me@example.test">`},
		{"GET", "/categories/field-notes", 200, "text/html; charset=utf-8", `<h1>Field Notes</h1>`},
		{"GET", "/tags/golang", 200, "text/html; charset=utf-8", `<h1>#golang</h1>`},
		{"GET", "/search?q=first", 200, "text/html; charset=utf-8", `href="/posts/hello-world"`},
		{"GET", "/feed.xml", 200, "application/rss+xml; charset=utf-8", `<title>Hello world</title>`},
		{"GET", "/atom.xml", 200, "application/atom+xml; charset=utf-8", `<title type="text">Hello world</title>`},
		{"GET", "/sitemap.xml", 200, "application/xml; charset=utf-8", `/posts/hello-world</loc>`},
		{"GET", "/robots.txt", 200, "text/plain; charset=utf-8", `/sitemap.xml`},
		{"GET", css[1], 200, "text/css; charset=utf-8", `prefers-color-scheme`},
		{"GET", "/no/such/page", 404, "text/html; charset=utf-8", `Page not found`},
		{"GET", "/posts/no-such-post", 404, "text/html; charset=utf-8", `Page not found`},
		{"GET", "/static/style.0000.css", 404, "text/html; charset=utf-8", `Page not found`},
		{"POST", "/posts/hello-world/comments", 422, "text/html; charset=utf-8", `class="errors"`},
	}
	for _, mode := range []string{"classic", "headless"} {
		e.setMode(mode)
		for _, rt := range routes {
			t.Run(mode+" "+rt.method+" "+rt.path, func(t *testing.T) {
				var resp *httpxtest.Response
				if rt.method == "POST" {
					resp = e.form(rt.path, url.Values{"author": {"x"}, "email": {"bad"}, "content": {"hi"}})
				} else {
					resp = e.anon.Do(rt.method, rt.path, nil)
				}
				if mode == "headless" {
					expectError(t, resp, 404, "resource not found")
					return
				}
				resp.Expect(rt.status)
				if ct := resp.Header.Get("Content-Type"); ct != rt.ctype {
					t.Errorf("content type %q, want %q", ct, rt.ctype)
				}
				siteHas(t, rt.path, string(resp.Body), rt.want)
			})
		}
	}
	// The API stays JSON in both modes, and an unknown API path is a JSON 404.
	expectError(t, e.anon.Do("GET", "/api/v1/no-such", nil), 404, "resource not found")
	e.setMode("classic")
	expectError(t, e.anon.Do("GET", "/api/v1/no-such", nil), 404, "resource not found")
	data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, nil)
}

func TestSiteEscapesEverywhere(t *testing.T) {
	e := newSiteEnv(t)
	cat := e.createTerm("categories", siteEvilTitle)
	e.publish(siteEvilTitle, "slug", "evil", "summary", "Sum "+siteEvilTitle, "category_id", cat.ID,
		"content_markdown", "Text <script>alert(1)</script> and <img src=x onerror=alert(1)>")
	e.putSettings(map[string]any{"site": map[string]any{"site_name": "Site " + siteEvilTitle, "description": "Desc " + siteEvilTitle,
		"footer": "Foot " + siteEvilTitle}})
	escaped := `&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt; &amp; friends`
	for _, path := range []string{"/", "/posts/evil", "/categories/" + cat.Slug, "/search?q=pwned"} {
		body := e.html(path, 200)
		siteLacks(t, path, body, "<script", "<img src=x")
		siteHas(t, path, body, escaped)
	}
	if csp := e.anon.Do("GET", "/posts/evil", nil).Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'none'") {
		t.Errorf("HTML page without a script-blocking CSP: %q", csp)
	}
	post := e.html("/posts/evil", 200)
	siteHas(t, "post page", post,
		`<title>`+escaped+` · Site `+escaped+`</title>`,
		`<meta property="og:title" content="`+escaped+`">`,
		`<meta name="twitter:title" content="`+escaped+`">`,
		`<meta name="description" content="Sum `+escaped+`">`)

	for _, path := range []string{"/feed.xml", "/atom.xml", "/sitemap.xml"} {
		body := string(e.anon.Do("GET", path, nil).Expect(200).Body)
		siteLacks(t, path, body, "<script", "<img")
		var v any
		if err := xml.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("%s is not XML: %v", path, err)
		}
	}
	var rss struct {
		Items []struct {
			Title string `xml:"title"`
		} `xml:"channel>item"`
	}
	if err := xml.Unmarshal(e.anon.Do("GET", "/feed.xml", nil).Body, &rss); err != nil || len(rss.Items) != 1 || rss.Items[0].Title != siteEvilTitle {
		t.Errorf("RSS title did not survive as text: %v %+v", err, rss)
	}
}

func TestSiteShowsOnlyVisibleContent(t *testing.T) {
	e := newSiteEnv(t)
	cat := e.createTerm("categories", "Cat")
	tag := e.createTerm("tags", "Tag")
	in := func(slug string) []any {
		return []any{"slug", slug, "category_id", cat.ID, "tag_ids", []string{tag.ID}, "summary", "needle " + slug}
	}
	e.publish("Visible post", in("visible")...)
	e.createPost(map[string]any{"title": "Draft post", "status": "draft", "slug": "draft", "category_id": cat.ID, "tag_ids": []string{tag.ID}, "summary": "needle draft"})
	e.createPost(map[string]any{"title": "Archived post", "status": "archived", "slug": "archived", "category_id": cat.ID, "summary": "needle archived"})
	e.publish("Future post", append(in("future"), "published_at", time.Now().Add(48*time.Hour).Format(time.RFC3339))...)
	gone := e.publish("Deleted post", in("deleted")...)
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+gone.ID, nil), 200, nil)
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Draft page", "slug": "draft-page", "status": "draft", "show_in_nav": true}), 201, nil)
	data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "Pending friend", "url": "https://pending.test/", "is_active": false}), 201, nil)
	data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "Active friend", "url": "https://active.test/", "is_active": true}), 201, nil)

	hidden := []string{"draft", "archived", "future", "deleted"}
	for _, path := range []string{"/", "/categories/" + cat.Slug, "/tags/" + tag.Slug, "/search?q=needle", "/feed.xml", "/atom.xml", "/sitemap.xml"} {
		body := string(e.anon.Do("GET", path, nil).Expect(200).Body)
		if !strings.Contains(body, "/posts/visible") {
			t.Errorf("%s does not list the visible post", path)
		}
		for _, h := range hidden {
			siteLacks(t, path, body, "/posts/"+h)
		}
		siteLacks(t, path, body, "Draft page", "/pages/draft-page", "Pending friend")
	}
	siteHas(t, "home", e.html("/", 200), "Active friend")
	for _, h := range hidden {
		siteHas(t, "/posts/"+h, e.html("/posts/"+h, 404), "Page not found")
	}
	e.html("/pages/draft-page", 404)
	e.html("/categories/no-such", 404)
	e.html("/tags/no-such", 404)
}

func TestSitePagination(t *testing.T) {
	e := newSiteEnv(t)
	e.putSettings(map[string]any{"post": map[string]any{"posts_per_page": 2}})
	base := time.Now().Add(-time.Hour)
	for i := 1; i <= 5; i++ {
		e.publish(fmt.Sprintf("Post %d", i), "slug", fmt.Sprintf("p%d", i), "published_at", base.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	first := e.html("/", 200)
	siteHas(t, "page 1", first, `href="/posts/p5"`, `href="/posts/p4"`, `rel="next" href="/?page=2"`, "Page 1 of 3")
	siteLacks(t, "page 1", first, `href="/posts/p3"`, `rel="prev"`)
	second := e.html("/?page=2", 200)
	siteHas(t, "page 2", second, `href="/posts/p3"`, `rel="prev" href="/"`, `rel="next" href="/?page=3"`)
	last := e.html("/?page=3", 200)
	siteHas(t, "page 3", last, `href="/posts/p1"`, `rel="prev" href="/?page=2"`)
	siteLacks(t, "page 3", last, `rel="next"`)
	for _, bad := range []string{"/?page=4", "/?page=0", "/?page=abc", "/?page=-1"} {
		e.html(bad, 404)
	}
	siteHas(t, "search page 2", e.html("/search?q=Post&page=2", 200), `rel="next" href="/search?page=3&amp;q=Post"`)
}

func TestSiteCommentForm(t *testing.T) {
	e := newSiteEnv(t)
	p := e.publish("Talk to me", "slug", "talk")
	e.publish("No talking", "slug", "closed", "show_comments", false)

	// Success: 303 back to the post, which shows the notice; the comment is
	// pending, so not shown until approved.
	r := e.form("/posts/talk/comments", url.Values{"author": {"Bob"}, "email": {"bob@example.test"}, "content": {"First!\nSecond line"}}).Expect(http.StatusSeeOther)
	loc := r.Header.Get("Location")
	if loc != "/posts/talk?comment=pending#comment-form" {
		t.Fatalf("Location %q", loc)
	}
	after := e.html(strings.TrimSuffix(loc, "#comment-form"), 200)
	siteHas(t, "post after comment", after, "awaits moderation")
	siteLacks(t, "post after comment", after, "First!")
	var list page[struct {
		ID     string `json:"id"`
		Author string `json:"author"`
		Status string `json:"status"`
	}]
	data(t, e.admin.Do("GET", "/api/v1/admin/comments?post_id="+p.ID, nil), 200, &list)
	if len(list.Items) != 1 || list.Items[0].Author != "Bob" || list.Items[0].Status != "pending" {
		t.Fatalf("stored comments: %+v", list.Items)
	}
	data(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+list.Items[0].ID, map[string]string{"status": "approved"}), 200, nil)
	siteHas(t, "post with approved comment", e.html("/posts/talk", 200), "First!\nSecond line", "<strong class=\"author\">Bob</strong>")

	// Errors: the post again, as HTML, with the messages and what was typed.
	r = e.form("/posts/talk/comments", url.Values{"author": {"Eve " + siteEvilTitle}, "email": {"not-an-email"}, "content": {"Kept text"}}).Expect(422)
	body := string(r.Body)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("error answer is not HTML: %s", r.Header.Get("Content-Type"))
	}
	siteHas(t, "rejected form", body, `<ul class="errors" role="alert">`, "Email must be a valid email address.",
		`value="Eve &lt;script&gt;`, ">Kept text</textarea>", `<h1 class="post-title">Talk to me</h1>`)
	siteLacks(t, "rejected form", body, "<script>alert", `"code"`)
	siteHas(t, "empty form", string(e.form("/posts/talk/comments", url.Values{}).Expect(422).Body), "Name must not be empty.")

	// Closed comments: 403 page, no form; invisible post: 404 page.
	siteHas(t, "closed", string(e.form("/posts/closed/comments", url.Values{"author": {"a"}, "email": {"a@b.test"}, "content": {"x"}}).Expect(403).Body), "Comments are closed")
	e.form("/posts/no-such/comments", url.Values{"author": {"a"}, "email": {"a@b.test"}, "content": {"x"}}).Expect(404)

	// The allowance is shared with the API: 5 per minute per IP in all.
	// Six requests were made above; the limiter is already spent.
	r = e.form("/posts/talk/comments", url.Values{"author": {"a"}, "email": {"a@b.test"}, "content": {"x"}}).Expect(429)
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	siteHas(t, "rate limited", string(r.Body), "Too many comments", `value="a"`)
}

func TestSiteCommentLimitIsFiveAMinute(t *testing.T) {
	e := newSiteEnv(t)
	e.publish("Limited", "slug", "limited")
	for i := 1; i <= 5; i++ {
		e.form("/posts/limited/comments", url.Values{"author": {"a"}, "email": {"a@b.test"}, "content": {fmt.Sprint(i)}}).Expect(303)
	}
	e.form("/posts/limited/comments", url.Values{"author": {"a"}, "email": {"a@b.test"}, "content": {"6"}}).Expect(429)
}

func TestSiteConditionalGet(t *testing.T) {
	e := newSiteEnv(t)
	p, _, _ := e.seedSite()
	paths := []string{"/", "/posts/hello-world", "/pages/about", "/categories/field-notes", "/tags/golang",
		"/search?q=hello", "/feed.xml", "/atom.xml", "/sitemap.xml", "/robots.txt"}

	// Within the second of the last change a date could not tell a further
	// change in that second apart: no Last-Modified yet, only the ETag.
	r := e.anon.Do("GET", "/", nil).Expect(200)
	if lm := r.Header.Get("Last-Modified"); lm != "" {
		t.Fatalf("Last-Modified %q in the second of the change", lm)
	}
	e.anon.Do("GET", "/", nil, "If-None-Match", r.Header.Get("ETag")).Expect(304)

	e.clock.advance(2 * time.Second)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			r := e.anon.Do("GET", path, nil).Expect(200)
			etag, lm := r.Header.Get("ETag"), r.Header.Get("Last-Modified")
			if etag == "" || lm == "" {
				t.Fatalf("ETag %q, Last-Modified %q", etag, lm)
			}
			if _, err := http.ParseTime(lm); err != nil {
				t.Errorf("Last-Modified: %v", err)
			}
			nm := e.anon.Do("GET", path, nil, "If-None-Match", etag).Expect(304)
			if len(nm.Body) != 0 || nm.Header.Get("ETag") != etag {
				t.Errorf("304 with body %q or ETag %q", nm.Body, nm.Header.Get("ETag"))
			}
			e.anon.Do("GET", path, nil, "If-None-Match", `"other"`).Expect(200)
			e.anon.Do("GET", path, nil, "If-Modified-Since", lm).Expect(304)
			e.anon.Do("HEAD", path, nil, "If-Modified-Since", lm).Expect(304)
			e.anon.Do("GET", path, nil, "If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT").Expect(200)
			e.anon.Do("GET", path, nil, "If-Modified-Since", "yesterday").Expect(200)
			// If-None-Match wins over If-Modified-Since (RFC 9110 13.1.3).
			e.anon.Do("GET", path, nil, "If-None-Match", `"other"`, "If-Modified-Since", lm).Expect(200)
		})
	}

	// Every kind of administrator change, and a scheduled post coming due,
	// moves Last-Modified on: a client holding the old date gets the page.
	changes := []struct {
		name   string
		change func()
	}{
		{"post edited", func() {
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]string{"title": "Hello again"}), 200, nil)
		}},
		{"settings", func() {
			e.putSettings(map[string]any{"site": map[string]any{"footer": "New footer"}})
		}},
		{"friend link", func() {
			data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "Peer", "url": "https://peer.example/", "is_active": true}), 201, nil)
		}},
		{"tag created", func() {
			data(t, e.admin.Do("POST", "/api/v1/admin/tags", map[string]any{"name": "Fresh"}), 201, nil)
		}},
		{"scheduled post due", func() {
			at := e.clock.now().Add(time.Minute).UTC().Format(time.RFC3339)
			data(t, e.admin.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Scheduled", "status": "published", "published_at": at}), 201, nil)
			e.clock.advance(2 * time.Second)
			r := e.anon.Do("GET", "/", nil).Expect(200) // the date before it is due
			e.clock.advance(2 * time.Minute)
			e.anon.Do("GET", "/", nil, "If-Modified-Since", r.Header.Get("Last-Modified")).Expect(200)
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e.clock.advance(2 * time.Second)
			before := e.anon.Do("GET", "/", nil).Expect(200).Header.Get("Last-Modified")
			c.change()
			// Read at once, in the same second as the change: never a 304.
			e.anon.Do("GET", "/", nil, "If-Modified-Since", before).Expect(200)
			e.clock.advance(2 * time.Second)
			r := e.anon.Do("GET", "/", nil, "If-Modified-Since", before).Expect(200)
			if after := r.Header.Get("Last-Modified"); after == before || after == "" {
				t.Fatalf("Last-Modified %q after the change, %q before", after, before)
			}
		})
	}
	// A refused write changes nothing, so the page stays current.
	t.Run("refused write", func(t *testing.T) {
		e.clock.advance(3 * time.Second)
		before := e.anon.Do("GET", "/", nil).Expect(200).Header.Get("Last-Modified")
		expectError(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]string{"status": "bogus"}), 422, "")
		e.clock.advance(3 * time.Second)
		e.anon.Do("GET", "/", nil, "If-Modified-Since", before).Expect(304)
	})
	siteHas(t, "edited post", e.html("/posts/hello-world", 200), "Hello again")
}

// Pages are cached for the site's change time: a write that bypasses the
// API (and so marks nothing) stays unseen, while any API change shows at
// the next request, dated or not.
func TestSitePagesAreCachedUntilTheSiteChanges(t *testing.T) {
	e := newSiteEnv(t)
	p, _, _ := e.seedSite()
	e.clock.advance(3 * time.Second)
	siteHas(t, "first render", e.html("/posts/hello-world", 200), "Hello world")

	e.exec("UPDATE posts SET title = 'Changed behind the API' WHERE id = $1", p.ID)
	cached := e.html("/posts/hello-world", 200)
	siteHas(t, "cached page", cached, "Hello world")
	siteLacks(t, "cached page", cached, "Changed behind the API")
	if r := e.anon.Do("HEAD", "/posts/hello-world", nil).Expect(200); len(r.Body) != 0 || r.Header.Get("Last-Modified") == "" {
		t.Fatalf("HEAD from the cache: %d body bytes, Last-Modified %q", len(r.Body), r.Header.Get("Last-Modified"))
	}

	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]string{"summary": "Edited"}), 200, nil)
	siteHas(t, "right after a change", e.html("/posts/hello-world", 200), "Changed behind the API")
	e.clock.advance(3 * time.Second)
	siteHas(t, "settled after a change", e.html("/posts/hello-world", 200), "Changed behind the API")

}

func TestSitePostPageHasMetaTOCAndComments(t *testing.T) {
	e := newSiteEnv(t)
	e.putSettings(map[string]any{"site": map[string]any{"site_name": "My Blog", "icp": "ICP-42", "footer": "Made with care",
		"logo": "/i/logo.png", "favicon": "/i/favicon.ico", "keywords": "go, blogs"}})
	e.seedSite()
	data(t, e.admin.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Covered", "slug": "covered", "status": "published",
		"cover_image": "/i/cover.png"}), 201, nil)
	body := e.html("/posts/hello-world", 200)
	base := e.anon.Base
	siteHas(t, "post page", body,
		`<title>Hello world · My Blog</title>`,
		`<link rel="canonical" href="`+base+`/posts/hello-world">`,
		`<meta property="og:type" content="article">`,
		`<meta name="description" content="A first post.">`,
		`<meta property="article:published_time"`,
		`<link rel="alternate" type="application/rss+xml" title="My Blog (RSS)" href="`+base+`/feed.xml">`,
		`<link rel="alternate" type="application/atom+xml"`,
		`<nav class="toc"`, `href="#part-one"`,
		`<strong class="author">Ann</strong>`, "Lovely post",
		`id="comment-form"`,
		`href="/pages/about"`, `href="/categories/field-notes"`, `href="/tags/golang"`,
		"ICP-42", "Made with care",
		`<link rel="icon" href="/i/favicon.ico">`, `<img class="logo" src="/i/logo.png"`,
		`<meta name="keywords" content="golang">`)
	siteHas(t, "home", e.html("/", 200), `<meta name="keywords" content="go, blogs">`, `<title>My Blog</title>`)
	siteHas(t, "covered post", e.html("/posts/covered", 200), `<meta property="og:image" content="`+base+`/i/cover.png">`, `src="/i/cover.png"`)
	siteHas(t, "page", e.html("/pages/about", 200), `<h1 class="page-title">About me</h1>`, "<strong>things</strong>", "Lisbon", `aria-current="page"`)

	// Site-wide comment switch: the area stays, the form goes.
	e.putSettings(map[string]any{"post": map[string]any{"enable_comment": false}})
	closed := e.html("/posts/hello-world", 200)
	siteHas(t, "comments off", closed, "Comments are closed", "Lovely post")
	siteLacks(t, "comments off", closed, `<form class="comment-form"`)
}

func TestSiteFeedsParseBack(t *testing.T) {
	e := newSiteEnv(t)
	e.seedSite()
	base := e.anon.Base
	var rss struct {
		Version string `xml:"version,attr"`
		Channel struct {
			Link  string `xml:"link"`
			Items []struct {
				Title       string   `xml:"title"`
				Link        string   `xml:"link"`
				Description string   `xml:"description"`
				PubDate     string   `xml:"pubDate"`
				Categories  []string `xml:"category"`
			} `xml:"item"`
		} `xml:"channel"`
	}
	if err := xml.Unmarshal(e.anon.Do("GET", "/feed.xml", nil).Expect(200).Body, &rss); err != nil {
		t.Fatal(err)
	}
	if rss.Version != "2.0" || len(rss.Channel.Items) != 1 {
		t.Fatalf("RSS: %+v", rss)
	}
	it := rss.Channel.Items[0]
	if it.Link != base+"/posts/hello-world" || !strings.Contains(it.Description, "<h2 id=\"part-one\">") || it.PubDate == "" ||
		strings.Join(it.Categories, ",") != "Field Notes,golang" {
		t.Errorf("RSS item: %+v", it)
	}
	var atom struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Entries []struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(e.anon.Do("GET", "/atom.xml", nil).Expect(200).Body, &atom); err != nil {
		t.Fatal(err)
	}
	if len(atom.Entries) != 1 || atom.Entries[0].ID != base+"/posts/hello-world" {
		t.Errorf("Atom: %+v", atom)
	}
	var sm struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(e.anon.Do("GET", "/sitemap.xml", nil).Expect(200).Body, &sm); err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, u := range sm.URLs {
		locs = append(locs, strings.TrimPrefix(u.Loc, base))
	}
	if got := strings.Join(locs, " "); got != "/ /posts/hello-world /pages/about /categories/field-notes /tags/golang" {
		t.Errorf("sitemap URLs: %s", got)
	}
	siteHas(t, "robots.txt", string(e.anon.Do("GET", "/robots.txt", nil).Expect(200).Body), "Sitemap: "+base+"/sitemap.xml")

	// site.site_url, when set, is the origin of every absolute link.
	e.putSettings(map[string]any{"site": map[string]any{"site_url": "https://blog.example/"}})
	siteHas(t, "feed with site_url", string(e.anon.Do("GET", "/feed.xml", nil).Body), "<link>https://blog.example/posts/hello-world</link>")
}

func TestSiteHeadAnswersWithoutBody(t *testing.T) {
	e := newSiteEnv(t)
	e.seedSite()
	r := e.anon.Do("HEAD", "/posts/hello-world", nil).Expect(200)
	if len(r.Body) != 0 || r.Header.Get("ETag") == "" {
		t.Errorf("HEAD: body %d bytes, ETag %q", len(r.Body), r.Header.Get("ETag"))
	}
}

// Code blocks scroll sideways, which a keyboard can do only when they take
// focus: the site (and the page template) puts them in the tab order, while
// the API's content_html keeps goldmark's plain <pre><code>.
func TestSiteCodeBlocksTakeFocusButTheAPIKeepsPlainHTML(t *testing.T) {
	e := newSiteEnv(t)
	src := "Before.\n\n```go\nfunc main() {}\n```\n"
	p := e.publish("Code", "slug", "code", "content_markdown", src)
	if p.ContentHTML == nil || !strings.Contains(*p.ContentHTML, `<pre><code class="language-go">`) {
		t.Fatalf("API content_html: %v", p.ContentHTML)
	}
	if body := e.html("/posts/code", 200); !strings.Contains(body, `<pre tabindex="0"><code class="language-go">`) {
		t.Errorf("post page: %s", body)
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Codes", "slug": "codes",
		"content_markdown": src, "status": "published"}), 201, nil)
	if body := e.html("/pages/codes", 200); !strings.Contains(body, `<pre tabindex="0"><code class="language-go">`) {
		t.Errorf("page: %s", body)
	}
}
