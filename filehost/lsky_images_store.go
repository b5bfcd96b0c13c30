package filehost

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// fileIDsByKey lists a user's file records whose content is under key.
func (s *Service) fileIDsByKey(ctx context.Context, userID, key string) ([]string, error) {
	if key == "" || len(key) > 1024 {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, "SELECT f.id"+fileFrom+" WHERE o.storage_key = $1 AND f.user_id = $2", key, userID)
	if err != nil {
		return nil, fmt.Errorf("filehost: files by key: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("filehost: files by key: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, fmt.Errorf("filehost: files by key: %w", err)
	}
	return ids, nil
}
