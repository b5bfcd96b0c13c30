package filehost

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"folio/sqlstore"
)

// seedFiles inserts n file records over n/2 objects for one user, half of
// them public images, straight into the database.
func (e *testEnv) seedFiles(b *testing.B, userID string, n int) {
	b.Helper()
	ctx := context.Background()
	start := time.Now().Add(-time.Duration(n) * time.Second)
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var objectID string
		for i := 0; i < n; i++ {
			at := sqlstore.FromTime(start.Add(time.Duration(i) * time.Second))
			if i%2 == 0 {
				objectID = sqlstore.NewID()
				typ, mime := "image", "image/png"
				if i%4 == 2 {
					typ, mime = "file", "application/pdf"
				}
				md5 := fmt.Sprintf("%032x", i)
				if _, err := tx.Exec(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, ref_count, created_at)
					VALUES ($1, $2, $2, $3, $4, 1000, $5, 'png', $6, 2, $7)`, objectID, md5, md5[24:], "k/"+md5, mime, typ, at); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO files (id, user_id, object_id, origin_name, size, is_public, created_at, updated_at)
				VALUES ($1, $2, $3, 'x.png', 1000, $4, $5, $5)`, sqlstore.NewID(), userID, objectID, i%3 == 0, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPublicRoutes measures the unauthenticated stats and plaza pages
// over 20,000 file records, through HTTP.
func BenchmarkPublicRoutes(b *testing.B) {
	e := newTestEnv(b)
	e.seedFiles(b, e.createUser("bench", 0), 20000)
	for _, path := range []string{"/api/v1/public/stats", "/api/v1/public/plaza", "/api/v1/public/plaza?page=300"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				if r := e.c.Do(http.MethodGet, path, nil); r.Status != http.StatusOK {
					b.Fatalf("status %d", r.Status)
				}
			}
		})
	}
}
