package filehost

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
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
		return err
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
		return err
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
	sets := []string{}
	args := []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if body.OriginName != nil {
		name := strings.TrimSpace(*body.OriginName)
		if name == "" || len(name) > 1024 || cleanName(name) != name {
			return httpx.BadRequest("origin_name must be a non-empty file name")
		}
		sets = append(sets, "origin_name = "+arg(name))
	}
	if body.AlbumID != nil {
		a := strings.ToLower(strings.TrimSpace(*body.AlbumID))
		if a == "" {
			sets = append(sets, "album_id = NULL")
		} else {
			ok, err := s.ownAlbum(ctx, s.db, a, userID)
			if err != nil {
				return err
			}
			if !ok {
				return httpx.BadRequest("album_id is not one of your albums")
			}
			sets = append(sets, "album_id = "+arg(a))
		}
	}
	if body.IsPublic != nil {
		sets = append(sets, "is_public = "+arg(*body.IsPublic))
	}
	sets = append(sets, "updated_at = "+arg(sqlstore.FromTime(s.now())))
	q := "UPDATE files SET " + strings.Join(sets, ", ") + " WHERE id = " + arg(id) + " AND user_id = " + arg(userID)
	res, err := s.db.Exec(ctx, q, args...)
	if errors.Is(err, sqlstore.ErrForeignKey) {
		return httpx.BadRequest("album_id is not one of your albums")
	}
	if err != nil {
		return httpx.Internal(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return httpx.Internal(err)
	} else if n == 0 {
		return httpx.NotFound()
	}
	f, err := s.fileByID(ctx, id, userID)
	if err != nil {
		return err
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
		return err
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
	if len(body.IDs) == 0 {
		return httpx.BadRequest("ids must list at least one file id")
	}
	if len(body.IDs) > maxBatch {
		return httpx.BadRequest("ids may list at most 1000 file ids")
	}
	n, err := s.deleteFiles(r.Context(), auth.FromContext(r.Context()).UserID, dedupIDs(body.IDs))
	if err != nil {
		return err
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
		return err
	}
	names, err := s.usernames(r, files)
	if err != nil {
		return err
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
