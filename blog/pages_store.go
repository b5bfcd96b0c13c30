package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

const pageColumns = `id, title, slug, content_markdown, content_html, status, sort_order, show_in_nav,
	published_at, template, config, created_at, updated_at`

func scanPage(row interface{ Scan(...any) error }) (*Page, error) {
	var p Page
	var published *int64
	var created, updated int64
	if err := row.Scan(&p.ID, &p.Title, &p.Slug, &p.ContentMarkdown, &p.ContentHTML, &p.Status, &p.SortOrder, &p.ShowInNav,
		&published, &p.Template, &p.Config, &created, &updated); err != nil {
		return nil, err
	}
	p.PublishedAt = sqlstore.NullTime(published)
	p.CreatedAt, p.UpdatedAt = sqlstore.Time(created), sqlstore.Time(updated)
	return &p, nil
}

// listPages returns one page of pages and the total.
func (b *Blog) listPages(ctx context.Context, f pageFilter, pg span) ([]*Page, int, error) {
	var w where
	w.add("deleted_at IS NULL")
	if f.Public {
		w.add("status = 'published'")
	}
	if f.Status != "" {
		w.add("status = ?", f.Status)
	}
	if f.Keyword != "" {
		ph := w.arg(sqlstore.LikePattern(f.Keyword))
		d := b.db.Dialect()
		w.conds = append(w.conds, "("+d.ILike("title", ph)+" OR "+d.ILike("content_markdown", ph)+")")
	}
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM pages"+w.sql(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count pages: %w", err)
	}
	if total == 0 || pg.offset >= total {
		return []*Page{}, total, nil
	}
	order := " ORDER BY created_at DESC, id DESC"
	if f.Public {
		order = " ORDER BY sort_order, created_at, id"
	}
	// The page's ids from pages_*_paging first, then those pages whole
	// (docs/design.md#paging).
	ids := "SELECT id FROM pages" + w.sql() + order + " LIMIT " + w.arg(pg.limit) + " OFFSET " + w.arg(pg.offset)
	rows, err := b.db.Query(ctx, "SELECT "+pageColumns+" FROM pages WHERE id IN ("+ids+")"+order, w.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list pages: %w", err)
	}
	defer rows.Close()
	out := []*Page{}
	for rows.Next() {
		p, err := scanPage(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("blog: list pages: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list pages: %w", err)
	}
	return out, total, nil
}

// pageBy loads a live page by "id" or "slug"; with public, only a published
// one.
func (b *Blog) pageBy(ctx context.Context, column, value string, public bool) (*Page, error) {
	if column == "id" && !sqlstore.ValidID(value) {
		return nil, sqlstore.ErrNotFound
	}
	q := "SELECT " + pageColumns + " FROM pages WHERE " + column + " = $1 AND deleted_at IS NULL"
	if public {
		q += " AND status = 'published'"
	}
	p, err := scanPage(b.db.QueryRow(ctx, q, value))
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, fmt.Errorf("blog: load page: %w", err)
	}
	return p, err
}

// savePage creates (cur nil) or replaces a page and returns its id.
func (b *Blog) savePage(ctx context.Context, cur *Page, in pageInput) (string, error) {
	if err := b.validatePage(&in); err != nil {
		return "", err
	}
	html, err := b.render(ctx, in.ContentMarkdown)
	if err != nil {
		return "", fmt.Errorf("blog: render page: %w", err)
	}
	now := b.now()
	var published *time.Time
	switch {
	case cur != nil && cur.PublishedAt != nil:
		published = cur.PublishedAt
	case in.Status == StatusPublished:
		published = &now
	}
	// As a post's (docs/blog-api.md#slugs): a page once published keeps
	// its address unless a slug is given.
	if in.Slug == "" && cur != nil && (cur.PublishedAt != nil || cur.Status != StatusDraft) {
		in.Slug = cur.Slug
	}
	id := sqlstore.NewID()
	if cur != nil {
		id = cur.ID
	}
	sp := storedPage{id: id, create: cur == nil, in: in, html: html, published: published, created: now, updated: now}
	if cur != nil {
		sp.replaced = replaced[pageSnapshot]{prev: snapshotOfPage(cur), keep: b.settings.Get(ctx).Post.RevisionsKept}
	}
	err = retryDerivedSlug(in.Slug, func() error {
		return b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
			return storePage(ctx, tx, sp)
		})
	})
	if err != nil {
		return "", fmt.Errorf("blog: save page: %w", err)
	}
	return id, nil
}

// storedPage is one page as storePage writes it (created is used only when
// the page is created).
type storedPage struct {
	id               string
	create           bool
	in               pageInput
	html             rendered
	published        *time.Time
	created, updated time.Time
	// replaced is the version an update replaces, kept as a revision.
	replaced replaced[pageSnapshot]
}

// storePage writes a page inside tx: the one write path of the API and of
// imports.
func storePage(ctx context.Context, tx *sqlstore.Tx, p storedPage) error {
	in := p.in
	slug, err := freeSlug(ctx, tx, "pages", p.id, in.Slug, in.Title)
	if err != nil {
		return err
	}
	args := []any{p.id, in.Title, slug, in.ContentMarkdown, p.html.HTML, in.Status, in.SortOrder, in.ShowInNav,
		sqlstore.FromNullTime(p.published), in.Template, in.Config, sqlstore.FromTime(p.updated), sqlstore.FromTime(p.created)}
	if p.create {
		_, err = tx.Exec(ctx, `INSERT INTO pages (id, title, slug, content_markdown, content_html, status, sort_order,
			show_in_nav, published_at, template, config, updated_at, created_at, render_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, append(args, renderVersion)...)
	} else {
		_, err = tx.Exec(ctx, `UPDATE pages SET title = $2, slug = $3, content_markdown = $4, content_html = $5,
			status = $6, sort_order = $7, show_in_nav = $8, published_at = $9, template = $10, config = $11,
			updated_at = $12, render_version = $13 WHERE id = $1 AND deleted_at IS NULL`, append(args[:12:12], renderVersion)...)
	}
	if errors.Is(err, sqlstore.ErrConflict) {
		return errDuplicateSlug
	}
	if err != nil {
		return err
	}
	next := snapshotOfStoredPage(p, slug)
	if err := keepRevision(ctx, tx, kindPage, p.id, p.replaced, next, pageTitle, pageContent, p.updated); err != nil {
		return err
	}
	oldSlug, wasVisible := "", false
	if prev := p.replaced.prev; prev != nil {
		oldSlug, wasVisible = prev.Slug, prev.Status == StatusPublished
	}
	return noteSlug(ctx, tx, kindPage, p.id, oldSlug, slug, wasVisible, p.updated)
}

// pageTextBySlug returns the title and Markdown of the live page with
// slug, read through q (an import's transaction); sqlstore.ErrNotFound
// when none.
func pageTextBySlug(ctx context.Context, q sqlstore.Querier, slug string) (title, content string, err error) {
	err = q.QueryRow(ctx, "SELECT title, content_markdown FROM pages WHERE slug = $1 AND deleted_at IS NULL", slug).Scan(&title, &content)
	return title, content, err
}

// pageIDBySlug returns the id of the live page with slug, read through q
// (an import's transaction); sqlstore.ErrNotFound when none.
func pageIDBySlug(ctx context.Context, q sqlstore.Querier, slug string) (string, error) {
	var id string
	err := q.QueryRow(ctx, "SELECT id FROM pages WHERE slug = $1 AND deleted_at IS NULL", slug).Scan(&id)
	return id, err
}
