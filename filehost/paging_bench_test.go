package filehost

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
)

// seedManyFiles inserts n public file records of one user over n/2
// objects, three objects in four images, with names as uploads have them,
// straight into the database, many rows a statement.
func (e *testEnv) seedManyFiles(b *testing.B, userID string, n int) {
	b.Helper()
	ctx := b.Context()
	start := time.Now().Add(-time.Duration(n) * time.Second)
	const batch = 200
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for from := 0; from < n; from += batch {
			var objects, files []string
			var oargs, fargs []any
			var objectID string
			for i := from; i < min(from+batch, n); i++ {
				at := sqlstore.FromTime(start.Add(time.Duration(i) * time.Second))
				if i%2 == 0 {
					objectID = sqlstore.NewID()
					typ, mime, ext := "image", "image/png", "png"
					if i%8 == 6 {
						typ, mime, ext = "file", "application/pdf", "pdf"
					}
					md5 := fmt.Sprintf("%032x", i)
					sha := fmt.Sprintf("%064x", i)
					k := len(oargs)
					objects = append(objects, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, 123456, $%d, $%d, $%d, 1024, 768, 2, TRUE, $%d)",
						k+1, k+2, k+3, k+4, k+5, k+6, k+7, k+8, k+9))
					oargs = append(oargs, objectID, md5, sha, md5[20:], fmt.Sprintf("2026/05/01/%s.%s", md5[20:], ext), mime, ext, typ, at)
				}
				k := len(fargs)
				files = append(files, fmt.Sprintf("($%d, $%d, $%d, $%d, 123456, TRUE, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+5))
				fargs = append(fargs, sqlstore.NewID(), userID, objectID, fmt.Sprintf("IMG_%05d.png", i), at)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type,
				width, height, ref_count, shared, created_at) VALUES `+strings.Join(objects, ", "), oargs...); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO files (id, user_id, object_id, origin_name, size, is_public, created_at, updated_at)
				VALUES `+strings.Join(files, ", "), fargs...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// A live PostgreSQL has been analyzed and vacuumed by autovacuum
	// after a bulk insert: statistics, and the visibility map without
	// which an index-only scan still visits the table.
	if e.db.Dialect() == sqlstore.Postgres {
		if _, err := e.db.Exec(ctx, "VACUUM ANALYZE files, objects"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileListDeepPage compares a middle page (offset 49,990 of
// 100,000) of a user's file list, the public gallery and the admin file
// list with their first page, through the HTTP handler:
// go test -run '^$' -bench FileListDeepPage ./filehost/ (and with
// FOLIO_TEST_POSTGRES_DSN set for PostgreSQL). A deep page should cost
// about what the first costs.
func BenchmarkFileListDeepPage(b *testing.B) {
	const n = 100_000
	e := newTestEnv(b)
	userID := e.createUser("bench", 0)
	e.seedManyFiles(b, userID, n)
	user, admin := "Bearer "+e.token(userID), "Bearer "+e.token(e.auth.AdminID())
	const images = n * 7 / 8 // the gallery shows images only
	for _, tt := range []struct{ name, path, auth string }{
		{"files-first", "/api/v1/files?page=1&size=10", user},
		{"files-middle", fmt.Sprintf("/api/v1/files?page=%d&size=10", n/2/10), user},
		{"lsky-first", "/api/v1/images?page=1&per_page=10", user},
		{"lsky-middle", fmt.Sprintf("/api/v1/images?page=%d&per_page=10", n/2/10), user},
		{"gallery-first", "/api/v1/public/plaza?page=1&size=10", ""},
		{"gallery-middle", fmt.Sprintf("/api/v1/public/plaza?page=%d&size=10", images/2/10), ""},
		{"admin-first", "/api/v1/admin/files?page=1&size=10", admin},
		{"admin-middle", fmt.Sprintf("/api/v1/admin/files?page=%d&size=10", n/2/10), admin},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				r := httptest.NewRequest(http.MethodGet, tt.path, nil)
				if tt.auth != "" {
					r.Header.Set("Authorization", tt.auth)
				}
				e.handler.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "IMG_") {
					b.Fatalf("%s: %d %.300s", tt.path, w.Code, w.Body)
				}
			}
		})
	}
}
