package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"folio/sqlstore"
)

// Revision kinds: what a revision's owner_id names.
const (
	kindPost = "post"
	kindPage = "page"
)

// maxRevisionsKept bounds post.revisions_kept.
const maxRevisionsKept = 1000

// postSnapshot is a post's saved input as a revision keeps it: what a
// restore sends back through the save path. summary_source tells a summary
// the author wrote from one the server derived, so that a restore derives
// an automatic one again instead of freezing it as hand-written.
type postSnapshot struct {
	Title           string     `json:"title"`
	Slug            string     `json:"slug"`
	Summary         string     `json:"summary"`
	SummarySource   string     `json:"summary_source"`
	ContentMarkdown string     `json:"content_markdown"`
	Status          string     `json:"status"`
	PublishedAt     *time.Time `json:"published_at"`
	CategoryID      string     `json:"category_id"`
	TagIDs          []string   `json:"tag_ids"`
	CoverImage      string     `json:"cover_image"`
	ShowComments    bool       `json:"show_comments"`
}

// pageSnapshot is a page's saved input as a revision keeps it.
// published_at is shown, not restored: the server keeps a page's first
// publication time.
type pageSnapshot struct {
	Title           string     `json:"title"`
	Slug            string     `json:"slug"`
	ContentMarkdown string     `json:"content_markdown"`
	Status          string     `json:"status"`
	SortOrder       int        `json:"sort_order"`
	ShowInNav       bool       `json:"show_in_nav"`
	PublishedAt     *time.Time `json:"published_at"`
	Template        string     `json:"template"`
	Config          string     `json:"config"`
}

// storedTime is t as the database keeps it (UTC, microseconds), so that a
// time read back compares equal to the one sent.
func storedTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := sqlstore.Time(sqlstore.FromTime(*t))
	return &u
}

// snapshotOfPost is the snapshot of a post as loaded.
func snapshotOfPost(p *Post) *postSnapshot {
	tags := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		tags[i] = strings.ToLower(t.ID)
	}
	slices.Sort(tags)
	return &postSnapshot{Title: p.Title, Slug: p.Slug, Summary: p.Summary, SummarySource: p.SummarySource,
		ContentMarkdown: p.ContentMarkdown, Status: p.Status, PublishedAt: storedTime(p.PublishedAt),
		CategoryID: strings.ToLower(p.CategoryID), TagIDs: tags, CoverImage: p.CoverImage, ShowComments: p.ShowComments}
}

// snapshotOfStored is the snapshot of what storePost is about to write.
func snapshotOfStored(p storedPost, slug string) *postSnapshot {
	in := p.in
	tags := slices.Clone(in.TagIDs)
	slices.Sort(tags)
	return &postSnapshot{Title: in.Title, Slug: slug, Summary: in.Summary, SummarySource: p.source,
		ContentMarkdown: in.ContentMarkdown, Status: in.Status, PublishedAt: storedTime(in.PublishedAt),
		CategoryID: in.CategoryID, TagIDs: tags, CoverImage: in.CoverImage, ShowComments: *in.ShowComments}
}

func snapshotOfPage(p *Page) *pageSnapshot {
	return &pageSnapshot{Title: p.Title, Slug: p.Slug, ContentMarkdown: p.ContentMarkdown, Status: p.Status,
		SortOrder: p.SortOrder, ShowInNav: p.ShowInNav, PublishedAt: storedTime(p.PublishedAt), Template: p.Template, Config: p.Config}
}

func snapshotOfStoredPage(p storedPage, slug string) *pageSnapshot {
	in := p.in
	return &pageSnapshot{Title: in.Title, Slug: slug, ContentMarkdown: in.ContentMarkdown, Status: in.Status,
		SortOrder: in.SortOrder, ShowInNav: in.ShowInNav, PublishedAt: storedTime(p.published), Template: in.Template, Config: in.Config}
}

// replaced is what a save of an existing post or page needs to keep the
// version it replaces: that version, and how many revisions to keep.
type replaced[S any] struct {
	prev *S
	keep int
}

// keepRevision stores prev, the version a save of owner replaces, unless
// next is the same (a save that changes nothing makes no revision), then
// prunes the owner's revisions beyond keep, oldest first. It runs inside
// the save's transaction, so a revision exists exactly when its save
// does.
func keepRevision[S any](ctx context.Context, tx *sqlstore.Tx, kind, owner string, r replaced[S], next *S, title, content func(*S) string, at time.Time) error {
	if r.prev == nil {
		return nil
	}
	before, err := json.Marshal(r.prev)
	if err != nil {
		return err
	}
	after, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if string(before) == string(after) {
		return nil
	}
	if r.keep > 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO revisions (id, kind, owner_id, title, size, snapshot, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			sqlstore.NewID(), kind, owner, title(r.prev), len(content(r.prev)), string(before), sqlstore.FromTime(at)); err != nil {
			return fmt.Errorf("keep revision: %w", err)
		}
	}
	// The newest keep stay; with keep 0, none.
	if _, err := tx.Exec(ctx, `DELETE FROM revisions WHERE kind = $1 AND owner_id = $2 AND id NOT IN (
			SELECT id FROM revisions WHERE kind = $1 AND owner_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3)`,
		kind, owner, r.keep); err != nil {
		return fmt.Errorf("prune revisions: %w", err)
	}
	return nil
}

// RevisionItem is a revision as lists show it. Size is the bytes of its
// Markdown.
type RevisionItem struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	Size      int64     `json:"size"`
}

// PostRevision is a post's revision in full: its snapshot, id and time.
type PostRevision struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	postSnapshot
}

// PageRevision is a page's revision in full.
type PageRevision struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	pageSnapshot
}

// listRevisions returns one page of an owner's revisions, newest first, and
// their total.
func (b *Blog) listRevisions(ctx context.Context, kind, owner string, pg span) ([]RevisionItem, int, error) {
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM revisions WHERE kind = $1 AND owner_id = $2", kind, owner).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count revisions: %w", err)
	}
	items := []RevisionItem{}
	if total == 0 || pg.offset >= total {
		return items, total, nil
	}
	rows, err := b.db.Query(ctx, `SELECT id, title, size, created_at FROM revisions WHERE kind = $1 AND owner_id = $2
		ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, kind, owner, pg.limit, pg.offset)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it RevisionItem
		var created int64
		if err := rows.Scan(&it.ID, &it.Title, &it.Size, &created); err != nil {
			return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
		}
		it.CreatedAt = sqlstore.Time(created)
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
	}
	return items, total, nil
}

// revision loads one revision of owner into snap and returns its id and
// time; a revision of another owner is sqlstore.ErrNotFound, as a missing
// one.
func (b *Blog) revision(ctx context.Context, kind, owner, id string, snap any) (time.Time, error) {
	if !sqlstore.ValidID(id) {
		return time.Time{}, sqlstore.ErrNotFound
	}
	var raw string
	var created int64
	err := b.db.QueryRow(ctx, "SELECT snapshot, created_at FROM revisions WHERE id = $1 AND kind = $2 AND owner_id = $3",
		id, kind, owner).Scan(&raw, &created)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return time.Time{}, err
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("blog: load revision: %w", err)
	}
	if err := json.Unmarshal([]byte(raw), snap); err != nil {
		return time.Time{}, fmt.Errorf("blog: revision %s: %w", id, err)
	}
	return sqlstore.Time(created), nil
}

// postRevision loads a revision of the live post postID.
func (b *Blog) postRevision(ctx context.Context, postID, id string) (*PostRevision, error) {
	rev := &PostRevision{ID: id}
	at, err := b.revision(ctx, kindPost, postID, id, &rev.postSnapshot)
	if err != nil {
		return nil, err
	}
	rev.CreatedAt = at
	return rev, nil
}

func (b *Blog) pageRevision(ctx context.Context, pageID, id string) (*PageRevision, error) {
	rev := &PageRevision{ID: id}
	at, err := b.revision(ctx, kindPage, pageID, id, &rev.pageSnapshot)
	if err != nil {
		return nil, err
	}
	rev.CreatedAt = at
	return rev, nil
}

// restorePost saves a revision as cur's new state through the save path,
// which keeps the version it replaces. What no longer exists is left out
// rather than failing the restore: a deleted category leaves the post
// uncategorised, a deleted tag is dropped (docs/blog-api.md#revisions). A
// slug another post took meanwhile is a conflict, as any save's.
func (b *Blog) restorePost(ctx context.Context, cur *Post, rev *PostRevision) error {
	s := rev.postSnapshot
	show := s.ShowComments
	in := postInput{Title: s.Title, Slug: s.Slug, Summary: s.Summary, ContentMarkdown: s.ContentMarkdown, Status: s.Status,
		CoverImage: s.CoverImage, PublishedAt: s.PublishedAt, ShowComments: &show}
	if s.SummarySource == summaryAuto {
		in.Summary = "" // derived again from the restored text
	}
	if s.CategoryID != "" {
		var n int
		if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM categories WHERE id = $1 AND deleted_at IS NULL", s.CategoryID).Scan(&n); err != nil {
			return fmt.Errorf("blog: restore post: %w", err)
		}
		if n > 0 {
			in.CategoryID = s.CategoryID
		}
	}
	in.TagIDs = []string{}
	for _, t := range s.TagIDs {
		var n int
		if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM tags WHERE id = $1 AND deleted_at IS NULL", t).Scan(&n); err != nil {
			return fmt.Errorf("blog: restore post: %w", err)
		}
		if n > 0 {
			in.TagIDs = append(in.TagIDs, t)
		}
	}
	_, err := b.savePost(ctx, cur, in)
	return err
}

// restorePage saves a page revision as cur's new state. A template that no
// longer exists fails its validation (422), as any save's would.
func (b *Blog) restorePage(ctx context.Context, cur *Page, rev *PageRevision) error {
	s := rev.pageSnapshot
	_, err := b.savePage(ctx, cur, pageInput{Title: s.Title, Slug: s.Slug, ContentMarkdown: s.ContentMarkdown, Status: s.Status,
		SortOrder: s.SortOrder, ShowInNav: s.ShowInNav, Template: s.Template, Config: s.Config})
	return err
}

func postTitle(s *postSnapshot) string   { return s.Title }
func postContent(s *postSnapshot) string { return s.ContentMarkdown }
func pageTitle(s *pageSnapshot) string   { return s.Title }
func pageContent(s *pageSnapshot) string { return s.ContentMarkdown }
