package templates

import (
	"html/template"
	"time"
)

// View is the data every site template renders. The blog fills the common
// part (Site, Meta, navigation and sidebar) for every page and one of the
// kind-specific groups below it. Every string is plain text that the
// templates escape; only Post.ContentHTML, made by the Markdown renderer,
// is trusted HTML.
type View struct {
	Site       Site
	Meta       Meta
	Nav        []Link   // published pages with show_in_nav
	Categories []Term   // sidebar
	Tags       []Term   // sidebar
	Friends    []Friend // sidebar

	// Lists: home, category, tag, search.
	Posts   []PostSummary
	Pager   Pager
	Heading string // "Category: Go", "Search: foo"
	Term    Term   // the category or tag of the list
	Query   string // the search text
	// Welcome, on the home page of a site with no visible post yet, says
	// what to do next (docs/operating.md#first-start); nil once a post is
	// published, so that readers of a live site never see it.
	Welcome *Welcome

	// A post.
	Post     *Post
	Comments []Comment
	Form     CommentForm

	// A standalone page: Page is the blog's page value and Config its parsed
	// JSON config, as the page templates expect them.
	Page   any
	Config map[string]any

	// Preview, when not nil, marks the page as a signed preview of a post
	// (docs/console.md#preview-links): the layout shows a banner saying so.
	// A theme's older layout.html without it still renders, bannerless.
	Preview *Preview
}

// Welcome is the first-run note of an empty site.
type Welcome struct {
	// SignInURL leads to the console's sign-in page, then to a new post;
	// empty when the console is off (the blog API is then the way in).
	SignInURL string
}

// Preview is what the banner of a preview page says.
type Preview struct {
	// State is "draft", "scheduled", "published" or "archived".
	State string
	// PublishAt is when a scheduled post goes public.
	PublishAt time.Time
	// Until is when the link stops working.
	Until time.Time
	// PublicURL is the post's own address while it is public, else empty.
	PublicURL string
}

// Site holds the site-wide settings a template shows.
type Site struct {
	Name        string
	Description string
	Keywords    string
	Logo        string // URL or empty
	Favicon     string // URL or empty: the embedded icon is used
	Footer      string
	ICP         string
	BaseURL     string // absolute, without a trailing slash
	Year        int    // for the copyright line
}

// Meta is what goes into <head> for one page.
type Meta struct {
	Title       string // the page's own title; empty on the home page
	Description string
	Keywords    string
	Canonical   string // absolute URL
	Image       string // absolute URL of the OpenGraph image, or empty
	Type        string // OpenGraph type: "website" or "article"
	Published   time.Time
	Modified    time.Time
	NoIndex     bool // search results and error pages
}

// Link is a navigation entry.
type Link struct {
	Title   string
	URL     string
	Current bool
}

// Term is a category or a tag.
type Term struct {
	Name  string
	Slug  string
	Count int // published posts; 0 when unknown
}

// Friend is a friend link.
type Friend struct {
	Name        string
	URL         string
	Description string
	Logo        string
}

// PostSummary is a post as a list shows it.
type PostSummary struct {
	Title   string
	Slug    string
	Summary string
	Cover   string
	// CoverWidth and CoverHeight are the cover's pixel size, and
	// CoverSrcset and CoverSizes its narrower widths and the width the
	// theme shows it at, when it is one of Folio's own uploads (zero and
	// empty otherwise: docs/design.md#classic-site).
	CoverWidth, CoverHeight int
	CoverSrcset, CoverSizes string
	PublishedAt             time.Time
	Category                *Term
	Tags                    []Term
}

// Post is a post as its own page shows it.
type Post struct {
	PostSummary
	ContentHTML  template.HTML // from the Markdown renderer only
	TOC          []TOCEntry
	UpdatedAt    time.Time // shown as "Updated" when not zero
	ShowComments bool      // the comment area is shown
	CommentsOpen bool      // and the form accepts comments
}

// TOCEntry is one heading of a post's table of contents.
type TOCEntry struct {
	Level int
	Text  string
	ID    string
}

// Comment is an approved comment.
type Comment struct {
	ID        string // the anchor comment-{ID}
	Author    string
	Content   string
	CreatedAt time.Time
	// A fediverse comment: the author's handle (user@host), shown as
	// @user@host, and profile URL (http or https only, else "").
	Fediverse    bool
	AuthorHandle string
	AuthorURL    string
	// A reply (the administrator's answer to a comment): the id and
	// author of the comment it answers.
	ReplyTo       string
	ReplyToAuthor string
}

// CommentForm is the comment form's state: what the visitor typed when it
// is shown again with errors, or the notice after a successful submission.
type CommentForm struct {
	Author  string
	Email   string
	Content string
	Errors  []string
	Notice  string
}

// Pager links the pages of a list. URLs are empty where there is no such
// page.
type Pager struct {
	Page    int
	Pages   int
	PrevURL string
	NextURL string
}
