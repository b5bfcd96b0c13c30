package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// Page is a standalone page. ContentHTML comes only from the Markdown
// renderer, so the page templates may show it as is.
type Page struct {
	ID              string        `json:"id"`
	Title           string        `json:"title"`
	Slug            string        `json:"slug"`
	ContentMarkdown string        `json:"content_markdown"`
	ContentHTML     template.HTML `json:"content_html"`
	Status          string        `json:"status"`
	SortOrder       int           `json:"sort_order"`
	ShowInNav       bool          `json:"show_in_nav"`
	PublishedAt     *time.Time    `json:"published_at"`
	Template        string        `json:"template"`
	Config          string        `json:"config"`
	CreatedAt       time.Time     `json:"created_at"`
	UpdatedAt       time.Time     `json:"updated_at"`
}

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

// ConfigMap is the page's config parsed for its template.
func (p *Page) ConfigMap() map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal([]byte(p.Config), &m) // validated when saved
	return m
}

// pageFilter selects pages for a list.
type pageFilter struct {
	Public  bool // published pages in navigation order
	Status  string
	Keyword string
}

// listPages returns one page of pages and the total.
func (b *Blog) listPages(ctx context.Context, f pageFilter, pg httpx.Paging) ([]*Page, int, error) {
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
	order := " ORDER BY created_at DESC, id DESC"
	if f.Public {
		order = " ORDER BY sort_order, created_at, id"
	}
	rows, err := b.db.Query(ctx, "SELECT "+pageColumns+" FROM pages"+w.sql()+order+" LIMIT "+w.arg(pg.Size)+" OFFSET "+w.arg(pg.Offset()), w.args...)
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

// pageInput is the create and PUT body.
type pageInput struct {
	Title           string `json:"title"`
	Slug            string `json:"slug"`
	ContentMarkdown string `json:"content_markdown"`
	Status          string `json:"status"`
	SortOrder       int    `json:"sort_order"`
	ShowInNav       bool   `json:"show_in_nav"`
	Template        string `json:"template"`
	Config          string `json:"config"`
}

type pagePatch struct {
	Title           *string `json:"title"`
	Slug            *string `json:"slug"`
	ContentMarkdown *string `json:"content_markdown"`
	Status          *string `json:"status"`
	SortOrder       *int    `json:"sort_order"`
	ShowInNav       *bool   `json:"show_in_nav"`
	Template        *string `json:"template"`
	Config          *string `json:"config"`
}

func (pp pagePatch) apply(in *pageInput) {
	patchField(&in.Title, pp.Title)
	patchField(&in.Slug, pp.Slug)
	patchField(&in.ContentMarkdown, pp.ContentMarkdown)
	patchField(&in.Status, pp.Status)
	patchField(&in.Template, pp.Template)
	patchField(&in.Config, pp.Config)
	patchField(&in.SortOrder, pp.SortOrder)
	patchField(&in.ShowInNav, pp.ShowInNav)
}

// manifest is pages/{template}.json: the config keys a template reads.
type manifest struct {
	Keys []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"keys"`
}

func validTemplateName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validate checks a page body, including its template and config against
// the template's manifest.
func (b *Blog) validatePage(in *pageInput) error {
	in.Title = strings.TrimSpace(in.Title)
	if err := checkText("title", in.Title, true, 300); err != nil {
		return err
	}
	if in.Slug != "" && !validSlug(in.Slug) {
		return invalid("slug", "must be 1-100 characters of a-z, 0-9 and -")
	}
	if in.Status == "" {
		in.Status = StatusDraft
	}
	switch in.Status {
	case StatusDraft, StatusPublished, StatusArchived:
	default:
		return invalid("status", "must be draft, published or archived")
	}
	if in.Template == "" {
		in.Template = "default"
	}
	if !validTemplateName(in.Template) {
		return invalid("template", "no such page template")
	}
	if _, err := fs.Stat(b.templates, "pages/"+in.Template+".html"); err != nil {
		return invalid("template", "no such page template")
	}
	if strings.TrimSpace(in.Config) == "" {
		in.Config = "{}"
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(in.Config), &cfg); err != nil || cfg == nil {
		return invalid("config", "must be a JSON object")
	}
	var m manifest
	raw, err := fs.ReadFile(b.templates, "pages/"+in.Template+".json")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A template without a manifest reads no config keys.
	case err != nil:
		return fmt.Errorf("blog: read manifest of %s: %w", in.Template, err)
	default:
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("blog: manifest pages/%s.json: %w", in.Template, err)
		}
	}
	for _, k := range m.Keys {
		if !k.Required {
			continue
		}
		v, ok := cfg[k.Name]
		if s, isString := v.(string); !ok || v == nil || isString && strings.TrimSpace(s) == "" {
			return invalid("config", fmt.Sprintf("missing required key %q of template %q", k.Name, in.Template))
		}
	}
	return nil
}

// savePage creates (cur nil) or replaces a page and returns its id.
func (b *Blog) savePage(ctx context.Context, cur *Page, in pageInput) (string, error) {
	if err := b.validatePage(&in); err != nil {
		return "", err
	}
	html, err := b.render(in.ContentMarkdown)
	if err != nil {
		return "", fmt.Errorf("blog: render page: %w", err)
	}
	now := b.now()
	var published any
	switch {
	case cur != nil && cur.PublishedAt != nil:
		published = sqlstore.FromTime(*cur.PublishedAt)
	case in.Status == StatusPublished:
		published = sqlstore.FromTime(now)
	}
	id := sqlstore.NewID()
	if cur != nil {
		id = cur.ID
	}
	err = b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		slug, err := freeSlug(ctx, tx, "pages", id, in.Slug, in.Title)
		if err != nil {
			return err
		}
		args := []any{id, in.Title, slug, in.ContentMarkdown, html.HTML, in.Status, in.SortOrder, in.ShowInNav,
			published, in.Template, in.Config, sqlstore.FromTime(now)}
		if cur == nil {
			_, err = tx.Exec(ctx, `INSERT INTO pages (id, title, slug, content_markdown, content_html, status, sort_order,
				show_in_nav, published_at, template, config, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`, args...)
		} else {
			_, err = tx.Exec(ctx, `UPDATE pages SET title = $2, slug = $3, content_markdown = $4, content_html = $5,
				status = $6, sort_order = $7, show_in_nav = $8, published_at = $9, template = $10, config = $11,
				updated_at = $12 WHERE id = $1 AND deleted_at IS NULL`, args...)
		}
		if errors.Is(err, sqlstore.ErrConflict) {
			return errDuplicateSlug
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("blog: save page: %w", err)
	}
	return id, nil
}

func (b *Blog) handleListPages(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		f := pageFilter{Public: public}
		if !public {
			f.Keyword = strings.TrimSpace(r.URL.Query().Get("keyword"))
			f.Status = r.URL.Query().Get("status")
			switch f.Status {
			case "", StatusDraft, StatusPublished, StatusArchived:
			default:
				return httpx.Unprocessable("status", "must be draft, published or archived")
			}
		}
		items, total, err := b.listPages(r.Context(), f, p)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

func (b *Blog) handleGetPage(column string, public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		value, err := pathKey(r, column)
		if err != nil {
			return err
		}
		p, err := b.pageBy(r.Context(), column, value, public)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleCreatePage(w http.ResponseWriter, r *http.Request) error {
	var in pageInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	id, err := b.savePage(r.Context(), nil, in)
	if err != nil {
		return httpError(err)
	}
	p, err := b.pageBy(r.Context(), "id", id, false)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, p)
	return nil
}

func (b *Blog) handleUpdatePage(partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		cur, err := b.pageBy(r.Context(), "id", id, false)
		if err != nil {
			return httpError(err)
		}
		var in pageInput
		if partial {
			var patch pagePatch
			if err := httpx.DecodeJSON(w, r, &patch); err != nil {
				return err
			}
			in = pageInput{Title: cur.Title, Slug: cur.Slug, ContentMarkdown: cur.ContentMarkdown, Status: cur.Status,
				SortOrder: cur.SortOrder, ShowInNav: cur.ShowInNav, Template: cur.Template, Config: cur.Config}
			patch.apply(&in)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		if _, err := b.savePage(r.Context(), cur, in); err != nil {
			return httpError(err)
		}
		p, err := b.pageBy(r.Context(), "id", id, false)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleDeletePage(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "pages", id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
