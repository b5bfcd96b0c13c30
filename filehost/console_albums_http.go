package filehost

import (
	"errors"
	"net/http"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// errNoSuchAlbum answers an album that is not the signed-in user's, or none.
var errNoSuchAlbum = httpx.E(http.StatusNotFound, "There is no such album.")

// handleConsoleAlbums is GET /console/albums: the user's albums, newest
// first, with how many files each holds, and the form to make one.
func (s consoleHandlers) handleConsoleAlbums(w http.ResponseWriter, r *http.Request) error {
	return s.renderAlbums(w, r, http.StatusOK, albumRequest{}, "")
}

func (s consoleHandlers) renderAlbums(w http.ResponseWriter, r *http.Request, status int, form albumRequest, problem string) error {
	p, err := httpx.ParsePaging(r, "size", consoleAlbumsPage, consoleAlbumsPage)
	if err != nil {
		return err
	}
	albums, total, err := s.listAlbums(r.Context(), albumQuery{UserID: auth.FromContext(r.Context()).UserID,
		OrderBy: "created_at", Desc: true, Limit: p.Size, Offset: p.Offset()})
	if err != nil {
		return err
	}
	v := s.console.View(w, r, "Albums", "albums")
	v.Error = problem
	v.Data = albumsView{Albums: albums, Form: form,
		Pager: templates.NewConsolePager("/console/albums", nil, p.Page, p.Size, total)}
	s.console.Render(w, r, status, "albums", v)
	return nil
}

// albumForm reads the album form and checks it with the rules of the JSON
// API; the message is for people.
func albumForm(r *http.Request) (albumRequest, string) {
	in := albumRequest{Name: r.PostFormValue("name"), Description: r.PostFormValue("description"),
		IsPublic: r.PostFormValue("is_public") != ""}
	name, err := validAlbumName(in.Name)
	if err != nil {
		return in, "Enter a name of 1 to 100 characters."
	}
	desc, err := validAlbumDescription(in.Description)
	if err != nil {
		return in, "The description can be at most 1000 characters."
	}
	in.Name, in.Description = name, desc
	return in, ""
}

// handleConsoleCreateAlbum is POST /console/albums.
func (s consoleHandlers) handleConsoleCreateAlbum(w http.ResponseWriter, r *http.Request) error {
	in, problem := albumForm(r)
	if problem != "" {
		return s.renderAlbums(w, r, http.StatusUnprocessableEntity, in, problem)
	}
	a, err := s.createAlbum(r.Context(), auth.FromContext(r.Context()).UserID, in.Name, in.Description, in.IsPublic)
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/albums/"+a.ID, "Album created.")
	return nil
}

// consoleAlbum loads the signed-in user's album named by the path.
func (s consoleHandlers) consoleAlbum(r *http.Request) (*album, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, errNoSuchAlbum
	}
	a, err := s.albumByID(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, errNoSuchAlbum
	}
	return a, err
}

// handleConsoleAlbum is GET /console/albums/{id}: the edit form.
func (s consoleHandlers) handleConsoleAlbum(w http.ResponseWriter, r *http.Request) error {
	a, err := s.consoleAlbum(r)
	if err != nil {
		return err
	}
	s.renderAlbum(w, r, http.StatusOK, a, albumRequest{Name: a.Name, Description: a.Description, IsPublic: a.IsPublic}, "")
	return nil
}

func (s consoleHandlers) renderAlbum(w http.ResponseWriter, r *http.Request, status int, a *album, form albumRequest, problem string) {
	v := s.console.View(w, r, a.Name, "albums")
	v.Error = problem
	v.Data = albumView{Album: a, Form: form}
	s.console.Render(w, r, status, "album", v)
}

// handleConsoleUpdateAlbum is POST /console/albums/{id}: rename, describe,
// make public or private.
func (s consoleHandlers) handleConsoleUpdateAlbum(w http.ResponseWriter, r *http.Request) error {
	a, err := s.consoleAlbum(r)
	if err != nil {
		return err
	}
	in, problem := albumForm(r)
	if problem != "" {
		s.renderAlbum(w, r, http.StatusUnprocessableEntity, a, in, problem)
		return nil
	}
	_, err = s.updateAlbum(r.Context(), a.ID, auth.FromContext(r.Context()).UserID,
		albumPatch{Name: &in.Name, Description: &in.Description, IsPublic: &in.IsPublic})
	if errors.Is(err, sqlstore.ErrNotFound) {
		return errNoSuchAlbum
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/albums/"+a.ID, "Saved.")
	return nil
}

// handleConsoleDeleteAlbum is POST /console/albums/{id}/delete: the album
// goes, its files stay, in no album.
func (s consoleHandlers) handleConsoleDeleteAlbum(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return errNoSuchAlbum
	}
	err = s.deleteAlbum(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return errNoSuchAlbum
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/albums", "Album deleted; its files are kept.")
	return nil
}
