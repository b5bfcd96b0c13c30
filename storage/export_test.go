package storage

import (
	"context"
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
