package filehost

import (
	"context"
	"errors"

	"folio/sqlstore"
)

// targetByHash resolves a normalized short-link hash; ok is false for an
// unknown one. Unless fresh, a remembered target may answer.
func (s *Service) targetByHash(ctx context.Context, h string, fresh bool) (linkTarget, bool, error) {
	if fresh {
		s.links.forget(h)
	} else if t, ok := s.links.get(h); ok {
		t.cached = true
		return t, true, nil
	}
	var t linkTarget
	var created int64
	err := s.db.QueryRow(ctx, "SELECT id, storage_key, md5, mimetype, file_type, created_at FROM objects WHERE hash = $1", h).
		Scan(&t.objectID, &t.key, &t.md5, &t.mimetype, &t.fileType, &created)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return t, false, nil
	}
	if err != nil {
		return t, false, err
	}
	t.createdAt = sqlstore.Time(created)
	s.links.put(h, t)
	return t, true, nil
}
