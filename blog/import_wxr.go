package blog

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"folio/blog/htmltomd"
)

// wxrExport is an opened WordPress eXtended RSS file (WXR 1.0-1.2): an
// RSS channel whose items are posts, pages, attachments, menu items and
// more, with WordPress's fields in the wp: namespace. It is read as a
// stream, twice: once before the import (scan: is it WXR, is its XML
// sound, which attachments has it), then item by item into the blog.
type wxrExport struct {
	r    io.ReaderAt
	size int64
	// version is the WXR version its namespace says ("1.2").
	version string
	// repair: the file needs the fallback reader (cdataRepair), which
	// escaped escaped "]]>" in the scan.
	repair  bool
	escaped int
	media   wxrMedia
	// unknown are the names of shortcodes Folio keeps as text that the
	// report has named so far.
	unknown map[string]bool
}

// contentNamespace is the namespace of content:encoded.
const contentNamespace = "http://purl.org/rss/1.0/modules/content/"

// xmlNode is an element decoded whole: an item, a comment, a term.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []xmlNode  `xml:",any"`
}

// child returns the text of the first child called local, trimmed.
func (n *xmlNode) child(local string) string {
	for i := range n.Children {
		if n.Children[i].XMLName.Local == local {
			return strings.TrimSpace(n.Children[i].Text)
		}
	}
	return ""
}

// wp is child for WordPress's own fields: the post type, not an RSS
// element of the same name.
func (n *xmlNode) wp(local string) string {
	for i := range n.Children {
		if c := &n.Children[i]; c.XMLName.Local == local && isWXR(c.XMLName) {
			return strings.TrimSpace(c.Text)
		}
	}
	return ""
}

// rawIn is the untrimmed text of the first child called local in a
// namespace in says yes to: the content of a post.
func (n *xmlNode) rawIn(in func(xml.Name) bool, local string) string {
	for i := range n.Children {
		if c := &n.Children[i]; c.XMLName.Local == local && in(c.XMLName) {
			return c.Text
		}
	}
	return ""
}

func isContent(name xml.Name) bool { return name.Space == contentNamespace }

func (n *xmlNode) attr(local string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func openWXR(r io.ReaderAt, size int64) (*wxrExport, error) {
	w := &wxrExport{r: r, size: size, unknown: map[string]bool{}}
	if err := w.scan(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *wxrExport) settings(context.Context, *Blog) (*Settings, error) { return nil, nil }

// wxrSkips counts what the import leaves out, for one warning each.
type wxrSkips struct {
	types    map[string]int // item types that are not posts or pages
	comments map[string]int // comments not approved, by reason
}

func (w *wxrExport) run(ctx context.Context, imp *importer) error {
	if newerWXR(w.version) {
		imp.res.warn("the export is WXR %s, newer than the 1.2 Folio knows; read as 1.2", w.version)
	}
	if w.escaped > 0 {
		imp.res.warn("the file holds \"]]>\" inside CDATA sections %d times, as older WordPress versions wrote it; read as WordPress reads it", w.escaped)
	}
	if w.media.dropped > 0 {
		imp.res.warn("%d attachments past the first %d not read: galleries and featured images that use them are left out", w.media.dropped, maxWXRAttachments)
	}
	dec, _ := w.open(w.repair)
	skips := wxrSkips{types: map[string]int{}, comments: map[string]int{}}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return w.readError(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case se.Name.Local == "item" && se.Name.Space == "":
			var item xmlNode
			if err := dec.DecodeElement(&item, &se); err != nil {
				return w.readError(err)
			}
			if err := w.item(ctx, imp, &item, &skips); err != nil {
				return err
			}
		case isWXR(se.Name) && (se.Name.Local == "category" || se.Name.Local == "tag" || se.Name.Local == "term"):
			var def xmlNode
			if err := dec.DecodeElement(&def, &se); err != nil {
				return w.readError(err)
			}
			if err := w.term(ctx, imp, &def); err != nil {
				return err
			}
		}
	}
	for _, m := range []map[string]int{skips.types, skips.comments} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			imp.res.warn("%d %s skipped", m[k], k)
		}
	}
	return nil
}

// readError is a failed read in the import's pass, which the scan read
// through before: the context ended, or the file changed under it.
func (w *wxrExport) readError(err error) error {
	err = faultOf(err)
	if f, ok := err.(*xmlFault); ok {
		return inputErrorf("not a valid WordPress export: %v", f)
	}
	return err
}

// term imports a category or tag defined at the channel level.
func (w *wxrExport) term(ctx context.Context, imp *importer, n *xmlNode) error {
	switch n.XMLName.Local {
	case "category":
		_, err := imp.term(ctx, categories, importTerm{Name: html.UnescapeString(n.child("cat_name")), Slug: wxrSlug(n.child("category_nicename"))})
		return err
	case "tag":
		_, err := imp.term(ctx, tags, importTerm{Name: html.UnescapeString(n.child("tag_name")), Slug: wxrSlug(n.child("tag_slug"))})
		return err
	}
	// wp:term holds terms of any taxonomy; categories and tags are also
	// given as wp:category and wp:tag, the others Folio has no place for.
	return nil
}

// wxrSlug decodes WordPress's percent-encoded slugs (non-ASCII titles).
func wxrSlug(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// wxrTime reads WordPress's "2006-01-02 15:04:05" (UTC for the _gmt
// fields); nil for the zero date of drafts.
func wxrTime(s string) *time.Time {
	if s == "" || strings.HasPrefix(s, "0000-00-00") {
		return nil
	}
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		return nil
	}
	return &t
}

// itemTime is the GMT field, or the local one (taken as UTC) when the GMT
// one is empty.
func itemTime(n *xmlNode, field string) *time.Time {
	if t := wxrTime(n.child(field + "_gmt")); t != nil {
		return t
	}
	return wxrTime(n.child(field))
}

func (w *wxrExport) item(ctx context.Context, imp *importer, n *xmlNode, skips *wxrSkips) error {
	kind := n.wp("post_type")
	id := n.wp("post_id")
	slug := wxrSlug(n.wp("post_name"))
	title := wxrTitle(n.child("title"))
	origin := fmt.Sprintf("WordPress %s %q", kind, slug)
	if slug == "" {
		origin = fmt.Sprintf("WordPress %s %s", kind, id)
	}
	if kind != "post" && kind != "page" {
		skips.types[fmt.Sprintf("items of type %q", kind)]++
		return nil
	}
	// Only what WordPress showed to everyone is published: anything it
	// kept from some readers is a draft, with a note.
	var notes []string
	status := ""
	switch n.wp("status") {
	case "publish", "future":
		status = StatusPublished
	case "draft", "pending", "auto-draft":
		status = StatusDraft
	case "private":
		status = StatusDraft
		notes = append(notes, "private in WordPress; imported as a draft")
	default:
		skips.types[fmt.Sprintf("%ss with status %q", kind, n.wp("status"))]++
		return nil
	}
	if n.wp("post_password") != "" {
		status = StatusDraft
		notes = append(notes, "password-protected in WordPress; imported as a draft")
	}
	if title == "" {
		title = "Untitled"
		imp.res.warn("%s: no title; imported as %q", origin, title)
	}
	if !validSlug(slug) {
		if s := slugify(slug); s != "" && validSlug(s) {
			slug = s
		} else if s := slugify(title); s != "" && title != "Untitled" {
			slug = s
		} else {
			slug = kind + "-" + slugify(id)
		}
	}
	content := n.rawIn(isContent, "encoded")
	if len(content) > maxConvertedHTML {
		imp.res.warn("%s skipped: its HTML is larger than %d MiB", origin, maxConvertedHTML>>20)
		return nil
	}
	body, ok := w.body(content, id)
	if !ok {
		imp.res.warn("%s skipped: its HTML is larger than %d MiB once its shortcodes are expanded", origin, maxConvertedHTML>>20)
		return nil
	}
	md, converted := htmltomd.Convert(body.html)
	losses := mergeLosses(converted, lossList(body.losses))
	date := itemTime(n, "post_date")
	modified := itemTime(n, "post_modified")
	var published *time.Time
	if status == StatusPublished {
		published = date
	}
	comments := n.childrenNamed("comment")
	if kind == "page" {
		order := 0
		_, _ = fmt.Sscan(n.wp("menu_order"), &order)
		if len(comments) > 0 {
			imp.res.warn("%s: %d comments skipped (pages take no comments)", origin, len(comments))
		}
		return imp.page(ctx, importPage{Title: title, Slug: slug, Markdown: md, Status: status, SortOrder: order,
			PublishedAt: published, Created: date, Updated: modified, Origin: origin, Notes: notes, Losses: losses})
	}
	p := importPost{Title: title, Slug: slug, Markdown: md, Status: status, PublishedAt: published, Created: date,
		Updated: modified, Origin: origin, Losses: losses}
	if body.more {
		p.Teaser, _ = htmltomd.Convert(body.teaser)
	}
	if ex := htmltomd.Text(n.rawIn(isExcerpt, "encoded")); ex != "" {
		p.Summary = ex
	}
	show := n.wp("comment_status") != "closed"
	p.ShowComments = &show
	if thumb := n.meta("_thumbnail_id"); thumb != "" {
		if a := w.media.byID[thumb]; a != nil && a.url != "" {
			p.CoverImage = a.url
		} else {
			notes = append(notes, fmt.Sprintf("its featured image (attachment %s) is not in the export; left out", thumb))
		}
	}
	termNotes, err := w.terms(ctx, imp, n, &p)
	if err != nil {
		return err
	}
	notes = append(notes, termNotes...)
	p.Notes = notes
	if err := imp.post(ctx, p); err != nil {
		return err
	}
	if _, ok := imp.posts[slug]; !ok {
		if len(comments) > 0 {
			imp.res.warn("%s: its %d comments skipped with it", origin, len(comments))
		}
		return nil
	}
	for _, c := range comments {
		switch c.wp("comment_type") {
		case "", "comment":
		default:
			skips.comments[fmt.Sprintf("comments of type %q", c.wp("comment_type"))]++
			continue
		}
		switch approved := c.wp("comment_approved"); approved {
		case "1":
		case "0":
			skips.comments["pending comments"]++
			continue
		default:
			skips.comments[fmt.Sprintf("comments marked %q", approved)]++
			continue
		}
		created := itemTime(&c, "comment_date")
		if created == nil {
			imp.res.warn("%s: comment %s skipped: it has no date", origin, c.wp("comment_id"))
			continue
		}
		err := imp.comment(ctx, importComment{Post: slug, Author: c.wp("comment_author"), Email: c.wp("comment_author_email"),
			Content: htmltomd.Text(c.rawIn(isWXR, "comment_content")), Status: CommentApproved,
			IP: c.wp("comment_author_IP"), Created: *created, Origin: fmt.Sprintf("%s comment %s", origin, c.wp("comment_id"))})
		if err != nil {
			return err
		}
	}
	return nil
}

// maxPostTags is how many tags a post may have (postInput.validate): an
// import keeps the first ones rather than lose the post.
const maxPostTags = 50

// terms sets a post's category and tags from its <category> elements:
// the first category is the post's, the others become tags of the same
// name and slug (Folio has one category a post); its notes name them, and
// the tags past maxPostTags left out. WXR 1.0 called tags "tag", later
// ones "post_tag".
func (w *wxrExport) terms(ctx context.Context, imp *importer, n *xmlNode, p *importPost) (notes []string, err error) {
	var tagged, folded []importTerm
	for _, c := range n.Children {
		if c.XMLName.Local != "category" || c.XMLName.Space != "" {
			continue
		}
		term := importTerm{Name: html.UnescapeString(strings.TrimSpace(c.Text)), Slug: wxrSlug(c.attr("nicename"))}
		switch c.attr("domain") {
		case "category":
			if p.CategoryID != "" {
				folded = append(folded, term)
				continue
			}
			id, err := imp.term(ctx, categories, term)
			if err != nil {
				return nil, err
			}
			p.CategoryID = id
		case "post_tag", "tag":
			tagged = append(tagged, term)
		}
	}
	var foldedNames, leftOut []string
	for i, t := range append(tagged, folded...) {
		if len(p.TagIDs) >= maxPostTags {
			leftOut = append(leftOut, t.Name)
			continue
		}
		id, err := imp.term(ctx, tags, t)
		if err != nil {
			return nil, err
		}
		if id != "" && !slices.Contains(p.TagIDs, id) {
			p.TagIDs = append(p.TagIDs, id)
		}
		if i >= len(tagged) {
			foldedNames = append(foldedNames, t.Name)
		}
	}
	if len(foldedNames) > 0 {
		notes = append(notes, fmt.Sprintf("a post has one category in Folio; %s imported as tags", strings.Join(foldedNames, ", ")))
	}
	if len(leftOut) > 0 {
		notes = append(notes, fmt.Sprintf("a post has at most %d tags in Folio; %s left out", maxPostTags, strings.Join(leftOut, ", ")))
	}
	return notes, nil
}

// meta is the value of an item's custom field (wp:postmeta) called key.
func (n *xmlNode) meta(key string) string {
	for _, m := range n.childrenNamed("postmeta") {
		if m.wp("meta_key") == key {
			return m.wp("meta_value")
		}
	}
	return ""
}

// wxrTitle is an item's title as text: WordPress keeps titles as HTML,
// and some hold markup or character references.
func wxrTitle(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	return strings.Join(strings.Fields(htmltomd.Text(s)), " ")
}

func (n *xmlNode) childrenNamed(local string) []xmlNode {
	var out []xmlNode
	for _, c := range n.Children {
		if c.XMLName.Local == local && isWXR(c.XMLName) {
			out = append(out, c)
		}
	}
	return out
}

// wxrBody is an item's content made ready for the converter.
type wxrBody struct {
	html   string         // all of the content, its marks removed
	teaser string         // the content before its more mark
	more   bool           // it has one
	losses map[string]int // what the preparation could not keep, by kind
}

// findMark finds the first of WordPress's marks in content at or after
// from: <!--nextpage-->, or <!--more--> which may hold the link's own text
// (<!--more Read on-->). The block editor puts a mark inside a block of
// its own (<!-- wp:more -->…<!-- /wp:more -->), taken with it. It returns
// where the mark, or its block, begins and ends; -1 when there is none.
func findMark(content, name string, from int) (start, end int) {
	at := strings.Index(content[from:], "<!--"+name)
	if at < 0 {
		return -1, -1
	}
	start = from + at
	closeAt := strings.Index(content[start:], "-->")
	if closeAt < 0 || strings.Contains(content[start:start+closeAt], "\n") {
		return findMark(content, name, start+1)
	}
	end = start + closeAt + len("-->")
	before := strings.TrimRight(content[:start], " \t\n")
	if strings.HasSuffix(before, "-->") {
		// Only the line before is looked at: the block's comment is one.
		line := before[strings.LastIndexByte(before, '\n')+1:]
		if i := strings.Index(line, "<!-- wp:"+name); i >= 0 && !strings.Contains(line[i+len("<!-- wp:")+len(name):len(line)-3], "-->") {
			start = len(before) - len(line) + i
		}
	}
	after := strings.TrimLeft(content[end:], " \t\n")
	if closer := "<!-- /wp:" + name + " -->"; strings.HasPrefix(after, closer) {
		end = len(content) - len(after) + len(closer)
	}
	return start, end
}

// body prepares an item's content as WordPress would show it: the pages
// of a paginated post joined, the teaser split off at the first more
// mark, shortcodes and embeds expanded, and classic content made into
// paragraphs (block-editor content, marked by its <!-- wp: comments, has
// its own). id is the item's: galleries show its attachments. ok is false
// when the expanded HTML would pass maxConvertedHTML.
func (w *wxrExport) body(content, id string) (b wxrBody, ok bool) {
	content = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(content)
	blocks := strings.Contains(content, "<!-- wp:")
	b.losses = map[string]int{}
	var joined strings.Builder
	from := 0
	for {
		start, end := findMark(content, "nextpage", from)
		if start < 0 {
			break
		}
		b.losses[lossNextPage]++
		joined.WriteString(content[from:start] + "\n\n")
		from = end
	}
	if from > 0 {
		content = joined.String() + content[from:]
	}
	before := ""
	if start, end := findMark(content, "more", 0); start >= 0 {
		before, b.more = content[:start], true
		content = content[:start] + content[end:]
	}
	prepare := func(s string, losses map[string]int) (string, bool) {
		s, ok := expandShortcodes(s, id, &w.media, losses, w.unknown)
		if ok && !blocks {
			s = autop(s)
		}
		return s, ok
	}
	if b.html, ok = prepare(content, b.losses); !ok {
		return b, false
	}
	if b.more {
		// The teaser's own losses are the content's, counted once.
		b.teaser, _ = prepare(before, map[string]int{})
	}
	return b, true
}
