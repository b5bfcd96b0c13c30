package ghostdoc

import (
	"encoding/json"
	"errors"
	"html"
	"strconv"
	"strings"
)

// A Lexical document (Ghost 5 and 6) is a tree of nodes, each a JSON object
// with a "type":
//
//	{"root": {"type": "root", "children": [
//	  {"type": "paragraph", "children": [
//	    {"type": "text", "text": "bold", "format": 1},
//	    {"type": "link", "url": "https://…", "children": [{"type": "text", "text": "a link"}]}]},
//	  {"type": "heading", "tag": "h2", "children": […]},
//	  {"type": "list", "listType": "bullet", "children": [{"type": "listitem", "children": […]}]},
//	  {"type": "image", "src": "…", "caption": "…"}]}}
//
// Element nodes (paragraph, heading, quote, aside, list, listitem, link)
// hold children; a text node's "format" is a set of bits (1 bold, 2
// italic, 4 strike-through, 16 code, and others Markdown has no form of).
// Ghost's cards are nodes without children whose fields are the card's
// Mobiledoc payload, under their Mobiledoc name but for three: codeblock
// (code), horizontalrule (hr) and an embed's "embedType" (its "type").

// Lexical text formats.
const (
	formatBold   = 1
	formatItalic = 2
	formatStrike = 4
	formatCode   = 16
)

// Lexical reads a Lexical document.
func Lexical(src []byte) (*Doc, error) {
	var top map[string]any
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, errors.New("the Lexical document is not a JSON object")
	}
	root, ok := top["root"].(map[string]any)
	if !ok {
		return nil, errors.New("the Lexical document has no root node")
	}
	l := &lexical{builder: newBuilder()}
	for _, c := range list(root, "children") {
		n, ok := c.(map[string]any)
		if !ok {
			l.loss(LossUnknownPart)
			continue
		}
		l.block(n)
	}
	return l.done(), nil
}

type lexical struct {
	*builder
}

// block adds the blocks of one node of the root.
func (l *lexical) block(n map[string]any) {
	switch typ := text(n, "type"); typ {
	case "paragraph":
		if body := l.inline(list(n, "children"), 1); strings.TrimSpace(body) != "" {
			l.html("<p>" + body + "</p>")
		}
	case "heading", "extended-heading":
		tag := text(n, "tag")
		if len(tag) != 2 || tag[0] != 'h' || tag[1] < '1' || tag[1] > '6' {
			tag = "h2"
		}
		if body := l.inline(list(n, "children"), 1); strings.TrimSpace(body) != "" {
			l.html("<" + tag + ">" + body + "</" + tag + ">")
		}
	case "quote", "extended-quote", "aside":
		if body := l.inline(list(n, "children"), 1); strings.TrimSpace(body) != "" {
			l.html("<blockquote><p>" + body + "</p></blockquote>")
		}
	case "list":
		l.html(l.list(n, 1))
	case "code":
		// Lexical's own code node: its lines are text, line breaks and tabs.
		var b strings.Builder
		l.codeText(&b, list(n, "children"), 1)
		if b.Len() > 0 {
			class := ""
			if lang := text(n, "language"); lang != "" {
				class = ` class="language-` + html.EscapeString(lang) + `"`
			}
			l.html("<pre><code" + class + ">" + html.EscapeString(b.String()) + "</code></pre>")
		}
	case "embed":
		// The card's "type" is the node's; the embed's own is "embedType".
		p := make(map[string]any, len(n))
		for k, v := range n {
			p[k] = v
		}
		p["type"] = n["embedType"]
		l.card("embed", p)
	case "":
		l.loss(LossUnknownPart)
	default:
		if _, ok := n["children"].([]any); ok || inlineTypes[typ] {
			// An element or inline node of a kind this package does not
			// know: its text, as a paragraph.
			if body := l.inline([]any{n}, 1); strings.TrimSpace(body) != "" {
				l.html("<p>" + body + "</p>")
			}
			return
		}
		l.card(typ, n)
	}
}

// inlineTypes are the inline nodes without children.
var inlineTypes = map[string]bool{
	"text": true, "extended-text": true, "code-highlight": true, "hashtag": true,
	"linebreak": true, "tab": true, "zwnj": true,
}

// list writes a list node: its items, and the lists nested in them.
func (l *lexical) list(n map[string]any, depth int) string {
	if depth > maxDepth {
		l.loss(LossNestedTooDeep)
		return ""
	}
	tag := "ul"
	start := ""
	if text(n, "listType") == "number" || text(n, "tag") == "ol" {
		tag = "ol"
		if s, ok := index(n["start"]); ok && s != 1 {
			start = ` start="` + strconv.Itoa(s) + `"`
		}
	}
	var items []string
	for _, c := range list(n, "children") {
		item, _ := c.(map[string]any)
		var body, nested strings.Builder
		var inline []any
		for _, k := range list(item, "children") {
			if kn, ok := k.(map[string]any); ok && text(kn, "type") == "list" {
				nested.WriteString(l.list(kn, depth+1))
			} else {
				inline = append(inline, k)
			}
		}
		body.WriteString(l.inline(inline, depth+1))
		switch {
		case strings.TrimSpace(body.String()) == "" && len(items) > 0:
			// An item holding only a list is how Lexical nests one: it
			// belongs to the item before.
			items[len(items)-1] += nested.String()
		case strings.TrimSpace(body.String()+nested.String()) != "":
			items = append(items, body.String()+nested.String())
		}
	}
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<" + tag + start + ">")
	for _, it := range items {
		b.WriteString("<li>" + it + "</li>")
	}
	b.WriteString("</" + tag + ">")
	return b.String()
}

// inline writes inline nodes as HTML: text escaped and wrapped in the
// elements of its format, line breaks, links, and the text of the nodes
// this package does not know.
func (l *lexical) inline(nodes []any, depth int) string {
	if depth > maxDepth {
		l.loss(LossNestedTooDeep)
		return ""
	}
	var b strings.Builder
	for _, c := range nodes {
		n, ok := c.(map[string]any)
		if !ok {
			continue
		}
		switch typ := text(n, "type"); typ {
		case "text", "extended-text", "code-highlight", "hashtag":
			b.WriteString(formatted(text(n, "text"), n["format"]))
		case "linebreak":
			b.WriteString("<br>")
		case "tab":
			b.WriteString(" ")
		case "zwnj":
		case "link", "autolink":
			a := `<a href="` + html.EscapeString(text(n, "url")) + `"`
			if t := text(n, "title"); t != "" {
				a += ` title="` + html.EscapeString(t) + `"`
			}
			b.WriteString(a + ">" + l.inline(list(n, "children"), depth+1) + "</a>")
		default:
			if kids, ok := n["children"].([]any); ok {
				b.WriteString(l.inline(kids, depth+1))
			} else if t := text(n, "text"); t != "" {
				b.WriteString(html.EscapeString(t))
			} else {
				l.loss(LossUnknownPart)
			}
		}
	}
	return b.String()
}

// codeText writes the text of a code node's lines.
func (l *lexical) codeText(b *strings.Builder, nodes []any, depth int) {
	if depth > maxDepth {
		l.loss(LossNestedTooDeep)
		return
	}
	for _, c := range nodes {
		n, _ := c.(map[string]any)
		switch text(n, "type") {
		case "linebreak":
			b.WriteByte('\n')
		case "tab":
			b.WriteByte('\t')
		default:
			b.WriteString(text(n, "text"))
			l.codeText(b, list(n, "children"), depth+1)
		}
	}
}

// formatted is text wrapped in the elements of a Lexical format.
func formatted(s string, format any) string {
	if s == "" {
		return ""
	}
	f, _ := index(format)
	if f < 0 {
		f = 0
	}
	out := html.EscapeString(s)
	if f&formatCode != 0 {
		out = "<code>" + out + "</code>"
	}
	if f&formatStrike != 0 {
		out = "<s>" + out + "</s>"
	}
	if f&formatItalic != 0 {
		out = "<em>" + out + "</em>"
	}
	if f&formatBold != 0 {
		out = "<strong>" + out + "</strong>"
	}
	return out
}
