package htmltomd

import (
	"html"
	"slices"
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

// closesP are the start tags that end an open paragraph.
func closesP(name string) bool {
	return name != "li" && name != "dt" && name != "dd" && name != "figcaption" && blockElements[name]
}

// parseHTML builds a tree from HTML the way a forgiving browser would, in
// the few ways that matter here: void elements, implied ends of p, li,
// table sections, rows and cells, stray end tags ignored, unclosed
// elements closed at the end.
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
			case "thead", "tbody", "tfoot":
				// A new section ends the one open (and its row and cell).
				for _, section := range []string{"thead", "tbody", "tfoot"} {
					closeTo(section, "table")
				}
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
