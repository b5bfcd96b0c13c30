package filehost

import (
	"net/http"

	"folio/httpx"
)

// handlePublicStats is GET /api/v1/public/stats.
func (s *Service) handlePublicStats(w http.ResponseWriter, r *http.Request) error {
	st, err := s.publicStats(r.Context())
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, st)
	return nil
}

// handlePlaza is GET /api/v1/public/plaza: public images of every user,
// newest first. The links are the file's public ones; the delete link is
// left out, as it is of no use to anyone but the owner.
func (s *Service) handlePlaza(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return err
	}
	items, total, err := s.plaza(r.Context(), p.Size, p.Offset())
	if err != nil {
		return httpError(err)
	}
	base := httpx.BaseURL(r)
	for _, it := range items {
		it.setLinks(base)
		it.Links.DeleteURL = ""
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(items, total, p))
	return nil
}
