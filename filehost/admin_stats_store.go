package filehost

import (
	"context"
	"fmt"
	"time"

	"folio/sqlstore"
)

// StorageUsage are the file host's totals, as the blog's dashboard shows
// them (cmd/folio hands them over; docs/console.md#administration).
type StorageUsage struct {
	Users, Files, RecordBytes, StorageBytes int64
}

// StorageUsage returns the totals of the admin stats: accounts, files, the
// bytes the files add up to and the bytes stored.
func (s *Service) StorageUsage(ctx context.Context) (StorageUsage, error) {
	st, err := s.totals(ctx)
	if err != nil {
		return StorageUsage{}, err
	}
	return StorageUsage{Users: st.Users, Files: st.Files, RecordBytes: st.RecordBytes, StorageBytes: st.StorageBytes}, nil
}

// totals fills the admin stats' counts and sums.
func (s *Service) totals(ctx context.Context) (*adminStats, error) {
	st := &adminStats{ByType: []typeStats{}, TopUsers: []userStats{}}
	err := s.db.QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM users WHERE role IN ('user', 'admin')),
		(SELECT COUNT(*) FROM files),
		(SELECT COUNT(*) FROM objects),
		(SELECT COUNT(*) FROM albums),
		(SELECT COALESCE(SUM(size), 0) FROM files),
		(SELECT COALESCE(SUM(size), 0) FROM objects)`).
		Scan(&st.Users, &st.Files, &st.Objects, &st.Albums, &st.RecordBytes, &st.StorageBytes)
	if err != nil {
		return nil, fmt.Errorf("filehost: admin stats: %w", err)
	}
	st.DedupSavings = st.RecordBytes - st.StorageBytes
	if st.VariantBytes, err = s.variantBytes(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

func (s *Service) adminStats(ctx context.Context, top int) (*adminStats, error) {
	st, err := s.totals(ctx)
	if err != nil {
		return nil, err
	}

	rows, err := s.db.Query(ctx, `SELECT o.file_type, COUNT(*), COALESCE(SUM(f.size), 0)
		FROM files f JOIN objects o ON o.id = f.object_id GROUP BY o.file_type ORDER BY o.file_type`)
	if err != nil {
		return nil, fmt.Errorf("filehost: stats by type: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t typeStats
		if err := rows.Scan(&t.FileType, &t.Files, &t.Bytes); err != nil {
			return nil, fmt.Errorf("filehost: stats by type: %w", err)
		}
		st.ByType = append(st.ByType, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: stats by type: %w", err)
	}
	rows.Close()

	rows, err = s.db.Query(ctx, `SELECT u.id, u.username, u.role, COUNT(*), COALESCE(SUM(f.size), 0) AS bytes
		FROM files f JOIN users u ON u.id = f.user_id
		GROUP BY u.id, u.username, u.role ORDER BY bytes DESC, u.username LIMIT $1`, top)
	if err != nil {
		return nil, fmt.Errorf("filehost: stats by user: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u userStats
		if err := rows.Scan(&u.UserID, &u.Username, &u.Role, &u.Files, &u.Bytes); err != nil {
			return nil, fmt.Errorf("filehost: stats by user: %w", err)
		}
		st.TopUsers = append(st.TopUsers, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: stats by user: %w", err)
	}
	return st, nil
}

// uploadsPerDay counts the files created on each UTC day from since on;
// days without uploads are absent.
func (s *Service) uploadsPerDay(ctx context.Context, since time.Time) (map[int64]dayStats, error) {
	// created_at is Unix microseconds: integer division names the day on
	// both databases.
	rows, err := s.db.Query(ctx, `SELECT created_at / 86400000000, COUNT(*), COALESCE(SUM(size), 0)
		FROM files WHERE created_at >= $1 GROUP BY created_at / 86400000000`, sqlstore.FromTime(since))
	if err != nil {
		return nil, fmt.Errorf("filehost: uploads per day: %w", err)
	}
	defer rows.Close()
	out := map[int64]dayStats{}
	for rows.Next() {
		var day int64
		var d dayStats
		if err := rows.Scan(&day, &d.Files, &d.Bytes); err != nil {
			return nil, fmt.Errorf("filehost: uploads per day: %w", err)
		}
		out[day] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: uploads per day: %w", err)
	}
	return out, nil
}
