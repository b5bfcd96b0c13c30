package filehost

import (
	"context"
	"fmt"
	"time"

	"folio/sqlstore"
)

// publicStats are the site-wide numbers anyone may see.
type publicStats struct {
	Files        int64 `json:"files"`
	Users        int64 `json:"users"`
	StorageBytes int64 `json:"storage_bytes"`
	Images       int64 `json:"images"`
	TodayUploads int64 `json:"today_uploads"`
}

// plazaItem is a public image with its owner's name; never the owner's
// email.
type plazaItem struct {
	*fileRecord
	Username string `json:"username"`
}

// publicStats counts file records, real users (the guest is not one), the
// bytes actually stored (each de-duplicated object once), image records and
// the records made since midnight UTC.
func (s *Service) publicStats(ctx context.Context) (*publicStats, error) {
	midnight := s.now().UTC().Truncate(24 * time.Hour)
	var st publicStats
	err := s.db.QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM files),
		(SELECT COUNT(*) FROM users WHERE role IN ('user', 'admin')),
		(SELECT COALESCE(SUM(size), 0) FROM objects),
		(SELECT COUNT(*) FROM files f JOIN objects o ON o.id = f.object_id WHERE o.file_type = 'image'),
		(SELECT COUNT(*) FROM files WHERE created_at >= $1)`, sqlstore.FromTime(midnight)).
		Scan(&st.Files, &st.Users, &st.StorageBytes, &st.Images, &st.TodayUploads)
	if err != nil {
		return nil, fmt.Errorf("filehost: public stats: %w", err)
	}
	return &st, nil
}

// plaza returns one page of public images, newest first, and their total.
func (s *Service) plaza(ctx context.Context, limit, offset int) ([]plazaItem, int, error) {
	cond := " WHERE f.is_public = $1 AND o.file_type = 'image' AND " + liveFile("$2")
	now := sqlstore.FromTime(s.now())
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*)"+fileFrom+cond, true, now).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("filehost: count plaza: %w", err)
	}
	if total == 0 || offset >= total {
		return []plazaItem{}, total, nil
	}
	// The page's ids from files_public_paging and objects_type first, then
	// those records whole (docs/design.md#paging).
	const order = " ORDER BY f.created_at DESC, f.id DESC"
	rows, err := s.db.Query(ctx, "SELECT "+fileColumns+", u.username FROM (SELECT f.id"+fileFrom+cond+order+
		" LIMIT $3 OFFSET $4) page JOIN files f ON f.id = page.id JOIN objects o ON o.id = f.object_id JOIN users u ON u.id = f.user_id"+order,
		true, now, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("filehost: plaza: %w", err)
	}
	defer rows.Close()
	out := []plazaItem{}
	for rows.Next() {
		var name string
		f, err := scanFile(withTail(rows, &name))
		if err != nil {
			return nil, 0, fmt.Errorf("filehost: plaza: %w", err)
		}
		out = append(out, plazaItem{fileRecord: f, Username: name})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("filehost: plaza: %w", err)
	}
	return out, total, nil
}

// tailScanner lets scanFile read a row that has extra columns at the end.
type tailScanner struct {
	row  scanner
	tail []any
}

func withTail(row scanner, tail ...any) scanner { return tailScanner{row, tail} }

func (t tailScanner) Scan(dest ...any) error { return t.row.Scan(append(dest, t.tail...)...) }
