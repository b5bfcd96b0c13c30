package blog

import (
	"context"
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
		live, err := b.termLive(ctx, categories, s.CategoryID)
		if err != nil {
			return fmt.Errorf("blog: restore post: %w", err)
		}
		if live {
			in.CategoryID = s.CategoryID
		}
	}
	in.TagIDs = []string{}
	for _, t := range s.TagIDs {
		live, err := b.termLive(ctx, tags, t)
		if err != nil {
			return fmt.Errorf("blog: restore post: %w", err)
		}
		if live {
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
