package filehost

import (
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
)

// parseFileQuery reads the list parameters shared by the user and admin
// file lists: paging, order_by, order, album_id, file_type and keyword.
func parseFileQuery(r *http.Request) (fileQuery, httpx.Paging, error) {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return fileQuery{}, p, err
	}
	v := r.URL.Query()
	q := fileQuery{Limit: p.Size, Offset: p.Offset(), Desc: true, Keyword: strings.TrimSpace(v.Get("keyword"))}
	switch ob := v.Get("order_by"); ob {
	case "", "created_at":
		q.OrderBy = "created_at"
	case "size", "origin_name":
		q.OrderBy = ob
	default:
		return q, p, httpx.BadRequest("invalid query parameter order_by")
	}
	switch strings.ToUpper(v.Get("order")) {
	case "", "DESC":
	case "ASC":
		q.Desc = false
	default:
		return q, p, httpx.BadRequest("invalid query parameter order")
	}
	if q.AlbumID, err = httpx.QueryID(r, "album_id"); err != nil {
		return q, p, err
	}
	switch ft := v.Get("file_type"); ft {
	case "", "image", "video", "audio", "file":
		q.FileType = ft
	default:
		return q, p, httpx.BadRequest("invalid query parameter file_type")
	}
	return q, p, nil
}

// handleListFiles is GET /api/v1/files: the caller's files.
func (s *Service) handleListFiles(w http.ResponseWriter, r *http.Request) error {
	q, p, err := parseFileQuery(r)
	if err != nil {
		return err
	}
	q.UserID = auth.FromContext(r.Context()).UserID
	files, total, err := s.listFiles(r.Context(), q)
	if err != nil {
		return httpError(err)
	}
	base := httpx.BaseURL(r)
	for _, f := range files {
		f.setLinks(base)
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(files, total, p))
	return nil
}

// handleGetFile is GET /api/v1/files/{id}; another user's file is a 404.
func (s *Service) handleGetFile(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	f, err := s.fileByID(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if err != nil {
		return httpError(err)
	}
	f.setLinks(httpx.BaseURL(r))
	httpx.FileAPI.OK(w, http.StatusOK, f)
	return nil
}

// handlePatchFile is PATCH /api/v1/files/{id}.
func (s *Service) handlePatchFile(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	userID := auth.FromContext(ctx).UserID
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	var body filePatch
	if err := httpx.DecodeJSON(w, r, &body); err != nil {
		return err
	}
	if err := body.clean(); err != nil {
		return httpError(err)
	}
	if err := s.updateFile(ctx, id, userID, body); err != nil {
		return httpError(err)
	}
	f, err := s.fileByID(ctx, id, userID)
	if err != nil {
		return httpError(err)
	}
	f.setLinks(httpx.BaseURL(r))
	httpx.FileAPI.OK(w, http.StatusOK, f)
	return nil
}

// handleDeleteFile is DELETE /api/v1/files/{id} for the owner.
func (s *Service) handleDeleteFile(w http.ResponseWriter, r *http.Request) error {
	return s.deleteOne(w, r, auth.FromContext(r.Context()).UserID)
}

// handleAdminDeleteFile is DELETE /api/v1/admin/files/{id}: any user's file.
func (s *Service) handleAdminDeleteFile(w http.ResponseWriter, r *http.Request) error {
	return s.deleteOne(w, r, "")
}

func (s *Service) deleteOne(w http.ResponseWriter, r *http.Request, userID string) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	n, err := s.deleteFiles(r.Context(), userID, []string{id})
	if err != nil {
		return httpError(err)
	}
	if n == 0 {
		return httpx.NotFound()
	}
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}

// handleBatchDelete is POST /api/v1/files/batch-delete {ids}: the caller's
// files among ids are deleted; others are ignored.
func (s *Service) handleBatchDelete(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IDs []string `json:"ids"`
	}
	if err := httpx.DecodeJSON(w, r, &body); err != nil {
		return err
	}
	if err := checkBatch(body.IDs); err != nil {
		return httpError(err)
	}
	n, err := s.deleteFiles(r.Context(), auth.FromContext(r.Context()).UserID, dedupIDs(body.IDs))
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, map[string]int{"deleted": n})
	return nil
}

// handleAdminListFiles is GET /api/v1/admin/files: every user's files,
// filtered by user_id and the usual file filters.
func (s *Service) handleAdminListFiles(w http.ResponseWriter, r *http.Request) error {
	q, p, err := parseFileQuery(r)
	if err != nil {
		return err
	}
	if q.UserID, err = httpx.QueryID(r, "user_id"); err != nil {
		return err
	}
	files, total, err := s.listFiles(r.Context(), q)
	if err != nil {
		return httpError(err)
	}
	names, err := s.usernames(r.Context(), files)
	if err != nil {
		return httpError(err)
	}
	base := httpx.BaseURL(r)
	items := make([]adminFile, len(files))
	for i, f := range files {
		f.setLinks(base)
		items[i] = adminFile{fileRecord: f, UserID: f.userID, Username: names[f.userID]}
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(items, total, p))
	return nil
}
