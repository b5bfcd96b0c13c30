package templates

import (
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// evil is a title that must come out as text wherever it is shown.
const evil = `<script>alert("x")</script> & "quotes"`

// testPages stands in for the blog's page templates.
func testPages() fstest.MapFS {
	return fstest.MapFS{
		"pages/default.html": {Data: []byte(`<h1 class="page-title">{{.Page.Title}}</h1><div class="content">{{.Page.ContentHTML}}</div>`)},
		"pages/contact.html": {Data: []byte(`<h1>{{.Page.Title}}</h1><p class="email">{{index .Config "email"}}</p>`)},
		"pages/default.json": {Data: []byte(`{}`)},
	}
}

// testPage is a page value as the blog would pass it.
type testPage struct {
	Title       string
	ContentHTML template.HTML
}

func newEngine(t *testing.T, themeDir string) *Engine {
	t.Helper()
	e, err := New(Options{ThemeDir: themeDir, Pages: testPages()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// writeTheme creates a theme folder with the given files (relative paths).
func writeTheme(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var when = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// sampleView is a full view of a post with everything filled in.
func sampleView() *View {
	tag := Term{Name: "go " + evil, Slug: "go"}
	cat := Term{Name: "Notes", Slug: "notes", Count: 3}
	return &View{
		Site: Site{Name: "My " + evil, Description: "About " + evil, BaseURL: "http://example.test",
			Footer: "Footer " + evil, ICP: "ICP 123", Logo: "/logo.png", Year: 2024},
		Meta: Meta{Title: evil, Description: "Desc " + evil, Canonical: "http://example.test/posts/hello",
			Image: "http://example.test/cover.png", Type: "article", Published: when, Modified: when},
		Nav:        []Link{{Title: "About " + evil, URL: "/pages/about"}},
		Categories: []Term{cat},
		Tags:       []Term{tag},
		Friends:    []Friend{{Name: "Friend " + evil, URL: "https://friend.test/", Description: "desc"}},
		Posts: []PostSummary{{Title: evil, Slug: "hello", Summary: "Sum " + evil, PublishedAt: when,
			Category: &cat, Tags: []Term{tag}, Cover: "/cover.png"}},
		Pager: Pager{Page: 2, Pages: 3, PrevURL: "/?page=1", NextURL: "/?page=3"},
		Post: &Post{
			PostSummary:  PostSummary{Title: evil, Slug: "hello", PublishedAt: when, Category: &cat, Tags: []Term{tag}, Cover: "/cover.png"},
			ContentHTML:  `<h2 id="intro">Intro</h2><p>Trusted <em>HTML</em></p>`,
			TOC:          []TOCEntry{{Level: 2, Text: "Intro " + evil, ID: "intro"}},
			ShowComments: true,
			CommentsOpen: true,
		},
		Comments: []Comment{{Author: "Ann " + evil, Content: "Nice " + evil, CreatedAt: when}},
		Form:     CommentForm{Author: evil, Errors: []string{"email: " + evil}, Notice: "Your comment awaits moderation"},
		Page:     testPage{Title: "Page " + evil, ContentHTML: "<p>page body</p>"},
		Config:   map[string]any{"email": "me@example.test " + evil},
	}
}

// noRawScript fails when the raw evil markup appears in a rendered page.
func noRawScript(t *testing.T, body []byte) {
	t.Helper()
	if strings.Contains(string(body), "<script") {
		t.Errorf("rendered page contains raw <script:\n%s", body)
	}
}
