package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"folio/blog/htmltomd"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// ghostExport is an opened Ghost JSON export: {"db": [{"meta": …, "data":
// {"posts": […], "tags": […], "posts_tags": […], …}}]} (or, from old
// versions, {"meta": …, "data": …}), from any version of Ghost, 0.x to 6.x
// (docs/export-import.md#ghost). It is read three times, each time as a
// stream: once whole, to know it is JSON of that shape before anything is
// written, then for the tags and their links to posts, then for the posts
// one at a time, so that memory holds one post, never the whole file.
type ghostExport struct {
	r           io.ReaderAt
	start, size int64 // the JSON: the file after a byte order mark
}

// reader reads the export's JSON from its start.
func (g *ghostExport) reader() io.Reader { return io.NewSectionReader(g.r, g.start, g.size-g.start) }

// ghostPost holds the fields of a Ghost post the import reads.
type ghostPost struct {
	ID, Title, Slug, Type, Status, Visibility string
	Page                                      bool // before Ghost 1.0: a page
	// The content, in the forms the versions store it: Markdown (0.x),
	// Mobiledoc (1.x-4.x), Lexical (5.x-6.x), and the HTML and plain text
	// each version renders of it.
	Markdown, Mobiledoc, Lexical, HTML, Plaintext *string
	FeatureImage                                  *string // feature_image; image before 1.0
	CustomExcerpt, MetaDescription                *string
	PublishedAt, CreatedAt, UpdatedAt             *time.Time
}

func readGhostPost(it *ghostItem) (ghostPost, error) {
	p := ghostPost{ID: it.id("id"), Title: it.str("title"), Slug: it.str("slug"), Type: it.str("type"), Page: it.flag("page"),
		Status: it.str("status"), Visibility: it.str("visibility"),
		Markdown: it.text("markdown"), Mobiledoc: it.doc("mobiledoc"), Lexical: it.doc("lexical"), HTML: it.text("html"),
		Plaintext: it.text("plaintext"), FeatureImage: it.text("feature_image"),
		CustomExcerpt: it.text("custom_excerpt"), MetaDescription: it.text("meta_description"),
		PublishedAt: it.date("published_at"), CreatedAt: it.date("created_at"), UpdatedAt: it.date("updated_at")}
	if p.FeatureImage == nil {
		p.FeatureImage = it.text("image")
	}
	return p, it.err
}

type ghostTag struct {
	ID, Name, Slug, Visibility string
	CreatedAt, UpdatedAt       *time.Time
}

func readGhostTag(it *ghostItem) (ghostTag, error) {
	t := ghostTag{ID: it.id("id"), Name: it.str("name"), Slug: it.str("slug"), Visibility: it.str("visibility"),
		CreatedAt: it.date("created_at"), UpdatedAt: it.date("updated_at")}
	return t, it.err
}

type ghostPostTag struct {
	PostID, TagID string
	SortOrder     int
}

func readGhostPostTag(it *ghostItem) (ghostPostTag, error) {
	pt := ghostPostTag{PostID: it.id("post_id"), TagID: it.id("tag_id"), SortOrder: it.integer("sort_order")}
	return pt, it.err
}

func openGhost(r io.ReaderAt, size int64) (*ghostExport, error) {
	g := &ghostExport{r: r, size: size}
	bom := make([]byte, 3)
	if n, _ := r.ReadAt(bom, 0); n == 3 && string(bom) == "\ufeff" {
		g.start = 3
	}
	found := false
	err := g.walk(map[string]func(*json.Decoder, int) error{}, func() { found = true })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, inputErrorf("not a Ghost export: the JSON has no db[].data or data object")
	}
	return g, nil
}

// walk streams the export, calling the table's function for every item of
// a table of data (the decoder is at the item, n counts the items from 1)
// and skipping the rest token by token; found is called for each data
// object.
func (g *ghostExport) walk(tables map[string]func(dec *json.Decoder, n int) error, found func()) error {
	dec := json.NewDecoder(g.reader())
	bad := func(err error) error {
		if err == nil {
			err = errors.New("unexpected structure")
		}
		if _, ok := errors.AsType[*InputError](err); ok {
			return err
		}
		if _, ok := errors.AsType[*json.SyntaxError](err); ok || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return g.brokenJSON()
		}
		return inputErrorf("not a valid Ghost export: %v", err)
	}
	// expect reads the start of a value that must be an object or a list.
	expect := func(d json.Delim, what string) error {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if tok != d {
			return bad(errors.New(what))
		}
		return nil
	}
	data := func() error {
		found()
		return eachKey(dec, func(table string) error {
			fn := tables[table]
			if fn == nil {
				return skipValue(dec)
			}
			if err := expect('[', fmt.Sprintf("data.%s is not a list", table)); err != nil {
				return err
			}
			for n := 1; dec.More(); n++ {
				if err := fn(dec, n); err != nil {
					return passErr{err}
				}
			}
			_, err := dec.Token()
			return err
		})
	}
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return bad(errors.New("not a JSON object"))
	}
	err = eachKey(dec, func(key string) error {
		switch key {
		case "db":
			if err := expect('[', "db is not a list"); err != nil {
				return err
			}
			for dec.More() {
				if err := expect('{', "db[] is not an object"); err != nil {
					return err
				}
				err := eachKey(dec, func(key string) error {
					if key != "data" {
						return skipValue(dec)
					}
					if err := expect('{', "data is not an object"); err != nil {
						return err
					}
					return data()
				})
				if err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		case "data":
			if err := expect('{', "data is not an object"); err != nil {
				return err
			}
			return data()
		}
		return skipValue(dec)
	})
	if pe, ok := errors.AsType[passErr](err); ok {
		return pe.err
	}
	if err != nil {
		return bad(err)
	}
	return nil
}

// passErr carries an error of a table's function through walk unchanged.
type passErr struct{ err error }

func (e passErr) Error() string { return e.err.Error() }

// eachKey calls fn for each key of the object whose '{' was just read,
// with the decoder at the key's value, then reads the '}'.
func eachKey(dec *json.Decoder, fn func(key string) error) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errors.New("an object key is not a string")
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// skipValue reads past one value token by token, holding none of it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func (g *ghostExport) settings(context.Context, *Blog) (*Settings, error) { return nil, nil }

// ghostURL turns Ghost's placeholder for its own address into a site path.
// Every text of the export that may hold it goes through here: the
// content in each of its forms, and the feature image.
func ghostURL(s string) string { return strings.ReplaceAll(s, "__GHOST_URL__", "") }

func (g *ghostExport) run(ctx context.Context, imp *importer) error {
	// First pass: the tags, which belong to which post, and the posts'
	// descriptions (kept apart from the posts since Ghost 2.x).
	tagsByID := map[string]ghostTag{}
	var tagOrder []string
	links := map[string][]ghostPostTag{}
	descriptions := map[string]string{}
	err := g.walk(map[string]func(*json.Decoder, int) error{
		"tags": func(dec *json.Decoder, n int) error {
			it, err := readGhostItem(dec, "tags", n)
			if err != nil {
				return err
			}
			t, err := readGhostTag(it)
			if err != nil {
				return err
			}
			if _, seen := tagsByID[t.ID]; !seen {
				tagOrder = append(tagOrder, t.ID)
			}
			tagsByID[t.ID] = t
			return nil
		},
		"posts_tags": func(dec *json.Decoder, n int) error {
			it, err := readGhostItem(dec, "posts_tags", n)
			if err != nil {
				return err
			}
			pt, err := readGhostPostTag(it)
			if err != nil {
				return err
			}
			links[pt.PostID] = append(links[pt.PostID], pt)
			return nil
		},
		"posts_meta": func(dec *json.Decoder, n int) error {
			it, err := readGhostItem(dec, "posts_meta", n)
			if err != nil {
				return err
			}
			postID, desc := it.id("post_id"), it.text("meta_description")
			if it.err != nil {
				return it.err
			}
			if desc != nil && strings.TrimSpace(*desc) != "" {
				descriptions[postID] = *desc
			}
			return nil
		},
	}, func() {})
	if err != nil {
		return err
	}
	internal := 0
	termIDs := map[string]string{} // Ghost tag id → Folio tag id
	for _, id := range tagOrder {
		t := tagsByID[id]
		// Internal tags ("#name", visibility internal) are Ghost's own
		// markers, never shown to readers.
		if t.Visibility == "internal" || strings.HasPrefix(t.Name, "#") {
			internal++
			continue
		}
		folioID, err := imp.term(ctx, tags, importTerm{Name: t.Name, Slug: t.Slug, Created: t.CreatedAt, Updated: t.UpdatedAt})
		if err != nil {
			return err
		}
		termIDs[id] = folioID
	}
	if internal > 0 {
		imp.res.warn("%d internal Ghost tags (#name) skipped", internal)
	}
	// Second pass: the posts and pages, one at a time.
	return g.walk(map[string]func(*json.Decoder, int) error{
		"posts": func(dec *json.Decoder, n int) error {
			it, err := readGhostItem(dec, "posts", n)
			if err != nil {
				return err
			}
			p, err := readGhostPost(it)
			if err != nil {
				return err
			}
			if p.MetaDescription == nil {
				if d, ok := descriptions[p.ID]; ok {
					p.MetaDescription = &d
				}
			}
			return g.post(ctx, imp, p, links[p.ID], termIDs)
		},
	}, func() {})
}

// ghostVisibility says who may read a post Ghost shows to some readers
// only, for the note that makes it a draft.
func ghostVisibility(v string) string {
	switch v {
	case "members":
		return "visible to members only in Ghost"
	case "paid":
		return "visible to paying members only in Ghost"
	case "tiers":
		return "visible to members of some tiers only in Ghost"
	}
	return fmt.Sprintf("visible to some readers only in Ghost (visibility %q)", shorten(v, 60))
}

func (g *ghostExport) post(ctx context.Context, imp *importer, p ghostPost, links []ghostPostTag, termIDs map[string]string) error {
	isPage := p.Type == "page" || p.Page
	kind := "post"
	if isPage {
		kind = "page"
	}
	origin := fmt.Sprintf("Ghost %s %q", kind, p.Slug)
	if p.Type != "" && p.Type != "post" && p.Type != "page" {
		imp.res.warn("%s skipped: type %q is not a post or a page", origin, shorten(p.Type, 60))
		return nil
	}
	var notes []string
	status := ""
	switch p.Status {
	case "published":
		status = StatusPublished
	case "scheduled":
		// A published post dated in the future is what Folio calls
		// scheduled; pages have no schedule.
		status = StatusPublished
		if isPage {
			status = StatusDraft
			notes = append(notes, "scheduled in Ghost; imported as a draft (pages cannot be scheduled)")
		}
	case "draft":
		status = StatusDraft
	case "sent":
		status = StatusDraft
		notes = append(notes, "an email-only newsletter in Ghost; imported as a draft")
	default:
		imp.res.warn("%s skipped: unknown status %q", origin, shorten(p.Status, 60))
		return nil
	}
	// Folio has no members: what Ghost showed to some readers only is
	// kept from everyone until its author decides.
	if status == StatusPublished && p.Visibility != "" && p.Visibility != "public" {
		status = StatusDraft
		notes = append(notes, ghostVisibility(p.Visibility)+"; imported as a draft")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"HTML", p.HTML}, {"Mobiledoc", p.Mobiledoc}, {"Lexical document", p.Lexical}} {
		if f.v != nil && len(*f.v) > maxConvertedHTML {
			imp.res.warn("%s skipped: its %s is larger than %d MiB", origin, f.name, maxConvertedHTML>>20)
			return nil
		}
	}
	body := ghostContent(p)
	// Markdown written in Ghost (0.x, Markdown cards) may hold raw HTML,
	// which Ghost showed and the blog would show as its tags.
	var l1, l2 []htmltomd.Loss
	body.Markdown, l1 = imp.b.withoutRawHTML(body.Markdown)
	body.Teaser, l2 = imp.b.withoutRawHTML(body.Teaser)
	body.Losses = mergeLosses(body.Losses, l1, l2)
	if body.MembersOnly > 0 && status == StatusPublished {
		status = StatusDraft
		notes = append(notes, "parts of it are visible to members only in Ghost; imported as a draft")
	}
	published := p.PublishedAt
	if status != StatusPublished {
		published = nil
	}
	if isPage {
		return imp.page(ctx, importPage{Title: p.Title, Slug: p.Slug, Markdown: body.Markdown, Status: status, PublishedAt: published,
			Created: p.CreatedAt, Updated: p.UpdatedAt, Origin: origin, Notes: notes, Losses: body.Losses})
	}
	sort.SliceStable(links, func(i, j int) bool { return links[i].SortOrder < links[j].SortOrder })
	var tagIDs []string
	for _, l := range links {
		if id := termIDs[l.TagID]; id != "" && !slices.Contains(tagIDs, id) {
			tagIDs = append(tagIDs, id)
		}
	}
	ip := importPost{Title: p.Title, Slug: p.Slug, Markdown: body.Markdown, Teaser: body.Teaser, Status: status, PublishedAt: published,
		Created: p.CreatedAt, Updated: p.UpdatedAt, TagIDs: tagIDs, Origin: origin, Notes: notes, Losses: body.Losses}
	// The summary Ghost's author wrote; before 1.0 (no excerpt) and when
	// there is none, the description written for search engines.
	for _, s := range []*string{p.CustomExcerpt, p.MetaDescription} {
		if s != nil && strings.TrimSpace(*s) != "" {
			ip.Summary = strings.TrimSpace(*s)
			break
		}
	}
	if p.FeatureImage != nil {
		ip.CoverImage = ghostURL(*p.FeatureImage)
	}
	return imp.post(ctx, ip)
}
