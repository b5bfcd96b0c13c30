package blog_test

import (
	"strings"
	"testing"
)

// TestStoredXSSComesBackInert sends the usual payloads through every place
// that stores text and checks that none comes back live.
func TestStoredXSSComesBackInert(t *testing.T) {
	e := newEnv(t)
	payloads := []struct {
		name, md string
		forbid   []string // must not appear in content_html
	}{
		{"script tag", "<script>alert(1)</script>", []string{"<script"}},
		{"inline script", "hi <script>alert(1)</script> there", []string{"<script"}},
		{"img onerror block", `<img src=x onerror="alert(1)">`, []string{"<img"}},
		{"img onerror inline", `text <img src=x onerror=alert(1)> text`, []string{"<img"}},
		{"javascript link", "[x](javascript:alert(1))", []string{"javascript:"}},
		{"uppercase scheme", "[x](JaVaScRiPt:alert(1))", []string{"javascript:", "JaVaScRiPt:"}},
		{"entity-encoded link", "[x](&#106;avascript:alert(1))", []string{"javascript:", `href="&#106;`}},
		{"hex entity link", "[x](&#x6A;avascript&#x3A;alert(1))", []string{"javascript:"}},
		{"tab in scheme", "[x](java&#9;script:alert(1))", []string{"script:alert"}},
		{"vbscript", "[x](vbscript:msgbox(1))", []string{"vbscript:"}},
		{"data html link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", []string{"data:"}},
		{"data svg image", "![x](data:image/svg+xml;base64,PHN2Zz4=)", []string{"data:"}},
		{"autolink", "<javascript:alert(1)>", []string{"href=\"javascript", "<a"}},
		{"reference link", "[x][r]\n\n[r]: javascript:alert(1)", []string{"javascript:"}},
		{"iframe", `<iframe src="https://evil.example"></iframe>`, []string{"<iframe"}},
	}
	for _, p := range payloads {
		t.Run(p.name, func(t *testing.T) {
			got := e.publish("XSS "+p.name, "content_markdown", p.md)
			var d post
			data(t, e.anon.Do("GET", "/api/v1/posts/"+got.ID, nil), 200, &d)
			html := *d.ContentHTML
			for _, f := range p.forbid {
				if strings.Contains(strings.ToLower(html), strings.ToLower(f)) {
					t.Errorf("content_html holds %q: %s", f, html)
				}
			}
			if strings.Contains(p.md, "<") && !strings.Contains(p.md, "<javascript") && !strings.Contains(html, "&lt;") {
				t.Errorf("raw HTML was dropped, not shown escaped: %s", html)
			}
		})
	}
	// Harmless links and inline raster images survive.
	ok := e.publish("Fine", "content_markdown", "[a](https://example.com) [b](/rel) [c](mailto:a@b.example) ![d](data:image/png;base64,iVBORw0KGgo=)")
	var d post
	data(t, e.anon.Do("GET", "/api/v1/posts/"+ok.ID, nil), 200, &d)
	for _, want := range []string{`href="https://example.com"`, `href="/rel"`, `href="mailto:a@b.example"`, `src="data:image/png;base64,iVBORw0KGgo="`} {
		if !strings.Contains(*d.ContentHTML, want) {
			t.Errorf("lost %s: %s", want, *d.ContentHTML)
		}
	}
}

func TestCommentHTMLStaysText(t *testing.T) {
	e := newEnv(t)
	p := e.publish("Talk")
	evil := `<img src=x onerror="alert(1)"><script>alert(2)</script>`
	var rc struct{ ID string }
	data(t, e.anon.Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{"author": "<b>Eve</b>", "email": "eve@example.com", "content": evil}), 201, &rc)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+rc.ID, map[string]string{"status": "approved"}), 200, nil)
	r := e.anon.Do("GET", "/api/v1/posts/"+p.ID+"/comments", nil)
	var l page[comment]
	data(t, r, 200, &l)
	// Stored and returned as plain text, exactly as sent; the JSON body
	// itself never holds a live tag, and is never served as HTML.
	if l.Items[0].Content != evil || l.Items[0].Author != "<b>Eve</b>" {
		t.Errorf("comment changed: %+v", l.Items[0])
	}
	if strings.Contains(string(r.Body), "<img") || strings.Contains(string(r.Body), "<script") || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Errorf("response could be read as HTML: %s %s", r.Header.Get("Content-Type"), r.Body)
	}
}
