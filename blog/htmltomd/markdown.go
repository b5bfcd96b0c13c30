package htmltomd

import (
	"fmt"
	"html"
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
}

// maxNesting is how many lists and quotes may nest in the Markdown.
const maxNesting = 8

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
			c.notes["removed a <"+n.name+"> element"]++
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
	c.notes["kept a <"+n.name+"> as HTML"]++
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
		c.notes["removed a <"+n.name+"> element"]++
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
			c.notes["removed a <"+n.name+"> element"]++
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
