package filehost

import (
	"net/http"
	"time"

	"folio/auth"
	"folio/httpx"
)

// lskyImage is an item of Lsky Pro's image list: the upload result plus
// dimensions and date.
type lskyImage struct {
	uploadResult
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Date   string `json:"date"`
}

// lskyPage is Lsky Pro's paged data.
type lskyPage struct {
	CurrentPage int         `json:"current_page"`
	LastPage    int         `json:"last_page"`
	PerPage     int         `json:"per_page"`
	Total       int         `json:"total"`
	Data        []lskyImage `json:"data"`
}

// lskyDate is how Lsky Pro shows dates.
func lskyDate(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// handleLskyImages is GET /api/v1/images: the caller's files, newest first,
// in Lsky's shape (query page and per_page).
func (s *Service) handleLskyImages(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "per_page", 20, 100)
	if err != nil {
		return err
	}
	q := fileQuery{UserID: auth.FromContext(r.Context()).UserID, OrderBy: "created_at", Desc: true,
		Limit: p.Size, Offset: p.Offset()}
	q.Keyword = r.URL.Query().Get("keyword")
	files, total, err := s.listFiles(r.Context(), q)
	if err != nil {
		return httpError(err)
	}
	base := httpx.BaseURL(r)
	page := lskyPage{CurrentPage: p.Page, PerPage: p.Size, Total: total, LastPage: max(1, (total+p.Size-1)/p.Size),
		Data: make([]lskyImage, 0, len(files))}
	for _, f := range files {
		f.setLinks(base)
		page.Data = append(page.Data, lskyImage{uploadResult: newUploadResult(f), Width: f.Width, Height: f.Height,
			Date: lskyDate(f.CreatedAt)})
	}
	httpx.Lsky.OK(w, http.StatusOK, page)
	return nil
}

// handleLskyDeleteImage is DELETE /api/v1/images/{key...}: the caller's
// file records with that storage key. An unknown key or another user's is
// a 404 with status false.
func (s *Service) handleLskyDeleteImage(w http.ResponseWriter, r *http.Request) error {
	key := r.PathValue("key")
	userID := auth.FromContext(r.Context()).UserID
	ids, err := s.fileIDsByKey(r.Context(), userID, key)
	if err != nil {
		return httpError(err)
	}
	if len(ids) == 0 {
		return &httpx.Error{Status: http.StatusNotFound, Code: 40400, Msg: "image not found"}
	}
	if _, err := s.deleteFiles(r.Context(), userID, ids); err != nil {
		return httpError(err)
	}
	httpx.Lsky.OK(w, http.StatusOK, struct{}{})
	return nil
}
