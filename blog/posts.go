package blog

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"

	"folio/sqlstore"
)

// Post statuses.
const (
	StatusDraft     = "draft"
	StatusPublished = "published"
	StatusArchived  = "archived"
)

// Where a post's summary came from: the AI may replace an auto summary or
// its own, never one the author wrote.
const (
	summaryManual = "manual"
	summaryAuto   = "auto"
	summaryAI     = "ai"
)

// PostItem is a post as lists show it: everything but the content.
type PostItem struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Slug          string `json:"slug"`
	Summary       string `json:"summary"`
	SummarySource string `json:"-"`
	Status        string `json:"status"`
	CoverImage    string `json:"cover_image"`
	// CoverSize is set, in the API's answers, when the cover is one of
	// Folio's own uploads (docs/blog-api.md).
	CoverSize    *CoverSize `json:"cover_size,omitempty"`
	PublishedAt  *time.Time `json:"published_at"`
	ShowComments bool       `json:"show_comments"`
	CategoryID   string     `json:"category_id"`
	Category     *TermRef   `json:"category"`
	Tags         []TermRef  `json:"tags"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// Post is the full post. ContentHTML comes only from the Markdown renderer,
// so templates may show it as is.
type Post struct {
	PostItem
	ContentMarkdown string        `json:"content_markdown"`
	ContentHTML     template.HTML `json:"content_html"`
	// TOC is nil, and left out, when post.enable_toc is off.
	TOC []TOCEntry `json:"toc,omitzero"`
}

// wasPublished tells whether readers may have seen the post at now: it is
// published or archived, or its date of publication has passed.
func (p *PostItem) wasPublished(now time.Time) bool {
	return p.Status != StatusDraft || (p.PublishedAt != nil && !p.PublishedAt.After(now))
}

// postFilter selects posts for a list.
type postFilter struct {
	Public     bool // only publicly visible posts, in public order
	Status     string
	Keyword    string
	TagID      string
	CategoryID string
	// When narrows published posts by their date against now: "scheduled"
	// (still in the future) or "visible" (already shown). The console's
	// list filters by it (docs/console.md#posts-and-the-editor).
	When string
}

// Values of postFilter.When.
const (
	whenScheduled = "scheduled"
	whenVisible   = "visible"
)

// postInput is the create and PUT body. Fields left out take their
// defaults; content_html is ignored, the server renders it.
type postInput struct {
	Title           string     `json:"title"`
	Slug            string     `json:"slug"`
	Summary         string     `json:"summary"`
	ContentMarkdown string     `json:"content_markdown"`
	Status          string     `json:"status"`
	CoverImage      string     `json:"cover_image"`
	PublishedAt     *time.Time `json:"published_at"`
	ShowComments    *bool      `json:"show_comments"`
	CategoryID      string     `json:"category_id"`
	TagIDs          []string   `json:"tag_ids"`
}

// postPatch is the PATCH body: only the fields present change.
type postPatch struct {
	Title           *string   `json:"title"`
	Slug            *string   `json:"slug"`
	Summary         *string   `json:"summary"`
	ContentMarkdown *string   `json:"content_markdown"`
	Status          *string   `json:"status"`
	CoverImage      *string   `json:"cover_image"`
	PublishedAt     optTime   `json:"published_at"`
	ShowComments    *bool     `json:"show_comments"`
	CategoryID      *string   `json:"category_id"`
	TagIDs          *[]string `json:"tag_ids"`
}

// optTime tells a JSON null (Set, Value nil) from a missing field.
type optTime struct {
	Set   bool
	Value *time.Time
}

func (o *optTime) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var t time.Time
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	o.Value = &t
	return nil
}

// inputOf is the body that would recreate p.
func inputOf(p *Post) postInput {
	tagIDs := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		tagIDs[i] = t.ID
	}
	show := p.ShowComments
	return postInput{Title: p.Title, Slug: p.Slug, Summary: p.Summary, ContentMarkdown: p.ContentMarkdown,
		Status: p.Status, CoverImage: p.CoverImage, PublishedAt: p.PublishedAt, ShowComments: &show,
		CategoryID: p.CategoryID, TagIDs: tagIDs}
}

// apply changes in by the fields present in the patch.
func (pp postPatch) apply(in *postInput) {
	patchField(&in.Title, pp.Title)
	patchField(&in.Slug, pp.Slug)
	patchField(&in.Summary, pp.Summary)
	patchField(&in.ContentMarkdown, pp.ContentMarkdown)
	patchField(&in.Status, pp.Status)
	patchField(&in.CoverImage, pp.CoverImage)
	patchField(&in.CategoryID, pp.CategoryID)
	if pp.PublishedAt.Set {
		in.PublishedAt = pp.PublishedAt.Value
	}
	if pp.ShowComments != nil {
		in.ShowComments = pp.ShowComments
	}
	patchField(&in.TagIDs, pp.TagIDs)
}

// validate checks the values and normalises them (defaults, dedup).
func (in *postInput) validate() error {
	in.Title = strings.TrimSpace(in.Title)
	if err := checkText("title", in.Title, true, 300); err != nil {
		return err
	}
	if in.Slug != "" && !validSlug(in.Slug) {
		return invalid("slug", "must be 1-100 characters of a-z, 0-9 and -")
	}
	if err := checkText("summary", in.Summary, false, 5000); err != nil {
		return err
	}
	if err := checkText("content_markdown", in.ContentMarkdown, false, maxContent); err != nil {
		return err
	}
	if in.Status == "" {
		in.Status = StatusDraft
	}
	switch in.Status {
	case StatusDraft, StatusPublished, StatusArchived:
	default:
		return invalid("status", "must be draft, published or archived")
	}
	if err := checkURL("cover_image", in.CoverImage, false); err != nil {
		return err
	}
	if in.ShowComments == nil {
		yes := true
		in.ShowComments = &yes
	}
	in.CategoryID = strings.ToLower(strings.TrimSpace(in.CategoryID))
	if in.CategoryID != "" && !sqlstore.ValidID(in.CategoryID) {
		return invalid("category_id", "category does not exist")
	}
	seen := map[string]bool{}
	ids := []string{}
	for _, id := range in.TagIDs {
		id = strings.ToLower(strings.TrimSpace(id))
		if !sqlstore.ValidID(id) {
			return invalid("tag_ids", "tag "+fmt.Sprintf("%q", id)+" does not exist")
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) > 50 {
		return invalid("tag_ids", "at most 50 tags")
	}
	in.TagIDs = ids
	return nil
}

// maxAutoTags bounds the tags the AI may attach to a post.
const maxAutoTags = 5
