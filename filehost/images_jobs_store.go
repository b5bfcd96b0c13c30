package filehost

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// imageSource reads what the making of an object's sizes needs: where its
// bytes are, their type and the size the upload's header told. It is
// sqlstore.ErrNotFound when the object is gone.
func (s *Service) imageSource(ctx context.Context, objectID string) (key, mimetype string, width, height int, err error) {
	err = s.db.QueryRow(ctx, "SELECT storage_key, mimetype, width, height FROM objects WHERE id = $1", objectID).
		Scan(&key, &mimetype, &width, &height)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		err = fmt.Errorf("filehost: read object %s: %w", objectID, err)
	}
	return key, mimetype, width, height, err
}
