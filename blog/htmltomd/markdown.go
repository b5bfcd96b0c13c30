package htmltomd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// mdConverter turns a tree into Markdown, noting what it could not convert.
type mdConverter struct {
	notes map[string]int
	// nested counts the lists and quotes around the node being converted:
	// each indents every line inside it, so deeper ones are flattened, and
	// the Markdown stays within a few times the size of the HTML.
	nested int
	// inCell counts the table cells around the node being converted, in
	// which a nested table is part of the cell's loss, not one of its own.
	inCell int
	// inForm counts the forms around the node: their controls are part of
	// the form's loss.
	inForm int
}

// note counts one loss of a kind.
func (c *mdConverter) note(kind string) { c.notes[kind]++ }

// maxNesting is how many lists and quotes may nest in the Markdown.
const maxNesting = 8

func isBlockNode(n *htmlNode) bool {
	return n.name != "" && IsBlock(n.name)
}

// blocks converts a container's children into Markdown blocks. Two or
// more line breaks in a row (blank text between them aside) end the
// paragraph: that is how WordPress and hand-written HTML separate
// paragraphs, and Markdown has no blank line inside one.
func (c *mdConverter) blocks(kids []*htmlNode) []string {
	var out []string
	var run []*htmlNode
	flush := func() {
		if p := c.paragraph(run); p != "" {
			out = append(out, p)
		}
		run = nil
	}
	for i := 0; i < len(kids); i++ {
		k := kids[i]
		if k.name == "br" {
			j := i + 1
			for j < len(kids) && isBlankText(kids[j]) {
				j++
			}
			if j < len(kids) && kids[j].name == "br" {
				for j < len(kids) && (kids[j].name == "br" || isBlankText(kids[j])) {
					j++
				}
				flush()
				i = j - 1
				continue
			}
		}
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

func isBlankText(n *htmlNode) bool {
	return n.name == "" && strings.TrimSpace(n.text) == ""
}

func (c *mdConverter) block(n *htmlNode) []string {
	if out, ok := c.card(n); ok {
		return out
	}
	switch {
	case n.name == "script":
		c.note(lossScript)
		return nil
	case n.name == "style":
		c.note(lossStyle)
		return nil
	case droppedElements[n.name]:
		return nil
	}
	switch n.name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		text := c.line(n.kids)
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
		return c.quote(n)
	case "pre":
		if hasClass(n, "wp-block-verse") {
			return c.blocks(verseNodes(n.kids))
		}
		return []string{codeBlock(n)}
	case "hr":
		return []string{"---"}
	case "figure":
		return c.figure(n)
	case "figcaption":
		return nonEmpty(c.captionLine(n.kids))
	case "dt":
		if t := c.line(n.kids); t != "" {
			return []string{"**" + t + "**"}
		}
		return nil
	case "table":
		return c.table(n)
	case "details":
		return c.details(n)
	case "form":
		c.note(lossForm)
		c.inForm++
		defer func() { c.inForm-- }()
		return c.blocks(n.kids)
	}
	return c.blocks(n.kids)
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// quote converts a blockquote; a cite among its children (WordPress's
// quote and pull quote blocks put the source there) becomes its last line,
// "— who".
func (c *mdConverter) quote(n *htmlNode) []string {
	kids := n.kids
	var cite *htmlNode
	for i := len(kids) - 1; i >= 0; i-- {
		if kids[i].name == "cite" {
			cite = kids[i]
			kids = append(slices.Clone(kids[:i]), kids[i+1:]...)
			break
		}
	}
	var blocks []string
	if c.nested >= maxNesting {
		blocks = c.blocks(kids)
	} else {
		c.nested++
		blocks = c.blocks(kids)
		c.nested--
	}
	if cite != nil {
		if t := c.line(cite.kids); t != "" {
			blocks = append(blocks, "— "+t)
		}
	}
	if c.nested >= maxNesting || len(blocks) == 0 {
		return blocks
	}
	lines := strings.Split(strings.Join(blocks, "\n\n"), "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return []string{strings.Join(lines, "\n")}
}

// figure converts a figure: an image and its caption, a video, audio or
// embed and its caption (a link, cards.go), or else its content, the
// caption in italics where it stands.
func (c *mdConverter) figure(n *htmlNode) []string {
	if img, caption, ok := imageFigure(n); ok {
		out := []string{c.paragraph([]*htmlNode{img})}
		if caption != nil {
			out = append(out, nonEmpty(c.captionLine(caption.kids))...)
		}
		return out
	}
	if out, ok := c.mediaFigure(n); ok {
		return out
	}
	return c.blocks(n.kids)
}

// details converts a disclosure widget, which Markdown cannot fold: its
// summary as a bold line, then its content.
func (c *mdConverter) details(n *htmlNode) []string {
	var out []string
	var rest []*htmlNode
	done := false
	for _, k := range n.kids {
		if k.name == "summary" && !done {
			done = true
			if t := c.line(k.kids); t != "" {
				out = append(out, "**"+t+"**")
			}
			continue
		}
		rest = append(rest, k)
	}
	return append(out, c.blocks(rest)...)
}

// verseNodes turns the newlines of a verse's text into line breaks, so
// that its lines survive (and a blank line between stanzas ends a
// paragraph). A pre inside is left to its own conversion, so that no text
// is copied once for every verse around it.
func verseNodes(kids []*htmlNode) []*htmlNode {
	var out []*htmlNode
	for _, k := range kids {
		if k.name == "pre" {
			out = append(out, k)
			continue
		}
		if k.name != "" {
			cp := *k
			cp.kids = verseNodes(k.kids)
			out = append(out, &cp)
			continue
		}
		for i, part := range strings.Split(strings.ReplaceAll(k.text, "\r\n", "\n"), "\n") {
			if i > 0 {
				out = append(out, &htmlNode{name: "br"})
			}
			if part != "" {
				out = append(out, &htmlNode{text: part})
			}
		}
	}
	return out
}

// line converts inline content into one line: line breaks become spaces.
func (c *mdConverter) line(nodes []*htmlNode) string {
	p := strings.ReplaceAll(c.paragraph(nodes), "\\\n", " ")
	return strings.ReplaceAll(p, "\n", " ")
}

// captionLine converts a caption into one line in italics.
func (c *mdConverter) captionLine(nodes []*htmlNode) string {
	if t := c.line(nodes); t != "" {
		return "*" + t + "*"
	}
	return ""
}

// imageFigure recognises <figure><img><figcaption>…</figcaption></figure>
// (the image possibly in a link), the figure every editor writes.
func imageFigure(n *htmlNode) (img, caption *htmlNode, ok bool) {
	for _, k := range n.kids {
		switch {
		case k.name == "" && strings.TrimSpace(k.text) == "":
		case k.name == "img" && img == nil:
			img = k
		case img == nil && isImageLink(k):
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
	if trailingBackslashes(p)%2 == 1 { // a line break ending the paragraph
		p = p[:len(p)-1]
	}
	return p
}

// trailingBackslashes counts the backslashes that end s: an odd number
// ends in a hard line break (or an escape), an even one in escaped
// backslashes.
func trailingBackslashes(s string) int {
	return len(s) - len(strings.TrimRight(s, "\\"))
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
// setext underline, quote, or the delimiter row of a table (":--", whose
// line before would become the table's header).
func escapeLineStart(l string) string {
	if l == "" {
		return l
	}
	switch l[0] {
	case '-', '+', '=', '#', '>':
		return "\\" + l
	case ':':
		if strings.HasPrefix(l, ":-") {
			return "\\" + l
		}
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
	case n.name == "script":
		c.note(lossScript)
		return
	case n.name == "style":
		c.note(lossStyle)
		return
	case droppedElements[n.name]:
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
	case "table":
		c.inlineTable(b, n)
	case "iframe", "video", "audio", "object", "embed", "source":
		if l := c.mediaLink(n, ""); l != "" {
			b.WriteString(l)
		} else if n.name != "iframe" {
			// No address: the fallback content the element holds.
			for _, k := range n.kids {
				if k.name != "source" && k.name != "track" && k.name != "param" {
					c.inline(b, k)
				}
			}
		}
	case "picture":
		// The sources are other sizes of its img.
		for _, k := range n.kids {
			if k.name == "img" {
				c.inline(b, k)
			}
		}
	case "area":
		if href := strings.TrimSpace(n.attr("href")); href != "" {
			text := strings.Join(strings.Fields(n.attr("alt")), " ")
			if text == "" {
				text = href
			}
			b.WriteString("[" + EscapeText(text) + "](" + linkDest(href) + ")")
		}
	case "svg", "canvas":
		c.note(lossDrawing)
		b.WriteString(" " + EscapeText(plainText(n)) + " ")
	case "math":
		c.note(lossMath)
		t := strings.Join(strings.Fields(n.attr("alttext")), " ")
		if t == "" {
			t = plainText(n)
		}
		b.WriteString(" " + EscapeText(t) + " ")
	case "input", "select", "textarea", "button":
		if c.inForm == 0 {
			c.note(lossControl)
		}
		if n.name != "input" {
			b.WriteString(" " + EscapeText(plainText(n)) + " ")
		}
	case "form":
		c.note(lossForm)
		c.inForm++
		for _, k := range n.kids {
			c.inline(b, k)
		}
		c.inForm--
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

// plainText is the text of an element without its markup, whitespace
// collapsed, for drawings, formulas, form controls and the parts of cards:
// blocks, options and line breaks separate words; dropped elements and a
// formula's annotations give nothing.
func plainText(n *htmlNode) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *htmlNode)
	walk = func(n *htmlNode) {
		switch {
		case n.name == "":
			b.WriteString(n.text)
			return
		case droppedElements[n.name] || n.name == "annotation" || n.name == "annotation-xml":
			return
		}
		spaced := n.name == "br" || n.name == "option" || blockElements[n.name]
		if spaced {
			b.WriteByte(' ')
		}
		for _, k := range n.kids {
			walk(k)
		}
		if spaced {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
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
