package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// The posts list and the post editor of the console
// (docs/console.md#posts-and-the-editor). They save through savePost, as
// the JSON API does, so a post written here is the post the API returns.

// consolePostsPage is the length of a page of the console's post list.
const consolePostsPage = 20

// consoleTermChoices bounds the categories offered by the editor's select
// and the tags offered by its suggestions.
const consoleTermChoices = 500

// Flashes of the editor. After either the editor page tells its script
// that the form's draft is saved (data-saved).
const (
	flashPostCreated = "Post created."
	flashPostSaved   = "Saved."
)

// postsListView is the data of blog-posts.html.
type postsListView struct {
	Posts      []postRow
	Status     string // the status filter: "", draft, scheduled, published, archived
	Q          string
	CategoryID string
	Categories []Term
	Filtered   bool
	Pager      *templates.ConsolePager
}

// postRow is a post of the list with what its status cell says.
type postRow struct {
	PostItem
	Scheduled bool // published, with a date still to come
}

// consolePostFilter reads the list's GET form. Scheduled and published
// split the stored status "published" by the date: a post is scheduled
// until its publication date, published (visible) from it on.
func consolePostFilter(r *http.Request) (postFilter, postsListView, error) {
	q := r.URL.Query()
	v := postsListView{Status: q.Get("status"), Q: strings.TrimSpace(q.Get("q"))}
	f := postFilter{Keyword: v.Q}
	switch v.Status {
	case "", "all":
		v.Status = ""
	case StatusDraft, StatusArchived:
		f.Status = v.Status
	case whenScheduled:
		f.When = whenScheduled
	case StatusPublished:
		f.When = whenVisible
	default:
		return f, v, httpx.BadRequest("Unknown status filter.")
	}
	if c := strings.ToLower(strings.TrimSpace(q.Get("category"))); c != "" {
		if !sqlstore.ValidID(c) {
			return f, v, httpx.BadRequest("Unknown category.")
		}
		f.CategoryID, v.CategoryID = c, c
	}
	v.Filtered = v.Status != "" || v.Q != "" || v.CategoryID != ""
	return f, v, nil
}

// handleConsolePosts is GET /console/blog/posts: every post, newest first,
// 20 a page, filtered by status, a keyword and a category.
func (b consoleHandlers) handleConsolePosts(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", consolePostsPage, consolePostsPage)
	if err != nil {
		return err
	}
	f, lv, err := consolePostFilter(r)
	if err != nil {
		return err
	}
	items, total, err := b.listPosts(r.Context(), f, spanOf(p))
	if err != nil {
		return err
	}
	now := b.now()
	for _, it := range items {
		lv.Posts = append(lv.Posts, postRow{PostItem: it,
			Scheduled: it.Status == StatusPublished && it.PublishedAt != nil && it.PublishedAt.After(now)})
	}
	if lv.Categories, _, err = b.listTerms(r.Context(), categories, "", span{limit: consoleTermChoices}); err != nil {
		return err
	}
	keep := url.Values{}
	for k, val := range map[string]string{"status": lv.Status, "q": lv.Q, "category": lv.CategoryID} {
		if val != "" {
			keep.Set(k, val)
		}
	}
	lv.Pager = templates.NewConsolePager("/console/blog/posts", keep, p.Page, p.Size, total)
	v := b.console.View(w, r, "Posts", "blog-posts")
	v.Data = lv
	b.console.Render(w, r, http.StatusOK, "blog-posts", v)
	return nil
}

// postForm is the editor's form as typed: what a refused form shows again.
type postForm struct {
	Title, Slug, Markdown, Summary, CoverImage, Status, CategoryID string
	Tags                                                           string // tag names, comma-separated
	PublishedAt                                                    string // datetime-local, UTC
	ShowComments                                                   bool
}

// formOfPost is the editor's form for a stored post.
func formOfPost(p *Post) postForm {
	names := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		names[i] = t.Name
	}
	f := postForm{Title: p.Title, Slug: p.Slug, Markdown: p.ContentMarkdown, Summary: p.Summary,
		CoverImage: p.CoverImage, Status: p.Status, CategoryID: p.CategoryID, Tags: strings.Join(names, ", "),
		ShowComments: p.ShowComments}
	if p.PublishedAt != nil {
		f.PublishedAt = localValue(*p.PublishedAt)
	}
	return f
}

// localValue writes t as a datetime-local value in UTC.
func localValue(t time.Time) string { return t.UTC().Format("2006-01-02T15:04") }

// readPostForm reads the editor's fields. published_at_utc, filled by the
// editor's script from the writer's local time (RFC 3339), wins over
// published_at, which without script is read as UTC; it is turned into the
// UTC value of published_at here, so a refused form shows it as the
// server reads it and the script shows it in local time again.
func readPostForm(r *http.Request) postForm {
	f := postForm{Title: r.PostFormValue("title"), Slug: strings.TrimSpace(r.PostFormValue("slug")),
		Markdown: strings.ReplaceAll(r.PostFormValue("content_markdown"), "\r\n", "\n"),
		Summary:  r.PostFormValue("summary"), CoverImage: strings.TrimSpace(r.PostFormValue("cover_image")),
		Status: r.PostFormValue("status"), CategoryID: r.PostFormValue("category_id"), Tags: r.PostFormValue("tags"),
		PublishedAt: strings.TrimSpace(r.PostFormValue("published_at")), ShowComments: r.PostFormValue("show_comments") != ""}
	if utc := strings.TrimSpace(r.PostFormValue("published_at_utc")); utc != "" {
		f.PublishedAt = utc // refused below unless it parses
		if t, err := time.Parse(time.RFC3339, utc); err == nil {
			f.PublishedAt = localValue(t)
		}
	}
	return f
}

// parsePublishTime reads a publication date: a datetime-local value read as
// UTC (seconds optional). Empty is nil.
func parsePublishTime(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, invalid("published_at", "must be a date and time")
}

// tagNamesOf splits the comma-separated tag names, trimmed, without
// repeats (names compare case-insensitively, as tags do).
func tagNamesOf(s string) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[strings.ToLower(n)] {
			continue
		}
		if err := checkText("tags", n, true, 100); err != nil {
			return nil, invalid("tags", "a tag name must be at most 100 characters")
		}
		seen[strings.ToLower(n)] = true
		names = append(names, n)
	}
	if len(names) > 50 {
		return nil, invalid("tags", "at most 50 tags")
	}
	return names, nil
}

// savePostForm checks the form, creates the tags it names that do not
// exist yet, and saves the post (cur nil: a new one) through savePost.
// Tags are created only once the rest of the form has passed the checks,
// so a refused form leaves none behind.
func (b consoleHandlers) savePostForm(ctx context.Context, cur *Post, f postForm) (string, error) {
	published, err := parsePublishTime(f.PublishedAt)
	if err != nil {
		return "", err
	}
	names, err := tagNamesOf(f.Tags)
	if err != nil {
		return "", err
	}
	show := f.ShowComments
	in := postInput{Title: f.Title, Slug: f.Slug, Summary: f.Summary, ContentMarkdown: f.Markdown, Status: f.Status,
		CoverImage: f.CoverImage, PublishedAt: published, ShowComments: &show, CategoryID: f.CategoryID}
	// A cleared date on a published post means "now" when the stored one
	// is still to come: clearing it never leaves a post scheduled. Else
	// savePost keeps the stored date, as the API does.
	if in.Status == StatusPublished && published == nil && cur != nil && cur.PublishedAt != nil && cur.PublishedAt.After(b.now()) {
		now := b.now()
		in.PublishedAt = &now
	}
	check := in
	if err := check.validate(); err != nil {
		return "", err
	}
	if in.TagIDs, err = b.tagIDsByName(ctx, names); err != nil {
		return "", err
	}
	return b.savePost(ctx, cur, in)
}

// tagIDsByName finds the live tags of these names, case-insensitively,
// and creates the missing ones, as the AI's auto_tag does (attachTags).
func (b consoleHandlers) tagIDsByName(ctx context.Context, names []string) ([]string, error) {
	ids := []string{}
	for _, name := range names {
		id, err := b.tagByName(ctx, name)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// postEditorView is the data of blog-post.html.
type postEditorView struct {
	Post       *Post // nil for a new post
	Form       postForm
	Field      string // the field the error is about, marked aria-invalid
	Categories []Term
	Tags       []Term
	AIEnabled  bool
	ViewURL    string // the post on the site, when it is visible there
	// PublishedSlug is the stored slug of a post that has been published:
	// the editor says that changing it moves the post's URL.
	PublishedSlug string
	DraftKey      string
	Saved         bool   // the page follows a save: the script drops the stored draft
	SavedAlso     string // more draft keys the save makes stale ("post:new")
	MaxContent    int
}

// renderPostEditor shows the editor with f, status and the problem.
func (b consoleHandlers) renderPostEditor(w http.ResponseWriter, r *http.Request, status int, cur *Post, f postForm, field, problem string) error {
	ctx := r.Context()
	ev := postEditorView{Post: cur, Form: f, Field: field, MaxContent: maxContent, DraftKey: "post:new"}
	var err error
	if ev.Categories, _, err = b.listTerms(ctx, categories, "", span{limit: consoleTermChoices}); err != nil {
		return err
	}
	if ev.Tags, _, err = b.listTerms(ctx, tags, "", span{limit: consoleTermChoices}); err != nil {
		return err
	}
	s := b.settings.Get(ctx)
	ev.AIEnabled = s.AI.Enabled
	title := "New post"
	if cur != nil {
		title = "Edit “" + cur.Title + "”"
		ev.DraftKey = "post:" + cur.ID
		if s.Render.RenderMode == "classic" && cur.Status == StatusPublished && cur.PublishedAt != nil && !cur.PublishedAt.After(b.now()) {
			ev.ViewURL = "/posts/" + cur.Slug
		}
		// Published once: its status says so, or its date has come (the
		// slug rule of docs/console.md#posts-and-the-editor).
		if cur.Status == StatusPublished || cur.Status == StatusArchived || cur.PublishedAt != nil && !cur.PublishedAt.After(b.now()) {
			ev.PublishedSlug = cur.Slug
		}
	}
	v := b.console.View(w, r, title, "blog-posts")
	if status == http.StatusOK && v.Flash != "" {
		ev.Saved = true
		if v.Flash == flashPostCreated {
			ev.SavedAlso = "post:new"
		}
	}
	v.Error = problem
	v.Data = ev
	b.console.Render(w, r, status, "blog-post", v)
	return nil
}

// refusedPost answers a form savePostForm refused: the editor again, with
// the API's status (422, or 409 for a taken slug) and its message, or the
// error itself when it is not the form's fault.
func (b consoleHandlers) refusedPost(w http.ResponseWriter, r *http.Request, cur *Post, f postForm, err error) error {
	var fe *fieldError
	switch {
	case errors.As(err, &fe):
		field := fe.Field
		if field == "tag_ids" {
			field = "tags"
		}
		return b.renderPostEditor(w, r, http.StatusUnprocessableEntity, cur, f, field,
			httpx.Sentence(postFieldLabel(field)+": "+fe.Msg))
	case errors.Is(err, errDuplicateSlug):
		return b.renderPostEditor(w, r, http.StatusConflict, cur, f, "slug",
			"Slug: another post already has this slug (duplicate slug). Choose another one, or leave it empty.")
	}
	return err
}

// postFieldLabel names a field as the editor labels it.
func postFieldLabel(field string) string {
	switch field {
	case "content_markdown":
		return "Content"
	case "cover_image":
		return "Cover image"
	case "category_id":
		return "Category"
	case "published_at":
		return "Publish at"
	}
	return strings.ToUpper(field[:1]) + field[1:]
}

// handleConsoleNewPost is GET /console/blog/posts/new.
func (b consoleHandlers) handleConsoleNewPost(w http.ResponseWriter, r *http.Request) error {
	return b.renderPostEditor(w, r, http.StatusOK, nil, postForm{Status: StatusDraft, ShowComments: true}, "", "")
}

// handleConsoleCreatePost is POST /console/blog/posts.
func (b consoleHandlers) handleConsoleCreatePost(w http.ResponseWriter, r *http.Request) error {
	f := readPostForm(r)
	id, err := b.savePostForm(r.Context(), nil, f)
	if err != nil {
		return b.refusedPost(w, r, nil, f, err)
	}
	b.postSaved(id)
	b.markSiteChanged(r.Context())
	b.console.Redirect(w, r, "/console/blog/posts/"+id, flashPostCreated)
	return nil
}

// consolePost loads the post the path names, or 404.
func (b consoleHandlers) consolePost(r *http.Request) (*Post, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	p, err := b.postBy(r.Context(), "id", id, false)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, httpx.E(http.StatusNotFound, "There is no such post.")
	}
	return p, err
}

// handleConsolePost is GET /console/blog/posts/{id}: the editor.
func (b consoleHandlers) handleConsolePost(w http.ResponseWriter, r *http.Request) error {
	p, err := b.consolePost(r)
	if err != nil {
		return err
	}
	return b.renderPostEditor(w, r, http.StatusOK, p, formOfPost(p), "", "")
}

// handleConsoleSavePost is POST /console/blog/posts/{id}.
func (b consoleHandlers) handleConsoleSavePost(w http.ResponseWriter, r *http.Request) error {
	cur, err := b.consolePost(r)
	if err != nil {
		return err
	}
	f := readPostForm(r)
	if _, err := b.savePostForm(r.Context(), cur, f); err != nil {
		return b.refusedPost(w, r, cur, f, err)
	}
	b.postSaved(cur.ID)
	b.markSiteChanged(r.Context())
	b.console.Redirect(w, r, "/console/blog/posts/"+cur.ID, flashPostSaved)
	return nil
}

// handleConsoleDeletePost is POST /console/blog/posts/{id}/delete.
func (b consoleHandlers) handleConsoleDeletePost(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.deletePost(r.Context(), id); err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return httpx.E(http.StatusNotFound, "There is no such post.")
		}
		return err
	}
	b.markSiteChanged(r.Context())
	b.console.Redirect(w, r, "/console/blog/posts", "Post deleted.")
	return nil
}

// previewAnswer is the live preview's answer: the post's HTML as the site
// shows it, and its table of contents.
type previewAnswer struct {
	HTML string     `json:"html"`
	TOC  []TOCEntry `json:"toc"`
}

// handleConsolePreview is POST /console/blog/preview: the editor's live
// preview, rendered by the renderer that renders saved posts. The console
// bounds the form to 1 MiB; the content's own bound is the post's.
func (b consoleHandlers) handleConsolePreview(w http.ResponseWriter, r *http.Request) error {
	src := strings.ReplaceAll(r.PostFormValue("content_markdown"), "\r\n", "\n")
	if err := checkText("content_markdown", src, false, maxContent); err != nil {
		return httpx.E(http.StatusRequestEntityTooLarge, "the text is longer than a post may be")
	}
	out, err := b.render(r.Context(), src)
	if err != nil {
		return fmt.Errorf("blog: preview: %w", err)
	}
	body, err := json.Marshal(previewAnswer{HTML: string(readerHTML(template.HTML(out.HTML))), TOC: out.TOC})
	if err != nil {
		return fmt.Errorf("blog: preview: %w", err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(body)
	return nil
}
