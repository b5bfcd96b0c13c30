package filehost

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"folio/httpx"
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

// handlePublicStats is GET /api/v1/public/stats.
func (s *Service) handlePublicStats(w http.ResponseWriter, r *http.Request) error {
	st, err := s.publicStats(r.Context())
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusOK, st)
	return nil
}

// plazaItem is a public image with its owner's name; never the owner's
// email.
type plazaItem struct {
	*fileRecord
	Username string `json:"username"`
}

// plaza returns one page of public images, newest first, and their total.
func (s *Service) plaza(ctx context.Context, limit, offset int) ([]plazaItem, int, error) {
	const cond = " WHERE f.is_public = $1 AND o.file_type = 'image'"
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*)"+fileFrom+cond, true).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("filehost: count plaza: %w", err)
	}
	rows, err := s.db.Query(ctx, "SELECT "+fileColumns+", u.username"+fileFrom+" JOIN users u ON u.id = f.user_id"+cond+
		" ORDER BY f.created_at DESC, f.id DESC LIMIT $2 OFFSET $3", true, limit, offset)
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

// handlePlaza is GET /api/v1/public/plaza: public images of every user,
// newest first. The links are the file's public ones; the delete link is
// left out, as it is of no use to anyone but the owner.
func (s *Service) handlePlaza(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return err
	}
	items, total, err := s.plaza(r.Context(), p.Size, p.Offset())
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	for _, it := range items {
		it.setLinks(base)
		it.Links.DeleteURL = ""
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(items, total, p))
	return nil
}
