package filehost

import (
	"net/http"

	"folio/auth"
	"folio/httpx"
)

// handleLskyStrategies is GET /api/v1/strategies: Folio has one storage
// strategy; strategy_id on upload is accepted and ignored.
func (s *Service) handleLskyStrategies(w http.ResponseWriter, r *http.Request) error {
	type strategy struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	httpx.Lsky.OK(w, http.StatusOK, map[string]any{"strategies": []strategy{{ID: 1, Name: "local"}}})
	return nil
}

// handleLskyProfile is GET /api/v1/profile.
func (s *Service) handleLskyProfile(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := s.auth.UserByID(ctx, auth.FromContext(ctx).UserID)
	if err != nil {
		return httpError(err)
	}
	albums, err := s.albumCount(ctx, u.ID)
	if err != nil {
		return httpError(err)
	}
	httpx.Lsky.OK(w, http.StatusOK, lskyProfile{Name: u.Username, Email: u.Email,
		Capacity: float64(u.QuotaBytes) / 1024, UsedCapacity: float64(u.UsedBytes) / 1024,
		ImageNum: u.FileCount, AlbumNum: albums})
	return nil
}
