package blog

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"time"
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
