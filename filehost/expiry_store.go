package filehost

import (
	"context"
	"fmt"

	"folio/sqlstore"
)

// expiredIDs lists up to limit records expired by now, soonest first.
func (s *Service) expiredIDs(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= $1
		ORDER BY expires_at, id LIMIT $2`, sqlstore.FromTime(s.now()), limit)
	if err != nil {
		return nil, fmt.Errorf("filehost: expired files: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("filehost: expired files: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: expired files: %w", err)
	}
	return ids, nil
}
