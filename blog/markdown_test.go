package blog

import (
	"strings"
	"testing"
)

func TestExcerptCutsBetweenWordsWithAnEllipsis(t *testing.T) {
	for _, tc := range []struct {
		name, plain string
		n           int
		want        string
	}{
		{"short text stays whole", "Hello world", 20, "Hello world"},
		{"exactly n stays whole", "Hello world", 11, "Hello world"},
		{"the cut backs up to the last space", "Hello wonderful world", 12, "Hello…"},
		{"a cut on a space keeps the word before", "Hello wonderful world", 16, "Hello wonderful…"},
		{"trailing punctuation goes before the ellipsis", "One, two, three", 6, "One…"},
		{"one long word is cut inside", "Supercalifragilistic", 6, "Super…"},
		{"Chinese is cut at the length", "中文没有空格所以按长度截断", 6, "中文没有空…"},
		{"Japanese is cut at the length", "日本語のテキストです", 5, "日本語の…"},
		{"mixed: a break before a latin word after CJK", "中文abcdef", 5, "中文…"},
		{"the ellipsis counts", "abc def", 4, "abc…"},
		{"n of one", "abc def", 1, "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := excerpt(tc.plain, tc.n)
			if got != tc.want {
				t.Fatalf("excerpt(%q, %d) = %q, want %q", tc.plain, tc.n, got, tc.want)
			}
			if tc.n > 0 && len([]rune(got)) > tc.n {
				t.Fatalf("excerpt(%q, %d) = %q: longer than %d", tc.plain, tc.n, got, tc.n)
			}
		})
	}
}

func TestSummaryTextLeavesHeadingsOut(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, tc := range []struct{ md, want string }{
		{"# Intro\n\nSome *text*.\n\n## Part two\n\nMore.", "Some text. More."},
		{"# Only\n\n## Headings", "Only · Headings"},
		{"Text first\n\n## Then a heading\n", "Text first"},
	} {
		out, err := b.render(t.Context(), tc.md)
		if err != nil {
			t.Fatal(err)
		}
		if out.Plain != tc.want {
			t.Errorf("plain of %q = %q, want %q", tc.md, out.Plain, tc.want)
		}
	}
}

func TestSummaryTextIsProseOnly(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, tc := range []struct{ name, md, want string }{
		{"the issue's post: prose, Go code and a metric table",
			"Folio is a blog engine and an image host.\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n" +
				"| Metric | Before | After |\n|---|---:|---:|\n| p50 latency | 11 ms | 4 ms |\n\nIt got faster.\n",
			"Folio is a blog engine and an image host. It got faster."},
		{"indented code", "Run this:\n\n    go test ./...\n\nDone.", "Run this: Done."},
		{"inline code stays", "Call `excerpt()` once.", "Call excerpt() once."},
		{"raw HTML block and inline HTML", "<div>\n<b>hidden</b>\n</div>\n\nShown <i>x</i> text.", "Shown x text."},
		{"images and their alt text", "![A lake at dawn](/i/lake.png)\n\nThe lake ![icon](/i/i.png) was calm.", "The lake was calm."},
		{"footnotes", "A claim.[^1]\n\n[^1]: The source, at length.", "A claim."},
		{"lists, quotes and links stay", "- one\n- [x] two\n\n> quoted *words*\n\nSee [the docs](/d).", "one two quoted words See the docs."},
		{"headings only when nothing else", "## Setup\n\n```sh\nmake\n```\n", "Setup"},
		{"only code: nothing", "```go\npackage main\n```\n\n| a |\n|---|\n| b |\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := b.render(t.Context(), tc.md)
			if err != nil {
				t.Fatal(err)
			}
			if out.Plain != tc.want {
				t.Errorf("plain = %q, want %q", out.Plain, tc.want)
			}
		})
	}
}

func TestRenderedHTMLServesKeyboardAndScreenReaders(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	out, err := b.render(t.Context(), "- [x] Buy \"milk\" <b>now</b>\n- [ ] Call *Ann*\n\nBetween.\n\n- plain item\n\n"+
		"```go\nfunc main() { x := \"<script>\" }\n```\n\n    indented <i>\n\n![pic](/a.png)\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<ul class="task-list">`,
		`<li class="task-list-item"><input checked="" disabled="" type="checkbox" aria-label="Buy &#34;milk&#34; now"> Buy &quot;milk&quot; &lt;b&gt;now&lt;/b&gt;</li>`,
		`<li class="task-list-item"><input disabled="" type="checkbox" aria-label="Call Ann"> Call <em>Ann</em></li>`,
		"<ul>\n<li>plain item</li>",
		`<pre><code class="language-go"><span class="hl-k">func</span> <span class="hl-f">main</span>() { x := <span class="hl-s">&quot;&lt;script&gt;&quot;</span> }` + "\n</code></pre>",
		`<pre><code>indented &lt;i&gt;` + "\n</code></pre>",
		`<img src="/a.png" alt="pic" loading="lazy" decoding="async">`,
	} {
		if !strings.Contains(out.HTML, want) {
			t.Errorf("HTML lacks %s:\n%s", want, out.HTML)
		}
	}
	if strings.Contains(out.HTML, "<b>") || strings.Contains(out.HTML, "<script>") || strings.Contains(out.HTML, "<i>") {
		t.Errorf("raw HTML passed through:\n%s", out.HTML)
	}
}

func TestFencedCodeIsHighlightedInItsLanguage(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	for _, tc := range []struct {
		name, md, want string
	}{
		{"go keeps pre and code with the language class", "```go\nfunc f() {}\n```\n",
			`<pre><code class="language-go"><span class="hl-k">func</span> <span class="hl-f">f</span>() {}` + "\n</code></pre>"},
		{"the language in any case, extra info ignored", "```JS title=\"x\"\nlet a = 1\n```\n",
			`<pre><code class="language-JS"><span class="hl-k">let</span> a = <span class="hl-n">1</span>` + "\n</code></pre>"},
		{"code escaped inside a token", "```html\n<a title=\"&<>\">x</a>\n```\n",
			`&lt;<span class="hl-k">a</span> <span class="hl-t">title</span>=<span class="hl-s">&quot;&amp;&lt;&gt;&quot;</span>&gt;x&lt;/<span class="hl-k">a</span>&gt;`},
		{"diff lines added and deleted", "```diff\n-old\n+new\n```\n",
			`<span class="hl-del">-old</span>` + "\n" + `<span class="hl-add">+new</span>`},
		{"an unknown language is escaped text", "```brainfuck\n+[<>]\n```\n",
			`<pre><code class="language-brainfuck">+[&lt;&gt;]` + "\n</code></pre>"},
		{"no language, no class and no span", "```\nfunc x\n```\n", "<pre><code>func x\n</code></pre>"},
		{"an indented block is not highlighted", "    func x\n", "<pre><code>func x\n</code></pre>"},
		{"an empty block", "```go\n```\n", `<pre><code class="language-go"></code></pre>`},
		{"a language with a quote stays in its attribute", "```a\"b\nx\n```\n", `<pre><code class="language-a&quot;b">x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := b.render(t.Context(), tc.md)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.HTML, tc.want) {
				t.Fatalf("HTML lacks %s:\n%s", tc.want, out.HTML)
			}
			if _, err := checkHTML(out.HTML); err != nil {
				t.Fatalf("%v in %s", err, out.HTML)
			}
		})
	}
}

func TestAlignedTableCellsCarryClassesNotStyle(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	out, err := b.render(t.Context(), "| Name | Mid | Miles | Plain |\n|:-----|:---:|------:|-------|\n| a | b | 12 | c |\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<th class="align-left">Name</th>`, `<th class="align-center">Mid</th>`, `<th class="align-right">Miles</th>`, "<th>Plain</th>",
		`<td class="align-left">a</td>`, `<td class="align-center">b</td>`, `<td class="align-right">12</td>`, "<td>c</td>",
	} {
		if !strings.Contains(out.HTML, want) {
			t.Errorf("HTML lacks %s:\n%s", want, out.HTML)
		}
	}
	if strings.Contains(out.HTML, "style=") || strings.Contains(out.HTML, "align=") {
		t.Errorf("the table carries inline alignment:\n%s", out.HTML)
	}
}
