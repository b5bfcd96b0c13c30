package blog

import (
	"slices"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"folio/blog/htmltomd"
)

// rawHTMLBlog is a blog with the renderer the import uses, and nothing
// else: withoutRawHTML reads Markdown as the blog does.
func rawHTMLBlog(t testing.TB) *Blog {
	t.Helper()
	return &Blog{md: newMarkdown()}
}

func TestRawHTMLInImportedMarkdownBecomesMarkdown(t *testing.T) {
	b := rawHTMLBlog(t)
	for _, tt := range []struct {
		name, in, want string
		losses         []htmltomd.Loss
	}{
		{"no HTML is kept byte for byte", "# A\n\n*b* < c, 1<2\n", "# A\n\n*b* < c, 1<2\n", nil},
		{"a block becomes Markdown", "Before.\n\n<div class=\"note\"><p>A <b>note</b>.</p></div>\n\nAfter.\n", "Before.\n\nA **note**.\n\nAfter.\n", nil},
		{"a block of several lines", "<table>\n<tr><th>a</th></tr>\n<tr><td>1</td></tr>\n</table>\n\nx\n", "| a |\n| --- |\n| 1 |\n\nx\n", nil},
		{"a block in a list is one line of text", "- item\n\n  <div>in <i>a</i>\n  list</div>\n- next\n", "- item\n\n  in a list\n- next\n", nil},
		{"a comment block goes", "a\n\n<!-- note to self -->\n\nb\n", "a\n\n\n\nb\n", nil},
		{"a line break inside a paragraph", "one<br>two\n", "one\\\ntwo\n", nil},
		{"a line break before a newline", "one<br/>\ntwo\n", "one\\\ntwo\n", nil},
		{"a line break ending a paragraph goes", "one<br>\n\ntwo\n", "one\n\ntwo\n", nil},
		{"an inline image", "See <img src=\"/a.png\" alt=\"A\"> here\n", "See ![A](/a.png) here\n", nil},
		{"other inline tags go, their text stays", "a <span class=\"x\">b</span> <kbd>c</kbd>\n", "a b c\n",
			[]htmltomd.Loss{{Kind: lossInlineHTML, Count: 4}}},
		{"code keeps its HTML", "`<div>` and\n\n```html\n<div>x</div>\n```\n", "`<div>` and\n\n```html\n<div>x</div>\n```\n", nil},
		{"a script block goes, counted", "<script>alert(1)</script>\n\nok\n", "\n\nok\n", []htmltomd.Loss{{Kind: "script removed", Count: 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, losses := b.withoutRawHTML(tt.in)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if !slices.Equal(losses, tt.losses) {
				t.Errorf("losses %v, want %v", losses, tt.losses)
			}
		})
	}
}

// FuzzWithoutRawHTML: any Markdown comes out with no raw HTML the blog's
// parser would find, the same way twice, and unchanged when it has no
// "<".
func FuzzWithoutRawHTML(f *testing.F) {
	for _, s := range []string{"a<br>b", "<div>x</div>\n", "- <p>a</p>\n", "<<span>div>x", "> <table><tr><td>1</td></tr></table>\n",
		"`<b>`", "<img src=x alt=\"<y>\">", "<!--more-->\n\n<?php x ?>", "a <a href=\"x\">b</a>"} {
		f.Add(s)
	}
	b := rawHTMLBlog(f)
	f.Fuzz(func(t *testing.T, md string) {
		out, losses := b.withoutRawHTML(md)
		again, lossesAgain := b.withoutRawHTML(md)
		if out != again || !slices.Equal(losses, lossesAgain) {
			t.Fatalf("two conversions differ: %q and %q", out, again)
		}
		for _, l := range losses {
			if l.Count < 1 {
				t.Fatalf("loss %q counted %d times", l.Kind, l.Count)
			}
		}
		src := []byte(out)
		_ = ast.Walk(b.md.Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if k := n.Kind(); entering && (k == ast.KindHTMLBlock || k == ast.KindRawHTML) {
				t.Fatalf("%q gave %q, which holds raw HTML", md, out)
			}
			return ast.WalkContinue, nil
		})
	})
}
