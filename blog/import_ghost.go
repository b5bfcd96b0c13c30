package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"folio/blog/htmltomd"
)

// ghostExport is an opened Ghost JSON export: {"db": [{"meta": …, "data":
// {"posts": […], "tags": […], "posts_tags": […], …}}]} (or, from old
// versions, {"meta": …, "data": …}). It is read twice, each time as a
// stream: first the tags and their links to posts, then the posts one at a
// time, so that memory holds one post, never the whole file.
type ghostExport struct {
	r    io.ReaderAt
	size int64
}

// ghostPost holds the fields of a Ghost post the import reads.
type ghostPost struct {
	ID            string  `json:"id"`
	Title         string  `json:"title"`
	Slug          string  `json:"slug"`
	HTML          *string `json:"html"`
	Mobiledoc     *string `json:"mobiledoc"`
	Lexical       *string `json:"lexical"`
	Plaintext     *string `json:"plaintext"`
	FeatureImage  *string `json:"feature_image"`
	Type          string  `json:"type"`
	Page          any     `json:"page"` // true/false, or 1/0 in old exports
	Status        string  `json:"status"`
	Visibility    string  `json:"visibility"`
	CustomExcerpt *string `json:"custom_excerpt"`
	PublishedAt   *string `json:"published_at"`
	CreatedAt     *string `json:"created_at"`
	UpdatedAt     *string `json:"updated_at"`
}

type ghostTag struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Slug       string  `json:"slug"`
	Visibility string  `json:"visibility"`
	CreatedAt  *string `json:"created_at"`
	UpdatedAt  *string `json:"updated_at"`
}

type ghostPostTag struct {
	PostID    string `json:"post_id"`
	TagID     string `json:"tag_id"`
	SortOrder int    `json:"sort_order"`
}

func openGhost(r io.ReaderAt, size int64) (*ghostExport, error) {
	g := &ghostExport{r: r, size: size}
	found := false
	err := g.walk(map[string]func(*json.Decoder) error{}, func() { found = true })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, inputErrorf("not a Ghost export: the JSON has no db[].data or data object")
	}
	return g, nil
}

// walk streams the export, calling the table's function for every item of
// a table of data (the decoder is at the item) and skipping the rest
// token by token; found is called for each data object.
func (g *ghostExport) walk(tables map[string]func(*json.Decoder) error, found func()) error {
	dec := json.NewDecoder(io.NewSectionReader(g.r, 0, g.size))
	bad := func(err error) error {
		if err == nil {
			err = errors.New("unexpected structure")
		}
		if _, ok := errors.AsType[*InputError](err); ok {
			return err
		}
		return inputErrorf("not a valid Ghost export: %v", err)
	}
	data := func() error {
		found()
		return eachKey(dec, func(table string) error {
			fn := tables[table]
			if fn == nil {
				return skipValue(dec)
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return bad(fmt.Errorf("data.%s is not an array", table))
			}
			for dec.More() {
				if err := fn(dec); err != nil {
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
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return bad(errors.New("db is not an array"))
			}
			for dec.More() {
				if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
					return bad(errors.New("db[] is not an object"))
				}
				err := eachKey(dec, func(key string) error {
					if key != "data" {
						return skipValue(dec)
					}
					if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
						return bad(errors.New("data is not an object"))
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
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				return bad(errors.New("data is not an object"))
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

// decodeItem decodes one item of a table; a malformed one makes the file
// invalid.
func decodeItem(dec *json.Decoder, table string, v any) error {
	if err := dec.Decode(v); err != nil {
		return inputErrorf("not a valid Ghost export: an item of %s: %v", table, err)
	}
	return nil
}

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

// ghostTime reads Ghost's times: RFC 3339, or "2006-01-02 15:04:05" in UTC
// from old exports; nil for null or a time that does not parse.
func ghostTime(s *string) *time.Time {
	if s == nil || *s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, *s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	return nil
}

// ghostURL turns Ghost's placeholder for its own address into a site path.
func ghostURL(s string) string { return strings.ReplaceAll(s, "__GHOST_URL__", "") }

func (g *ghostExport) run(ctx context.Context, imp *importer) error {
	// First pass: the tags, and which belong to which post.
	tagsByID := map[string]ghostTag{}
	links := map[string][]ghostPostTag{}
	err := g.walk(map[string]func(*json.Decoder) error{
		"tags": func(dec *json.Decoder) error {
			var t ghostTag
			if err := decodeItem(dec, "tags", &t); err != nil {
				return err
			}
			tagsByID[t.ID] = t
			return nil
		},
		"posts_tags": func(dec *json.Decoder) error {
			var pt ghostPostTag
			if err := decodeItem(dec, "posts_tags", &pt); err != nil {
				return err
			}
			links[pt.PostID] = append(links[pt.PostID], pt)
			return nil
		},
	}, func() {})
	if err != nil {
		return err
	}
	internal := 0
	termIDs := map[string]string{} // Ghost tag id → Folio tag id
	ids := make([]string, 0, len(tagsByID))
	for id := range tagsByID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t := tagsByID[id]
		// Internal tags ("#name", visibility internal) are Ghost's own
		// markers, never shown to readers.
		if t.Visibility == "internal" || strings.HasPrefix(t.Name, "#") {
			internal++
			continue
		}
		folioID, err := imp.term(ctx, tags, importTerm{Name: t.Name, Slug: t.Slug, Created: ghostTime(t.CreatedAt), Updated: ghostTime(t.UpdatedAt)})
		if err != nil {
			return err
		}
		termIDs[id] = folioID
	}
	if internal > 0 {
		imp.res.warn("%d internal Ghost tags (#name) skipped", internal)
	}
	// Second pass: the posts and pages, one at a time.
	return g.walk(map[string]func(*json.Decoder) error{
		"posts": func(dec *json.Decoder) error {
			var p ghostPost
			if err := decodeItem(dec, "posts", &p); err != nil {
				return err
			}
			return g.post(ctx, imp, p, links[p.ID], termIDs)
		},
	}, func() {})
}

func (g *ghostExport) post(ctx context.Context, imp *importer, p ghostPost, links []ghostPostTag, termIDs map[string]string) error {
	isPage := p.Type == "page" || p.Page == true || p.Page == float64(1)
	kind := "post"
	if isPage {
		kind = "page"
	}
	origin := fmt.Sprintf("Ghost %s %q", kind, p.Slug)
	if p.Type != "" && p.Type != "post" && p.Type != "page" {
		imp.res.warn("%s skipped: type %q is not a post or a page", origin, p.Type)
		return nil
	}
	status := ""
	published := ghostTime(p.PublishedAt)
	switch p.Status {
	case "published":
		status = StatusPublished
	case "scheduled":
		// A published post dated in the future is what Folio calls
		// scheduled; pages have no schedule.
		status = StatusPublished
		if isPage {
			status = StatusDraft
			imp.res.warn("%s: scheduled in Ghost; imported as a draft (pages cannot be scheduled)", origin)
		}
	case "draft":
		status = StatusDraft
	case "sent":
		status = StatusDraft
		imp.res.warn("%s: an email-only newsletter in Ghost; imported as a draft", origin)
	default:
		imp.res.warn("%s skipped: unknown status %q", origin, p.Status)
		return nil
	}
	if status == StatusPublished && p.Visibility != "" && p.Visibility != "public" {
		status = StatusDraft
		imp.res.warn("%s: visible to %s only in Ghost; imported as a draft", origin, p.Visibility)
	}
	if p.HTML != nil && len(*p.HTML) > maxConvertedHTML {
		imp.res.warn("%s skipped: its HTML is larger than %d MiB", origin, maxConvertedHTML>>20)
		return nil
	}
	md, losses := ghostContent(p)
	if isPage {
		if status != StatusPublished {
			published = nil
		}
		return imp.page(ctx, importPage{Title: p.Title, Slug: p.Slug, Markdown: md, Status: status, PublishedAt: published,
			Created: ghostTime(p.CreatedAt), Updated: ghostTime(p.UpdatedAt), Origin: origin, Losses: losses})
	}
	sort.SliceStable(links, func(i, j int) bool { return links[i].SortOrder < links[j].SortOrder })
	var tagIDs []string
	for _, l := range links {
		if id := termIDs[l.TagID]; id != "" {
			tagIDs = append(tagIDs, id)
		}
	}
	ip := importPost{Title: p.Title, Slug: p.Slug, Markdown: md, Status: status, PublishedAt: published,
		Created: ghostTime(p.CreatedAt), Updated: ghostTime(p.UpdatedAt), TagIDs: tagIDs, Origin: origin, Losses: losses}
	if status == StatusDraft {
		ip.PublishedAt = nil
	}
	if p.CustomExcerpt != nil {
		ip.Summary = strings.TrimSpace(*p.CustomExcerpt)
	}
	if p.FeatureImage != nil {
		ip.CoverImage = ghostURL(*p.FeatureImage)
	}
	return imp.post(ctx, ip)
}

// ghostContent is a post's Markdown: the Markdown card of a Mobiledoc
// document made only of Markdown cards (posts written in Ghost's Markdown
// editor), else the HTML converted, else the plain text.
func ghostContent(p ghostPost) (string, []htmltomd.Loss) {
	if p.Mobiledoc != nil {
		var doc struct {
			Cards    [][]json.RawMessage `json:"cards"`
			Sections [][]json.RawMessage `json:"sections"`
		}
		if json.Unmarshal([]byte(*p.Mobiledoc), &doc) == nil && len(doc.Cards) > 0 {
			var parts []string
			ok := true
			for _, c := range doc.Cards {
				var name string
				var payload struct {
					Markdown *string `json:"markdown"`
				}
				if len(c) != 2 || json.Unmarshal(c[0], &name) != nil || json.Unmarshal(c[1], &payload) != nil ||
					(name != "markdown" && name != "card-markdown") || payload.Markdown == nil {
					ok = false
					break
				}
				parts = append(parts, *payload.Markdown)
			}
			for _, s := range doc.Sections {
				var kind int
				if len(s) == 0 || json.Unmarshal(s[0], &kind) != nil || kind != 10 { // 10: a card section
					ok = false
				}
			}
			if ok {
				md := ghostURL(strings.Join(parts, "\n\n"))
				if md != "" && !strings.HasSuffix(md, "\n") {
					md += "\n"
				}
				return md, nil
			}
		}
	}
	if p.HTML != nil && strings.TrimSpace(*p.HTML) != "" {
		return htmltomd.Convert(ghostURL(*p.HTML))
	}
	if p.Plaintext != nil && strings.TrimSpace(*p.Plaintext) != "" {
		return htmltomd.EscapeText(*p.Plaintext) + "\n", []htmltomd.Loss{{Kind: "no HTML in the export; imported its plain text", Count: 1}}
	}
	if p.Lexical != nil && *p.Lexical != "" {
		return "", []htmltomd.Loss{{Kind: "no HTML in the export (only Lexical, which Folio does not read); imported without content", Count: 1}}
	}
	return "", nil
}
