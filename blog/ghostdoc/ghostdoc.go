// Package ghostdoc reads the documents of Ghost's editors into blocks that
// the blog's Ghost import turns into Markdown (docs/export-import.md#ghost):
// Mobiledoc, the format of Ghost 1 to 4, and Lexical, the format of
// Ghost 5 and 6, each with the cards of Ghost's editor
// (an image, a gallery, a bookmark, a Markdown card, …). It knows nothing
// of the blog.
//
// A document becomes a list of blocks in order. A Markdown card is a block
// of Markdown, as its author wrote it; everything else (text, headings,
// lists, quotes, images and the other cards) is a block of plain HTML of
// the kind an HTML-to-Markdown converter reads well (an image in a
// paragraph of its own, a link, a code block), which the caller converts.
// What has no place in a post on the web is left out and counted by kind
// in Losses: cards shown only in emails, sign-up forms, players of outside
// services. Cards shown on the web to members only are kept and counted in
// MembersOnly, so that the caller can keep such a post from the public.
//
// Text of the document is escaped into the HTML; the parts of cards Ghost
// itself stores as HTML (captions, a callout's text, an HTML card) are
// passed on as they are: converting them is the caller's.
//
// It never panics and never loops on any input: a document that is not
// JSON, or not of the format's shape, is an error; any part of unexpected
// shape inside one is skipped and counted. Bounding the size of the
// document is the caller's.
//
// The files: ghostdoc.go holds this API and the cards, which both formats
// share (a Lexical document stores a card as a node carrying the card's
// Mobiledoc payload); mobiledoc.go reads Mobiledoc, lexical.go Lexical.
package ghostdoc

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode"
)

// A Block is one part of a document: Markdown as written, or HTML.
// Exactly one of the two is set.
type Block struct {
	Markdown string
	HTML     string
}

// A Doc is a document read into blocks.
type Doc struct {
	Blocks []Block
	// Paywall is the number of blocks before Ghost's paywall mark, where
	// the public preview of a post for members ends; -1 without one.
	Paywall int
	// MembersOnly counts the cards Ghost shows on the web to members only.
	MembersOnly int
	// Losses counts what the blocks lack of the document, by kind: a short
	// phrase a person reads in an import's report (`Ghost card "signup"
	// left out`), always spelled the same.
	Losses map[string]int
}

// MarkdownOnly reports whether the document is made of Markdown cards
// alone (a post written in Ghost's Markdown editor, or moved from Ghost
// 0.x): its Markdown is then the post as written.
func (d *Doc) MarkdownOnly() bool {
	if len(d.Blocks) == 0 || len(d.Losses) > 0 {
		return false
	}
	for _, b := range d.Blocks {
		if b.Markdown == "" {
			return false
		}
	}
	return true
}

// Loss kinds that are not about one card.
const (
	LossEmailOnly     = "Ghost card shown only in emails left out"
	LossUnknownPart   = "part of a Ghost document of an unknown kind left out"
	LossNestedTooDeep = "part of a Ghost document nested too deeply left out"
)

// maxDepth bounds how deep a document's nodes are read; deeper ones are
// left out (and counted), so that no document makes the reader recurse
// without end.
const maxDepth = 64

// builder collects a document's blocks.
type builder struct {
	doc Doc
}

func newBuilder() *builder {
	return &builder{doc: Doc{Paywall: -1, Losses: map[string]int{}}}
}

func (b *builder) html(s string) {
	if strings.TrimSpace(s) != "" {
		b.doc.Blocks = append(b.doc.Blocks, Block{HTML: s})
	}
}

func (b *builder) markdown(s string) {
	if strings.TrimSpace(s) != "" {
		b.doc.Blocks = append(b.doc.Blocks, Block{Markdown: s})
	}
}

func (b *builder) loss(kind string) { b.doc.Losses[kind]++ }

func (b *builder) done() *Doc {
	if len(b.doc.Losses) == 0 {
		b.doc.Losses = nil
	}
	return &b.doc
}

// card adds the blocks of one card: name is its Mobiledoc name, p its
// payload (for a Lexical document, the node).
func (b *builder) card(name string, p map[string]any) {
	switch visibility(p) {
	case hidden:
		b.loss(LossEmailOnly)
		return
	case membersOnly:
		b.doc.MembersOnly++
	}
	switch name {
	case "markdown", "card-markdown":
		b.markdown(text(p, "markdown"))
	case "html":
		b.html(text(p, "html"))
	case "image":
		b.html(figure(text(p, "src"), text(p, "alt"), text(p, "title"), text(p, "href"), text(p, "caption")))
	case "gallery":
		var s strings.Builder
		for _, v := range list(p, "images") {
			img, _ := v.(map[string]any)
			s.WriteString(figure(text(img, "src"), text(img, "alt"), text(img, "title"), text(img, "href"), text(img, "caption")))
		}
		s.WriteString(caption(text(p, "caption")))
		b.html(s.String())
	case "before-after":
		before, _ := p["beforeImage"].(map[string]any)
		after, _ := p["afterImage"].(map[string]any)
		b.html(figure(text(before, "src"), text(before, "alt"), "", "", "") + figure(text(after, "src"), text(after, "alt"), "", "", "") +
			caption(text(p, "caption")))
	case "code", "codeblock":
		code := text(p, "code")
		if code == "" {
			return
		}
		class := ""
		if lang := text(p, "language"); lang != "" {
			class = ` class="language-` + html.EscapeString(lang) + `"`
		}
		b.html("<pre><code" + class + ">" + html.EscapeString(code) + "</code></pre>" + caption(text(p, "caption")))
	case "embed":
		url := text(p, "url")
		meta, _ := p["metadata"].(map[string]any)
		if url == "" {
			// An embed of pasted code alone: its HTML is all there is.
			b.html(text(p, "html") + caption(text(p, "caption")))
			return
		}
		b.html(link(url, first(text(meta, "title"), url)) + caption(text(p, "caption")))
	case "bookmark":
		url := text(p, "url")
		meta, _ := p["metadata"].(map[string]any)
		if url != "" {
			b.html(link(url, first(text(meta, "title"), url)) + caption(text(p, "caption")))
		}
	case "hr", "horizontalrule":
		b.html("<hr>")
	case "callout":
		body := text(p, "calloutText")
		if emoji := text(p, "calloutEmoji"); emoji != "" {
			if i := strings.IndexByte(body, '>'); strings.HasPrefix(body, "<p") && i > 0 {
				// Into the text's first paragraph.
				body = body[:i+1] + html.EscapeString(emoji) + " " + body[i+1:]
			} else {
				body = html.EscapeString(emoji) + " " + body
			}
		}
		if strings.TrimSpace(body) != "" {
			b.html("<blockquote>" + paragraph(body) + "</blockquote>")
		}
	case "toggle":
		s := ""
		if h := text(p, "heading"); h != "" {
			s = "<p><strong>" + h + "</strong></p>"
		}
		b.html(s + paragraph(text(p, "content")))
	case "button":
		if url := text(p, "buttonUrl"); url != "" {
			b.html(link(url, first(text(p, "buttonText"), url)))
		}
	case "video", "audio", "file":
		url := text(p, "src")
		if url == "" {
			return
		}
		s := link(url, first(text(p, "title"), text(p, "fileTitle"), text(p, "fileName"), url))
		if c := text(p, "fileCaption"); c != "" {
			s += "<p>" + html.EscapeString(c) + "</p>"
		}
		b.html(s + caption(text(p, "caption")))
	case "header":
		var s strings.Builder
		if h := text(p, "header"); h != "" {
			s.WriteString("<h2>" + h + "</h2>")
		}
		s.WriteString(paragraph(text(p, "subheader")))
		if enabled, _ := p["buttonEnabled"].(bool); enabled && text(p, "buttonUrl") != "" {
			s.WriteString(link(text(p, "buttonUrl"), first(text(p, "buttonText"), text(p, "buttonUrl"))))
		}
		b.html(s.String())
	case "product":
		var s strings.Builder
		s.WriteString(figure(text(p, "productImageSrc"), "", "", "", ""))
		if t := text(p, "productTitle"); t != "" {
			s.WriteString("<p><strong>" + t + "</strong></p>")
		}
		s.WriteString(paragraph(text(p, "productDescription")))
		if enabled, _ := p["productButtonEnabled"].(bool); enabled && text(p, "productUrl") != "" {
			s.WriteString(link(text(p, "productUrl"), first(text(p, "productButton"), text(p, "productUrl"))))
		}
		b.html(s.String())
	case "call-to-action":
		var s strings.Builder
		s.WriteString(figure(text(p, "imageUrl"), "", "", "", ""))
		s.WriteString(paragraph(text(p, "textValue")))
		if show, ok := p["showButton"].(bool); (show || !ok) && text(p, "buttonUrl") != "" {
			s.WriteString(link(text(p, "buttonUrl"), first(text(p, "buttonText"), text(p, "buttonUrl"))))
		}
		b.html(s.String())
	case "paywall":
		if b.doc.Paywall < 0 {
			b.doc.Paywall = len(b.doc.Blocks)
		}
	case "email", "email-cta":
		b.loss(LossEmailOnly)
	default:
		b.unknownCard(name, p)
	}
}

// unknownCard keeps the text of a card this package does not know, if it
// has any in the fields where Ghost's cards keep theirs, and counts it.
func (b *builder) unknownCard(name string, p map[string]any) {
	kept := false
	if md := text(p, "markdown"); strings.TrimSpace(md) != "" {
		b.markdown(md)
		kept = true
	}
	var s strings.Builder
	for _, k := range []string{"html", "content", "textValue", "caption"} {
		s.WriteString(paragraph(text(p, k)))
	}
	for _, k := range []string{"title", "text"} {
		if t := text(p, k); strings.TrimSpace(t) != "" {
			s.WriteString("<p>" + html.EscapeString(t) + "</p>")
		}
	}
	if strings.TrimSpace(s.String()) != "" {
		b.html(s.String())
		kept = true
	}
	if kept {
		b.loss(fmt.Sprintf("Ghost card %s: only its text kept", quoteName(name)))
	} else {
		b.loss(fmt.Sprintf("Ghost card %s left out", quoteName(name)))
	}
}

// quoteName quotes a card's name for a loss kind, bounded and printable,
// since the name comes from the document.
func quoteName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, name)
	if r := []rune(name); len(r) > 40 {
		name = string(r[:40]) + "…"
	}
	return strconv.Quote(name)
}

// Who may see a card on the web.
const (
	public = iota
	membersOnly
	hidden // not on the web at all: in emails only
)

// visibility reads a card's visibility, in the form Ghost 5.x writes
// ({"web": {"nonMember": bool, "memberSegment": "…"}, "email": …}) or the
// older one ({"showOnWeb": bool} or {"emailOnly": bool}).
func visibility(p map[string]any) int {
	v, _ := p["visibility"].(map[string]any)
	if v == nil {
		return public
	}
	if web, ok := v["web"].(map[string]any); ok {
		nonMember, ok := web["nonMember"].(bool)
		if !ok || nonMember {
			return public
		}
		if segment, _ := web["memberSegment"].(string); segment == "" {
			return hidden
		}
		return membersOnly
	}
	if emailOnly, _ := v["emailOnly"].(bool); emailOnly {
		return hidden
	}
	if onWeb, ok := v["showOnWeb"].(bool); ok && !onWeb {
		return hidden
	}
	return public
}

// text is the string field k of m; "" when m is nil or the field is not
// a string.
func text(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// list is the array field k of m; nil when it is not an array.
func list(m map[string]any, k string) []any {
	l, _ := m[k].([]any)
	return l
}

// first is the first of ss that is not blank.
func first(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// figure is an image as a paragraph of its own, linked when href is set,
// then its caption (HTML) as caption writes it; "" without a source. (Not
// a figure element: a paragraph and an image are what every reader of
// HTML turns into Markdown alike.)
func figure(src, alt, title, href, captionHTML string) string {
	if src == "" {
		return ""
	}
	img := `<img src="` + html.EscapeString(src) + `" alt="` + html.EscapeString(alt) + `"`
	if title != "" {
		img += ` title="` + html.EscapeString(title) + `"`
	}
	img += ">"
	if href != "" {
		img = `<a href="` + html.EscapeString(href) + `">` + img + "</a>"
	}
	return "<p>" + img + "</p>" + caption(captionHTML)
}

// caption is a card's caption (HTML) as a paragraph in italics; "" for none.
func caption(captionHTML string) string {
	if strings.TrimSpace(captionHTML) == "" {
		return ""
	}
	return "<p><em>" + captionHTML + "</em></p>"
}

// link is a paragraph holding a link to url with text (plain text).
func link(url, text string) string {
	return `<p><a href="` + html.EscapeString(url) + `">` + html.EscapeString(text) + "</a></p>"
}

// paragraph is HTML a card stores (a caption, a callout's text), wrapped in
// a paragraph unless it holds its own; "" for none.
func paragraph(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return ""
	}
	if strings.HasPrefix(t, "<p") || strings.HasPrefix(t, "<h") || strings.HasPrefix(t, "<ul") ||
		strings.HasPrefix(t, "<ol") || strings.HasPrefix(t, "<blockquote") || strings.HasPrefix(t, "<div") {
		return s
	}
	return "<p>" + s + "</p>"
}
