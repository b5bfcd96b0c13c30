package blog_test

import (
	"flag"
	"path/filepath"
	"testing"

	"folio/httpx/httpxtest"
)

// update rewrites the golden files under testdata/golden instead of
// comparing with them: go test ./blog/ -run Golden -update.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenMarkdown exercises what clients render from content_html: heading
// ids and the table of contents, a GFM table and a footnote.
const goldenMarkdown = "Folio keeps **posts** in Markdown.\n\n" +
	"## A table\n\n| Format | Extension |\n|---|---|\n| Markdown | `.md` |\n| HTML | `.html` |\n\n" +
	"## A footnote\n\nRendered on the server.[^1]\n\n[^1]: By goldmark, with `<b>` kept as text.\n"

func TestGoldenResponsesKeepTheirShape(t *testing.T) {
	e := newSiteEnv(t)
	var cat, tag ref
	data(t, e.admin.Do("POST", "/api/v1/admin/categories", map[string]string{"name": "Notes", "slug": "notes"}), 201, &cat)
	data(t, e.admin.Do("POST", "/api/v1/admin/tags", map[string]string{"name": "go", "slug": "go"}), 201, &tag)
	p := e.publish("Golden post", "slug", "golden-post", "content_markdown", goldenMarkdown,
		"category_id", cat.ID, "tag_ids", []string{tag.ID})

	for _, tc := range []struct {
		file, path, ctype string
	}{
		{"post-detail.json", "/api/v1/posts/" + p.ID, "application/json; charset=utf-8"},
		{"feed.xml", "/feed.xml", "application/rss+xml; charset=utf-8"},
		{"atom.xml", "/atom.xml", "application/atom+xml; charset=utf-8"},
		{"sitemap.xml", "/sitemap.xml", "application/xml; charset=utf-8"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := e.anon.Do("GET", tc.path, nil).Expect(200)
			if ct := r.Header.Get("Content-Type"); ct != tc.ctype {
				t.Fatalf("GET %s: content type %q, want %q", tc.path, ct, tc.ctype)
			}
			body := r.Body
			if filepath.Ext(tc.file) == ".json" {
				body = httpxtest.IndentJSON(t, body)
			}
			httpxtest.Golden(t, filepath.Join("..", "testdata", "golden", tc.file), httpxtest.Normalize(body, e.anon.Base), *update)
		})
	}
}
