package storage

import (
	"context"
	"net/http"
	"time"
)

// OpenUploads lists the keys of the multipart uploads open anywhere in the
// store's bucket, temporary or final key alike, which Temps does not.
func OpenUploads(ctx context.Context, s *S3) ([]string, error) {
	var keys []string
	err := s.listUploads(ctx, "", func(key, _ string, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	return keys, err
}

// ContentType is the Content-Type the bucket keeps with the object under
// key, read by a HEAD.
func ContentType(ctx context.Context, s *S3, key string) (string, error) {
	h, err := s.doDiscard(ctx, http.MethodHead, s.cfg.Prefix+key, nil, nil, nil)
	if err != nil {
		return "", err
	}
	return h.Get("Content-Type"), nil
}
