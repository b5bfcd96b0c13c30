package blog

import (
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"folio/blog/htmltomd"
)

// TestConvertedHTMLRendersSafely passes hostile HTML through the converter
// and the blog's renderer: no element or attribute of the input survives,
// and the Markdown holds no HTML, which the page would show as escaped
// tags.
func TestConvertedHTMLRendersSafely(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, src := range htmlSeeds {
		md, _ := htmltomd.Convert(src)
		out, err := b.render(t.Context(), md)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkHTML(out.HTML); err != nil {
			t.Errorf("%v in %q (from %q)", err, out.HTML, src)
		}
		if strings.Contains(out.HTML, "<script") || strings.Contains(out.HTML, "<iframe") {
			t.Errorf("markup of the input in %q", out.HTML)
		}
		if raw, ok := rawHTML(b, md); ok {
			t.Errorf("HTML %q in the Markdown %q (from %q)", raw, md, src)
		}
	}
}

// TestImportedBlocksAndCardsShowNoTags renders the Markdown of a post of
// WordPress's blocks and one of Ghost's cards as the blog shows it: tables,
// images, quotes and links, and not one escaped tag (the issue's
// "&lt;figure class=\"wp-block-gallery\"&gt;" on the page).
func TestImportedBlocksAndCardsShowNoTags(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"wordpress-blocks", []string{
			`<a href="https://old.example/wp-content/uploads/2023/05/cliffs.jpg"><img src="https://old.example/wp-content/uploads/2023/05/cliffs-1024x683.jpg" alt="Cliffs at dawn"`,
			"<li><img src=\"https://old.example/wp-content/uploads/2023/05/harbour.jpg\" alt=\"Harbour\" loading=\"lazy\" decoding=\"async\"><br>\n<em>The harbour</em></li>",
			`<th class="align-right">Miles</th>`, "<td>Tuesday <em>(rain)</em></td>", "<p><em>Distances walked</em></p>",
			"<p>— Jules Verne</p>\n</blockquote>", `<a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ">A song for the road</a>`,
			`<a href="https://old.example/wp-content/uploads/2023/05/waves.mp4">waves.mp4</a>`, "<p>Grey water, grey sky,<br>\ngulls",
			`<a href="https://old.example/wp-content/uploads/2023/05/map.pdf">The map</a>`, "<p>Thanks for reading.</p>\n<p>See you next time.</p>",
		}},
		{"ghost-cards", []string{
			"<p><em>Where the work happens</em></p>", `<li><img src="__GHOST_URL__/content/images/2024/03/two.jpg" alt="Second"`,
			`<a href="https://www.youtube.com/embed/dQw4w9WgXcQ?feature=oembed">Our launch talk</a>`,
			"<a href=\"https://example.org/guide/\">The writing guide</a><br>\nHow we write, and why.", "<blockquote>\n<p>💡 Tip: save <strong>often</strong>.</p>",
			"<p><strong>Is it free?</strong></p>\n<p>Yes, for everyone.</p>", `<a href="__GHOST_URL__/content/media/2024/03/clip.mp4">The office tour</a>`,
			`<a href="__GHOST_URL__/content/media/2024/03/episode-1.mp3">Episode 1</a>`, "<td>Free</td>",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile("../testdata/import/html/" + tt.name + ".html")
			if err != nil {
				t.Fatal(err)
			}
			md, _ := htmltomd.Convert(string(src))
			out, err := b.render(t.Context(), md)
			if err != nil {
				t.Fatal(err)
			}
			for _, tag := range []string{"&lt;", "&amp;lt;", "kg-", "wp-block", "0:00"} {
				if strings.Contains(out.HTML, tag) {
					t.Errorf("%q on the page:\n%s", tag, out.HTML)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(out.HTML, w) {
					t.Errorf("no %q on the page:\n%s", w, out.HTML)
				}
			}
			if raw, ok := rawHTML(b, md); ok {
				t.Errorf("HTML %q in the Markdown", raw)
			}
		})
	}
}

// hasNode reports whether Markdown parses into a node of the kind.
func hasNode(b *Blog, md string, kind ast.NodeKind) bool {
	found := false
	_ = ast.Walk(b.md.Parser().Parse(text.NewReader([]byte(md))), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == kind {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// rawHTML finds HTML in Markdown, as a block or inline, which the blog's
// renderer would show as escaped tags.
func rawHTML(b *Blog, md string) (string, bool) {
	source := []byte(md)
	doc := b.md.Parser().Parse(text.NewReader(source))
	var found string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			found = string(n.Lines().Value(source))
		case *ast.RawHTML:
			found = string(n.Segments.Value(source))
		default:
			return ast.WalkContinue, nil
		}
		return ast.WalkStop, nil
	})
	return found, found != ""
}

var htmlSeeds = []string{
	"<p>Hello <b>world</b></p>",
	"<script>alert(1)</script><p onclick=\"x\">t</p>",
	`<img src=x onerror="alert(1)"><a href="javascript:alert(1)">x</a><a href="java&#9;script:x">y</a>`,
	`<table><tr><td onmouseover="x"><script>y</script></td></tr></table>`,
	`<iframe src="javascript:alert(1)"></iframe><svg><script>x</script></svg>`,
	"<ul><li><p>a</p><ul><li>b<pre>c\n\nd</pre></li></ul></li></ul>",
	"<blockquote><h2>q</h2><ol start=\"-4\"><li>x</ol></blockquote>",
	"<pre><code class=\"language-`x\">```</code></pre><code>``</code>",
	"<figure><a href=\"/x\"><img src=\"/y\"></a><figcaption><i>c</i></figcaption></figure>",
	"<p>&lt;script&gt;alert(1)&lt;/script&gt; <<b>>",
	"<div><div><div><p>deep</p></div></div></div><a href='x' title='a\"b'>q</a>",
	"<p>1) x<br>- y<br># z<br>> w</p><h1><a href=\"/a\">Link # heading</a></h1>",
	`<figure class="wp-block-gallery"><figure><a href="javascript:x"><img src="x" onerror="y"></a><figcaption>*c*|</figcaption></figure><figcaption><b>g</b></figcaption></figure>`,
	"<table><tr><th align=center>`a|b` <a href='x|y' title='t|u'>l|m</a>\\</th></tr><tr><td><ul><li>1</li></ul><table><tr><td>n</table></td></tr></table>",
	`<figure class="wp-block-embed"><div class="wp-block-embed__wrapper">https://x.example/<script>a</script></div><figcaption>c</figcaption></figure><video src="javascript:alert(1)"></video>`,
	`<div class="kg-card kg-callout-card"><div class="kg-callout-emoji"><b>!</b></div><div class="kg-callout-text">t<br><br>u</div></div><details><summary><h2>s</h2></summary>d</details>`,
	"<p>a<br>:--<br>=<br>1) x</p><p>:-:|-</p><p>a<br><br><br>b</p><form><input value='<x>'><button>&lt;b&gt;</button></form><svg><text>&lt;svg&gt;</text></svg>",
}

func FuzzHTMLToMarkdown(f *testing.F) {
	for _, s := range htmlSeeds {
		f.Add(s)
	}
	b := &Blog{md: newMarkdown()}
	f.Fuzz(func(t *testing.T, src string) {
		md, _ := htmltomd.Convert(src)
		again, _ := htmltomd.Convert(src)
		if md != again {
			t.Fatalf("two conversions differ: %q and %q", md, again)
		}
		out, err := b.render(t.Context(), md)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if _, err := checkHTML(out.HTML); err != nil {
			t.Fatalf("%v in %q (Markdown %q)", err, out.HTML, md)
		}
		if raw, ok := rawHTML(b, md); ok {
			t.Fatalf("HTML %q in the Markdown %q", raw, md)
		}
		// Text never turns into structure: a table or heading needs one in
		// the HTML.
		lower := strings.ToLower(src)
		if !strings.Contains(lower, "<table") && hasNode(b, md, extast.KindTable) {
			t.Fatalf("a table in the Markdown %q of HTML without one", md)
		}
		if !strings.Contains(lower, "<h") && hasNode(b, md, ast.KindHeading) {
			t.Fatalf("a heading in the Markdown %q of HTML without one", md)
		}
		_ = htmltomd.Text(src)
	})
}

// TestPlainTextShowsEscapedCharactersAlone: the summary and the table of
// contents of converted HTML, which escapes much of its text, read as the
// page does.
func TestPlainTextShowsEscapedCharactersAlone(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	out, err := b.render(t.Context(), "## C\\# and \\*stars\\*\n\n1\\. a `c\\*d` \\_x\\_\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1. a c\\*d _x_"; out.Plain != want { // the heading is the TOC's, not the summary's
		t.Errorf("plain %q, want %q", out.Plain, want)
	}
	if len(out.TOC) != 1 || out.TOC[0].Text != "C# and *stars*" {
		t.Errorf("toc %+v", out.TOC)
	}
}
