package blog

import (
	"slices"
	"strings"
	"testing"
)

func TestHTMLToMarkdownConvertsWhatMarkdownCanSay(t *testing.T) {
	tests := []struct {
		name, html, want string
		notes            []string
	}{
		{"paragraphs", "<p>One</p><p>Two\n  words</p>", "One\n\nTwo words\n", nil},
		{"bare text", "just text", "just text\n", nil},
		{"line break", "<p>a<br>b<br/>c</p>", "a\\\nb\\\nc\n", nil},
		{"headings", "<h1>T</h1><h3>Sub #1</h3>", "# T\n\n### Sub \\#1\n", nil},
		{"emphasis", "<p><strong>b</strong> <b> c </b> <em>e</em><i>i</i> <del>d</del></p>", "**b** **c** *e**i* ~~d~~\n", nil},
		{"link", `<a href="https://x.example/a b" title="T">the "x"</a>`, "[the \"x\"](https://x.example/a%20b \"T\")\n", nil},
		{"link without text", `<a href="/p"></a>`, "[/p](/p)\n", nil},
		{"image", `<img src="/i.png" alt="An [image]">`, "![An \\[image\\]](/i.png)\n", nil},
		{"lists nested", "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>", "- a\n  - b\n- c\n", nil},
		{"ordered from 3", `<ol start="3"><li>x</li><li>y</li></ol>`, "3. x\n4. y\n", nil},
		{"unclosed items", "<ul><li>a<li>b</ul>", "- a\n- b\n", nil},
		{"blockquote", "<blockquote><p>q1</p><p>q2</p></blockquote>", "> q1\n>\n> q2\n", nil},
		{"inline code", "<p>run <code>a `b` c</code></p>", "run ``a `b` c``\n", nil},
		{"code block", "<pre><code class=\"language-go\">x := 1\n\nfmt.Println(x)</code></pre>", "```go\nx := 1\n\nfmt.Println(x)\n```\n", nil},
		{"fence longer than content", "<pre>```\nx\n```</pre>", "````\n```\nx\n```\n````\n", nil},
		{"rule", "<p>a</p><hr><p>b</p>", "a\n\n---\n\nb\n", nil},
		{"markdown characters escaped", "<p>*not em* _x_ [y] &lt;b&gt; a|b ~z~ `c`</p>", "\\*not em\\* \\_x\\_ \\[y\\] \\<b\\> a\\|b \\~z\\~ \\`c\\`\n", nil},
		{"line starts escaped", "<p># no</p><p>- no</p><p>1. no</p><p>+ no</p>", "\\# no\n\n\\- no\n\n1\\. no\n\n\\+ no\n", nil},
		{"entities", "<p>Tom &amp; Jerry &copy; &amp;lt;</p>", "Tom & Jerry © \\&lt;\n", nil},
		{"image figure", `<figure class="kg-card"><img src="/d.jpg" alt="Desk"><figcaption>My desk</figcaption></figure>`, "![Desk](/d.jpg)\n\n*My desk*\n", nil},
		{"table kept", "<table><tr><td>1</td></tr>\n\n<tr><td>2</td></tr></table>",
			"<table><tr><td>1</td></tr>\n<tr><td>2</td></tr></table>\n", []string{"kept a <table> as HTML"}},
		{"iframe kept", `<p>x</p><iframe src="https://v.example/e" onload="bad()"></iframe>`,
			"x\n\n<iframe src=\"https://v.example/e\" onload=\"bad()\"></iframe>\n", []string{"kept a <iframe> as HTML"}},
		{"script dropped", "<p>a</p><script>alert(1)</script><p>b<script>x</script></p>", "a\n\nb\n", []string{"removed a <script> element"}},
		{"style dropped", "<style>p{}</style>text", "text\n", []string{"removed a <style> element"}},
		{"comments dropped", "<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->", "x\n", nil},
		{"unknown inline kept as text", "<p><span class=\"a\">in</span><u>u</u></p>", "inu\n", nil},
		{"stray end tags", "</div><p>x</b></p>", "x\n", nil},
		{"lone angle bracket", "<p>a < b</p>", "a \\< b\n", nil},
		{"empty", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := htmlToMarkdown(tt.html)
			if got != tt.want {
				t.Errorf("htmlToMarkdown(%q)\n got %q\nwant %q", tt.html, got, tt.want)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
		})
	}
}

func TestHTMLToTextKeepsParagraphsAndDropsMarkup(t *testing.T) {
	got := htmlToText("<p>Lovely! <a href=\"x\">My trip</a></p>\n<p>Was  <b>similar</b>.<br>Bye</p><script>x</script>")
	if want := "Lovely! My trip\n\nWas  similar.\nBye"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestConvertedHTMLRendersSafely passes hostile HTML through the converter
// and the blog's renderer: no element or attribute of the input survives.
func TestConvertedHTMLRendersSafely(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, src := range htmlSeeds {
		md, _ := htmlToMarkdown(src)
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
		md, _ := htmlToMarkdown(src)
		again, _ := htmlToMarkdown(src)
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
		_ = htmlToText(src)
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

// TestHTMLToMarkdownFlattensDeepNesting: lists and quotes deeper than
// maxNesting are flattened, so the Markdown cannot grow with the square of
// the HTML.
func TestHTMLToMarkdownFlattensDeepNesting(t *testing.T) {
	md, _ := htmlToMarkdown(strings.Repeat("<ul><li>a", 20))
	if n := strings.Count(md, "a"); n != 20 {
		t.Fatalf("%d items of 20 in %q", n, md)
	}
	for _, l := range strings.Split(md, "\n") {
		if indent := len(l) - len(strings.TrimLeft(l, " ")); indent > 2*maxNesting {
			t.Fatalf("line %q indented %d", l, indent)
		}
	}
	md, _ = htmlToMarkdown(strings.Repeat("<blockquote>", 20) + "q")
	if want := strings.Repeat("> ", maxNesting) + "q\n"; md != want {
		t.Fatalf("got %q, want %q", md, want)
	}
}
