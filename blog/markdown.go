package blog

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"folio/blog/highlight"
	"folio/httpx"
)

// TOCEntry is one heading of a post's table of contents.
type TOCEntry struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	ID    string `json:"id"`
}

// rendered is what one Markdown source turns into.
type rendered struct {
	HTML string
	TOC  []TOCEntry
	// Plain is the prose without markup, whitespace collapsed, that the
	// automatic summary is cut from (docs/blog-api.md#summaries): code
	// blocks, tables, raw HTML, images and footnotes are left out, as
	// they read as noise once flattened into one line ("func main() {
	// ... } Metric Before After"); headings too (they are labels, not
	// sentences, and would run into the next paragraph), unless there is
	// nothing else, then it is the headings joined by " · ".
	Plain string
}

// newMarkdown builds the one Markdown converter: GitHub-flavoured, with
// footnotes and heading ids. It is the only producer of trusted HTML, so it
// never passes raw HTML through and never emits a dangerous link.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		// GFM, its table told to write no style="text-align:…": the
		// console's CSP refuses inline style, so an aligned column is
		// a class the style sheets align (tableAlignClasses).
		goldmark.WithExtensions(extension.Linkify, extension.Strikethrough, extension.TaskList,
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)), extension.Footnote),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(linkSanitizer{}, 1000), util.Prioritized(taskListClasses{}, 1001),
				util.Prioritized(tableAlignClasses{}, 1002)),
		),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(escapeHTMLRenderer{}, 100)),
		),
	)
}

// render converts Markdown to HTML, its table of contents and plain text.
// ctx is the request that saves the post or page, if any: its images of
// Folio's own uploads get their sizes (sizeImages).
func (b *Blog) render(ctx context.Context, src string) (rendered, error) {
	source := []byte(src)
	doc := b.md.Parser().Parse(text.NewReader(source))
	b.sizeImages(ctx, doc)
	var out rendered
	var buf bytes.Buffer
	if err := b.md.Renderer().Render(&buf, source, doc); err != nil {
		return out, err
	}
	out.HTML = buf.String()
	out.TOC = []TOCEntry{}
	var plain, heads strings.Builder
	// Footnotes may hold headings, which the table of contents lists as
	// the HTML shows them: the walk goes on inside them, writing no text.
	footnotes := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n.(*extast.FootnoteList); ok {
			if entering {
				footnotes++
			} else {
				footnotes--
			}
		}
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
			t := collapseSpace(nodeText(n, source))
			out.TOC = append(out.TOC, TOCEntry{Level: n.Level, Text: t, ID: string(idText)})
			if t != "" {
				if heads.Len() > 0 {
					heads.WriteString(" · ")
				}
				heads.WriteString(t)
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.RawHTML, *ast.HTMLBlock, *ast.Image,
			*extast.Table, *extast.FootnoteLink:
			return ast.WalkSkipChildren, nil
		}
		if footnotes > 0 {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
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
		}
		return ast.WalkContinue, nil
	})
	out.Plain = collapseSpace(plain.String())
	if out.Plain == "" {
		out.Plain = heads.String()
	}
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

// excerpt is plain text cut to at most n characters (runes), the ellipsis
// that marks the cut included. The cut falls between words: before the
// word it would split, or inside it when the text has no earlier break.
// Chinese and Japanese text has no spaces; it breaks between any two of
// its characters (docs/blog-api.md).
func excerpt(plain string, n int) string {
	if n <= 0 || utf8.RuneCountInString(plain) <= n {
		return plain
	}
	runes := []rune(plain)
	cut := n - 1 // room for "…"
	i := cut
	for i > 0 && !breakBetween(runes[i-1], runes[i]) {
		i--
	}
	if i == 0 {
		i = cut
	}
	kept := strings.TrimRightFunc(string(runes[:i]), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—、，；：", r)
	})
	return kept + "…"
}

// breakBetween reports whether text may be cut between a and b.
func breakBetween(a, b rune) bool {
	return unicode.IsSpace(a) || unicode.IsSpace(b) || unbroken(a) || unbroken(b)
}

// unbroken reports whether r belongs to a script written without spaces
// between words, or is its punctuation.
func unbroken(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}

// sizeImages prepares the images of a document: all load lazily and
// decode off the main thread; those showing Folio's own uploads get their
// width and height, so that the page does not shift as they arrive, and a
// srcset of the narrower widths the file host serves, so that a phone
// loads a picture the size of its screen (docs/design.md#classic-site). A
// failed lookup costs the sizes, not the save: they are a nicety.
func (b *Blog) sizeImages(ctx context.Context, doc ast.Node) {
	var own []*ast.Image
	var keys []string
	var origins []string
	if b.images != nil {
		origins = b.ownOrigins(ctx)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		img, ok := n.(*ast.Image)
		if !entering || !ok || len(img.Destination) == 0 {
			return ast.WalkContinue, nil
		}
		img.SetAttributeString("loading", []byte("lazy"))
		img.SetAttributeString("decoding", []byte("async"))
		if key, ok := ownImageKey(string(img.Destination), origins); ok && b.images != nil {
			own = append(own, img)
			keys = append(keys, key)
		}
		return ast.WalkContinue, nil
	})
	if len(keys) == 0 {
		return
	}
	sizes, err := b.images.ImageSizes(ctx, keys)
	if err != nil {
		b.logger.Warn("blog: image sizes unknown", "err", err)
		return
	}
	for i, img := range own {
		size, ok := sizes[keys[i]]
		if !ok || size.Width <= 0 || size.Height <= 0 {
			continue
		}
		img.SetAttributeString("width", []byte(strconv.Itoa(size.Width)))
		img.SetAttributeString("height", []byte(strconv.Itoa(size.Height)))
		if set := srcset(string(util.URLEscape(img.Destination, true)), size); set != "" {
			img.SetAttributeString("srcset", []byte(set))
			img.SetAttributeString("sizes", []byte(contentImageSizes))
		}
	}
}

// contentImageSizes is the width the theme's content column gives an
// image (templates/static/style.css: main is at most 44rem wide, the page
// has 1rem of padding on each side), less 8%, which picks the srcset
// candidate. The widths served are up to 25% apart
// (docs/filehost.md#sizes): told the true width, a browser needing 665
// pixels fetches 800, 50% more pixels than it shows. Told 8% less, it takes
// the narrower width whenever that one is drawn at most 8% enlarged, which
// nobody sees on a photo (docs/design.md, Image sizes).
const contentImageSizes = "(max-width: 46rem) calc((100vw - 2rem) * 0.92), 40.48rem"

// srcset lists an own image at each narrower width the file host serves,
// then whole at its own width, on the URL the author wrote (relative or
// absolute, with or without the extension). It is empty when the image
// is served only whole, or when its URL already carries a query or
// fragment, or a character that would split a srcset candidate.
func srcset(dest string, size ImageSize) string {
	if len(size.Widths) == 0 || strings.ContainsAny(dest, "?#, \t\n\r\f") {
		return ""
	}
	var sb strings.Builder
	for _, w := range size.Widths {
		fmt.Fprintf(&sb, "%s?w=%d %dw, ", dest, w, w)
	}
	fmt.Fprintf(&sb, "%s %dw", dest, size.Width)
	return sb.String()
}

// ownOrigins are the hosts under which an absolute image URL is one of
// Folio's own: site.site_url's, and the saving request's (server.base_url
// when set, else its Host). Relative /i/ links are always our own.
func (b *Blog) ownOrigins(ctx context.Context) []string {
	var hosts []string
	for _, u := range []string{b.settings.Site.Get(ctx).SiteURL, httpx.BaseURLOf(ctx)} {
		if p, err := url.Parse(u); err == nil && p.Host != "" {
			hosts = append(hosts, strings.ToLower(p.Host))
		}
	}
	return hosts
}

// ownImageKey is the short-link key of an image URL that points at this
// Folio's /i/{key} or /i/{key}.{ext}: relative, or absolute http(s) on one
// of hosts.
func ownImageKey(dest string, hosts []string) (string, bool) {
	u, err := url.Parse(html.UnescapeString(dest))
	if err != nil || u.User != nil {
		return "", false
	}
	switch {
	case u.Scheme == "" && u.Host == "":
	case (u.Scheme == "http" || u.Scheme == "https") && slices.Contains(hosts, strings.ToLower(u.Host)):
	default:
		return "", false
	}
	key, ok := strings.CutPrefix(u.Path, "/i/")
	// The file host's links may carry the file's extension: /i/{key}.png.
	key, _, _ = strings.Cut(key, ".")
	if !ok || key == "" || strings.Contains(key, "/") {
		return "", false
	}
	return key, true
}

// taskListClasses marks the lists and items of GFM task lists, which the
// style sheet shows without bullets: the checkbox is the marker.
type taskListClasses struct{}

func (taskListClasses) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n.(*extast.TaskCheckBox); !entering || !ok {
			return ast.WalkContinue, nil
		}
		if block := n.Parent(); block != nil {
			if item, ok := block.Parent().(*ast.ListItem); ok {
				item.SetAttributeString("class", []byte("task-list-item"))
				if list, ok := item.Parent().(*ast.List); ok {
					list.SetAttributeString("class", []byte("task-list"))
				}
			}
		}
		return ast.WalkSkipChildren, nil
	})
}

// tableAlignClasses gives each cell of an aligned column the class
// align-left, align-center or align-right, which the theme and the
// console's preview align (docs/console.md#syntax-highlighting-and-tables).
type tableAlignClasses struct{}

func (tableAlignClasses) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cell, ok := n.(*extast.TableCell); ok && entering {
			if cell.Alignment != extast.AlignNone {
				cell.SetAttributeString("class", []byte("align-"+cell.Alignment.String()))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// escapeHTMLRenderer shows raw HTML written in Markdown as text instead of
// passing it through (stored XSS) or silently dropping it (the author would
// lose what they typed). It also writes task checkboxes with a name, which
// goldmark's lack (docs/design.md#classic-site).
type escapeHTMLRenderer struct{}

func (escapeHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTMLEscaped)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockEscaped)
	reg.Register(extast.KindTaskCheckBox, renderTaskCheckBox)
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
}

// renderFencedCode writes a fenced block as goldmark does, <pre><code
// class="language-x">, its code coloured by blog/highlight when the
// language is one it knows (docs/console.md#syntax-highlighting-and-tables).
func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.FencedCodeBlock)
	if !entering {
		_, _ = w.WriteString("</code></pre>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<pre><code")
	lang := n.Language(source)
	if lang != nil {
		_, _ = w.WriteString(` class="language-`)
		gmhtml.DefaultWriter.Write(w, lang)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	var code []byte
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code = append(code, seg.Value(source)...)
	}
	_, _ = w.Write(highlight.Append(nil, string(lang), code))
	return ast.WalkContinue, nil
}

// renderTaskCheckBox writes a task's checkbox named by the task's text, so
// that a screen reader says what is done, not just "checkbox, checked".
func renderTaskCheckBox(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*extast.TaskCheckBox)
	_, _ = w.WriteString(`<input`)
	if n.IsChecked {
		_, _ = w.WriteString(` checked=""`)
	}
	_, _ = w.WriteString(` disabled="" type="checkbox"`)
	if block := n.Parent(); block != nil {
		if name := collapseSpace(nodeText(block, source)); name != "" {
			_, _ = w.WriteString(` aria-label="`)
			_, _ = w.WriteString(html.EscapeString(name))
			_ = w.WriteByte('"')
		}
	}
	_, _ = w.WriteString("> ")
	return ast.WalkContinue, nil
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

// readerHTML is a stored rendering as the site and the editor's preview
// show it: code blocks join the tab order, since a long line scrolls
// sideways, which a keyboard can do only in an element that has focus. The
// API's content_html keeps goldmark's plain <pre><code> for the clients
// that style or parse it. Raw HTML in Markdown is escaped, so every
// "<pre><code" here is the renderer's.
func readerHTML(h template.HTML) template.HTML {
	return template.HTML(strings.ReplaceAll(string(h), "<pre><code", `<pre tabindex="0"><code`))
}
