package blog

import (
	"bytes"
	"html"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"folio/blog/htmltomd"
)

// WordPress's shortcodes and embeds, turned into the HTML WordPress would
// show for them, in a form the converter makes readable Markdown of
// (docs/export-import.md#wordpress-wxr): [caption] a figure of the image
// and its caption, [gallery] a list of its images, [embed] and a URL alone
// on a line a link, [video], [audio] and [playlist] links to their files.
// Other shortcodes stay as the text they are, counted in the report.

// wxrAttachment is an attachment item of the export: what a gallery, a
// playlist or a featured image needs of it.
type wxrAttachment struct {
	id, parent, url, title, caption, alt string
	order                                int
}

// wxrMedia holds the export's attachments, read in a first pass since they
// may come after the posts that use them.
type wxrMedia struct {
	byID     map[string]*wxrAttachment
	children map[string][]*wxrAttachment // by parent post, in menu order
	dropped  int                         // attachments past maxWXRAttachments
}

// maxWXRAttachments bounds the attachments an import keeps, and
// maxAttachmentText the length of each text of one: they are read
// before the import, and held through it.
const (
	maxWXRAttachments = 100_000
	maxAttachmentText = 2 << 10
)

func (m *wxrMedia) add(n *xmlNode) {
	if m.byID == nil {
		m.byID = map[string]*wxrAttachment{}
		m.children = map[string][]*wxrAttachment{}
	}
	id := n.child("post_id")
	if id == "" || m.byID[id] != nil {
		return
	}
	if len(m.byID) >= maxWXRAttachments {
		m.dropped++
		return
	}
	a := &wxrAttachment{id: id, parent: n.child("post_parent"), url: n.child("attachment_url"),
		title: clip(n.child("title")), caption: clip(htmltomd.Text(n.rawIn(isExcerpt, "encoded")))}
	if a.url == "" {
		a.url = n.child("guid")
	}
	if len(a.url) > maxAttachmentText {
		a.url = ""
	}
	a.url = strings.Clone(a.url)
	a.order, _ = strconv.Atoi(n.child("menu_order"))
	for _, meta := range n.childrenNamed("postmeta") {
		if meta.child("meta_key") == "_wp_attachment_image_alt" {
			a.alt = clip(meta.child("meta_value"))
		}
	}
	m.byID[id] = a
	if a.parent != "" && a.parent != "0" {
		m.children[a.parent] = append(m.children[a.parent], a)
	}
}

// clip bounds one text of an attachment, at a character boundary.
func clip(s string) string {
	if len(s) > maxAttachmentText {
		s = strings.ToValidUTF8(s[:maxAttachmentText], "")
	}
	return strings.Clone(s)
}

// sort puts each post's attachments in WordPress's gallery order: menu
// order, then id.
func (m *wxrMedia) sort() {
	for _, list := range m.children {
		slices.SortStableFunc(list, func(a, b *wxrAttachment) int {
			if a.order != b.order {
				return a.order - b.order
			}
			ai, _ := strconv.Atoi(a.id)
			bi, _ := strconv.Atoi(b.id)
			return ai - bi
		})
	}
}

// Kinds of attachment by their file's extension, as WordPress's media
// shortcodes tell them.
var (
	imageExts = []string{"jpg", "jpeg", "jpe", "png", "gif", "webp", "avif", "bmp", "ico", "svg", "heic", "heif", "tif", "tiff"}
	videoExts = []string{"mp4", "m4v", "webm", "ogv", "wmv", "flv", "mov"}
	audioExts = []string{"mp3", "ogg", "oga", "m4a", "wav", "flac", "wma"}
)

// fileExt is the lower-case extension of a URL's path.
func fileExt(u string) string {
	if p, err := url.Parse(u); err == nil {
		u = p.Path
	}
	return strings.ToLower(strings.TrimPrefix(path.Ext(u), "."))
}

// fileName is the last part of a URL's path, for a link's text.
func fileName(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return u
	}
	name := path.Base(p.Path)
	if name == "/" || name == "." {
		return u
	}
	return name
}

// wpExpander rewrites one post's content: its shortcodes, embeds and
// embed blocks. It reads the content once, left to right; the search for
// each shortcode's end is remembered, so that no content makes it read the
// same text over and over.
type wpExpander struct {
	src    string
	out    []byte
	media  *wxrMedia
	post   string         // the post's id: the parent of its own attachments
	losses map[string]int // by kind, as htmltomd's
	// unknown names the unknown shortcodes reported, across the import:
	// past maxShortcodeKinds names, the others are counted together.
	unknown map[string]bool
	// closeAt caches, by needle, where its next occurrence at or after
	// from is (-1: none).
	closeAt map[string][2]int
	// tooLarge is set once the output passes maxConvertedHTML.
	tooLarge bool
}

// maxShortcodeKinds bounds the shortcode names one import's report names.
const maxShortcodeKinds = 20

// Loss kinds of the WordPress import, as the report prints them.
const (
	lossEmbed        = "embed kept as a link"
	lossVideo        = "video kept as a link"
	lossAudio        = "audio kept as a link"
	lossPlaylist     = "playlist kept as links"
	lossNoMedia      = "video or audio without a file removed"
	lossGalleryImage = "gallery image not in the export left out"
	lossEmptyGallery = "gallery with no image in the export removed"
	lossNextPage     = "page break (<!--nextpage-->) removed: the pages are joined"
	lossOtherCode    = "shortcodes of other names kept as text"
)

func lossUnknownShortcode(name string) string { return "shortcode [" + name + "] kept as text" }

// expandShortcodes returns content with its shortcodes and embeds made
// HTML; losses and unknown are added to.
func expandShortcodes(content, post string, media *wxrMedia, losses map[string]int, unknown map[string]bool) (string, bool) {
	x := &wpExpander{src: content, media: media, post: post, losses: losses, unknown: unknown, closeAt: map[string][2]int{}}
	x.run()
	if x.tooLarge {
		return "", false
	}
	return string(x.out), true
}

// find is strings.Index(src[from:], needle)+from, or -1, remembering the
// answer so that a later search from a greater from needs no new reading
// while the answer still lies ahead of it.
func (x *wpExpander) find(needle string, from int) int {
	if c, ok := x.closeAt[needle]; ok && from >= c[0] && (c[1] < 0 || c[1] >= from) {
		return c[1]
	}
	at := strings.Index(x.src[from:], needle)
	if at >= 0 {
		at += from
	}
	x.closeAt[needle] = [2]int{from, at}
	return at
}

// findFold is find for an ASCII needle in any case (HTML tag names).
func (x *wpExpander) findFold(needle string, from int) int {
	key := "\x00" + needle
	if c, ok := x.closeAt[key]; ok && from >= c[0] && (c[1] < 0 || c[1] >= from) {
		return c[1]
	}
	at := indexFold(x.src[from:], needle)
	if at >= 0 {
		at += from
	}
	x.closeAt[key] = [2]int{from, at}
	return at
}

// indexFold is strings.Index ignoring ASCII case; needle begins with a
// byte that has no case ('<').
func indexFold(s, needle string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], needle[0])
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(s[i:], needle) {
			return i
		}
		i++
	}
}

func (x *wpExpander) write(s string) {
	x.out = append(x.out, s...)
	if len(x.out) > maxConvertedHTML {
		x.tooLarge = true
	}
}

// block writes the HTML of a shortcode that stands on its own, set apart
// from the text around it; a paragraph that held nothing but the
// shortcode (the block editor's <p>[gallery]</p>) is dropped, as
// WordPress's own shortcode_unautop does. rest is the content after the
// shortcode; block returns how much of it it took.
func (x *wpExpander) block(h, rest string) int {
	trimmed := bytes.TrimRight(x.out, " \t\n")
	after := strings.TrimLeft(rest, " \t\n")
	took := 0
	if bytes.HasSuffix(trimmed, []byte("<p>")) && strings.HasPrefix(after, "</p>") {
		x.out = trimmed[:len(trimmed)-len("<p>")]
		took = len(rest) - len(after) + len("</p>")
	}
	x.write("\n\n" + h + "\n\n")
	return took
}

func (x *wpExpander) run() {
	s := x.src
	i := 0
	lineStart := true
	for i < len(s) && !x.tooLarge {
		if lineStart {
			if n, ok := x.urlLine(s[i:]); ok {
				i += n
				lineStart = false
				continue
			}
		}
		j := strings.IndexAny(s[i:], "<[\n")
		if j < 0 {
			x.write(s[i:])
			return
		}
		x.write(s[i : i+j])
		i += j
		lineStart = false
		switch s[i] {
		case '\n':
			x.write("\n")
			i++
			lineStart = true
		case '<':
			i += x.tag(i)
		case '[':
			i += x.shortcode(i)
		}
	}
}

// urlLine turns a line that is only an http(s) URL into a link: WordPress
// shows an embed for one (a video, a post of another site), or a link
// when it knows no embed for it.
func (x *wpExpander) urlLine(s string) (int, bool) {
	end := strings.IndexByte(s, '\n')
	if end < 0 {
		end = len(s)
	}
	u := strings.Trim(s[:end], " \t")
	if !bareURL(u) {
		return 0, false
	}
	x.losses[lossEmbed]++
	x.block(linkParagraph(html.UnescapeString(u), html.UnescapeString(u)), "")
	return end, true
}

// bareURL: an http(s) URL with nothing else, as WordPress's auto-embed
// matches one.
func bareURL(u string) bool {
	lower := strings.ToLower(u)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") || len(u) <= len("https://") {
		return false
	}
	return !strings.ContainsAny(u, " \t\r\n<>\"")
}

func linkParagraph(href, text string) string {
	return `<p><a href="` + html.EscapeString(href) + `">` + html.EscapeString(text) + `</a></p>`
}

// maxURLParagraph and maxEmbedBlock bound how far a paragraph of one URL
// and an embed block are looked into: a URL is a line, an embed block a
// few, and no content makes the reader look far ahead from every tag.
const (
	maxURLParagraph = 4 << 10
	maxEmbedBlock   = 4 << 10
)

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Elements whose content is never searched for shortcodes: code shows
// them as written (WordPress's editors escape them there), a link's text
// is a link's, and the rest is no text at all.
var wpOpaqueElements = map[string]bool{"pre": true, "code": true, "a": true, "script": true, "style": true, "textarea": true, "xmp": true}

// tag passes an HTML tag, comment or opaque element through at s[i], or
// rewrites an embed block or a paragraph of one URL; it returns how many
// bytes it took.
func (x *wpExpander) tag(i int) int {
	s := x.src
	rest := s[i:]
	if strings.HasPrefix(rest, "<!--") {
		end := x.find("-->", i+4)
		if end < 0 {
			x.write(rest)
			return len(rest)
		}
		x.write(s[i : end+3])
		return end + 3 - i
	}
	name := tagName(rest)
	n := tagEnd(rest)
	if name == "" {
		x.write(rest[:1])
		return 1
	}
	switch {
	case wpOpaqueElements[name]:
		// An element left open is taken as its start tag alone.
		if end := x.closeTag(name, i+n); end >= 0 {
			close := tagEnd(s[end:])
			x.write(s[i : end+close])
			return end + close - i
		}
	case name == "figure" && hasClass(rest[:n], "wp-block-embed"):
		if took, ok := x.embedBlock(i, n); ok {
			return took
		}
	case name == "p":
		// <p>URL</p>: the block editor's paragraph of one URL, which
		// WordPress embeds too.
		inner := rest[n:]
		if end := strings.IndexByte(inner, '<'); end >= 0 && end <= maxURLParagraph && hasPrefixFold(inner[end:], "</p>") {
			if u := strings.TrimSpace(inner[:end]); bareURL(u) {
				x.losses[lossEmbed]++
				x.write(linkParagraph(html.UnescapeString(u), html.UnescapeString(u)))
				return n + end + len("</p>")
			}
		}
	}
	x.write(rest[:n])
	return n
}

// closeTag is where the first end tag of the element name is at or after
// from (-1: none).
func (x *wpExpander) closeTag(name string, from int) int {
	for {
		at := x.findFold("</"+name, from)
		if at < 0 {
			return -1
		}
		if after := at + 2 + len(name); after >= len(x.src) || isTagNameEnd(x.src[after]) {
			return at
		}
		from = at + 1
	}
}

// tagName is the lower-case name of the tag s begins with ("" for an end
// tag or what is no tag).
func tagName(s string) string {
	j := 1
	for j < len(s) && (isLetter(s[j]) || j > 1 && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == 1 || j < len(s) && !isTagNameEnd(s[j]) {
		return ""
	}
	return strings.ToLower(s[1:j])
}

// tagEnd is the length of the tag s begins with: up to its '>', past
// quoted attribute values; all of s when it never ends.
func tagEnd(s string) int {
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '>':
			return j + 1
		case '"', '\'':
			if k := strings.TrimRight(s[:j], " \t\n"); strings.HasSuffix(k, "=") {
				if e := strings.IndexByte(s[j+1:], s[j]); e >= 0 {
					j += e + 1
				}
			}
		}
	}
	return len(s)
}

// attrOf is an attribute's value in a start tag, unescaped; "" when the
// tag has none.
func attrOf(tag, name string) string {
	re := attrPattern
	for _, m := range re.FindAllStringSubmatch(tag, -1) {
		if strings.EqualFold(m[1], name) {
			v := m[2]
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
				v = v[1 : len(v)-1]
			}
			return html.UnescapeString(v)
		}
	}
	return ""
}

var attrPattern = regexp.MustCompile(`([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)`)

func hasClass(tag, class string) bool {
	return slices.Contains(strings.Fields(attrOf(tag, "class")), class)
}

// embedBlock rewrites the block editor's embed (a figure of class
// wp-block-embed around the URL, and maybe a caption) as a link and the
// caption; false when the figure holds no URL.
func (x *wpExpander) embedBlock(i, n int) (int, bool) {
	end := x.closeTag("figure", i+n)
	if end < 0 || end-(i+n) > maxEmbedBlock {
		return 0, false
	}
	inner := x.src[i+n : end]
	caption := ""
	if c := indexFold(inner, "<figcaption"); c >= 0 {
		caption = inner[c:]
		inner = inner[:c]
		caption = caption[tagEnd(caption):]
		if e := indexFold(caption, "</figcaption"); e >= 0 {
			caption = caption[:e]
		}
	}
	u := firstURL(inner)
	if u == "" {
		return 0, false
	}
	h := linkParagraph(u, u)
	if c := strings.TrimSpace(htmltomd.Text(caption)); c != "" {
		h += "<p>" + html.EscapeString(strings.Join(strings.Fields(c), " ")) + "</p>"
	}
	x.losses[lossEmbed]++
	x.write("\n\n" + h + "\n\n")
	return end + tagEnd(x.src[end:]) - i, true
}

// firstURL is the first word of s's text (outside its tags) that is an
// http(s) URL, its character references read; "" when there is none.
func firstURL(s string) string {
	for s != "" {
		lt := strings.IndexByte(s, '<')
		text := s
		if lt >= 0 {
			text = s[:lt]
		}
		for _, f := range strings.Fields(text) {
			if f = html.UnescapeString(f); bareURL(f) {
				return f
			}
		}
		if lt < 0 {
			return ""
		}
		s = s[lt+tagEnd(s[lt:]):]
	}
	return ""
}

// shortcode is one shortcode as WordPress reads it: [name attributes],
// [name attributes /], or [name attributes]content[/name].
type shortcode struct {
	name       string
	attrs      map[string]string
	positional []string
	content    string
}

// The shortcodes Folio expands; any other name is kept as text.
var knownShortcodes = map[string]bool{
	"caption": true, "wp_caption": true, "gallery": true, "embed": true, "video": true, "audio": true, "playlist": true,
}

// shortcode handles the text at s[i] == '[' and returns how many bytes it
// took.
func (x *wpExpander) shortcode(i int) int {
	s := x.src
	// [[name]] is WordPress's escape: it shows [name], unexpanded.
	if strings.HasPrefix(s[i:], "[[") {
		if sc, n, ok := x.parse(i + 1); ok && strings.HasPrefix(s[i+1+n:], "]") {
			if knownShortcodes[sc.name] {
				x.write(s[i+1 : i+1+n])
			} else {
				x.write(s[i : i+n+2]) // shown as written, since WordPress did not know it either
			}
			return n + 2
		}
		x.write("[")
		return 1
	}
	sc, n, ok := x.parse(i)
	if !ok {
		x.write("[")
		return 1
	}
	if !knownShortcodes[sc.name] {
		x.unknownShortcode(sc.name)
		// Only the opening is passed over (parse read no content):
		// shortcodes inside an unknown one's content are WordPress's to
		// expand, so they are Folio's.
		x.write(s[i : i+n])
		return n
	}
	var h string
	switch sc.name {
	case "caption", "wp_caption":
		h = x.caption(sc)
	case "gallery":
		h = x.gallery(sc)
	case "embed":
		h = x.embed(sc)
	case "video", "audio":
		h = x.mediaLink(sc)
	case "playlist":
		h = x.playlist(sc)
	}
	took := x.block(h, s[i+n:])
	return n + took
}

func (x *wpExpander) unknownShortcode(name string) {
	if len(name) > 40 {
		name = name[:40]
	}
	if !x.unknown[name] && len(x.unknown) >= maxShortcodeKinds {
		x.losses[lossOtherCode]++
		return
	}
	x.unknown[name] = true
	x.losses[lossUnknownShortcode(name)]++
}

// maxShortcodeAttrs bounds the attributes of one shortcode: WordPress's
// are a line, a [ without a ] that near is text.
const maxShortcodeAttrs = 16 << 10

// parse reads the shortcode at s[i] == '[' as WordPress's shortcode
// pattern does: a name, attributes up to the first ']', and, for the
// shortcodes Folio expands and unless the tag closes itself, content up to
// the first [/name] if there is one. The name of one Folio does not know
// must be followed by a space, ']' or '/', so that text in brackets
// ("[Note: …]") is not taken for one.
func (x *wpExpander) parse(i int) (shortcode, int, bool) {
	s := x.src
	j := i + 1
	for j < len(s) && isShortcodeNameByte(s[j]) {
		j++
	}
	name := s[i+1 : j]
	if name == "" || !isLetter(name[0]) || j >= len(s) {
		return shortcode{}, 0, false
	}
	known := knownShortcodes[name]
	if c := s[j]; !known && c != ']' && c != '/' && c != ' ' && c != '\t' && c != '\n' {
		return shortcode{}, 0, false
	}
	close := x.find("]", j)
	if close < 0 || close-j > maxShortcodeAttrs {
		return shortcode{}, 0, false
	}
	attrText := s[j:close]
	self := strings.HasSuffix(attrText, "/")
	attrText = strings.TrimSuffix(attrText, "/")
	sc := shortcode{name: name}
	n := close + 1 - i
	if !known {
		return sc, n, true
	}
	sc.attrs, sc.positional = shortcodeAttrs(attrText)
	if !self {
		if end := x.find("[/"+name+"]", close+1); end >= 0 {
			sc.content = s[close+1 : end]
			n = end + len("[/"+name+"]") - i
		}
	}
	return sc, n, true
}

func isShortcodeNameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// shortcodeAttrPattern is WordPress's shortcode attribute pattern: name="v",
// name='v', name=v, "v", 'v', or a bare word.
var shortcodeAttrPattern = regexp.MustCompile(`([\w-]+)\s*=\s*"([^"]*)"(?:\s|$)|([\w-]+)\s*=\s*'([^']*)'(?:\s|$)|([\w-]+)\s*=\s*([^\s'"]+)(?:\s|$)|"([^"]*)"(?:\s|$)|'([^']*)'(?:\s|$)|(\S+)(?:\s|$)`)

// shortcodeSpaces are the spaces WordPress reads as plain ones between
// attributes.
var shortcodeSpaces = strings.NewReplacer("\u00a0", " ", "\u200b", " ")

func shortcodeAttrs(text string) (map[string]string, []string) {
	text = shortcodeSpaces.Replace(text)
	attrs := map[string]string{}
	var positional []string
	for _, m := range shortcodeAttrPattern.FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			attrs[strings.ToLower(m[1])] = m[2]
		case m[3] != "":
			attrs[strings.ToLower(m[3])] = m[4]
		case m[5] != "":
			attrs[strings.ToLower(m[5])] = m[6]
		case m[7] != "":
			positional = append(positional, m[7])
		case m[8] != "":
			positional = append(positional, m[8])
		case m[9] != "":
			positional = append(positional, m[9])
		}
	}
	return attrs, positional
}

// captionImage is WordPress's reading of a caption's content: an image,
// maybe in a link, then the caption text.
var captionImage = regexp.MustCompile(`(?is)((?:<a [^>]+>\s*)?<img [^>]+>(?:\s*</a>)?)(.*)`)

// caption: [caption caption="…"]<img>[/caption], or the caption after the
// image, becomes a figure of the image (in its link) and the caption.
func (x *wpExpander) caption(sc shortcode) string {
	content := sc.content
	text, ok := sc.attrs["caption"]
	img := ""
	if m := captionImage.FindStringSubmatch(content); m != nil {
		img = m[1]
		if !ok {
			text = m[2]
		}
	} else if !ok {
		text = ""
	}
	text = oneLine(strings.TrimSpace(text))
	if img == "" {
		h := oneLine(strings.TrimSpace(content))
		if text != "" {
			h += "<p>" + text + "</p>"
		}
		return h
	}
	h := "<figure>" + oneLine(img)
	if text != "" {
		h += "<figcaption>" + text + "</figcaption>"
	}
	return h + "</figure>"
}

// oneLine keeps the HTML of an expansion on one line, so that the
// paragraphs made of classic content (autop) leave it whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// gallery: the images the shortcode names (ids, or the older include), or
// the images attached to the post, in WordPress's order, as a list of
// figures, each with its caption.
func (x *wpExpander) gallery(sc shortcode) string {
	list, missing := x.attachments(sc, imageExts)
	if missing > 0 {
		x.losses[lossGalleryImage] += missing
	}
	if len(list) == 0 {
		x.losses[lossEmptyGallery]++
		return ""
	}
	var b strings.Builder
	b.WriteString(`<ul class="wp-block-gallery">`)
	for _, a := range list {
		b.WriteString("<li>")
		if !slices.Contains(imageExts, fileExt(a.url)) {
			text := a.title
			if text == "" {
				text = fileName(a.url)
			}
			b.WriteString(`<a href="` + html.EscapeString(a.url) + `">` + html.EscapeString(oneLine(text)) + "</a></li>")
			continue
		}
		b.WriteString(`<figure><img src="` + html.EscapeString(a.url) + `" alt="` + html.EscapeString(oneLine(a.alt)) + `">`)
		if c := oneLine(a.caption); c != "" {
			b.WriteString("<figcaption>" + html.EscapeString(c) + "</figcaption>")
		}
		b.WriteString("</figure></li>")
	}
	b.WriteString("</ul>")
	return b.String()
}

// attachments are the attachments a gallery or playlist shows: those its
// ids (or include) name, in that order, or else those attached to the post
// (or to its id attribute) whose files have one of exts, in menu order,
// less those exclude names. missing counts named ids the export lacks.
func (x *wpExpander) attachments(sc shortcode, exts []string) (list []*wxrAttachment, missing int) {
	ids := sc.attrs["ids"]
	if ids == "" {
		ids = sc.attrs["include"]
	}
	if ids != "" {
		for _, id := range strings.Split(ids, ",") {
			id = strings.TrimSpace(id)
			if id == "" {
				continue
			}
			if a := x.media.byID[id]; a != nil && a.url != "" {
				list = append(list, a)
			} else {
				missing++
			}
		}
		return list, missing
	}
	parent := x.post
	if id := strings.TrimSpace(sc.attrs["id"]); id != "" {
		parent = id
	}
	exclude := map[string]bool{}
	for _, id := range strings.Split(sc.attrs["exclude"], ",") {
		exclude[strings.TrimSpace(id)] = true
	}
	for _, a := range x.media.children[parent] {
		if !exclude[a.id] && a.url != "" && slices.Contains(exts, fileExt(a.url)) {
			list = append(list, a)
		}
	}
	if strings.EqualFold(sc.attrs["order"], "desc") {
		slices.Reverse(list)
	}
	return list, 0
}

// embed: [embed]URL[/embed] becomes a link to the URL.
func (x *wpExpander) embed(sc shortcode) string {
	u := strings.TrimSpace(html.UnescapeString(sc.content))
	if u == "" {
		return ""
	}
	x.losses[lossEmbed]++
	if !bareURL(u) {
		return "<p>" + oneLine(sc.content) + "</p>"
	}
	return linkParagraph(u, u)
}

// mediaLink: [video] and [audio] become a link to their file: the src
// attribute, else the first of the per-format ones, else the first file of
// that kind attached to the post.
func (x *wpExpander) mediaLink(sc shortcode) string {
	exts, label, loss := videoExts, "Video", lossVideo
	if sc.name == "audio" {
		exts, label, loss = audioExts, "Audio", lossAudio
	}
	u := sc.attrs["src"]
	for _, e := range exts {
		if u == "" {
			u = sc.attrs[e]
		}
	}
	if u == "" && len(sc.positional) > 0 && bareURL(html.UnescapeString(sc.positional[0])) {
		u = sc.positional[0]
	}
	u = strings.TrimSpace(html.UnescapeString(u))
	if u == "" {
		if list, _ := x.attachments(shortcode{attrs: map[string]string{}}, exts); len(list) > 0 {
			u = list[0].url
		}
	}
	if u == "" {
		x.losses[lossNoMedia]++
		return ""
	}
	x.losses[loss]++
	return linkParagraph(u, label+": "+fileName(u))
}

// playlist: the files a [playlist] plays, as a list of links.
func (x *wpExpander) playlist(sc shortcode) string {
	exts, label := audioExts, "Audio"
	if strings.EqualFold(sc.attrs["type"], "video") {
		exts, label = videoExts, "Video"
	}
	list, _ := x.attachments(sc, exts)
	if len(list) == 0 {
		x.losses[lossNoMedia]++
		return ""
	}
	x.losses[lossPlaylist]++
	var b strings.Builder
	b.WriteString("<ul>")
	for _, a := range list {
		text := a.title
		if text == "" {
			text = fileName(a.url)
		}
		b.WriteString(`<li><a href="` + html.EscapeString(a.url) + `">` + label + ": " + html.EscapeString(oneLine(text)) + "</a></li>")
	}
	b.WriteString("</ul>")
	return b.String()
}
