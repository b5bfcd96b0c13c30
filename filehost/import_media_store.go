package filehost

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// ownCopy is the short link of a file of userID with this content that
// anyone may read and that never expires; "" when there is none.
func (s *Service) ownCopy(ctx context.Context, userID, md5hex, sha256hex string) (string, error) {
	rec := fileRecord{}
	err := s.db.QueryRow(ctx, `SELECT o.hash, o.file_type FROM files f JOIN objects o ON o.id = f.object_id
		WHERE o.md5 = $1 AND o.sha256 = $2 AND f.user_id = $3 AND f.expires_at IS NULL AND f.visibility <> 'restricted'
		ORDER BY f.created_at, f.id LIMIT 1`, md5hex, sha256hex, userID).Scan(&rec.hash, &rec.FileType)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("filehost: find own copy: %w", err)
	}
	rec.setLinks("")
	return rec.Links.URL, nil
}
