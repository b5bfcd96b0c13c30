package blog

import (
	"bytes"
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// TOCEntry is one heading of a post's table of contents.
type TOCEntry struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	ID    string `json:"id"`
}

// rendered is what one Markdown source turns into.
type rendered struct {
	HTML  string
	TOC   []TOCEntry
	Plain string // the text without markup, whitespace collapsed
}

// newMarkdown builds the one Markdown converter: GitHub-flavoured, with
// footnotes and heading ids. It is the only producer of trusted HTML, so it
// never passes raw HTML through and never emits a dangerous link.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Footnote),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(linkSanitizer{}, 1000)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(escapeHTMLRenderer{}, 100)),
		),
	)
}

// render converts Markdown to HTML, its table of contents and plain text.
func (b *Blog) render(src string) (rendered, error) {
	source := []byte(src)
	doc := b.md.Parser().Parse(text.NewReader(source))
	var out rendered
	var buf bytes.Buffer
	if err := b.md.Renderer().Render(&buf, source, doc); err != nil {
		return out, err
	}
	out.HTML = buf.String()
	out.TOC = []TOCEntry{}
	var plain strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				plain.WriteByte(' ')
			}
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			id, _ := n.AttributeString("id")
			idText, _ := id.([]byte)
			out.TOC = append(out.TOC, TOCEntry{Level: n.Level, Text: collapseSpace(nodeText(n, source)), ID: string(idText)})
		case *ast.CodeSpan:
			// Backslashes in code are literal.
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					plain.Write(t.Segment.Value(source))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			// "\*" is an escaped "*": the text shows the character alone
			// (imported posts escape much of their text).
			plain.Write(util.UnescapePunctuations(n.Segment.Value(source)))
			if n.SoftLineBreak() || n.HardLineBreak() {
				plain.WriteByte(' ')
			}
		case *ast.String:
			plain.Write(n.Value)
		case *ast.AutoLink:
			plain.Write(n.Label(source))
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				plain.Write(seg.Value(source))
			}
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	out.Plain = collapseSpace(plain.String())
	return out, nil
}

// nodeText is the text of a node's inline children.
func nodeText(n ast.Node, source []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					sb.Write(t.Segment.Value(source))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			sb.Write(util.UnescapePunctuations(c.Segment.Value(source)))
		case *ast.String:
			sb.Write(c.Value)
		case *ast.AutoLink:
			sb.Write(c.Label(source))
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return sb.String()
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// excerpt is the first n characters (runes) of plain text.
func excerpt(plain string, n int) string {
	if n <= 0 || utf8.RuneCountInString(plain) <= n {
		return plain
	}
	i := 0
	for pos := range plain {
		if i == n {
			return strings.TrimRightFunc(plain[:pos], unicode.IsSpace)
		}
		i++
	}
	return plain
}

// escapeHTMLRenderer shows raw HTML written in Markdown as text instead of
// passing it through (stored XSS) or silently dropping it (the author would
// lose what they typed).
type escapeHTMLRenderer struct{}

func (escapeHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTMLEscaped)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockEscaped)
}

func renderRawHTMLEscaped(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlockEscaped(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<p>")
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
	}
	if n.HasClosure() {
		_, _ = w.Write(util.EscapeHTML(n.ClosureLine.Value(source)))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

// linkSanitizer empties the destination of links and images whose URL could
// run script, and turns such autolinks into plain text. goldmark's own check
// looks at the bare prefix only; browsers also ignore embedded tabs and
// newlines ("java&#9;script:"), so the scheme is judged after removing them.
type linkSanitizer struct{}

func (linkSanitizer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var unsafeAuto []*ast.AutoLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !safeURL(string(n.Destination), false) {
				n.Destination = nil
			}
		case *ast.Image:
			if !safeURL(string(n.Destination), true) {
				n.Destination = nil
			}
		case *ast.AutoLink:
			if !safeURL(string(n.URL(source)), false) {
				unsafeAuto = append(unsafeAuto, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unsafeAuto {
		if parent := n.Parent(); parent != nil {
			parent.ReplaceChild(parent, n, ast.NewString(n.Label(source)))
		}
	}
}

// safeURL reports whether a link destination is harmless: relative, or one
// of the schemes a blog links to. Images may also be inline raster data.
func safeURL(raw string, image bool) bool {
	// goldmark resolves character references only when it renders, so
	// judge the destination the way the browser will see it.
	raw = html.UnescapeString(raw)
	var b strings.Builder
	for _, r := range raw {
		if r <= ' ' || r == 0x7f {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	u := b.String()
	colon := strings.IndexByte(u, ':')
	if colon < 0 || strings.ContainsAny(u[:colon], "/?#") {
		return true // no scheme: a relative URL
	}
	switch u[:colon] {
	case "http", "https", "mailto", "tel", "ftp":
		return true
	case "data":
		if !image {
			return false
		}
		for _, t := range []string{"data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"} {
			if strings.HasPrefix(u, t+";") || strings.HasPrefix(u, t+",") {
				return true
			}
		}
	}
	return false
}
