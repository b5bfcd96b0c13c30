package blog

import (
	"net/http"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/templates"
)

// linksPageSize is how many friend links the console lists at once.
const linksPageSize = 50

// linkStatuses are a friend link's statuses, in the order the form offers
// them.
func linkStatuses() []string { return []string{LinkActive, LinkPending, LinkDown} }

// linkFormView is a friend link's form: its fields as typed (sort kept as
// text so that a refused value comes back as it was), the field to mark.
type linkFormView struct {
	ID                                 string // "" on the create form
	Name, URL, Description, Logo, Sort string
	Status                             string
	Statuses                           []string
	Field                              string
}

func newLinkFormView(l *FriendLink) linkFormView {
	f := linkFormView{Status: LinkActive, Sort: "0", Statuses: linkStatuses()}
	if l != nil {
		f.ID, f.Name, f.URL, f.Description, f.Logo = l.ID, l.Name, l.URL, l.Description, l.Logo
		f.Sort, f.Status = strconv.Itoa(l.Sort), l.Status
	}
	return f
}

// readLinkForm reads the form into the API's body; a sort that is not a
// number is refused as the field it is.
func readLinkForm(r *http.Request) (linkFormView, linkInput, error) {
	f := newLinkFormView(nil)
	f.Name, f.URL = r.PostFormValue("name"), r.PostFormValue("url")
	f.Description, f.Logo = r.PostFormValue("description"), strings.TrimSpace(r.PostFormValue("logo"))
	f.Sort, f.Status = strings.TrimSpace(r.PostFormValue("sort")), r.PostFormValue("status")
	in := linkInput{Name: f.Name, URL: f.URL, Description: f.Description, Logo: f.Logo, Status: f.Status}
	if in.Status == "" {
		// The API's rule: a body without a status is an active link.
		in.Status = LinkActive
	}
	var err error
	if f.Sort != "" {
		if in.Sort, err = strconv.Atoi(f.Sort); err != nil {
			err = invalid("sort", "must be a whole number")
		}
	}
	return f, in, err
}

type linksView struct {
	Links  []*FriendLink
	Pager  *templates.ConsolePager
	Create linkFormView
}

// handleConsoleLinks is GET /console/blog/links: every friend link in the
// public order (sort, then newest), and the form to add one.
func (b consoleHandlers) handleConsoleLinks(w http.ResponseWriter, r *http.Request) error {
	return b.renderLinks(w, r, http.StatusOK, newLinkFormView(nil), "")
}

func (b consoleHandlers) renderLinks(w http.ResponseWriter, r *http.Request, status int, form linkFormView, problem string) error {
	pg, err := httpx.ParsePaging(r, "size", linksPageSize, 100)
	if err != nil {
		return err
	}
	links, total, err := b.listLinks(r.Context(), linkFilter{}, spanOf(pg))
	if err != nil {
		return err
	}
	v := b.console.View(w, r, "Friend links", "blog-links")
	v.Error = problem
	v.Data = linksView{Links: links, Create: form,
		Pager: templates.NewConsolePager("/console/blog/links", r.URL.Query(), pg.Page, pg.Size, total)}
	b.console.Render(w, r, status, "blog-links", v)
	return nil
}

// handleConsoleCreateLink is POST /console/blog/links.
func (b consoleHandlers) handleConsoleCreateLink(w http.ResponseWriter, r *http.Request) error {
	form, in, err := readLinkForm(r)
	var saved *FriendLink
	if err == nil {
		saved, err = b.saveLink(r.Context(), "", in)
	}
	if f, ok := refusal(err); ok {
		form.Field = f.Field
		return b.renderLinks(w, r, f.Status, form, f.Msg)
	}
	if err != nil {
		return err
	}
	b.console.Redirect(w, r, "/console/blog/links", "Added the friend link “"+saved.Name+"”.")
	return nil
}

// handleConsoleLink is GET /console/blog/links/{id}: the edit form.
func (b consoleHandlers) handleConsoleLink(w http.ResponseWriter, r *http.Request) error {
	id, err := consoleID(r, "friend link")
	if err != nil {
		return err
	}
	l, err := b.linkByID(r.Context(), id, false)
	if err != nil {
		return notFoundAs(err, "friend link")
	}
	return b.renderLink(w, r, http.StatusOK, newLinkFormView(l), "")
}

func (b consoleHandlers) renderLink(w http.ResponseWriter, r *http.Request, status int, form linkFormView, problem string) error {
	v := b.console.View(w, r, "Friend link", "blog-links")
	v.Error = problem
	v.Data = form
	b.console.Render(w, r, status, "blog-link", v)
	return nil
}

// handleConsoleUpdateLink is POST /console/blog/links/{id}: every field is
// set, as PUT does.
func (b consoleHandlers) handleConsoleUpdateLink(w http.ResponseWriter, r *http.Request) error {
	id, err := consoleID(r, "friend link")
	if err != nil {
		return err
	}
	if _, err := b.linkByID(r.Context(), id, false); err != nil {
		return notFoundAs(err, "friend link")
	}
	form, in, err := readLinkForm(r)
	form.ID = id
	if err == nil {
		_, err = b.saveLink(r.Context(), id, in)
	}
	if f, ok := refusal(err); ok {
		form.Field = f.Field
		return b.renderLink(w, r, f.Status, form, f.Msg)
	}
	if err != nil {
		return notFoundAs(err, "friend link")
	}
	b.console.Redirect(w, r, "/console/blog/links/"+id, "Saved.")
	return nil
}

// handleConsoleDeleteLink is POST /console/blog/links/{id}/delete.
func (b consoleHandlers) handleConsoleDeleteLink(w http.ResponseWriter, r *http.Request) error {
	id, err := consoleID(r, "friend link")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "friend_links", id); err != nil {
		return notFoundAs(err, "friend link")
	}
	b.console.Redirect(w, r, "/console/blog/links", "Deleted the friend link.")
	return nil
}
