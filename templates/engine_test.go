package templates

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestEveryKindRendersAndEscapes(t *testing.T) {
	e := newEngine(t, "")
	for _, kind := range []string{KindHome, KindPost, KindCategory, KindTag, KindSearch, KindNotFound} {
		t.Run(kind, func(t *testing.T) {
			v := sampleView()
			v.Query = evil
			v.Term = Term{Name: evil, Slug: "x"}
			body, err := e.Render(kind, v)
			if err != nil {
				t.Fatal(err)
			}
			noRawScript(t, body)
			s := string(body)
			for _, want := range []string{
				"<!doctype html>",
				`<title>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;quotes&#34; · My &lt;script&gt;`,
				`<meta property="og:title" content="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#34;quotes&#34;">`,
				`<meta name="twitter:card" content="summary_large_image">`,
				`<link rel="canonical" href="http://example.test/posts/hello">`,
				`<link rel="alternate" type="application/rss+xml"`,
				`href="http://example.test/feed.xml"`,
				`href="http://example.test/atom.xml"`,
				`<link rel="stylesheet" href="/static/style.`,
				`Footer &lt;script&gt;`,
				`ICP 123`,
				`href="/pages/about"`,
				`href="/categories/notes"`,
				`href="/tags/go"`,
			} {
				if !strings.Contains(s, want) {
					t.Errorf("%s page lacks %q", kind, want)
				}
			}
		})
	}
}

func TestPostPageShowsTOCCommentsAndForm(t *testing.T) {
	e := newEngine(t, "")
	body, err := e.Render(KindPost, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	s := string(body)
	for _, want := range []string{
		`<p>Trusted <em>HTML</em></p>`, // the Markdown renderer's HTML passes through
		`<nav class="toc"`, `href="#intro"`,
		`<form class="comment-form" id="comment-form" method="post" action="/posts/hello/comments#comment-form">`,
		`Your comment awaits moderation`,
		`<li>email: &lt;script&gt;`,
		`Nice &lt;script&gt;`,
		`value="&lt;script&gt;alert(&#34;x&#34;)`,
		`<meta property="article:published_time" content="2024-05-06T07:08:09Z">`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("post page lacks %q", want)
		}
	}

	v := sampleView()
	v.Post.CommentsOpen = false
	body, _ = e.Render(KindPost, v)
	if strings.Contains(string(body), "<form class=\"comment-form\"") || !strings.Contains(string(body), "Comments are closed") {
		t.Error("closed comments still show a form")
	}
	v.Post.ShowComments = false
	body, _ = e.Render(KindPost, v)
	if strings.Contains(string(body), `id="comments"`) {
		t.Error("comment area shown although show_comments is off")
	}
}

func TestListPagesLinkPostsAndPages(t *testing.T) {
	e := newEngine(t, "")
	body, err := e.Render(KindHome, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	s := string(body)
	for _, want := range []string{`href="/posts/hello"`, `rel="prev" href="/?page=1"`, `rel="next" href="/?page=3"`, "Page 2 of 3", `src="/cover.png"`} {
		if !strings.Contains(s, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	v := sampleView()
	v.Posts, v.Pager = nil, Pager{Page: 1, Pages: 1}
	body, _ = e.Render(KindHome, v)
	if !strings.Contains(string(body), "No posts here yet.") || strings.Contains(string(body), `class="pager"`) {
		t.Error("empty list: want the empty message and no pager")
	}
}

func TestPageTemplatesGetPageAndConfig(t *testing.T) {
	e := newEngine(t, "")
	if !e.HasPage("default") || !e.HasPage("contact") || e.HasPage("missing") {
		t.Fatal("HasPage does not match the page templates given")
	}
	body, err := e.RenderPage("contact", sampleView())
	if err != nil {
		t.Fatal(err)
	}
	noRawScript(t, body)
	s := string(body)
	if !strings.Contains(s, `<p class="email">me@example.test &lt;script&gt;`) || !strings.Contains(s, "<h1>Page &lt;script&gt;") {
		t.Errorf("page template did not render .Page and .Config:\n%s", s)
	}
	if !strings.Contains(s, `<link rel="stylesheet"`) || !strings.Contains(s, `class="site-footer"`) {
		t.Error("page template not framed by the layout")
	}
	if _, err := e.RenderPage("missing", sampleView()); err == nil {
		t.Error("unknown page template rendered")
	}
}

func TestThemeOverridesByFileName(t *testing.T) {
	dir := writeTheme(t, map[string]string{
		"404.html":           `{{define "content"}}<p class="themed-404">gone</p>{{end}}`,
		"pages/default.html": `<p class="themed-page">{{.Page.Title}}</p>`,
		"static/style.css":   `body{color:red}`,
		"unrelated.txt":      `ignored`,
	})
	e := newEngine(t, dir)
	body, err := e.Render(KindNotFound, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `<p class="themed-404">gone</p>`) {
		t.Errorf("theme 404.html not used:\n%s", body)
	}
	body, err = e.Render(KindPost, sampleView())
	if err != nil || !strings.Contains(string(body), `class="post-title"`) {
		t.Errorf("templates the theme does not override must stay embedded: %v", err)
	}
	body, err = e.RenderPage("default", sampleView())
	if err != nil || !strings.Contains(string(body), `<p class="themed-page">Page &lt;script&gt;`) {
		t.Errorf("theme page template not used: %v\n%s", err, body)
	}
	themed, _ := e.AssetURL("style.css")
	plain, _ := newEngine(t, "").AssetURL("style.css")
	if themed == plain {
		t.Error("theme style.css did not change the asset's hashed URL")
	}
}

func TestBrokenThemeFailsAtStartNamingTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, file, body string
	}{
		{"parse error", "post.html", `{{define "content"}}{{.Post.Title}`},
		{"unknown function", "home.html", `{{define "content"}}{{nosuchfunc .}}{{end}}`},
		{"escaping error", "home.html", `{{define "content"}}<a href="{{if .Query}}x{{else}}"{{end}}">{{end}}`},
		{"missing template", "layout.html", `{{define "layout"}}{{template "nosuch" .}}{{end}}`},
		{"no content", "tag.html", `<p>no define</p>`},
		{"broken page template", "pages/contact.html", `<p>{{.Page.Title</p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTheme(t, map[string]string{tc.file: tc.body})
			_, err := New(Options{ThemeDir: dir, Pages: testPages()})
			if err == nil {
				t.Fatal("New accepted a broken theme")
			}
			if !strings.Contains(err.Error(), tc.file) {
				t.Errorf("error does not name %s: %v", tc.file, err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
}

func TestMissingThemeDirFailsAtStart(t *testing.T) {
	if _, err := New(Options{ThemeDir: "/nonexistent/theme"}); err == nil {
		t.Fatal("a missing theme.dir was accepted")
	}
}

func TestFailingRenderReturnsNoHalfPage(t *testing.T) {
	// The template calls a function that fails after some output.
	dir := writeTheme(t, map[string]string{"home.html": `{{define "content"}}<p>start</p>{{asset "missing.css"}}{{end}}`})
	e := newEngine(t, dir)
	body, err := e.Render(KindHome, sampleView())
	if err == nil || body != nil {
		t.Fatalf("want an error and no body, got %v and %d bytes", err, len(body))
	}
}

func TestStaticAssetsAreHashedAndImmutable(t *testing.T) {
	e := newEngine(t, "")
	u, ok := e.AssetURL("style.css")
	if !ok || !strings.HasPrefix(u, "/static/style.") || !strings.HasSuffix(u, ".css") {
		t.Fatalf("asset URL %q", u)
	}
	file := strings.TrimPrefix(u, "/static/")
	rec := httptest.NewRecorder()
	if !e.ServeAsset(rec, httptest.NewRequest("GET", u, nil), file) {
		t.Fatal("hashed asset not served")
	}
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || !strings.Contains(rec.Body.String(), "prefers-color-scheme") {
		t.Errorf("asset answer: %d %v", rec.Code, rec.Header())
	}
	req := httptest.NewRequest("GET", u, nil)
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec2 := httptest.NewRecorder()
	e.ServeAsset(rec2, req, file)
	if rec2.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", rec2.Code)
	}
	for _, bad := range []string{"style.000000000000.css", "style.css", "nothing"} {
		rec := httptest.NewRecorder()
		if e.ServeAsset(rec, httptest.NewRequest("GET", "/static/"+bad, nil), bad) || rec.Body.Len() != 0 {
			t.Errorf("%s: served although the hash is unknown", bad)
		}
	}
	if len(e.Assets()) < 2 {
		t.Errorf("Assets() = %v", e.Assets())
	}
}

func TestEmbeddedPageTemplatesRender(t *testing.T) {
	e, err := New(Options{Pages: FS})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(FS, "pages")
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		name, ok := strings.CutSuffix(ent.Name(), ".html")
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			body, err := e.RenderPage(name, sampleView())
			if err != nil {
				t.Fatal(err)
			}
			noRawScript(t, body)
			if !strings.Contains(string(body), "Page &lt;script&gt;") || !strings.Contains(string(body), "<p>page body</p>") {
				t.Errorf("page %s does not show the page's title and HTML:\n%s", name, body)
			}
		})
	}
}
