package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
	"folio/templates"
)

// termsPageSize is how many categories or tags a console page lists.
const termsPageSize = 50

// termNames are how the console names a table's rows.
func termNames(t termTable) (one, many string) {
	if t == tags {
		return "tag", "Tags"
	}
	return "category", "Categories"
}

// consoleTerm is a term as its list shows it.
type consoleTerm struct {
	Term
	Posts int
}

type termsView struct {
	Table  string // categories or tags: the base of every form's action
	One    string // category or tag
	Terms  []consoleTerm
	Pager  *templates.ConsolePager
	Create termInput // the create form's input
	// The row whose edit was refused, with its input and the field to mark.
	EditID string
	Edit   termInput
	Field  string
}

// handleConsoleTerms is GET /console/blog/categories and /tags.
func (b consoleHandlers) handleConsoleTerms(t termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return b.renderTerms(w, r, t, http.StatusOK, termsView{}, "")
	}
}

func (b consoleHandlers) renderTerms(w http.ResponseWriter, r *http.Request, t termTable, status int, d termsView, problem string) error {
	pg, err := httpx.ParsePaging(r, "size", termsPageSize, 100)
	if err != nil {
		return err
	}
	items, total, err := b.listTerms(r.Context(), t, "", spanOf(pg))
	if err != nil {
		return err
	}
	counts, err := b.termPostCounts(r.Context(), t, items)
	if err != nil {
		return err
	}
	d.Terms = make([]consoleTerm, len(items))
	for i, it := range items {
		d.Terms[i] = consoleTerm{Term: it, Posts: counts[it.ID]}
	}
	d.Table = string(t)
	var title string
	d.One, title = termNames(t)
	base := "/console/blog/" + string(t)
	d.Pager = templates.NewConsolePager(base, r.URL.Query(), pg.Page, pg.Size, total)
	v := b.console.View(w, r, title, "blog-terms")
	v.Error = problem
	v.Data = d
	b.console.Render(w, r, status, "blog-terms", v)
	return nil
}

func termForm(r *http.Request) termInput {
	return termInput{Name: r.PostFormValue("name"), Slug: strings.TrimSpace(r.PostFormValue("slug"))}
}

// handleConsoleCreateTerm is POST /console/blog/categories and /tags.
func (b consoleHandlers) handleConsoleCreateTerm(t termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		in := termForm(r)
		saved, err := b.saveTerm(r.Context(), t, "", in)
		if f, ok := refusal(err); ok {
			return b.renderTerms(w, r, t, f.Status, termsView{Create: in, Field: f.Field}, f.Msg)
		}
		if err != nil {
			return err
		}
		one, _ := termNames(t)
		b.console.Redirect(w, r, "/console/blog/"+string(t), "Added the "+one+" “"+saved.Name+"”.")
		return nil
	}
}

// handleConsoleUpdateTerm is POST /console/blog/categories/{id} and
// /tags/{id}: its name and slug.
func (b consoleHandlers) handleConsoleUpdateTerm(t termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		one, _ := termNames(t)
		id, err := consoleID(r, one)
		if err != nil {
			return err
		}
		if _, err := b.termByID(r.Context(), t, id); err != nil {
			return notFoundAs(err, one)
		}
		in := termForm(r)
		saved, err := b.saveTerm(r.Context(), t, id, in)
		if f, ok := refusal(err); ok {
			return b.renderTerms(w, r, t, f.Status, termsView{EditID: id, Edit: in, Field: f.Field}, f.Msg)
		}
		if err != nil {
			return notFoundAs(err, one)
		}
		b.console.Redirect(w, r, "/console/blog/"+string(t), "Saved the "+one+" “"+saved.Name+"”.")
		return nil
	}
}

// handleConsoleDeleteTerm is POST /console/blog/categories/{id}/delete and
// /tags/{id}/delete. Its posts stay, without it.
func (b consoleHandlers) handleConsoleDeleteTerm(t termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		one, _ := termNames(t)
		id, err := consoleID(r, one)
		if err != nil {
			return err
		}
		if err := b.deleteTerm(r.Context(), t, id); err != nil {
			return notFoundAs(err, one)
		}
		b.console.Redirect(w, r, "/console/blog/"+string(t), "Deleted the "+one+".")
		return nil
	}
}
