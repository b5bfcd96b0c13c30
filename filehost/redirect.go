package filehost

import (
	"net/http"
	"strconv"
	"time"
)

// presigner is a store that can hand out a URL of the bytes under a key
// (storage.S3): downloads then leave this process's bandwidth alone.
type presigner interface {
	PresignGetAs(key string, ttl time.Duration, contentType, disposition string) (string, error)
}

// Presigned URLs live 15 minutes; a client may keep the redirect for 10,
// so that it never follows a remembered one that has expired.
const (
	presignTTL      = 15 * time.Minute
	presignCacheAge = 10 * time.Minute
)

// redirectToBytes answers 302 to a presigned URL of key, asking the store
// to serve the type and disposition Folio would have sent. The ETag
// clients keep is the store's then, not Folio's.
func (s *Service) redirectToBytes(w http.ResponseWriter, r *http.Request, key, mimetype, disposition string) {
	u, err := s.presign.PresignGetAs(key, presignTTL, mimetype, disposition)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "private, max-age="+strconv.Itoa(int(presignCacheAge/time.Second)))
	h.Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u, http.StatusFound)
}
