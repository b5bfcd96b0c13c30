package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/templates"
)

// pagesPageSize is how many pages the console lists at once.
const pagesPageSize = 20

// pageTemplate is a page template as the editor offers it: its name and
// the config keys of its manifest, each with the value the form shows.
type pageTemplate struct {
	Name    string
	Keys    []pageConfigKey
	Current bool // the template chosen
}

type pageConfigKey struct {
	Name     string
	Required bool
	Value    string
}

// pageTemplates lists the page templates that have a manifest, by name,
// from the blog's templates (which theme.dir may overlay). A template the
// page uses is listed even without one, so that saving keeps it.
func (b consoleHandlers) pageTemplates(current string) ([]pageTemplate, error) {
	names, err := fs.Glob(b.templates, "pages/*.json")
	if err != nil {
		return nil, fmt.Errorf("blog: list page templates: %w", err)
	}
	var out []pageTemplate
	seen := false
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".json")
		if !validTemplateName(name) {
			continue
		}
		if _, err := fs.Stat(b.templates, "pages/"+name+".html"); err != nil {
			continue
		}
		m, err := b.pageManifest(name)
		if err != nil {
			return nil, err
		}
		t := pageTemplate{Name: name, Current: name == current}
		for _, k := range m.Keys {
			t.Keys = append(t.Keys, pageConfigKey{Name: k.Name, Required: k.Required})
		}
		seen = seen || t.Current
		out = append(out, t)
	}
	if !seen && current != "" {
		out = append(out, pageTemplate{Name: current, Current: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// pageManifest reads pages/{name}.json; none is a manifest without keys.
func (b consoleHandlers) pageManifest(name string) (manifest, error) {
	var m manifest
	raw, err := fs.ReadFile(b.templates, "pages/"+name+".json")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return m, fmt.Errorf("blog: read manifest of %s: %w", name, err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("blog: manifest pages/%s.json: %w", name, err)
	}
	return m, nil
}

// configText is how the form shows a config value: a string as it is,
// anything else as JSON.
func configText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}

// The flashes of a saved page, by which the editor knows it follows a
// save.
const (
	flashPageCreated = "Page created."
	flashPageSaved   = "Page saved."
)

// pageFormView is the page editor: the page's fields as typed, the
// templates with their config fields, and the field to mark.
type pageFormView struct {
	ID              string // "" for a new page
	Title, Slug     string
	ContentMarkdown string
	// ContentHTML is the stored page's rendering: the preview until the
	// editor's script renders what is typed.
	ContentHTML template.HTML
	Status      string
	Template    string
	ShowInNav   bool
	SortOrder   string
	PublicSlug  string // the slug of the stored page while it is published: a link to the site
	// PublishedSlug is the stored slug of a published or archived page:
	// the editor says that changing it moves the page's URL.
	PublishedSlug string
	Templates     []pageTemplate
	Statuses      []string
	Field         string
	// Saved: the page follows a save, so the editor's script drops the
	// stored draft; SavedAlso names more draft keys it makes stale.
	Saved     bool
	SavedAlso string
}

// DraftKey names the editor's local drafts (docs/console.md#pages).
func (f pageFormView) DraftKey() string {
	if f.ID == "" {
		return "page:new"
	}
	return "page:" + f.ID
}

// newPageForm is the editor of p (nil: a new page), its chosen template's
// config fields filled from the page's config.
func (b consoleHandlers) newPageForm(p *Page) (pageFormView, error) {
	f := pageFormView{Status: StatusDraft, Template: "default", SortOrder: "0",
		Statuses: []string{StatusDraft, StatusPublished, StatusArchived}}
	cfg := map[string]any{}
	if p != nil {
		f.ID, f.Title, f.Slug, f.ContentMarkdown = p.ID, p.Title, p.Slug, p.ContentMarkdown
		f.ContentHTML = p.ContentHTML
		f.Status, f.Template, f.ShowInNav, f.SortOrder = p.Status, p.Template, p.ShowInNav, strconv.Itoa(p.SortOrder)
		if p.Status == StatusPublished {
			f.PublicSlug = p.Slug
		}
		if p.Status == StatusPublished || p.Status == StatusArchived {
			f.PublishedSlug = p.Slug
		}
		cfg = p.ConfigMap()
	}
	var err error
	if f.Templates, err = b.pageTemplates(f.Template); err != nil {
		return f, err
	}
	for i := range f.Templates {
		if !f.Templates[i].Current {
			continue
		}
		for j, k := range f.Templates[i].Keys {
			f.Templates[i].Keys[j].Value = configText(cfg[k.Name])
		}
	}
	return f, nil
}

// readPageForm reads the editor's form: the API's body, and the view to
// show again with every template's config fields as typed. Only the chosen
// template's config is saved, over the page's stored config when it keeps
// its template (keys no manifest names, and values that are not text,
// stay as they were unless changed).
func (b consoleHandlers) readPageForm(r *http.Request, cur *Page) (pageFormView, pageInput, error) {
	f, err := b.newPageForm(cur)
	if err != nil {
		return f, pageInput{}, err
	}
	v := func(k string) string { return r.PostFormValue(k) }
	f.Title, f.Slug, f.ContentMarkdown = v("title"), strings.TrimSpace(v("slug")), v("content_markdown")
	f.Status, f.Template, f.ShowInNav = v("status"), strings.TrimSpace(v("template")), v("show_in_nav") != ""
	f.SortOrder = strings.TrimSpace(v("sort_order"))
	if f.Template == "" {
		f.Template = "default" // as the API defaults it
	}
	if f.Templates, err = b.pageTemplates(f.Template); err != nil {
		return f, pageInput{}, err
	}
	for i, t := range f.Templates {
		for j, k := range t.Keys {
			f.Templates[i].Keys[j].Value = v("config." + t.Name + "." + k.Name)
		}
	}
	in := pageInput{Title: f.Title, Slug: f.Slug, ContentMarkdown: f.ContentMarkdown, Status: f.Status,
		ShowInNav: f.ShowInNav, Template: f.Template}
	if f.SortOrder != "" {
		if in.SortOrder, err = strconv.Atoi(f.SortOrder); err != nil {
			return f, in, invalid("sort_order", "must be a whole number")
		}
	}
	cfg := map[string]any{}
	if cur != nil && cur.Template == f.Template {
		cfg = cur.ConfigMap()
	}
	for _, t := range f.Templates {
		if !t.Current {
			continue
		}
		for _, k := range t.Keys {
			val := strings.TrimSpace(v("config." + t.Name + "." + k.Name))
			switch {
			case val == "":
				delete(cfg, k.Name)
			case val != configText(cfg[k.Name]):
				cfg[k.Name] = val
			}
		}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return f, in, fmt.Errorf("blog: page config: %w", err)
	}
	in.Config = string(raw)
	return f, in, nil
}

type pagesView struct {
	Pages []*Page
	Pager *templates.ConsolePager
}

// handleConsolePages is GET /console/blog/pages.
func (b consoleHandlers) handleConsolePages(w http.ResponseWriter, r *http.Request) error {
	pg, err := httpx.ParsePaging(r, "size", pagesPageSize, 100)
	if err != nil {
		return err
	}
	items, total, err := b.listPages(r.Context(), pageFilter{}, spanOf(pg))
	if err != nil {
		return err
	}
	v := b.console.View(w, r, "Pages", "blog-pages")
	v.Data = pagesView{Pages: items, Pager: templates.NewConsolePager("/console/blog/pages", r.URL.Query(), pg.Page, pg.Size, total)}
	b.console.Render(w, r, http.StatusOK, "blog-pages", v)
	return nil
}

func (b consoleHandlers) renderPageEditor(w http.ResponseWriter, r *http.Request, status int, f pageFormView, problem string) error {
	title := "New page"
	if f.ID != "" {
		title = "Edit page"
	}
	v := b.console.View(w, r, title, "blog-pages")
	if status == http.StatusOK && v.Flash != "" {
		f.Saved = true
		if v.Flash == flashPageCreated {
			f.SavedAlso = "page:new"
		}
	}
	v.Error = problem
	v.Data = f
	b.console.Render(w, r, status, "blog-page", v)
	return nil
}

// handleConsoleNewPage is GET /console/blog/pages/new: an empty editor.
func (b consoleHandlers) handleConsoleNewPage(w http.ResponseWriter, r *http.Request) error {
	f, err := b.newPageForm(nil)
	if err != nil {
		return err
	}
	return b.renderPageEditor(w, r, http.StatusOK, f, "")
}

// consolePageByID loads the page of the path's {id}, or the console's 404.
func (b consoleHandlers) consolePageByID(ctx context.Context, r *http.Request) (*Page, error) {
	id, err := consoleID(r, "page")
	if err != nil {
		return nil, err
	}
	p, err := b.pageBy(ctx, "id", id, false)
	return p, notFoundAs(err, "page")
}

// handleConsolePage is GET /console/blog/pages/{id}: the editor.
func (b consoleHandlers) handleConsolePage(w http.ResponseWriter, r *http.Request) error {
	p, err := b.consolePageByID(r.Context(), r)
	if err != nil {
		return err
	}
	f, err := b.newPageForm(p)
	if err != nil {
		return err
	}
	return b.renderPageEditor(w, r, http.StatusOK, f, "")
}

// savePageForm saves the editor's form as a new page (cur nil) or over
// cur, and answers: 303 to the page's editor, or the form again.
func (b consoleHandlers) savePageForm(w http.ResponseWriter, r *http.Request, cur *Page) error {
	f, in, err := b.readPageForm(r, cur)
	id := ""
	if err == nil {
		id, err = b.savePage(r.Context(), cur, in)
	}
	if fr, ok := refusal(err); ok {
		f.Field = fr.Field
		return b.renderPageEditor(w, r, fr.Status, f, fr.Msg)
	}
	if err != nil {
		return err
	}
	msg := flashPageSaved
	if cur == nil {
		msg = flashPageCreated
	}
	b.console.Redirect(w, r, "/console/blog/pages/"+id, msg)
	return nil
}

// handleConsoleCreatePage is POST /console/blog/pages.
func (b consoleHandlers) handleConsoleCreatePage(w http.ResponseWriter, r *http.Request) error {
	return b.savePageForm(w, r, nil)
}

// handleConsoleUpdatePage is POST /console/blog/pages/{id}: every field is
// set, as PUT does.
func (b consoleHandlers) handleConsoleUpdatePage(w http.ResponseWriter, r *http.Request) error {
	p, err := b.consolePageByID(r.Context(), r)
	if err != nil {
		return err
	}
	return b.savePageForm(w, r, p)
}

// handleConsoleDeletePage is POST /console/blog/pages/{id}/delete.
func (b consoleHandlers) handleConsoleDeletePage(w http.ResponseWriter, r *http.Request) error {
	id, err := consoleID(r, "page")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "pages", id); err != nil {
		return notFoundAs(err, "page")
	}
	b.console.Redirect(w, r, "/console/blog/pages", "Deleted the page.")
	return nil
}
