package filehost

import (
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
)

// handleCreateAlbum is POST /api/v1/albums.
func (s *Service) handleCreateAlbum(w http.ResponseWriter, r *http.Request) error {
	var req albumRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	name, err := validAlbumName(req.Name)
	if err != nil {
		return httpError(err)
	}
	desc, err := validAlbumDescription(req.Description)
	if err != nil {
		return httpError(err)
	}
	a, err := s.createAlbum(r.Context(), auth.FromContext(r.Context()).UserID, name, desc, req.IsPublic)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusCreated, a)
	return nil
}

// handleListAlbums is GET /api/v1/albums: the caller's albums, paged, with
// order_by (created_at, updated_at, name), order and keyword (on the name).
func (s *Service) handleListAlbums(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	q := albumQuery{UserID: auth.FromContext(r.Context()).UserID, Keyword: strings.TrimSpace(v.Get("keyword")),
		Desc: true, Limit: p.Size, Offset: p.Offset()}
	switch ob := v.Get("order_by"); ob {
	case "", "created_at", "updated_at", "name":
		q.OrderBy = ob
	default:
		return httpx.BadRequest("invalid query parameter order_by")
	}
	switch strings.ToUpper(v.Get("order")) {
	case "", "DESC":
	case "ASC":
		q.Desc = false
	default:
		return httpx.BadRequest("invalid query parameter order")
	}
	albums, total, err := s.listAlbums(r.Context(), q)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(albums, total, p))
	return nil
}

// handleGetAlbum is GET /api/v1/albums/{id}; another user's album is a 404.
func (s *Service) handleGetAlbum(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	a, err := s.albumByID(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, a)
	return nil
}

// handlePatchAlbum is PATCH /api/v1/albums/{id}: changes only the fields
// sent.
func (s *Service) handlePatchAlbum(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	var p albumPatch
	if err := httpx.DecodeJSON(w, r, &p); err != nil {
		return err
	}
	if p.Name != nil {
		name, err := validAlbumName(*p.Name)
		if err != nil {
			return httpError(err)
		}
		p.Name = &name
	}
	if p.Description != nil {
		d, err := validAlbumDescription(*p.Description)
		if err != nil {
			return httpError(err)
		}
		p.Description = &d
	}
	a, err := s.updateAlbum(r.Context(), id, auth.FromContext(r.Context()).UserID, p)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, a)
	return nil
}

// handleDeleteAlbum is DELETE /api/v1/albums/{id}; the album's files stay,
// outside any album.
func (s *Service) handleDeleteAlbum(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.deleteAlbum(r.Context(), id, auth.FromContext(r.Context()).UserID); err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}
