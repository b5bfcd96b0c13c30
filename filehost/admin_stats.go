package filehost

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"folio/httpx"
)

// typeStats are the records of one file type.
type typeStats struct {
	FileType string `json:"file_type"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
}

// userStats are one user's records.
type userStats struct {
	UserID   string `json:"user_id"`
	Username string `json:"username"`
	Role     string `json:"role"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
}

// adminStats is GET /api/v1/admin/stats's data. RecordBytes counts every
// record's size, as quotas do; StorageBytes counts each stored object once;
// the difference is what de-duplication saves.
type adminStats struct {
	Users        int64       `json:"users"`
	Files        int64       `json:"files"`
	Objects      int64       `json:"objects"`
	Albums       int64       `json:"albums"`
	RecordBytes  int64       `json:"record_bytes"`
	StorageBytes int64       `json:"storage_bytes"`
	DedupSavings int64       `json:"dedup_savings_bytes"`
	ByType       []typeStats `json:"by_type"`
	TopUsers     []userStats `json:"top_users"`
}

// defaultTopUsers is how many users the stats rank unless ?top= says.
const defaultTopUsers = 10

func (s *Service) adminStats(ctx context.Context, top int) (*adminStats, error) {
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

// handleAdminStats is GET /api/v1/admin/stats; ?top= (1-100, default 10)
// sets how many users are ranked by bytes.
func (s *Service) handleAdminStats(w http.ResponseWriter, r *http.Request) error {
	top := defaultTopUsers
	if v := r.URL.Query().Get("top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return httpx.BadRequest("invalid query parameter top")
		}
		top = min(n, 100)
	}
	st, err := s.adminStats(r.Context(), top)
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusOK, st)
	return nil
}
