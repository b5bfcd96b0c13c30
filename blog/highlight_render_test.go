package blog_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// codeAndTable is Markdown with a Go block and a table whose third column
// is right-aligned.
const codeAndTable = "Intro.\n\n```go\nfunc main() { fmt.Println(\"<hi>\") }\n```\n\n" +
	"| Metric | Before | After |\n|:--|:-:|--:|\n| p50 | 11 ms | 7 ms |\n"

// highlightedAndAligned are the fragments a rendering of codeAndTable holds.
var highlightedAndAligned = []string{
	`<code class="language-go"><span class="hl-k">func</span> <span class="hl-f">main</span>()`,
	`<span class="hl-s">&quot;&lt;hi&gt;&quot;</span>`,
	`<th class="align-left">Metric</th>`, `<th class="align-center">Before</th>`, `<th class="align-right">After</th>`,
	`<td class="align-right">7 ms</td>`,
}

func TestSitePostShowsHighlightedCodeAndAlignedTables(t *testing.T) {
	e := newSiteEnv(t)
	p := e.publish("Numbers", "slug", "numbers", "content_markdown", codeAndTable)
	body := e.html("/posts/numbers", 200)
	for _, want := range append(highlightedAndAligned, `<pre tabindex="0"><code class="language-go">`) {
		if !strings.Contains(body, want) {
			t.Errorf("the post page lacks %s", want)
		}
		if want != `<pre tabindex="0"><code class="language-go">` && !strings.Contains(*p.ContentHTML, want) {
			t.Errorf("content_html lacks %s", want)
		}
	}
	if strings.Contains(*p.ContentHTML, "style=") {
		t.Errorf("content_html carries inline style: %s", *p.ContentHTML)
	}
}

func TestConsolePreviewHighlightsCodeAndAlignsTables(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	body := url.Values{"content_markdown": {codeAndTable}}.Encode()
	res := e.admin.Do("POST", "/console/blog/preview", []byte(body), "Content-Type", "application/x-www-form-urlencoded",
		"Origin", e.admin.Base, "X-Form-Token", tok).Expect(200)
	var out struct {
		HTML string `json:"html"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range highlightedAndAligned {
		if !strings.Contains(out.HTML, want) {
			t.Errorf("the preview lacks %s: %s", want, out.HTML)
		}
	}
	if strings.Contains(out.HTML, "style=") {
		t.Errorf("the preview carries inline style, which the console's CSP refuses: %s", out.HTML)
	}
}

// TestPostsSavedBeforeHighlightingGetItWhenTheBlogStarts: the render
// version went up with highlighting and table classes, so stored HTML of
// the version before is made again at start.
func TestPostsSavedBeforeHighlightingGetItWhenTheBlogStarts(t *testing.T) {
	e, _ := newEnvWith(t, setup{})
	p := e.createPost(map[string]any{"title": "Old", "content_markdown": codeAndTable})
	var pg struct {
		ID string `json:"id"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Old page", "content_markdown": codeAndTable}), 201, &pg)
	const old = `<pre><code class="language-go">func main() {}</code></pre><td style="text-align:right">7 ms</td>`
	e.exec(`UPDATE posts SET content_html = $1, render_version = 1`, old)
	e.exec(`UPDATE pages SET content_html = $1, render_version = 1`, old)

	e.startAgain(t, nil)
	var got post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil), 200, &got)
	var gotPage struct {
		ContentHTML string `json:"content_html"`
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+pg.ID, nil), 200, &gotPage)
	for _, want := range highlightedAndAligned {
		if !strings.Contains(*got.ContentHTML, want) {
			t.Errorf("post rendered again lacks %s: %s", want, *got.ContentHTML)
		}
		if !strings.Contains(gotPage.ContentHTML, want) {
			t.Errorf("page rendered again lacks %s: %s", want, gotPage.ContentHTML)
		}
	}
}
