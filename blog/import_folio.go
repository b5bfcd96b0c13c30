package blog

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
)

// Bounds on what one file of an archive may expand to, so that a small zip
// cannot make the import read without end; the archive as a whole expands
// to at most the import limit (expandBudget).
const (
	maxArchiveMarkdown = maxContent + 64<<10 // a post or page: its content and front matter
	maxArchiveSmall    = 1 << 20             // manifest.json, settings.json
	maxArchiveItem     = 4 << 20             // one item of categories.json, comments.json, …
)

// folioArchive is an opened Folio archive.
type folioArchive struct {
	ctx    context.Context
	zr     *zip.Reader
	files  map[string]*zip.File
	budget *expandBudget
}

func openFolioArchive(ctx context.Context, r io.ReaderAt, size, limit int64) (*folioArchive, error) {
	if n := zipEntries(r, size, maxArchiveEntries); n > maxArchiveEntries {
		return nil, &ExpandError{Msg: fmt.Sprintf("the archive holds more than %d files", maxArchiveEntries)}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, inputErrorf("not a Folio archive: the file is not a zip archive")
	}
	a := &folioArchive{ctx: ctx, zr: zr, files: map[string]*zip.File{}, budget: &expandBudget{left: limit, limit: limit}}
	// What the headers declare is not trusted (the reads count), but an
	// archive that declares too much is refused before any work.
	var declared uint64
	for _, f := range zr.File {
		a.files[f.Name] = f
		declared = min(declared+min(f.UncompressedSize64, 1<<62), 1<<62)
	}
	if declared > uint64(limit) {
		return nil, a.budget.exceeded()
	}
	mf := a.files["manifest.json"]
	if mf == nil {
		return nil, inputErrorf("not a Folio archive: it has no manifest.json")
	}
	var m archiveManifest
	if err := a.decode(mf, maxArchiveSmall, &m); err != nil {
		return nil, err
	}
	if m.Format != archiveFormat {
		return nil, inputErrorf("not a Folio archive: manifest.json names the format %q, not %q", m.Format, archiveFormat)
	}
	if m.Version != archiveVersion {
		return nil, inputErrorf("Folio archive version %d is not supported (this Folio reads version %d)", m.Version, archiveVersion)
	}
	return a, nil
}

// open opens a file of the archive, reading at most limit bytes of it.
func (a *folioArchive) open(f *zip.File, limit int64) (io.ReadCloser, io.Reader, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, nil, inputErrorf("%s cannot be read: %v", f.Name, err)
	}
	return rc, &archiveReader{ctx: a.ctx, r: rc, n: limit, limit: limit, budget: a.budget, name: f.Name}, nil
}

// ownError returns err when it is one of the import's own: a bound
// (InputError, ExpandError) or the end of its context; nil when it is the
// file's fault.
func ownError(err error) error {
	_, input := errors.AsType[*InputError](err)
	_, expand := errors.AsType[*ExpandError](err)
	if input || expand || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// readError is a failed read of the archive's file name. archive/zip
// stops a file that expands past the size its header declares.
func readError(name string, err error) error {
	if own := ownError(err); own != nil {
		return own
	}
	if errors.Is(err, zip.ErrFormat) {
		return inputErrorf("%s is damaged: it expands beyond the size the archive declares for it", name)
	}
	return inputErrorf("%s cannot be read: %v", name, err)
}

func (a *folioArchive) read(f *zip.File, limit int64) ([]byte, error) {
	rc, r, err := a.open(f, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, readError(f.Name, err)
	}
	return b, nil
}

func (a *folioArchive) decode(f *zip.File, limit int64, v any) error {
	b, err := a.read(f, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return inputErrorf("%s is not valid: %v", f.Name, err)
	}
	return nil
}

// eachItem decodes the JSON array in the archive's file name item by item,
// each at most maxArchiveItem bytes; a missing file is an empty array.
func eachItem[T any](a *folioArchive, name string, fn func(item T, i int) error) error {
	f := a.files[name]
	if f == nil {
		return nil
	}
	rc, r, err := a.open(f, a.budget.limit)
	if err != nil {
		return err
	}
	defer rc.Close()
	win := &itemWindow{r: r, n: maxArchiveItem, name: name}
	dec := json.NewDecoder(win)
	win.start(0)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if own := ownError(err); own != nil || errors.Is(err, zip.ErrFormat) {
			return readError(name, err)
		}
		return inputErrorf("%s is not a JSON array", name)
	}
	for i := 0; ; i++ {
		win.start(i + 1)
		if !dec.More() {
			break
		}
		var item T
		if err := dec.Decode(&item); err != nil {
			if own := ownError(err); own != nil || errors.Is(err, zip.ErrFormat) {
				return readError(name, err)
			}
			return inputErrorf("%s: item %d is not valid: %v", name, i+1, err)
		}
		if err := fn(item, i); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		if own := ownError(err); own != nil || errors.Is(err, zip.ErrFormat) {
			return readError(name, err)
		}
		return inputErrorf("%s is not a valid JSON array", name)
	}
	return nil
}

// settings reads settings.json over the current settings: keys it leaves
// out keep their values, ai.api_key is never taken from it.
func (a *folioArchive) settings(ctx context.Context, b *Blog) (*Settings, error) {
	f := a.files["settings.json"]
	if f == nil {
		return nil, nil
	}
	var groups struct {
		Site, Post, Render, AI json.RawMessage
	}
	if err := a.decode(f, maxArchiveSmall, &groups); err != nil {
		return nil, err
	}
	s := b.settings.Get(ctx)
	key := s.AI.APIKey
	for _, g := range []struct {
		raw json.RawMessage
		dst any
	}{{groups.Site, &s.Site}, {groups.Post, &s.Post}, {groups.Render, &s.Render}, {groups.AI, &s.AI}} {
		if len(g.raw) == 0 || string(g.raw) == "null" {
			continue
		}
		if err := json.Unmarshal(g.raw, g.dst); err != nil {
			return nil, inputErrorf("settings.json is not valid: %v", err)
		}
	}
	s.AI.APIKey = key
	if err := s.Validate(); err != nil {
		return nil, inputErrorf("settings.json: %v", err)
	}
	return &s, nil
}

func (a *folioArchive) run(ctx context.Context, imp *importer) error {
	for _, t := range []termTable{categories, tags} {
		err := eachItem(a, string(t)+".json", func(item archiveTerm, _ int) error {
			_, err := imp.term(ctx, t, importTerm{Name: item.Name, Slug: item.Slug, Created: &item.CreatedAt, Updated: &item.UpdatedAt})
			return err
		})
		if err != nil {
			return err
		}
	}
	known := map[string]bool{"manifest.json": true, "settings.json": true, "categories.json": true, "tags.json": true,
		"comments.json": true, "friend_links.json": true}
	for _, dir := range []string{"posts", "pages"} {
		for _, f := range a.zr.File {
			if path.Dir(f.Name) != dir || !strings.HasSuffix(f.Name, ".md") {
				continue
			}
			known[f.Name] = true
			src, err := a.read(f, maxArchiveMarkdown)
			if err != nil {
				return err
			}
			if dir == "posts" {
				err = a.post(ctx, imp, f.Name, src)
			} else {
				err = a.page(ctx, imp, f.Name, src)
			}
			if err != nil {
				return err
			}
		}
	}
	err := eachItem(a, "comments.json", func(c archiveComment, i int) error {
		return imp.comment(ctx, importComment{Post: c.Post, Author: c.Author, Email: c.Email, Content: c.Content, Status: c.Status,
			IP: c.IP, UserAgent: c.UserAgent, Created: c.CreatedAt, Origin: fmt.Sprintf("comments.json item %d", i+1),
			Fediverse: archiveFediverse{ID: c.ID, APID: c.APID, APActor: c.APActor, AuthorHandle: c.AuthorHandle, AuthorURL: c.AuthorURL,
				ReplyTo: c.ReplyTo}})
	})
	if err != nil {
		return err
	}
	err = eachItem(a, "friend_links.json", func(l archiveLink, i int) error {
		return imp.link(ctx, l, fmt.Sprintf("friend_links.json item %d", i+1))
	})
	if err != nil {
		return err
	}
	for _, f := range a.zr.File {
		if !known[f.Name] && !strings.HasSuffix(f.Name, "/") {
			imp.res.warn("%s: not a file of a Folio archive; ignored", f.Name)
		}
	}
	return nil
}

// fmFields reads front-matter fields into their destinations, stopping at
// the first that does not parse.
type fmFields struct {
	fm  frontMatter
	err error
}

func (f *fmFields) str(key string) string {
	s, err := f.fm.str(key)
	f.err = errors.Join(f.err, err)
	return s
}

func (f *fmFields) time(key string) *time.Time {
	t, err := f.fm.time(key)
	f.err = errors.Join(f.err, err)
	return t
}

func (f *fmFields) boolean(key string, def bool) bool {
	v, err := f.fm.boolean(key, def)
	f.err = errors.Join(f.err, err)
	return v
}

func (f *fmFields) integer(key string) int {
	v, err := f.fm.integer(key)
	f.err = errors.Join(f.err, err)
	return v
}

func (f *fmFields) list(key string) []string {
	v, err := f.fm.list(key)
	f.err = errors.Join(f.err, err)
	return v
}

func (a *folioArchive) post(ctx context.Context, imp *importer, name string, src []byte) error {
	fm, body, err := parseFrontMatter(src)
	if err != nil {
		imp.res.warn("%s skipped: %v", name, err)
		return nil
	}
	f := &fmFields{fm: fm}
	p := importPost{Title: f.str("title"), Slug: f.str("slug"), Status: f.str("status"), PublishedAt: f.time("published_at"),
		Created: f.time("created_at"), Updated: f.time("updated_at"), Summary: f.str("summary"),
		SummarySource: f.str("summary_source"), CoverImage: f.str("cover_image"), Markdown: body, Origin: name}
	show := f.boolean("show_comments", true)
	p.ShowComments = &show
	category, tagSlugs := f.str("category"), f.list("tags")
	if f.err != nil {
		imp.res.warn("%s skipped: %v", name, f.err)
		return nil
	}
	if p.Slug == "" {
		p.Slug = strings.TrimSuffix(path.Base(name), ".md")
	}
	if p.CategoryID, err = imp.termID(ctx, categories, category, name); err != nil {
		return err
	}
	for _, s := range tagSlugs {
		id, err := imp.termID(ctx, tags, s, name)
		if err != nil {
			return err
		}
		if id != "" {
			p.TagIDs = append(p.TagIDs, id)
		}
	}
	return imp.post(ctx, p)
}

func (a *folioArchive) page(ctx context.Context, imp *importer, name string, src []byte) error {
	fm, body, err := parseFrontMatter(src)
	if err != nil {
		imp.res.warn("%s skipped: %v", name, err)
		return nil
	}
	f := &fmFields{fm: fm}
	p := importPage{Title: f.str("title"), Slug: f.str("slug"), Status: f.str("status"), PublishedAt: f.time("published_at"),
		Created: f.time("created_at"), Updated: f.time("updated_at"), SortOrder: f.integer("sort_order"),
		ShowInNav: f.boolean("show_in_nav", false), Template: f.str("template"), Config: f.str("config"), Markdown: body, Origin: name}
	if f.err != nil {
		imp.res.warn("%s skipped: %v", name, f.err)
		return nil
	}
	if p.Slug == "" {
		p.Slug = strings.TrimSuffix(path.Base(name), ".md")
	}
	return imp.page(ctx, p)
}
