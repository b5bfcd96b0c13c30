package filehost

import (
	"net/http"

	"folio/auth"
	"folio/httpx"
)

// lskyProfile is Lsky Pro 2.x's profile. Capacities are in KB as floats, as
// Lsky sends them; capacity 0 means no quota. image_num counts every file
// record of the user, since to a Lsky client every upload is an image.
type lskyProfile struct {
	Name         string  `json:"name"`
	Email        string  `json:"email"`
	Capacity     float64 `json:"capacity"`
	UsedCapacity float64 `json:"used_capacity"`
	ImageNum     int64   `json:"image_num"`
	AlbumNum     int64   `json:"album_num"`
}

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
