package filehost

import (
	"net/http"
	"strconv"

	"folio/httpx"
)

// handleAdminStats is GET /api/v1/admin/stats; ?top= (1-100, default 10)
// sets how many users are ranked by bytes.
func (s *Service) handleAdminStats(w http.ResponseWriter, r *http.Request) error {
	top := defaultTopUsers
	if v := r.URL.Query().Get("top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return httpx.BadRequest("invalid query parameter top")
		}
		top = min(n, 100)
	}
	st, err := s.adminStats(r.Context(), top)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, st)
	return nil
}
