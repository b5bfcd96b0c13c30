package htmltomd

import (
	"net/url"
	"strings"
)

// The shapes of WordPress's blocks and Ghost's cards that need more than
// the element rules of markdown.go, found by their classes, and the links
// that embeds and media become (docs/export-import.md#html-to-markdown).
// Everything else of both (columns, groups, buttons, headers, calls to
// action) is plain HTML that the element rules read as it is.

// card converts an element that is one of the known blocks or cards; ok is
// false for any other element, which the element rules then convert.
func (c *mdConverter) card(n *htmlNode) (out []string, ok bool) {
	if n.attr("class") == "" {
		return nil, false
	}
	switch {
	case hasClass(n, "wp-block-gallery", "blocks-gallery-grid", "kg-gallery-card"),
		hasClass(n, "gallery") && find(n, withClass("gallery-item")) != nil: // WordPress's classic gallery
		return c.gallery(n)
	case hasClass(n, "kg-bookmark-card"):
		return c.bookmark(n)
	case hasClass(n, "kg-callout-card"):
		return c.callout(n), true
	case hasClass(n, "kg-toggle-card"):
		return c.toggle(n)
	case hasClass(n, "kg-audio-card"):
		audio := find(n, func(m *htmlNode) bool { return m.name == "audio" })
		if audio == nil {
			return nil, false
		}
		return c.mediaOrCaption(audio, plainText(find(n, withClass("kg-audio-title"))), nil), true
	case hasClass(n, "kg-file-card", "wp-block-file"):
		return c.file(n)
	case hasClass(n, "kg-product-card-rating"):
		// Five stars, the given ones lit: the rating, in text.
		var stars strings.Builder
		for _, k := range n.kids {
			if hasClass(k, "kg-product-card-rating-star") {
				if hasClass(k, "kg-product-card-rating-active") {
					stars.WriteString("★")
				} else {
					stars.WriteString("☆")
				}
			}
		}
		return nonEmpty(stars.String()), true
	case n.name == "form" && hasClass(n, "kg-signup-card-form"):
		// A newsletter sign-up that works only on the Ghost site.
		c.note(lossSignup)
		return nil, true
	case hasClass(n, "wp-caption-text"):
		return nonEmpty(c.captionLine(n.kids)), true
	case hasClass(n, "wp-block-cover", "wp-block-cover-image"):
		// Older covers hold their image in the style only.
		var out []string
		if u := styleImage(n.attr("style")); u != "" {
			out = append(out, "![]("+linkDest(u)+")")
		}
		return append(out, c.blocks(n.kids)...), true
	}
	return nil, false
}

// gallery converts a gallery into a list of its images, each with its
// caption, then the gallery's caption: WordPress's gallery block (a list
// of figures, or figures of image blocks), its classic gallery (items of
// an icon and a caption) and Ghost's gallery card (rows of images). A
// "gallery" without images is no gallery: ok is false.
func (c *mdConverter) gallery(n *htmlNode) (out []string, ok bool) {
	type item struct{ image, caption *htmlNode }
	var items []item
	var caption *htmlNode
	var collect func(m *htmlNode)
	collect = func(m *htmlNode) {
		for _, k := range m.kids {
			switch {
			case k.name == "":
			case isCaption(k):
				if caption == nil {
					caption = k
				}
			case k.name == "figure" || k.name == "li" || k.name == "dl" ||
				hasClass(k, "gallery-item", "blocks-gallery-item", "kg-gallery-image"):
				images := imagesIn(k)
				for i, img := range images {
					it := item{image: img}
					if i == len(images)-1 {
						it.caption = find(k, isCaption)
					}
					items = append(items, it)
				}
			case k.name == "img" || isImageLink(k):
				items = append(items, item{image: k})
			default:
				collect(k)
			}
		}
	}
	collect(n)
	var lines []string
	for _, it := range items {
		l := c.paragraph([]*htmlNode{it.image})
		if l == "" {
			continue
		}
		if it.caption != nil {
			if t := c.captionLine(it.caption.kids); t != "" {
				l += "\\\n" + t
			}
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return nil, false
	}
	if c.nested < maxNesting {
		for i, l := range lines {
			lines[i] = "- " + strings.ReplaceAll(l, "\n", "\n  ")
		}
		out = []string{strings.Join(lines, "\n")}
	} else {
		out = lines
	}
	if caption != nil {
		out = append(out, nonEmpty(c.captionLine(caption.kids))...)
	}
	return out, true
}

func isCaption(n *htmlNode) bool {
	return n.name == "figcaption" ||
		hasClass(n, "wp-caption-text", "gallery-caption", "blocks-gallery-caption", "blocks-gallery-item__caption")
}

// isImageLink reports whether n is a link around one image and nothing
// else.
func isImageLink(n *htmlNode) bool {
	if n.name != "a" {
		return false
	}
	els := elements(n)
	return len(els) == 1 && els[0].name == "img"
}

// imagesIn lists the images (or links around one) in n, captions aside.
func imagesIn(n *htmlNode) []*htmlNode {
	var out []*htmlNode
	var walk func(m *htmlNode)
	walk = func(m *htmlNode) {
		for _, k := range m.kids {
			switch {
			case k.name == "" || isCaption(k):
			case k.name == "img" || isImageLink(k):
				out = append(out, k)
			default:
				walk(k)
			}
		}
	}
	walk(n)
	return out
}

// bookmark converts Ghost's bookmark card: a link titled with the page's
// title, its description as a line under it, and the card's caption.
func (c *mdConverter) bookmark(n *htmlNode) (out []string, ok bool) {
	a := find(n, func(m *htmlNode) bool { return m.name == "a" && strings.TrimSpace(m.attr("href")) != "" })
	if a == nil {
		return nil, false
	}
	href := strings.TrimSpace(a.attr("href"))
	p := link(plainText(find(a, withClass("kg-bookmark-title"))), href)
	if d := plainText(find(a, withClass("kg-bookmark-description"))); d != "" {
		p += "\\\n" + escapeLineStart(EscapeText(d))
	}
	out = []string{p}
	if cap := find(n, func(m *htmlNode) bool { return m.name == "figcaption" }); cap != nil {
		out = append(out, nonEmpty(c.captionLine(cap.kids))...)
	}
	return out, true
}

// callout converts Ghost's callout card, an emoji and a text in a coloured
// box, into a quote: the emoji, then the text.
func (c *mdConverter) callout(n *htmlNode) []string {
	var kids []*htmlNode
	if emoji := find(n, withClass("kg-callout-emoji")); emoji != nil {
		kids = append(append(kids, emoji.kids...), &htmlNode{text: " "})
	}
	for _, k := range n.kids {
		switch {
		case hasClass(k, "kg-callout-emoji"):
		case hasClass(k, "kg-callout-text"):
			kids = append(kids, k.kids...)
		default:
			kids = append(kids, k)
		}
	}
	return c.quote(&htmlNode{name: "blockquote", kids: kids})
}

// toggle converts Ghost's toggle card, which folds its content under a
// heading: the heading in bold, then the content; the heading's button is
// left out. ok is false for a card with neither.
func (c *mdConverter) toggle(n *htmlNode) (out []string, ok bool) {
	heading := find(n, withClass("kg-toggle-heading-text"))
	if heading == nil && find(n, withClass("kg-toggle-content")) == nil {
		return nil, false
	}
	if heading != nil {
		if t := c.line(heading.kids); t != "" {
			out = append(out, "**"+t+"**")
		}
	}
	var rest []*htmlNode
	for _, k := range n.kids {
		if k != heading && !hasClass(k, "kg-toggle-heading") {
			rest = append(rest, k)
		}
	}
	return append(out, c.blocks(rest)...), true
}

// file converts Ghost's file card and WordPress's file block: a link to
// the file, titled with its title (else its name), and the card's caption
// as a line under it. The block's download button and preview, which
// repeat the link, are left out.
func (c *mdConverter) file(n *htmlNode) (out []string, ok bool) {
	a := find(n, func(m *htmlNode) bool {
		return m.name == "a" && strings.TrimSpace(m.attr("href")) != "" && !hasClass(m, "wp-block-file__button")
	})
	if a == nil {
		return nil, false
	}
	href := strings.TrimSpace(a.attr("href"))
	var title, caption string
	if hasClass(n, "kg-file-card") {
		title = plainText(find(a, withClass("kg-file-card-title")))
		if title == "" {
			title = plainText(find(a, withClass("kg-file-card-filename")))
		}
		caption = plainText(find(a, withClass("kg-file-card-caption")))
	} else {
		title = plainText(a)
	}
	if title == "" {
		title = fileName(href)
	}
	p := link(title, href)
	if caption != "" {
		p += "\\\n" + escapeLineStart(EscapeText(caption))
	}
	return []string{p}, true
}

// mediaFigure converts a figure of a video, audio or embed and its
// caption into a link to the media titled with the caption: WordPress's
// video, audio and embed blocks, Ghost's video and embed cards, and any
// figure that holds one such element and nothing else to read. An embed
// block without an element holds the address as its text. ok is false for
// other figures.
func (c *mdConverter) mediaFigure(n *htmlNode) (out []string, ok bool) {
	var caption *htmlNode
	for _, k := range n.kids {
		if k.name == "figcaption" {
			caption = k
		}
	}
	media := find(n, func(m *htmlNode) bool { return mediaElements[m.name] && m.name != "source" })
	if media == nil {
		if !hasClass(n, "wp-block-embed") {
			return nil, false
		}
		u := plainText(find(n, withClass("wp-block-embed__wrapper")))
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") || strings.ContainsAny(u, " <>\"") {
			return nil, false
		}
		c.note(lossEmbed)
		text := plainText(caption)
		if text == "" {
			text = u
		}
		return []string{link(text, u)}, true
	}
	if !hasClass(n, "wp-block-video", "wp-block-audio", "wp-block-embed", "kg-video-card", "kg-embed-card") && !holdsOnly(n, media) {
		return nil, false
	}
	return c.mediaOrCaption(media, plainText(caption), caption), true
}

// mediaOrCaption is the link to a media element, titled text; without an
// address, the caption alone.
func (c *mdConverter) mediaOrCaption(media *htmlNode, text string, caption *htmlNode) []string {
	if l := c.mediaLink(media, text); l != "" {
		return []string{l}
	}
	if caption != nil {
		return nonEmpty(c.captionLine(caption.kids))
	}
	return nil
}

// holdsOnly reports whether n holds media and nothing else to read: blank
// text, its caption, and elements with neither text nor image around it.
func holdsOnly(n, media *htmlNode) bool {
	for _, k := range n.kids {
		switch {
		case k == media || k.name == "figcaption" || isBlankText(k):
		case k.name == "":
			return false
		case find(k, func(m *htmlNode) bool { return m == media }) != nil:
			if !holdsOnly(k, media) {
				return false
			}
		case plainText(k) != "" || k.name == "img" || find(k, func(m *htmlNode) bool { return m.name == "img" }) != nil:
			return false
		}
	}
	return true
}

// mediaElements are the elements that become a link to their address.
var mediaElements = map[string]bool{
	"iframe": true, "video": true, "audio": true, "object": true, "embed": true, "source": true,
}

// mediaLink is a link to a media element's address, counting the loss:
// text is the link's text; empty, the element's title, else its file's
// name, else the address. Without an address it is "", counted too.
func (c *mdConverter) mediaLink(n *htmlNode, text string) string {
	u := mediaURL(n)
	if u == "" {
		c.note(lossNoAddress)
		return ""
	}
	switch n.name {
	case "video":
		c.note(lossVideo)
	case "audio":
		c.note(lossAudio)
	default:
		c.note(lossEmbed)
	}
	if text == "" {
		text = strings.Join(strings.Fields(n.attr("title")), " ")
	}
	if text == "" {
		text = fileName(u)
	}
	return link(text, u)
}

// mediaURL is the address a media element shows: its src (or the data-src
// of a lazily loaded one), an object's data or movie parameter, or a video
// or audio's first source.
func mediaURL(n *htmlNode) string {
	attrs := []string{"src", "data-src", "data-lazy-src"}
	if n.name == "object" {
		attrs = []string{"data"}
	}
	for _, a := range attrs {
		if u := strings.TrimSpace(n.attr(a)); u != "" && u != "about:blank" {
			return u
		}
	}
	for _, k := range n.kids {
		switch {
		case (n.name == "video" || n.name == "audio") && k.name == "source",
			n.name == "object" && k.name == "param" && (strings.EqualFold(k.attr("name"), "movie") || strings.EqualFold(k.attr("name"), "src")):
			if u := strings.TrimSpace(k.attr("src") + k.attr("value")); u != "" {
				return u
			}
		}
	}
	return ""
}

// fileName is the last part of a URL's path when it names a file
// ("clip.mp4"), else "".
func fileName(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p := parsed.Path
	name := p[strings.LastIndexByte(p, '/')+1:]
	if i := strings.LastIndexByte(name, '.'); i <= 0 || i == len(name)-1 {
		return ""
	}
	return name
}

// link writes a link to u with text (plain text, escaped here); without
// text, the address is the text.
func link(text, u string) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		text = u
	}
	return "[" + EscapeText(text) + "](" + linkDest(u) + ")"
}

// styleImage is the address of a background image in a style attribute.
func styleImage(style string) string {
	i := indexFold(style, "url(")
	if i < 0 {
		return ""
	}
	rest := style[i+4:]
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return ""
	}
	return strings.Trim(strings.TrimSpace(rest[:end]), `'"`)
}

// hasClass reports whether n has one of the classes.
func hasClass(n *htmlNode, classes ...string) bool {
	if n == nil || n.name == "" {
		return false
	}
	for _, have := range strings.Fields(n.attr("class")) {
		for _, want := range classes {
			if have == want {
				return true
			}
		}
	}
	return false
}

func withClass(class string) func(*htmlNode) bool {
	return func(m *htmlNode) bool { return hasClass(m, class) }
}

// find is the first element under n (depth first) that match accepts.
func find(n *htmlNode, match func(*htmlNode) bool) *htmlNode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == "" {
			continue
		}
		if match(k) {
			return k
		}
		if f := find(k, match); f != nil {
			return f
		}
	}
	return nil
}
