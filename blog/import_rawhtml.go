package blog

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"folio/blog/htmltomd"
)

// lossInlineHTML is the loss of an inline tag of Markdown's raw HTML that
// has no Markdown form: its text stays, the tag goes.
const lossInlineHTML = "inline HTML tag in Markdown left out (its text kept)"

// withoutRawHTML turns the raw HTML that Markdown written elsewhere holds
// (Ghost's Markdown editor, Hugo's and Jekyll's posts, whose renderers pass
// it through) into Markdown, as the HTML of a Ghost or WordPress export is
// turned: the blog's renderer never passes raw HTML through
// (docs/blog-api.md#rules-worth-knowing), so a <div> left in would show as
// its tags (docs/export-import.md#html-to-markdown). An HTML block becomes
// the Markdown htmltomd makes of it (one line of its text inside a list or
// a quote, whose lines carry the container's marks); an inline <img> an
// image, <br> a line break, other inline tags nothing (their text is
// Markdown already). Everything else is kept byte for byte: Markdown
// without raw HTML comes back as it was.
func (b *Blog) withoutRawHTML(md string) (string, []htmltomd.Loss) {
	if !strings.Contains(md, "<") {
		return md, nil
	}
	// Taking a tag out may make one of what surrounds it ("<<b>i>"): the
	// result is read again, a few times, and what is still HTML then is
	// made text, its "<" written as an entity.
	var all [][]htmltomd.Loss
	for range 4 {
		out, losses, changed := b.rawHTMLPass(md)
		if !changed {
			return md, mergeLosses(all...)
		}
		md = out
		all = append(all, losses)
	}
	for range 16 {
		src := []byte(md)
		var at []int
		_ = ast.Walk(b.md.Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			var segs *text.Segments
			switch n := n.(type) {
			case *ast.HTMLBlock:
				segs = n.Lines()
			case *ast.RawHTML:
				segs = n.Segments
			}
			if entering && segs != nil && segs.Len() > 0 {
				first := segs.At(0)
				if i := strings.IndexByte(string(first.Value(src)), '<'); i >= 0 {
					at = append(at, first.Start+i)
				}
			}
			return ast.WalkContinue, nil
		})
		if len(at) == 0 {
			break
		}
		var out strings.Builder
		last := 0
		for _, i := range at {
			out.Write(src[last:i])
			out.WriteString("&lt;")
			last = i + 1
		}
		out.Write(src[last:])
		md = out.String()
	}
	return md, mergeLosses(all...)
}

// rawHTMLPass is one reading of withoutRawHTML; changed reports whether
// md had raw HTML.
func (b *Blog) rawHTMLPass(md string) (string, []htmltomd.Loss, bool) {
	src := []byte(md)
	doc := b.md.Parser().Parse(text.NewReader(src))
	type edit struct {
		start, end int
		with       string
	}
	var edits []edit
	var losses [][]htmltomd.Loss
	inline := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			start, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
			var raw strings.Builder
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				raw.Write(s.Value(src))
			}
			if n.HasClosure() {
				raw.Write(n.ClosureLine.Value(src))
				end = n.ClosureLine.Stop
			}
			converted, l := htmltomd.Convert(raw.String())
			losses = append(losses, l)
			with := strings.TrimRight(converted, "\n")
			if n.Parent() != nil && n.Parent().Kind() != ast.KindDocument {
				with = strings.Join(strings.Fields(htmltomd.EscapeText(htmltomd.Text(raw.String()))), " ")
			}
			// The block's last line ends in its newline, which stays.
			if end > start && src[end-1] == '\n' {
				end--
			}
			edits = append(edits, edit{start, end, with})
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			segs := n.Segments
			if segs.Len() == 0 {
				return ast.WalkContinue, nil
			}
			start, end := segs.At(0).Start, segs.At(segs.Len()-1).Stop
			tag := string(src[start:end])
			edits = append(edits, edit{start, end, inlineTag(tag, src[end:], &inline)})
		}
		return ast.WalkContinue, nil
	})
	if len(edits) == 0 {
		return md, nil, false
	}
	var out strings.Builder
	last := 0
	for _, e := range edits { // in the order of the source: Walk visits it so
		if e.start < last {
			continue
		}
		out.Write(src[last:e.start])
		out.WriteString(e.with)
		last = e.end
	}
	out.Write(src[last:])
	if inline > 0 {
		losses = append(losses, []htmltomd.Loss{{Kind: lossInlineHTML, Count: inline}})
	}
	return out.String(), mergeLosses(losses...), true
}

// inlineTag is the Markdown for one inline tag of raw HTML, rest being
// what follows it in the source; dropped counts the tags left out.
func inlineTag(tag string, rest []byte, dropped *int) string {
	lower := strings.ToLower(tag)
	name := strings.TrimLeft(lower, "</")
	if i := strings.IndexAny(name, " \t\r\n/>"); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.HasPrefix(lower, "<!--"), strings.HasPrefix(lower, "<?"), strings.HasPrefix(lower, "<!"):
		return ""
	case name == "br" && !strings.HasPrefix(lower, "</"):
		// A hard line break, unless the paragraph ends here (a trailing
		// backslash would show).
		after := strings.TrimLeft(string(rest), " \t")
		switch {
		case after == "" || strings.HasPrefix(after, "\n\n") || strings.HasPrefix(after, "\r\n\r\n") || after == "\n":
			return ""
		case strings.HasPrefix(after, "\n") || strings.HasPrefix(after, "\r\n"):
			return "\\"
		}
		return "\\\n"
	case name == "img":
		md, _ := htmltomd.Convert(tag)
		return strings.TrimSpace(md)
	}
	*dropped++
	return ""
}
