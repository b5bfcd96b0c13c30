// Package htmltomd turns the HTML of a Ghost or WordPress export into the
// Markdown the blog stores (Convert), and into plain text for imported
// comments (Text). It is the importers' converter
// (docs/export-import.md#html-to-markdown) and knows nothing of the blog.
//
// It says in Markdown what Markdown can say: paragraphs, line breaks (two
// in a row end the paragraph), headings, emphasis, strike-through, links,
// images, lists, quotes (a cite at the end as "— who"), code, rules, and
// GitHub-flavoured tables. It knows the markup WordPress's blocks and
// Ghost's cards save (figures of an image and its caption, galleries,
// embeds, bookmarks, callouts, toggles, files, video and audio), and gives
// each its Markdown: an image with its caption in italics, a list of
// images, a link. What Markdown cannot say is kept as readable text or a
// link, never as HTML: an iframe, video, audio or object becomes a link to
// its address, a form or a drawing its text. Scripts and styles are
// dropped: they are never content. Convert's losses say, by kind and with
// how many times, what did not come through as the HTML had it; the kinds
// are the loss* constants below.
//
// It never fails and never refuses input: the tokenizer is a small,
// lenient one of our own (the standard library has no HTML parser, and
// encoding/xml refuses most real HTML) that reads anything, stray and
// unclosed tags included, and the depth of the tree, of the lists and
// quotes it writes, and the width of its tables are bounded, so that no
// input makes it recurse deeply or the Markdown grow faster than the HTML
// (at most a few dozen times its size, for deeply indented lines). Bounding
// the size of the HTML is the caller's.
//
// The files: htmltomd.go holds this API, the kinds of loss and the element
// tables that say what the package knows of HTML; parse.go the tokenizer,
// which builds a tree; markdown.go the converter, which writes the tree as
// Markdown; table.go its tables; cards.go the shapes of WordPress's blocks
// and Ghost's cards, and the links that embeds and media become.
package htmltomd

import (
	"slices"
	"strings"
)

// A Loss is one kind of thing Markdown could not say as the HTML did,
// and how many times the document had it. Kind is a short phrase a person
// reads in an import's report ("video kept as a link"); the same kind is
// always spelled the same, so that reports can add them up.
type Loss struct {
	Kind  string
	Count int
}

// The kinds of loss, as docs/export-import.md#html-to-markdown lists them.
const (
	lossAudio         = "audio kept as a link"
	lossVideo         = "video kept as a link"
	lossEmbed         = "embed kept as a link"
	lossNoAddress     = "media without an address removed"
	lossCellFlattened = "table cell with block content flattened"
	lossMergedCells   = "merged table cells split"
	lossWideTable     = "table columns over 64 joined into the last"
	lossInlineTable   = "table inside a line of text flattened"
	lossForm          = "form kept as text"
	lossControl       = "form control kept as text"
	lossSignup        = "signup form removed"
	lossDrawing       = "drawing kept as text"
	lossMath          = "formula kept as text"
	lossScript        = "script removed"
	lossStyle         = "style removed"
)

// Convert converts HTML to Markdown. losses says what did not come through
// as the HTML had it, one entry a kind, sorted by kind.
func Convert(src string) (md string, losses []Loss) {
	c := &mdConverter{notes: map[string]int{}}
	out := strings.Join(c.blocks(parseHTML(src).kids), "\n\n")
	for k, n := range c.notes {
		losses = append(losses, Loss{Kind: k, Count: n})
	}
	slices.SortFunc(losses, func(a, b Loss) int { return strings.Compare(a.Kind, b.Kind) })
	if out != "" {
		out += "\n"
	}
	return out, losses
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
// own in the Markdown: a block, or one dropped. Text around it goes into
// separate paragraphs.
func IsBlock(name string) bool {
	return blockElements[name] || droppedElements[name]
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

// The element tables: what the tokenizer and the converter know of HTML.

// voidElements have no content and no end tag.
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

// blockElements start a new block in Markdown.
var blockElements = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true,
	"aside": true, "nav": true, "address": true, "center": true, "h1": true, "h2": true, "h3": true, "h4": true,
	"h5": true, "h6": true, "ul": true, "ol": true, "li": true, "blockquote": true, "pre": true, "hr": true,
	"figure": true, "figcaption": true, "dl": true, "dt": true, "dd": true, "hgroup": true, "body": true, "html": true,
	"table": true, "form": true, "fieldset": true, "legend": true, "details": true,
}
