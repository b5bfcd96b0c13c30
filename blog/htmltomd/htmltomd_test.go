package htmltomd

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// conversions are the converter's cases, and FuzzConvert's seeds.
var conversions = []struct {
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

func TestHTMLToMarkdownConvertsWhatMarkdownCanSay(t *testing.T) {
	for _, tt := range conversions {
		t.Run(tt.name, func(t *testing.T) {
			got, losses := Convert(tt.html)
			notes := kinds(losses)
			if got != tt.want {
				t.Errorf("Convert(%q)\n got %q\nwant %q", tt.html, got, tt.want)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
		})
	}
}

func TestHTMLToTextKeepsParagraphsAndDropsMarkup(t *testing.T) {
	got := Text("<p>Lovely! <a href=\"x\">My trip</a></p>\n<p>Was  <b>similar</b>.<br>Bye</p><script>x</script>")
	if want := "Lovely! My trip\n\nWas  similar.\nBye"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestHTMLToMarkdownFlattensDeepNesting: lists and quotes deeper than
// maxNesting are flattened, so the Markdown cannot grow with the square of
// the HTML.
func TestHTMLToMarkdownFlattensDeepNesting(t *testing.T) {
	md, _ := Convert(strings.Repeat("<ul><li>a", 20))
	if n := strings.Count(md, "a"); n != 20 {
		t.Fatalf("%d items of 20 in %q", n, md)
	}
	for _, l := range strings.Split(md, "\n") {
		if indent := len(l) - len(strings.TrimLeft(l, " ")); indent > 2*maxNesting {
			t.Fatalf("line %q indented %d", l, indent)
		}
	}
	md, _ = Convert(strings.Repeat("<blockquote>", 20) + "q")
	if want := strings.Repeat("> ", maxNesting) + "q\n"; md != want {
		t.Fatalf("got %q, want %q", md, want)
	}
}

// FuzzConvert: any HTML converts, and the same way twice; the Markdown is
// empty or ends in a newline, and is valid UTF-8 when the HTML is; the
// notes are sorted, each said once, and each one of the converter's; no
// element nests deeper than maxHTMLDepth; Text gives trimmed lines with at
// most one blank line between them. Rendering the Markdown safely is the
// blog's FuzzHTMLToMarkdown.
func FuzzConvert(f *testing.F) {
	for _, c := range conversions {
		f.Add(c.html)
	}
	f.Add(strings.Repeat("<ol start=999999999><li><blockquote>", 12) + "<pre>a\n\nb</pre><table>\"\n<</table>")
	f.Add(strings.Repeat("<div>", maxHTMLDepth+5) + "<script>x</script><br>")
	f.Add("<p a='x' b=\"y\" c=z d e = f/ g/><x/y z=>t</p><!- -><!--x--><?x><a href=\"&#xD800;\">&#0;</a>")
	f.Fuzz(func(t *testing.T, src string) {
		md, losses := Convert(src)
		again, lossesAgain := Convert(src)
		notes, notesAgain := kinds(losses), kinds(lossesAgain)
		if md != again || !slices.Equal(losses, lossesAgain) {
			t.Fatalf("two conversions differ: %q %q and %q %q", md, notes, again, notesAgain)
		}
		if md != "" && !strings.HasSuffix(md, "\n") {
			t.Fatalf("Markdown %q does not end in a newline", md)
		}
		for i, n := range notes {
			if losses[i].Count < 1 {
				t.Fatalf("loss %q counted %d times", n, losses[i].Count)
			}
			if i > 0 && notes[i-1] >= n {
				t.Fatalf("notes not sorted or repeated: %q", notes)
			}
			kept := strings.TrimSuffix(strings.TrimPrefix(n, "kept a <"), "> as HTML")
			if n != "kept a <"+kept+"> as HTML" || !keptElements[kept] && kept != "figure" {
				if n != "removed a <script> element" && n != "removed a <style> element" {
					t.Fatalf("unknown note %q", n)
				}
			}
		}
		text := Text(src)
		if utf8.ValidString(src) && (!utf8.ValidString(md) || !utf8.ValidString(text)) {
			t.Fatalf("invalid UTF-8 out of valid UTF-8: %q, %q", md, text)
		}
		if strings.TrimSpace(text) != text || strings.Contains(text, "\n\n\n") {
			t.Fatalf("text %q: untrimmed, or more than one blank line", text)
		}
		for _, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) != l {
				t.Fatalf("untrimmed line %q in text %q", l, text)
			}
		}
		if d := depth(parseHTML(src)) - 1; d > maxHTMLDepth { // the root is no element of the input
			t.Fatalf("elements nest %d deep", d)
		}
	})
}

// depth counts the levels of elements of a tree, n's included.
func depth(n *htmlNode) int {
	d := 0
	for _, k := range n.kids {
		if k.name != "" {
			d = max(d, depth(k))
		}
	}
	return d + 1
}

// kinds lists the kinds of losses, in their order.
func kinds(losses []Loss) []string {
	var out []string
	for _, l := range losses {
		out = append(out, l.Kind)
	}
	return out
}
