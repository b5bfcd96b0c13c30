package blog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"folio/auth"
	"folio/blog/htmltomd"
	"folio/sqlstore"
)

// Import formats.
const (
	FormatFolio = "folio" // the archive Export writes
	FormatGhost = "ghost" // a Ghost JSON export
	FormatWXR   = "wxr"   // a WordPress WXR export
	// FormatMarkdown is a Hugo or Jekyll site: Markdown files with YAML or
	// TOML front matter, in a folder or an archive.
	FormatMarkdown = "markdown"
)

// ImportOptions say what an import reads and what it does besides adding
// the export's text.
type ImportOptions struct {
	// Format is FormatFolio, FormatGhost, FormatWXR, FormatMarkdown, or ""
	// to recognise the file by its first bytes.
	Format string
	// Media brings the images and attachments the content references home:
	// they are downloaded into the file host (a Hugo or Jekyll site's own
	// files taken from the site) and the content's links rewritten to them
	// (docs/export-import.md#bringing-images-home).
	Media bool
	// MediaOrigin is the old site's address (https://old.example), for
	// exports that do not say it (Ghost's __GHOST_URL__); "" when the
	// export says it or has none.
	MediaOrigin string
	// MediaOwner is the id of the user who owns the files brought home;
	// "" is the signed-in user of ctx (the administrator who imports
	// through the API or the console).
	MediaOwner string
	// Timeout bounds the import's work, its downloads apart, which have
	// their own (docs/export-import.md#limits); past it the import stops
	// and writes nothing. 0: no bound (folio import).
	Timeout time.Duration
}

// errImportTimeout: the import's work took longer than its Timeout.
var errImportTimeout = errors.New("the import ran out of time")

// MaxImportSize bounds the file an import reads (docs/export-import.md#limits).
const MaxImportSize = 64 << 20

// maxWarnings bounds the warnings one import reports; the last one says
// how many more there were.
const maxWarnings = 200

// InputError is a problem with the imported file itself: not readable, not
// of the format, malformed. Nothing was imported.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// ImportCount counts one kind of thing an import met: created, or skipped
// because it was already there. Changed counts those of the created that
// are not exactly what the export had (a protected post made a draft,
// markup Markdown cannot say, an image left at the old site): each has its
// warnings.
type ImportCount struct {
	Created int `json:"created"`
	Skipped int `json:"skipped"`
	Changed int `json:"changed"`
}

// SettingsCount counts the settings keys an import changed and those it
// found already equal.
type SettingsCount struct {
	Updated int `json:"updated"`
	Skipped int `json:"skipped"`
}

// ImportResult is what an import did.
type ImportResult struct {
	Format      string      `json:"format"`
	Posts       ImportCount `json:"posts"`
	Pages       ImportCount `json:"pages"`
	Categories  ImportCount `json:"categories"`
	Tags        ImportCount `json:"tags"`
	Comments    ImportCount `json:"comments"`
	FriendLinks ImportCount `json:"friend_links"`
	// Redirects are old addresses (Hugo's aliases) made slug redirects.
	Redirects ImportCount `json:"redirects"`
	// Media are the images and attachments brought home: created is
	// downloaded (or taken from the site imported), skipped already home
	// from an earlier import, changed left at their old address (a
	// warning says why).
	Media    ImportCount   `json:"media"`
	Settings SettingsCount `json:"settings"`
	// Losses counts, by kind, what the content's conversion could not keep
	// as it was, over every item created (htmltomd.Loss).
	Losses   map[string]int `json:"losses"`
	Warnings []string       `json:"warnings"`
	dropped  int
}

func (r *ImportResult) warn(format string, args ...any) {
	if len(r.Warnings) < maxWarnings {
		r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
		return
	}
	r.dropped++
}

// Import reads a Ghost, WordPress, Hugo, Jekyll or Folio export and adds what the blog
// lacks, in one transaction: posts and pages are matched by slug,
// categories and tags by slug, comments by post, author, time and content,
// friend links by URL, so that importing a file twice adds nothing the
// second time. A post or page whose slug is taken by different content is
// skipped with a warning. opts says the format and whether to bring the
// images home. An *InputError means the file is at fault, an
// *ExpandError that an archive holds more than the import limit; either
// way nothing was written (docs/export-import.md). The import stops, and
// writes nothing, once ctx ends: every read of the file checks it. With
// opts.Media the files are brought home before the transaction
// (import_media.go); those stay in the file host, and are remembered, even
// when the import then fails.
func (b *Blog) Import(ctx context.Context, r io.ReaderAt, size int64, opts ImportOptions) (*ImportResult, error) {
	if size > b.importLimit {
		return nil, &SizeError{Limit: b.importLimit}
	}
	return b.importWith(ctx, opts, func(work context.Context) (string, importSource, error) {
		r := ctxReaderAt{ctx: work, r: r}
		format := opts.Format
		if format == "" {
			var err error
			if format, err = detectFormat(r, size); err != nil {
				return "", nil, err
			}
		}
		var src importSource
		var err error
		switch format {
		case FormatFolio:
			src, err = openFolioArchive(work, r, size, b.importLimit)
		case FormatGhost:
			src, err = openGhost(r, size)
		case FormatWXR:
			src, err = openWXR(r, size)
		case FormatMarkdown:
			src, err = openSiteArchive(work, r, size, b.importLimit)
		default:
			return "", nil, inputErrorf("unknown format %q (want folio, ghost, wxr or markdown)", format)
		}
		return format, src, err
	})
}

// importWith opens an export with open and imports it: the files it
// references brought home first when opts.Media, then its content in one
// transaction, then its settings. open runs under the import's clock, so
// a file that is slow to read counts against opts.Timeout.
func (b *Blog) importWith(ctx context.Context, opts ImportOptions, open func(work context.Context) (string, importSource, error)) (*ImportResult, error) {
	origin, err := mediaOrigin(opts.MediaOrigin)
	if err != nil {
		return nil, err
	}
	owner := opts.MediaOwner
	if opts.Media {
		if b.media == nil {
			return nil, inputErrorf("bringing images home needs the file host, which this blog has not")
		}
		if idn := auth.FromContext(ctx); owner == "" && idn != nil {
			owner = idn.UserID
		}
		if owner == "" {
			return nil, errors.New("blog: import: bringing images home needs the user who owns the files")
		}
	}
	// The work's clock: it stops while the files are downloaded, which
	// have their own bound.
	work, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	clock := newImportClock(opts.Timeout, func() { stop(errImportTimeout) })
	defer clock.stop()
	fail := func(err error) (*ImportResult, error) {
		if errors.Is(context.Cause(work), errImportTimeout) && ctx.Err() == nil {
			return nil, errImportTimeout
		}
		return nil, err
	}
	format, src, err := open(work)
	if err != nil {
		return fail(err)
	}
	res := &ImportResult{Format: format, Losses: map[string]int{}, Warnings: []string{}}
	imp := &importer{b: b, res: res, summaryLength: b.settings.Get(ctx).Post.SummaryLength,
		termIDs: map[string]string{}, posts: map[string]postMatch{}}
	settings, err := src.settings(work, b)
	if err != nil {
		return fail(err)
	}
	if opts.Media {
		if imp.media, err = b.planMedia(work, src, origin); err != nil {
			return fail(err)
		}
		clock.pause()
		if work.Err() != nil {
			return fail(work.Err())
		}
		if err := b.bringHome(ctx, imp.media, owner, res); err != nil {
			return nil, err
		}
		clock.resume()
	}
	err = b.db.Tx(work, func(tx *sqlstore.Tx) error {
		imp.tx = tx
		if err := src.run(work, imp); err != nil {
			return err
		}
		// The timer's goroutine may not have run yet on a busy machine:
		// the clock itself decides, before the commit.
		if clock.expired() {
			stop(errImportTimeout)
			return context.Cause(work)
		}
		return nil
	})
	if err == nil && imp.media != nil {
		imp.media.untold(res)
	}
	if err != nil {
		if own := ownError(err); own != nil {
			return fail(own)
		}
		return fail(fmt.Errorf("blog: import: %w", err))
	}
	// The commit is the point of no return: what follows it is done even
	// if ctx ends now, so that an import is never half applied.
	done := context.WithoutCancel(ctx)
	if imp.wrote {
		b.markSiteChanged(done)
	}
	if settings != nil {
		imp.applySettings(done, settings)
	}
	if res.dropped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("… and %d more warnings", res.dropped))
	}
	return res, nil
}

// detectFormat recognises a file by its first bytes: a zip with a
// manifest.json at its root is a Folio archive, any other zip, a tar or a
// gzip file a Hugo or Jekyll site, JSON a Ghost export, XML a WordPress
// export.
func detectFormat(r io.ReaderAt, size int64) (string, error) {
	head := make([]byte, min(size, 512))
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", inputErrorf("the file cannot be read")
	}
	if isSiteArchive(head[:n]) {
		return FormatMarkdown, nil
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\ufeff")), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return zipFormat(r, size), nil
	case bytes.HasPrefix(head, []byte("{")):
		return FormatGhost, nil
	case bytes.HasPrefix(head, []byte("<")):
		return FormatWXR, nil
	}
	return "", inputErrorf("unknown file format: not a Folio archive, a Ghost JSON export, a WordPress WXR file or an archive of a Hugo or Jekyll site")
}

// importSource is one opened export.
type importSource interface {
	// settings reads the settings the export carries, before anything is
	// written, so that bad settings fail the import; nil when none.
	settings(ctx context.Context, b *Blog) (*Settings, error)
	// run imports everything else through imp.
	run(ctx context.Context, imp *importer) error
}

// importer adds items to the blog inside one transaction, through the same
// store functions the API uses.
type importer struct {
	b             *Blog
	tx            *sqlstore.Tx
	res           *ImportResult
	summaryLength int
	termIDs       map[string]string    // "categories/slug" → id of a live term
	posts         map[string]postMatch // slug → what the import made of it
	wrote         bool
	// media is what the import brings home: gathered by a first run that
	// is collecting (no transaction, nothing written, the result thrown
	// away), then applied to each post and page of the second.
	media      *mediaPlan
	collecting bool
	// commentIDs maps the ids of a Folio archive's comments to the blog's
	// comments they became (or were found to be), for the replies after
	// them: their reply_to names the archive's id.
	commentIDs map[string]commentRef
}

// postMatch is what a post's slug stands for in this import: the post to
// attach comments to, or none when the slug belongs to another post.
type postMatch struct {
	id       string
	conflict bool
}

// importTerm is a category or tag of an export.
type importTerm struct {
	Name, Slug       string
	Created, Updated *time.Time
}

// term returns the id of the live term with t's slug, creating it when
// there is none; "" (with a warning) when t cannot be a term.
func (imp *importer) term(ctx context.Context, table termTable, t importTerm) (string, error) {
	if imp.collecting {
		return "", nil
	}
	count := &imp.res.Categories
	kind := "category"
	if table == tags {
		count, kind = &imp.res.Tags, "tag"
	}
	in := termInput{Name: strings.TrimSpace(t.Name), Slug: strings.ToLower(strings.TrimSpace(t.Slug))}
	if in.Name == "" {
		in.Name = in.Slug
	}
	if !validSlug(in.Slug) {
		in.Slug = slugify(in.Slug)
		if in.Slug == "" {
			in.Slug = slugify(in.Name)
		}
	}
	if in.Slug == "" {
		imp.res.warn("%s %q skipped: no slug can be made of its name", kind, t.Name)
		return "", nil
	}
	key := string(table) + "/" + in.Slug
	if id, ok := imp.termIDs[key]; ok {
		return id, nil
	}
	id, err := termIDBySlug(ctx, imp.tx, table, in.Slug)
	switch {
	case err == nil:
		count.Skipped++
		imp.termIDs[key] = id
		return id, nil
	case !errors.Is(err, sqlstore.ErrNotFound):
		return "", err
	}
	if err := in.validate(); err != nil {
		imp.res.warn("%s %q skipped: %v", kind, t.Name, err)
		return "", nil
	}
	now := imp.b.now()
	created := orTime(t.Created, now)
	term := Term{ID: sqlstore.NewID(), Name: in.Name, Slug: in.Slug, CreatedAt: created, UpdatedAt: orTime(t.Updated, created)}
	if err := insertTerm(ctx, imp.tx, table, term); err != nil {
		return "", err
	}
	count.Created++
	imp.wrote = true
	imp.termIDs[key] = term.ID
	return term.ID, nil
}

// termID is the id of a term the export refers to by slug alone; "" with
// a warning when it is neither in the export nor in the blog.
func (imp *importer) termID(ctx context.Context, table termTable, slug, of string) (string, error) {
	if slug == "" || imp.collecting {
		return "", nil
	}
	if id, ok := imp.termIDs[string(table)+"/"+slug]; ok {
		return id, nil
	}
	id, err := termIDBySlug(ctx, imp.tx, table, slug)
	switch {
	case err == nil:
		imp.termIDs[string(table)+"/"+slug] = id
		return id, nil
	case errors.Is(err, sqlstore.ErrNotFound):
		imp.res.warn("%s: %s %q is not in the export nor in the blog; left out", of, strings.TrimSuffix(string(table), "s"), slug)
		return "", nil
	}
	return "", err
}

func orTime(t *time.Time, def time.Time) time.Time {
	if t == nil || t.IsZero() {
		return def
	}
	return t.UTC()
}

// importPost is a post of an export.
type importPost struct {
	Title, Slug, Summary, SummarySource, Markdown, Status, CoverImage string
	PublishedAt, Created, Updated                                     *time.Time
	ShowComments                                                      *bool
	CategoryID                                                        string
	TagIDs                                                            []string
	// Teaser is the Markdown before a "more" mark (WordPress's and Hugo's
	// <!--more-->): without a Summary, its text is the post's hand-written
	// summary.
	Teaser string
	// Origin names the item in warnings ("post \"hello\"", "item 12").
	Origin string
	// File is the item's file in a site (Hugo, Jekyll): the paths of its
	// images are found beside it (import_media_site.go). "" for an export.
	File string
	// Notes say what the import changed of the item (made a draft, folded
	// categories into tags); Losses what its conversion lost. Either makes
	// a created item count as changed, and each becomes a warning.
	Notes  []string
	Losses []htmltomd.Loss
}

// slug is the slug an imported post or page gets: its own when usable,
// else one made of its title; ok is false, with a warning, when neither
// gives one.
func (imp *importer) slug(slug, title, origin string) (string, bool) {
	slug = strings.TrimSpace(slug)
	if slug == "" || !validSlug(slug) {
		slug = slugify(title)
	}
	if slug == "" {
		imp.res.warn("%s skipped: it has neither a usable slug nor a title to make one of", origin)
		return "", false
	}
	return slug, true
}

// post adds p unless a live post has its slug: the same title and content
// make it the same post (skipped), anything else is a conflict (skipped,
// with a warning, and the export's comments of it are left out).
func (imp *importer) post(ctx context.Context, p importPost) error {
	var ok bool
	if p.Slug, ok = imp.slug(p.Slug, p.Title, p.Origin); !ok {
		return nil
	}
	if imp.collecting {
		imp.media.collect(imp.b, p.Markdown, p.CoverImage, p.Origin, p.File)
		return nil
	}
	var left []string // addresses of it that were not brought home
	p.Markdown, p.CoverImage, left = imp.media.apply(imp.b, p.Markdown, p.CoverImage, p.File)
	if _, seen := imp.posts[p.Slug]; seen {
		imp.res.warn("%s skipped: the export has another post with slug %q", p.Origin, p.Slug)
		return nil
	}
	id, title, content, err := postTextBySlug(ctx, imp.tx, p.Slug)
	switch {
	case err == nil:
		imp.res.Posts.Skipped++
		same := title == strings.TrimSpace(p.Title) && content == p.Markdown
		imp.posts[p.Slug] = postMatch{id: id, conflict: !same}
		if !same {
			imp.res.warn("%s skipped: slug %q is taken by a different post, which was kept", p.Origin, p.Slug)
		}
		return nil
	case !errors.Is(err, sqlstore.ErrNotFound):
		return err
	}
	in := postInput{Title: p.Title, Slug: p.Slug, Summary: p.Summary, ContentMarkdown: p.Markdown, Status: p.Status,
		CoverImage: p.CoverImage, PublishedAt: p.PublishedAt, ShowComments: p.ShowComments, CategoryID: p.CategoryID, TagIDs: p.TagIDs}
	if checkURL("cover_image", in.CoverImage, false) != nil {
		imp.res.warn("%s: cover image %q is not an http(s) URL or a path; left out", p.Origin, in.CoverImage)
		in.CoverImage = ""
	}
	if err := in.validate(); err != nil {
		imp.res.warn("%s skipped: %v", p.Origin, err)
		return nil
	}
	html, err := imp.b.render(ctx, in.ContentMarkdown)
	if err != nil {
		return fmt.Errorf("render %s: %w", p.Origin, err)
	}
	if in.Summary == "" && strings.TrimSpace(p.Teaser) != "" {
		teaser, err := imp.b.render(ctx, p.Teaser)
		if err != nil {
			return fmt.Errorf("render %s: %w", p.Origin, err)
		}
		in.Summary = excerpt(strings.TrimSpace(teaser.Plain), 5000)
		p.SummarySource = summaryManual
	}
	source := p.SummarySource
	switch {
	case in.Summary == "":
		source = summaryAuto
	case source != summaryAuto && source != summaryAI:
		source = summaryManual
	}
	if source == summaryAuto && in.Summary == "" {
		in.Summary = excerpt(html.Plain, imp.summaryLength)
	}
	now := imp.b.now()
	created := orTime(p.Created, now)
	if in.Status == StatusPublished && in.PublishedAt == nil {
		in.PublishedAt = &created
	}
	sp := storedPost{id: sqlstore.NewID(), create: true, in: in, html: html, source: source, created: created, updated: orTime(p.Updated, created)}
	if err := storePost(ctx, imp.tx, sp); err != nil {
		if fe, ok := errors.AsType[*fieldError](err); ok {
			imp.res.warn("%s skipped: %v", p.Origin, fe)
			return nil
		}
		return err
	}
	imp.res.Posts.Created++
	imp.changes(&imp.res.Posts, p.Origin, append(p.Notes, imp.media.notes(left)...), p.Losses)
	imp.wrote = true
	imp.posts[p.Slug] = postMatch{id: sp.id}
	return nil
}

// changes reports what the import changed of an item it created: each
// note and each kind of loss is a warning naming it, the losses add to the
// result's, and the item counts as changed.
func (imp *importer) changes(count *ImportCount, origin string, notes []string, losses []htmltomd.Loss) {
	if len(notes) == 0 && len(losses) == 0 {
		return
	}
	count.Changed++
	for _, n := range notes {
		imp.res.warn("%s: %s", origin, n)
	}
	for _, l := range losses {
		imp.res.Losses[l.Kind] += l.Count
		if l.Count == 1 {
			imp.res.warn("%s: %s", origin, l.Kind)
		} else {
			imp.res.warn("%s: %s (%d times)", origin, l.Kind, l.Count)
		}
	}
}

// importPage is a page of an export.
type importPage struct {
	Title, Slug, Markdown, Status, Template, Config string
	SortOrder                                       int
	ShowInNav                                       bool
	PublishedAt, Created, Updated                   *time.Time
	Origin, File                                    string   // as importPost's
	Notes                                           []string // as importPost's
	Losses                                          []htmltomd.Loss
}

// page adds p unless a live page has its slug (the rule of post).
func (imp *importer) page(ctx context.Context, p importPage) error {
	var ok bool
	if p.Slug, ok = imp.slug(p.Slug, p.Title, p.Origin); !ok {
		return nil
	}
	if imp.collecting {
		imp.media.collect(imp.b, p.Markdown, "", p.Origin, p.File)
		return nil
	}
	var left []string
	p.Markdown, _, left = imp.media.apply(imp.b, p.Markdown, "", p.File)
	title, content, err := pageTextBySlug(ctx, imp.tx, p.Slug)
	switch {
	case err == nil:
		imp.res.Pages.Skipped++
		if title != strings.TrimSpace(p.Title) || content != p.Markdown {
			imp.res.warn("%s skipped: slug %q is taken by a different page, which was kept", p.Origin, p.Slug)
		}
		return nil
	case !errors.Is(err, sqlstore.ErrNotFound):
		return err
	}
	in := pageInput{Title: p.Title, Slug: p.Slug, ContentMarkdown: p.Markdown, Status: p.Status, SortOrder: p.SortOrder,
		ShowInNav: p.ShowInNav, Template: p.Template, Config: p.Config}
	// The API's JSON decoding refuses what no database stores (NUL); an
	// import checks it here, since one refused statement would end the
	// whole transaction on PostgreSQL.
	for _, f := range []struct{ name, v string }{{"content_markdown", in.ContentMarkdown}, {"config", in.Config}} {
		if err := checkText(f.name, f.v, false, maxContent); err != nil {
			imp.res.warn("%s skipped: %v", p.Origin, err)
			return nil
		}
	}
	if err := imp.b.validatePage(&in); err != nil {
		fe, ok := errors.AsType[*fieldError](err)
		if !ok {
			return err
		}
		if fe.Field != "template" && fe.Field != "config" {
			imp.res.warn("%s skipped: %v", p.Origin, fe)
			return nil
		}
		// The template is this installation's business: the page keeps
		// its content with the default one.
		imp.res.warn("%s: %v; imported with the default template", p.Origin, fe)
		in.Template, in.Config = "default", "{}"
		if err := imp.b.validatePage(&in); err != nil {
			imp.res.warn("%s skipped: %v", p.Origin, err)
			return nil
		}
	}
	html, err := imp.b.render(ctx, in.ContentMarkdown)
	if err != nil {
		return fmt.Errorf("render %s: %w", p.Origin, err)
	}
	now := imp.b.now()
	created := orTime(p.Created, now)
	published := p.PublishedAt
	if published == nil && in.Status == StatusPublished {
		published = &created
	}
	sp := storedPage{id: sqlstore.NewID(), create: true, in: in, html: html, published: published, created: created, updated: orTime(p.Updated, created)}
	if err := storePage(ctx, imp.tx, sp); err != nil {
		if fe, ok := errors.AsType[*fieldError](err); ok {
			imp.res.warn("%s skipped: %v", p.Origin, fe)
			return nil
		}
		return err
	}
	imp.res.Pages.Created++
	imp.changes(&imp.res.Pages, p.Origin, append(p.Notes, imp.media.notes(left)...), p.Losses)
	imp.wrote = true
	return nil
}

// importComment is a comment of an export, on the post with slug Post.
type importComment struct {
	Post, Author, Email, Content, Status, IP, UserAgent string
	Created                                             time.Time
	Origin                                              string
	// Fediverse is what a Folio archive says of a comment that came from
	// or went to the fediverse; empty from other exports.
	Fediverse archiveFediverse
}

// comment adds c to its post unless the post already has a comment by the
// same author at the same time with the same content.
func (imp *importer) comment(ctx context.Context, c importComment) error {
	if imp.collecting {
		return nil
	}
	m, ok := imp.posts[c.Post]
	if !ok {
		id, err := postIDBySlug(ctx, imp.tx, c.Post)
		switch {
		case errors.Is(err, sqlstore.ErrNotFound):
			imp.res.warn("%s skipped: no post %q", c.Origin, c.Post)
			return nil
		case err != nil:
			return err
		}
		m = postMatch{id: id}
		imp.posts[c.Post] = m
	}
	if m.conflict {
		imp.res.warn("%s skipped: its post %q was not imported (slug taken)", c.Origin, c.Post)
		return nil
	}
	c.Author = strings.TrimSpace(c.Author)
	c.Content = strings.TrimSpace(c.Content)
	c.Email = strings.TrimSpace(c.Email)
	if c.Author == "" {
		c.Author = "Anonymous"
	}
	if r := []rune(c.Author); len(r) > 50 {
		c.Author = string(r[:50])
	}
	if c.Email != "" && checkEmail("email", c.Email) != nil {
		c.Email = ""
	}
	if len(c.IP) > 64 {
		c.IP = ""
	}
	if len(c.UserAgent) > 512 {
		c.UserAgent = c.UserAgent[:512]
	}
	if !validCommentStatus(c.Status) {
		imp.res.warn("%s skipped: unknown status %q", c.Origin, c.Status)
		return nil
	}
	for _, f := range []struct{ name, v string }{{"author", c.Author}, {"content", c.Content}, {"email", c.Email},
		{"ip", c.IP}, {"user_agent", c.UserAgent}} {
		required := f.name == "content"
		if err := checkText(f.name, f.v, required, maxContent); err != nil {
			imp.res.warn("%s skipped: %v", c.Origin, err)
			return nil
		}
	}
	fed, notes := imp.fediverse(c.Fediverse, m.id)
	created := sqlstore.Time(sqlstore.FromTime(orTime(&c.Created, imp.b.now())))
	dup, err := sameComment(ctx, imp.tx, m.id, c.Author, created, c.Content)
	if err != nil {
		return err
	}
	if dup == "" && fed.APID != "" {
		var postID string
		if dup, postID, err = commentOfNote(ctx, imp.tx, fed.APID); err != nil {
			return err
		}
		if dup != "" {
			if postID != m.id {
				imp.res.warn("%s skipped: its fediverse Note %s is a comment of another post already", c.Origin, fed.APID)
			}
			imp.commentSeen(c.Fediverse.ID, dup, postID)
			imp.res.Comments.Skipped++
			return nil
		}
	}
	if dup != "" {
		imp.commentSeen(c.Fediverse.ID, dup, m.id)
		imp.res.Comments.Skipped++
		return nil
	}
	ac := AdminComment{PublicComment: PublicComment{ID: sqlstore.NewID(), Author: c.Author, Content: c.Content, CreatedAt: created,
		AuthorHandle: fed.AuthorHandle, AuthorURL: fed.AuthorURL, ReplyTo: fed.ReplyTo, apID: fed.APID, apActor: fed.APActor},
		Email: c.Email, IP: c.IP, UserAgent: c.UserAgent, PostID: m.id, Status: c.Status}
	inserted, err := insertComment(ctx, imp.tx, ac)
	if err != nil {
		return err
	}
	if !inserted { // the inbox stored the Note meanwhile
		dup, postID, err := commentOfNote(ctx, imp.tx, fed.APID)
		if err != nil {
			return err
		}
		imp.commentSeen(c.Fediverse.ID, dup, postID)
		imp.res.Comments.Skipped++
		return nil
	}
	imp.commentSeen(c.Fediverse.ID, ac.ID, m.id)
	imp.res.Comments.Created++
	imp.changes(&imp.res.Comments, c.Origin, notes, nil)
	imp.wrote = true
	return nil
}

// link adds a friend link unless a live one has its URL.
func (imp *importer) link(ctx context.Context, l archiveLink, origin string) error {
	if imp.collecting {
		return nil
	}
	in := linkInput{Name: l.Name, URL: l.URL, Description: l.Description, Logo: l.Logo, Sort: l.Sort, Status: l.Status}
	if err := in.validate(); err != nil {
		imp.res.warn("%s skipped: %v", origin, err)
		return nil
	}
	taken, err := linkURLTaken(ctx, imp.tx, in.URL)
	if err != nil {
		return err
	}
	if taken {
		imp.res.FriendLinks.Skipped++
		return nil
	}
	now := imp.b.now()
	created := orTime(&l.CreatedAt, now)
	fl := FriendLink{ID: sqlstore.NewID(), Name: in.Name, URL: in.URL, Description: in.Description, Logo: in.Logo, Sort: in.Sort,
		Status: in.Status, CreatedAt: created, UpdatedAt: orTime(&l.UpdatedAt, created)}
	if err := insertLink(ctx, imp.tx, fl); err != nil {
		return err
	}
	imp.res.FriendLinks.Created++
	imp.wrote = true
	return nil
}

// applySettings stores the export's settings after its content, through
// the settings registry (which announces the change to every process).
// Keys whose value is already the same are counted as skipped.
func (imp *importer) applySettings(ctx context.Context, s *Settings) {
	g := imp.b.settings
	cur := g.Get(ctx)
	s.AI.APIKey = cur.AI.APIKey // never part of an export
	before, after := settingsFields(cur), settingsFields(*s)
	for k, v := range after {
		if before[k] == v {
			imp.res.Settings.Skipped++
		} else {
			imp.res.Settings.Updated++
		}
	}
	if imp.res.Settings.Updated == 0 {
		return
	}
	if err := g.Put(ctx, *s); err != nil {
		imp.res.warn("settings not imported: %v", err)
		imp.res.Settings.Skipped += imp.res.Settings.Updated
		imp.res.Settings.Updated = 0
	}
}

// settingsFields flattens the blog's groups to "group.key" → JSON value.
func settingsFields(s Settings) map[string]string {
	out := map[string]string{}
	for name, g := range map[string]any{"site": s.Site, "post": s.Post, "render": s.Render, "ai": s.AI} {
		raw, _ := json.Marshal(g) // plain structs
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(raw, &fields)
		for k, v := range fields {
			if name == "ai" && k == "api_key" {
				continue
			}
			out[name+"."+k] = string(v)
		}
	}
	return out
}

// SizeError: the file is larger than an import reads.
type SizeError struct{ Limit int64 }

func (e *SizeError) Error() string {
	return fmt.Sprintf("the file is larger than the import limit of %d MiB", max(e.Limit>>20, 1))
}

// mergeLosses adds lists of losses up, one entry a kind, sorted by kind.
func mergeLosses(lists ...[]htmltomd.Loss) []htmltomd.Loss {
	n := map[string]int{}
	for _, l := range lists {
		for _, x := range l {
			n[x.Kind] += x.Count
		}
	}
	var out []htmltomd.Loss
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, htmltomd.Loss{Kind: k, Count: n[k]})
	}
	return out
}

// lossList is a count of losses by kind as a list, sorted by kind.
func lossList(n map[string]int) []htmltomd.Loss {
	out := make([]htmltomd.Loss, 0, len(n))
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, htmltomd.Loss{Kind: k, Count: n[k]})
	}
	return out
}
