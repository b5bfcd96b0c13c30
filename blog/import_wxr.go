package blog

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"folio/blog/htmltomd"
)

// wxrExport is an opened WordPress eXtended RSS file (WXR 1.0-1.2): an
// RSS channel whose items are posts, pages, attachments, menu items and
// more, with WordPress's fields in the wp: namespace. It is read as a
// stream, one item at a time.
type wxrExport struct {
	r    io.ReaderAt
	size int64
}

// The namespaces of WXR's elements.
const (
	wxrNamespacePrefix = "http://wordpress.org/export/"
	contentNamespace   = "http://purl.org/rss/1.0/modules/content/"
)

// xmlNode is an element decoded whole: an item, a comment, a term.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []xmlNode  `xml:",any"`
}

// child returns the text of the first child called local (in the wp
// namespace when wp), trimmed.
func (n *xmlNode) child(local string) string {
	for i := range n.Children {
		if n.Children[i].XMLName.Local == local {
			return strings.TrimSpace(n.Children[i].Text)
		}
	}
	return ""
}

// raw is child without trimming: the content of a post.
func (n *xmlNode) raw(space, local string) string {
	for i := range n.Children {
		c := &n.Children[i]
		if c.XMLName.Local == local && strings.HasPrefix(c.XMLName.Space, space) {
			return c.Text
		}
	}
	return ""
}

func (n *xmlNode) attr(local string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func isWXR(name xml.Name) bool { return strings.HasPrefix(name.Space, wxrNamespacePrefix) }

func openWXR(r io.ReaderAt, size int64) (*wxrExport, error) {
	dec := newWXRDecoder(io.NewSectionReader(r, 0, size))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, inputErrorf("not a WordPress export: %v", xmlProblem(err))
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "rss" {
				return nil, inputErrorf("not a WordPress export: the XML is not an RSS document")
			}
			for _, a := range se.Attr {
				if a.Name.Space == "xmlns" && strings.HasPrefix(a.Value, wxrNamespacePrefix) {
					return &wxrExport{r: r, size: size}, nil
				}
			}
			return nil, inputErrorf("not a WordPress export: the RSS document has no WordPress (wp:) namespace")
		}
	}
}

func newWXRDecoder(r io.Reader) *xml.Decoder {
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "utf8") || strings.EqualFold(charset, "us-ascii") {
			return input, nil
		}
		return nil, fmt.Errorf("encoding %q is not supported (export the site as UTF-8)", charset)
	}
	return dec
}

// xmlProblem says what is wrong with a file the decoder refused.
func xmlProblem(err error) string {
	if errors.Is(err, io.EOF) {
		return "the file ends before its XML does"
	}
	return err.Error()
}

func (w *wxrExport) settings(context.Context, *Blog) (*Settings, error) { return nil, nil }

// wxrSkips counts what the import leaves out, for one warning each.
type wxrSkips struct {
	types    map[string]int // item types that are not posts or pages
	comments map[string]int // comments not approved, by reason
}

func (w *wxrExport) run(ctx context.Context, imp *importer) error {
	dec := newWXRDecoder(io.NewSectionReader(w.r, 0, w.size))
	skips := wxrSkips{types: map[string]int{}, comments: map[string]int{}}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return inputErrorf("not a valid WordPress export: %v", xmlProblem(err))
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch {
		case se.Name.Local == "item" && se.Name.Space == "":
			var item xmlNode
			if err := dec.DecodeElement(&item, &se); err != nil {
				return inputErrorf("not a valid WordPress export: %v", xmlProblem(err))
			}
			if err := w.item(ctx, imp, &item, &skips); err != nil {
				return err
			}
		case isWXR(se.Name) && (se.Name.Local == "category" || se.Name.Local == "tag" || se.Name.Local == "term"):
			var def xmlNode
			if err := dec.DecodeElement(&def, &se); err != nil {
				return inputErrorf("not a valid WordPress export: %v", xmlProblem(err))
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
	kind := n.child("post_type")
	id := n.child("post_id")
	slug := wxrSlug(n.child("post_name"))
	title := strings.TrimSpace(n.child("title"))
	origin := fmt.Sprintf("WordPress %s %q", kind, slug)
	if slug == "" {
		origin = fmt.Sprintf("WordPress %s %s", kind, id)
	}
	if kind != "post" && kind != "page" {
		skips.types[fmt.Sprintf("items of type %q", kind)]++
		return nil
	}
	status := ""
	switch n.child("status") {
	case "publish", "future":
		status = StatusPublished
	case "draft", "pending", "auto-draft":
		status = StatusDraft
	case "private":
		status = StatusDraft
		imp.res.warn("%s: private in WordPress; imported as a draft", origin)
	default:
		skips.types[fmt.Sprintf("%ss with status %q", kind, n.child("status"))]++
		return nil
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
	content := n.raw(contentNamespace, "encoded")
	if len(content) > maxConvertedHTML {
		imp.res.warn("%s skipped: its HTML is larger than %d MiB", origin, maxConvertedHTML>>20)
		return nil
	}
	md, losses := htmltomd.Convert(autop(content))
	date := itemTime(n, "post_date")
	modified := itemTime(n, "post_modified")
	var published *time.Time
	if status == StatusPublished {
		published = date
	}
	comments := n.childrenNamed("comment")
	if kind == "page" {
		order := 0
		_, _ = fmt.Sscan(n.child("menu_order"), &order)
		if len(comments) > 0 {
			imp.res.warn("%s: %d comments skipped (pages take no comments)", origin, len(comments))
		}
		return imp.page(ctx, importPage{Title: title, Slug: slug, Markdown: md, Status: status, SortOrder: order,
			PublishedAt: published, Created: date, Updated: modified, Origin: origin, Losses: losses})
	}
	p := importPost{Title: title, Slug: slug, Markdown: md, Status: status, PublishedAt: published, Created: date,
		Updated: modified, Origin: origin, Losses: losses}
	if ex := htmltomd.Text(n.raw(wxrNamespacePrefix, "encoded")); ex != "" {
		p.Summary = ex
	}
	show := n.child("comment_status") != "closed"
	p.ShowComments = &show
	var cats []string
	for _, c := range n.Children {
		if c.XMLName.Local != "category" || c.XMLName.Space != "" {
			continue
		}
		term := importTerm{Name: html.UnescapeString(strings.TrimSpace(c.Text)), Slug: wxrSlug(c.attr("nicename"))}
		switch c.attr("domain") {
		case "category":
			if p.CategoryID != "" {
				cats = append(cats, term.Name)
				continue
			}
			id, err := imp.term(ctx, categories, term)
			if err != nil {
				return err
			}
			p.CategoryID = id
		case "post_tag":
			id, err := imp.term(ctx, tags, term)
			if err != nil {
				return err
			}
			if id != "" {
				p.TagIDs = append(p.TagIDs, id)
			}
		}
	}
	if len(cats) > 0 {
		imp.res.warn("%s: a post has one category in Folio; %s left out", origin, strings.Join(cats, ", "))
	}
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
		switch c.child("comment_type") {
		case "", "comment":
		default:
			skips.comments[fmt.Sprintf("comments of type %q", c.child("comment_type"))]++
			continue
		}
		switch approved := c.child("comment_approved"); approved {
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
			imp.res.warn("%s: comment %s skipped: it has no date", origin, c.child("comment_id"))
			continue
		}
		err := imp.comment(ctx, importComment{Post: slug, Author: c.child("comment_author"), Email: c.child("comment_author_email"),
			Content: htmltomd.Text(c.raw(wxrNamespacePrefix, "comment_content")), Status: CommentApproved,
			IP: c.child("comment_author_IP"), Created: *created, Origin: fmt.Sprintf("%s comment %s", origin, c.child("comment_id"))})
		if err != nil {
			return err
		}
	}
	return nil
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

// autop does what WordPress does when it shows a post written in the
// classic editor, whose export keeps the text as typed: a blank line
// separates paragraphs, a single newline is a line break. Blocks of HTML
// and content of the block editor (which writes its own <p>) are left as
// they are.
func autop(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.Contains(s, "<!-- wp:") {
		return s
	}
	var b strings.Builder
	inPre := false
	for _, chunk := range strings.Split(s, "\n\n") {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		// Lines of text between block tags make a paragraph, their
		// newlines line breaks; the block tags stay as they are.
		var para []string
		flush := func() {
			if len(para) > 0 {
				b.WriteString("<p>" + strings.Join(para, "<br>\n") + "</p>\n")
				para = nil
			}
		}
		for _, line := range strings.Split(chunk, "\n") {
			t := strings.TrimSpace(line)
			lower := strings.ToLower(t)
			if i := strings.LastIndex(lower, "<pre"); i >= 0 {
				inPre = !strings.Contains(lower[i:], "</pre")
			} else if inPre && strings.Contains(lower, "</pre") {
				flush()
				b.WriteString(line + "\n")
				inPre = false
				continue
			}
			switch {
			case inPre || startsBlockTag(lower):
				flush()
				b.WriteString(line + "\n")
			case t != "":
				para = append(para, t)
			}
		}
		flush()
		b.WriteString("\n")
	}
	return b.String()
}

func startsBlockTag(lower string) bool {
	if !strings.HasPrefix(lower, "<") {
		return false
	}
	name := strings.TrimLeft(lower[1:], "/")
	end := strings.IndexAny(name, " \t\n>/")
	if end < 0 {
		end = len(name)
	}
	name = name[:end]
	switch name {
	case "tr", "td", "th", "thead", "tbody", "tfoot", "caption", "colgroup", "col", "option", "optgroup", "legend", "source", "track", "param":
		return true
	}
	return htmltomd.IsBlock(name)
}
