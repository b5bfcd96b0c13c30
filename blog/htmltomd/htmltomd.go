// Package htmltomd turns the HTML of a Ghost or WordPress export into the
// Markdown the blog stores (Convert), and into plain text for imported
// comments (Text). It is the importers' converter
// (docs/export-import.md#html-to-markdown) and knows nothing of the blog.
//
// It understands the part of HTML that Markdown can say: paragraphs, line
// breaks, headings, emphasis, strike-through, links, images, lists, quotes,
// code, rules, and figures of one image and a caption. Elements without a
// Markdown form (tables, embeds, forms, svg, …) are kept as an HTML block,
// which is safe because the blog's renderer escapes raw HTML
// (blog/markdown.go): it shows as text, never as markup. Scripts and styles
// are dropped: they are never content. Other inline elements give their
// text. Convert's notes say, once each, what was kept or dropped.
//
// It never fails and never refuses input: the tokenizer is a small,
// lenient one of our own (the standard library has no HTML parser, and
// encoding/xml refuses most real HTML) that reads anything, stray and
// unclosed tags included, and the depth of the tree and of the lists and
// quotes it writes is bounded, so that no input makes it recurse deeply or
// the Markdown grow with the square of the HTML. Bounding the size of the
// HTML is the caller's.
package htmltomd

import (
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
)

// htmlNode is an element (name set) or a text node of the parsed tree.
type htmlNode struct {
	name  string // lower-case element name; "" for text
	attrs []htmlAttr
	text  string // a text node's decoded text
	kids  []*htmlNode
}

type htmlAttr struct{ name, value string }

func (n *htmlNode) attr(name string) string {
	for _, a := range n.attrs {
		if a.name == name {
			return a.value
		}
	}
	return ""
}

// maxHTMLDepth bounds the tree's nesting: deeper start tags are ignored
// (their text is kept), so that no input makes the converter's recursion
// deep.
const maxHTMLDepth = 100

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// rawTextElements hold text up to their end tag, never markup.
var rawTextElements = map[string]bool{
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true, "iframe": true,
	"noembed": true, "noframes": true, "plaintext": true,
}

// droppedElements are never content.
var droppedElements = map[string]bool{
	"script": true, "style": true, "template": true, "head": true, "title": true, "meta": true, "link": true,
	"base": true, "noscript": true,
}

// keptElements have no Markdown form: they stay as (escaped) HTML.
var keptElements = map[string]bool{
	"table": true, "iframe": true, "video": true, "audio": true, "object": true, "embed": true, "form": true,
	"svg": true, "math": true, "canvas": true, "select": true, "details": true, "fieldset": true,
	"textarea": true, "input": true, "button": true, "map": true,
}

// blockElements start a new block in Markdown.
var blockElements = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true,
	"aside": true, "nav": true, "address": true, "center": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "ul": true, "ol": true, "li": true, "blockquote": true, "pre": true, "hr": true,
	"figure": true, "figcaption": true, "dl": true, "dt": true, "dd": true, "hgroup": true, "body": true, "html": true,
}

// closesP are the start tags that end an open paragraph.
func closesP(name string) bool {
	return name != "li" && name != "dt" && name != "dd" && name != "figcaption" && (blockElements[name] || keptElements[name])
}

// parseHTML builds a tree from HTML the way a forgiving browser would, in
// the few ways that matter here: void elements, implied ends of p, li and
// table cells, stray end tags ignored, unclosed elements closed at the end.
func parseHTML(src string) *htmlNode {
	root := &htmlNode{name: "#root"}
	stack := []*htmlNode{root}
	top := func() *htmlNode { return stack[len(stack)-1] }
	closeTo := func(name string, stopAt ...string) {
		for i := len(stack) - 1; i > 0; i-- {
			if slices.Contains(stopAt, stack[i].name) {
				return
			}
			if stack[i].name == name {
				stack = stack[:i]
				return
			}
		}
	}
	// Text runs from textStart to the next markup; a '<' that starts none
	// stays in the run, so that no input makes text pieces pile up.
	pos, textStart := 0, 0
	for pos < len(src) {
		lt := strings.IndexByte(src[pos:], '<')
		if lt < 0 {
			break
		}
		pos += lt
		tok, next := readTag(src, pos)
		if tok == nil {
			pos = next
			continue
		}
		addText(top(), src[textStart:pos])
		pos = next
		textStart = pos
		switch {
		case tok.kind == tagComment:
		case tok.kind == tagEnd:
			switch tok.name {
			case "p":
				closeTo("p", "div", "li", "blockquote", "td", "th")
			case "br":
				top().kids = append(top().kids, &htmlNode{name: "br"})
			default:
				closeTo(tok.name)
			}
		default:
			name := tok.name
			if closesP(name) {
				closeTo("p", "div", "li", "blockquote", "td", "th", "table")
			}
			switch name {
			case "li":
				closeTo("li", "ul", "ol", "table")
			case "dt", "dd":
				closeTo("dt", "dl")
				closeTo("dd", "dl")
			case "tr":
				closeTo("tr", "table", "thead", "tbody", "tfoot")
			case "td", "th":
				closeTo("td", "tr", "table")
				closeTo("th", "tr", "table")
			}
			n := &htmlNode{name: name, attrs: tok.attrs}
			if rawTextElements[name] {
				end := indexFold(src[pos:], "</"+name)
				raw := src[pos:]
				if end >= 0 {
					raw = src[pos : pos+end]
					pos += end
					if gt := strings.IndexByte(src[pos:], '>'); gt >= 0 {
						pos += gt + 1
					} else {
						pos = len(src)
					}
				} else {
					pos = len(src)
				}
				if raw != "" {
					n.kids = append(n.kids, &htmlNode{text: html.UnescapeString(raw)})
				}
				top().kids = append(top().kids, n)
				textStart = pos
				continue
			}
			top().kids = append(top().kids, n)
			if !voidElements[name] && !tok.selfClosing && len(stack) < maxHTMLDepth {
				stack = append(stack, n)
			}
		}
	}
	addText(top(), src[textStart:])
	return root
}

func addText(parent *htmlNode, raw string) {
	if t := html.UnescapeString(raw); t != "" {
		parent.kids = append(parent.kids, &htmlNode{text: t})
	}
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

type markupKind int

const (
	tagStart markupKind = iota
	tagEnd
	tagComment
)

type markupTag struct {
	kind        markupKind
	name        string
	attrs       []htmlAttr
	selfClosing bool
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// readTag reads the markup at src[pos] (a '<'). It returns nil and the end
// of a '<' that starts no markup, which is then text.
func readTag(src string, pos int) (*markupTag, int) {
	rest := src[pos:]
	switch {
	case strings.HasPrefix(rest, "<!--"):
		end := strings.Index(rest[4:], "-->")
		if end < 0 {
			return &markupTag{kind: tagComment}, len(src)
		}
		return &markupTag{kind: tagComment}, pos + 4 + end + 3
	case strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "<?") || strings.HasPrefix(rest, "</") && len(rest) > 2 && !isLetter(rest[2]):
		// A doctype, a processing instruction or a bogus end tag: a
		// comment up to the next '>'.
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return &markupTag{kind: tagComment}, len(src)
		}
		return &markupTag{kind: tagComment}, pos + end + 1
	case strings.HasPrefix(rest, "</") && len(rest) > 2:
		return readEndTag(src, pos)
	case len(rest) > 1 && isLetter(rest[1]):
		return readStartTag(src, pos)
	}
	return nil, pos + 1
}

// nameEnd is the end of the tag name starting at rest[i].
func nameEnd(rest string, i int) int {
	for i < len(rest) && !isSpace(rest[i]) && rest[i] != '>' && rest[i] != '/' {
		i++
	}
	return i
}

// readEndTag reads "</name …>" at src[pos]; one without its '>' is a
// comment to the end of the document.
func readEndTag(src string, pos int) (*markupTag, int) {
	rest := src[pos:]
	i := nameEnd(rest, 2)
	end := strings.IndexByte(rest[i:], '>')
	if end < 0 {
		return &markupTag{kind: tagComment}, len(src)
	}
	return &markupTag{kind: tagEnd, name: strings.ToLower(rest[2:i])}, pos + i + end + 1
}

// readStartTag reads "<name attr…>" or "<name …/>" at src[pos], keeping at
// most 64 attributes. An unfinished tag ends the document.
func readStartTag(src string, pos int) (*markupTag, int) {
	rest := src[pos:]
	i := nameEnd(rest, 1)
	t := &markupTag{kind: tagStart, name: strings.ToLower(rest[1:i])}
	for {
		for i < len(rest) && (isSpace(rest[i]) || rest[i] == '/' && i+1 < len(rest) && rest[i+1] != '>') {
			i++
		}
		switch {
		case i >= len(rest):
			return t, len(src)
		case rest[i] == '>':
			return t, pos + i + 1
		case strings.HasPrefix(rest[i:], "/>"):
			t.selfClosing = true
			return t, pos + i + 2
		}
		a, next, ok := readAttr(rest, i)
		if next < 0 {
			return t, len(src)
		}
		if ok && len(t.attrs) < 64 {
			t.attrs = append(t.attrs, a)
		}
		i = next
	}
}

// readAttr reads the attribute at rest[i]: a name, then a value after '='
// (quoted, or up to a space or '>'), its character references decoded.
// next is where reading goes on: -1 after a quote that never closes, which
// ends the document. ok is false for a lone '=' or '/', which is skipped.
func readAttr(rest string, i int) (a htmlAttr, next int, ok bool) {
	start := i
	for i < len(rest) && !isSpace(rest[i]) && rest[i] != '>' && rest[i] != '=' && !(rest[i] == '/' && i > start) {
		i++
	}
	if i == start {
		return a, i + 1, false
	}
	a.name = strings.ToLower(rest[start:i])
	j := skipSpace(rest, i)
	if j >= len(rest) || rest[j] != '=' {
		return a, i, true // no value
	}
	j = skipSpace(rest, j+1)
	if j < len(rest) && (rest[j] == '"' || rest[j] == '\'') {
		end := strings.IndexByte(rest[j+1:], rest[j])
		if end < 0 {
			return a, -1, true
		}
		a.value = html.UnescapeString(rest[j+1 : j+1+end])
		return a, j + end + 2, true
	}
	k := j
	for k < len(rest) && !isSpace(rest[k]) && rest[k] != '>' {
		k++
	}
	a.value = html.UnescapeString(rest[j:k])
	return a, k, true
}

// skipSpace is the index of the first byte from rest[i] that is no space.
func skipSpace(rest string, i int) int {
	for i < len(rest) && isSpace(rest[i]) {
		i++
	}
	return i
}

// mdConverter turns a tree into Markdown, noting what it could not convert.
type mdConverter struct {
	notes map[string]bool
	// nested counts the lists and quotes around the node being converted:
	// each indents every line inside it, so deeper ones are flattened, and
	// the Markdown stays within a few times the size of the HTML.
	nested int
}

// maxNesting is how many lists and quotes may nest in the Markdown.
const maxNesting = 8

// Convert converts HTML to Markdown. notes says, once each, what was kept
// as HTML or dropped ("kept a <table> as HTML"), sorted.
func Convert(src string) (md string, notes []string) {
	c := &mdConverter{notes: map[string]bool{}}
	out := strings.Join(c.blocks(parseHTML(src).kids), "\n\n")
	for n := range c.notes {
		notes = append(notes, n)
	}
	slices.Sort(notes)
	if out != "" {
		out += "\n"
	}
	return out, notes
}

// Text is the text of HTML with its markup removed, paragraphs and line
// breaks kept as newlines: for comments, which the blog shows as text.
func Text(src string) string {
	var b strings.Builder
	var walk func(n *htmlNode)
	walk = func(n *htmlNode) {
		switch {
		case n.name == "":
			b.WriteString(n.text)
		case droppedElements[n.name]:
		case n.name == "br":
			b.WriteByte('\n')
		default:
			for _, k := range n.kids {
				walk(k)
			}
			if blockElements[n.name] {
				b.WriteString("\n\n")
			}
		}
	}
	walk(parseHTML(src))
	var out []string
	blank := false
	for _, l := range strings.Split(b.String(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// IsBlock reports whether an element (its lower-case name) stands on its
// own in the Markdown: a block, one kept as HTML, or one dropped. Text
// around it goes into separate paragraphs.
func IsBlock(name string) bool {
	return blockElements[name] || keptElements[name] || droppedElements[name]
}

func isBlockNode(n *htmlNode) bool {
	return n.name != "" && IsBlock(n.name)
}

// blocks converts a container's children into Markdown blocks.
func (c *mdConverter) blocks(kids []*htmlNode) []string {
	var out []string
	var run []*htmlNode
	flush := func() {
		if p := c.paragraph(run); p != "" {
			out = append(out, p)
		}
		run = nil
	}
	for _, k := range kids {
		if !isBlockNode(k) {
			run = append(run, k)
			continue
		}
		flush()
		out = append(out, c.block(k)...)
	}
	flush()
	return out
}

func (c *mdConverter) block(n *htmlNode) []string {
	switch {
	case droppedElements[n.name]:
		if n.name == "script" || n.name == "style" {
			c.notes["removed a <"+n.name+"> element"] = true
		}
		return nil
	case keptElements[n.name]:
		return c.kept(n)
	}
	switch n.name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		text := strings.ReplaceAll(c.paragraph(n.kids), "\\\n", " ")
		text = strings.ReplaceAll(text, "\n", " ")
		if text == "" {
			return nil
		}
		return []string{strings.Repeat("#", int(n.name[1]-'0')) + " " + strings.ReplaceAll(text, "#", "\\#")}
	case "ul", "ol":
		return c.list(n)
	case "li":
		if c.nested >= maxNesting {
			return c.blocks(n.kids)
		}
		return c.list(&htmlNode{name: "ul", kids: []*htmlNode{n}})
	case "blockquote":
		if c.nested >= maxNesting {
			return c.blocks(n.kids)
		}
		c.nested++
		inner := strings.Join(c.blocks(n.kids), "\n\n")
		c.nested--
		if inner == "" {
			return nil
		}
		lines := strings.Split(inner, "\n")
		for i, l := range lines {
			if l == "" {
				lines[i] = ">"
			} else {
				lines[i] = "> " + l
			}
		}
		return []string{strings.Join(lines, "\n")}
	case "pre":
		return []string{codeBlock(n)}
	case "hr":
		return []string{"---"}
	case "figure":
		if img, caption, ok := imageFigure(n); ok {
			out := []string{c.paragraph([]*htmlNode{img})}
			if caption != nil {
				if t := c.paragraph(caption.kids); t != "" {
					out = append(out, "*"+t+"*")
				}
			}
			return out
		}
		return c.kept(n)
	case "dt":
		if t := c.paragraph(n.kids); t != "" {
			return []string{"**" + t + "**"}
		}
		return nil
	}
	return c.blocks(n.kids)
}

// imageFigure recognises <figure><img><figcaption>…</figcaption></figure>
// (the image possibly in a link), the figure every editor writes.
func imageFigure(n *htmlNode) (img, caption *htmlNode, ok bool) {
	for _, k := range n.kids {
		switch {
		case k.name == "" && strings.TrimSpace(k.text) == "":
		case k.name == "img" && img == nil:
			img = k
		case k.name == "a" && img == nil && len(elements(k)) == 1 && elements(k)[0].name == "img":
			img = k
		case k.name == "figcaption" && caption == nil:
			caption = k
		default:
			return nil, nil, false
		}
	}
	return img, caption, img != nil
}

func elements(n *htmlNode) []*htmlNode {
	var out []*htmlNode
	for _, k := range n.kids {
		if k.name != "" {
			out = append(out, k)
		} else if strings.TrimSpace(k.text) != "" {
			return append(out, k)
		}
	}
	return out
}

// kept serializes an element as one HTML block without blank lines, so
// that Markdown reads it as one block.
func (c *mdConverter) kept(n *htmlNode) []string {
	c.notes["kept a <"+n.name+"> as HTML"] = true
	var b strings.Builder
	c.serialize(&b, n)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, " \t\r"))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return []string{strings.Join(lines, "\n")}
}

func (c *mdConverter) serialize(b *strings.Builder, n *htmlNode) {
	if n.name == "" {
		b.WriteString(html.EscapeString(n.text))
		return
	}
	if n.name == "script" || n.name == "style" {
		c.notes["removed a <"+n.name+"> element"] = true
		return
	}
	b.WriteString("<" + n.name)
	for _, a := range n.attrs {
		if !validAttrName(a.name) {
			continue
		}
		b.WriteString(" " + a.name + `="` + html.EscapeString(a.value) + `"`)
	}
	b.WriteString(">")
	if voidElements[n.name] {
		return
	}
	for _, k := range n.kids {
		c.serialize(b, k)
	}
	b.WriteString("</" + n.name + ">")
}

func validAttrName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(isLetter(ch) || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == ':' || ch == '.') {
			return false
		}
	}
	return true
}

// list converts ul or ol; items hold blocks, indented under their marker.
func (c *mdConverter) list(n *htmlNode) []string {
	if c.nested >= maxNesting {
		return c.blocks(n.kids)
	}
	c.nested++
	defer func() { c.nested-- }()
	num := 1
	if n.name == "ol" {
		if s, err := strconv.Atoi(strings.TrimSpace(n.attr("start"))); err == nil && s >= 0 && s < 1e9 {
			num = s
		}
	}
	var items []*htmlNode
	var loose []*htmlNode
	for _, k := range n.kids {
		if k.name == "li" {
			if len(loose) > 0 {
				items = append(items, &htmlNode{name: "li", kids: loose})
				loose = nil
			}
			items = append(items, k)
		} else if k.name != "" && k.name != "br" || k.name == "" && strings.TrimSpace(k.text) != "" {
			loose = append(loose, k)
		}
	}
	if len(loose) > 0 {
		items = append(items, &htmlNode{name: "li", kids: loose})
	}
	var lines []string
	for _, it := range items {
		marker := "- "
		if n.name == "ol" {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		blocks := c.blocks(it.kids)
		var body strings.Builder
		for i, blk := range blocks {
			if i > 0 {
				if strings.HasPrefix(blk, "- ") || startsOrdered(blk) {
					body.WriteString("\n")
				} else {
					body.WriteString("\n\n")
				}
			}
			body.WriteString(blk)
		}
		indent := strings.Repeat(" ", len(marker))
		itemLines := strings.Split(body.String(), "\n")
		for i, l := range itemLines {
			switch {
			case i == 0:
				itemLines[i] = strings.TrimRight(marker+l, " ")
			case l == "":
			default:
				itemLines[i] = indent + l
			}
		}
		lines = append(lines, strings.Join(itemLines, "\n"))
	}
	if len(lines) == 0 {
		return nil
	}
	return []string{strings.Join(lines, "\n")}
}

func startsOrdered(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(s[i:], ". ")
}

// codeBlock fences a pre element's text, with the language of a
// "language-x" class when it has one.
func codeBlock(n *htmlNode) string {
	var b strings.Builder
	var lang string
	var walk func(n *htmlNode)
	walk = func(n *htmlNode) {
		if n.name == "" {
			b.WriteString(n.text)
			return
		}
		if n.name == "br" {
			b.WriteByte('\n')
		}
		if n.name == "code" && lang == "" {
			for _, cl := range strings.Fields(n.attr("class")) {
				if l, ok := strings.CutPrefix(cl, "language-"); ok {
					lang = l
				} else if l, ok := strings.CutPrefix(cl, "lang-"); ok {
					lang = l
				}
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(n)
	text := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(b.String(), "\r\n", "\n"), "\n"), "\n")
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	if strings.ContainsAny(lang, "`~ \t") || len(lang) > 30 {
		lang = ""
	}
	return fence + lang + "\n" + text + "\n" + fence
}

// paragraph converts inline content into one paragraph: whitespace
// collapsed, each line trimmed, line starts that Markdown would read as
// syntax escaped.
func (c *mdConverter) paragraph(nodes []*htmlNode) string {
	var b strings.Builder
	for _, n := range nodes {
		c.inline(&b, n)
	}
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(collapseSpaces(l))
		if l == "\\" || l == "" {
			continue
		}
		out = append(out, escapeLineStart(l))
	}
	p := strings.Join(out, "\n")
	return strings.TrimSuffix(p, "\\")
}

func collapseSpaces(s string) string {
	if !strings.ContainsAny(s, "\t\r\f  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\r' || r == '\f' {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// escapeLineStart escapes what would make a line a heading, list item,
// setext underline or quote.
func escapeLineStart(l string) string {
	if l == "" {
		return l
	}
	switch l[0] {
	case '-', '+', '=', '#', '>':
		return "\\" + l
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return l[:i] + "\\" + l[i:]
	}
	return l
}

// inline writes a node's inline Markdown. Text newlines are spaces; the
// only newlines written are hard breaks ("\\\n").
func (c *mdConverter) inline(b *strings.Builder, n *htmlNode) {
	if n.name == "" {
		b.WriteString(EscapeText(strings.Map(func(r rune) rune {
			if r == '\n' {
				return ' '
			}
			return r
		}, n.text)))
		return
	}
	switch {
	case droppedElements[n.name]:
		if n.name == "script" || n.name == "style" {
			c.notes["removed a <"+n.name+"> element"] = true
		}
		return
	case keptElements[n.name]:
		for _, s := range c.kept(n) {
			b.WriteString(strings.ReplaceAll(s, "\n", " "))
		}
		return
	}
	switch n.name {
	case "br":
		b.WriteString("\\\n")
	case "strong", "b":
		c.wrap(b, n, "**")
	case "em", "i", "cite", "dfn":
		c.wrap(b, n, "*")
	case "del", "s", "strike":
		c.wrap(b, n, "~~")
	case "code", "kbd", "samp", "tt":
		b.WriteString(inlineCode(textOf(n)))
	case "a":
		var inner strings.Builder
		for _, k := range n.kids {
			c.inline(&inner, k)
		}
		text := strings.TrimSpace(strings.ReplaceAll(inner.String(), "\\\n", " "))
		href := strings.TrimSpace(n.attr("href"))
		switch {
		case href == "":
			b.WriteString(text)
		case text == "":
			b.WriteString("[" + EscapeText(href) + "](" + linkDest(href) + ")")
		default:
			b.WriteString("[" + text + "](" + linkDest(href) + linkTitle(n.attr("title")) + ")")
		}
	case "img":
		src := strings.TrimSpace(n.attr("src"))
		if src == "" {
			return
		}
		alt := EscapeText(strings.Join(strings.Fields(n.attr("alt")), " "))
		b.WriteString("![" + alt + "](" + linkDest(src) + linkTitle(n.attr("title")) + ")")
	default:
		// Inline elements without a Markdown form (span, sup, u, …) and
		// blocks found inside inline content give their content.
		block := blockElements[n.name]
		if block {
			b.WriteString(" ")
		}
		for _, k := range n.kids {
			c.inline(b, k)
		}
		if block {
			b.WriteString(" ")
		}
	}
}

// wrap surrounds a node's content with a delimiter, keeping surrounding
// spaces outside it (CommonMark needs the delimiters next to text).
func (c *mdConverter) wrap(b *strings.Builder, n *htmlNode, delim string) {
	var inner strings.Builder
	for _, k := range n.kids {
		c.inline(&inner, k)
	}
	s := inner.String()
	core := strings.TrimSpace(s)
	if core == "" || strings.HasSuffix(core, "\\") {
		b.WriteString(s)
		return
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " \t\n"))]
	trail := s[len(strings.TrimRight(s, " \t\n")):]
	b.WriteString(lead + delim + core + delim + trail)
}

// textOf is the text of a node and its descendants.
func textOf(n *htmlNode) string {
	if n.name == "" {
		return n.text
	}
	var b strings.Builder
	for _, k := range n.kids {
		b.WriteString(textOf(k))
	}
	return b.String()
}

// inlineCode writes a code span with a fence longer than any backtick run
// inside it.
func inlineCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// EscapeText escapes plain text so that Markdown shows it as it is.
func EscapeText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~':
			b.WriteByte('\\')
		case '&':
			// Only before what would read as a character reference.
			j := i + 1
			for j < len(s) && j-i < 33 && (isLetter(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '#') {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == ';' {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// linkDest writes a URL as a link destination: characters Markdown would
// end or misread it at are percent-encoded.
func linkDest(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		switch ch := u[i]; {
		case ch <= ' ' || ch == 0x7f || ch == '(' || ch == ')' || ch == '<' || ch == '>' || ch == '\\' || ch == '`':
			fmt.Fprintf(&b, "%%%02X", ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func linkTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if t == "" {
		return ""
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return ` "` + r.Replace(t) + `"`
}
