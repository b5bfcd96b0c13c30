package blog

import (
	"strings"
	"testing"

	"folio/blog/htmltomd"
)

// TestConvertedHTMLRendersSafely passes hostile HTML through the converter
// and the blog's renderer: no element or attribute of the input survives.
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
	}
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
