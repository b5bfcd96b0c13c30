package blog_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"folio/sqlstore"
)

// seedPosts inserts n published posts, each with two tags, straight into
// the database (the API would take minutes for 10,000).
func seedPosts(b *testing.B, e *env, n int) string {
	b.Helper()
	ctx := b.Context()
	tagA, tagB := e.createTerm("tags", "bench-a"), e.createTerm("tags", "bench-b")
	base := time.Now().Add(-time.Duration(n+1) * time.Minute)
	var slug string
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for i := range n {
			id := sqlstore.NewID()
			at := sqlstore.FromTime(base.Add(time.Duration(i) * time.Minute))
			slug = fmt.Sprintf("post-%d", i)
			if _, err := tx.Exec(ctx, `INSERT INTO posts (id, title, slug, summary, content_markdown, content_html, status, published_at, created_at, updated_at)
				VALUES ($1, $2, $3, 'summary', '# Hello\n\ntext', '<h1 id="hello">Hello</h1><p>text</p>', 'published', $4, $4, $4)`,
				id, "Post "+slug, slug, at); err != nil {
				return err
			}
			for _, t := range []string{tagA.ID, tagB.ID} {
				if _, err := tx.Exec(ctx, "INSERT INTO post_tags (post_id, tag_id) VALUES ($1, $2)", id, t); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// A live PostgreSQL has statistics (autovacuum analyzes a table after
	// a bulk insert); without them the planner guesses at a tiny table.
	if e.db.Dialect() == sqlstore.Postgres {
		if _, err := e.db.Exec(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	return slug
}

func benchGET(b *testing.B, h http.Handler, path string) {
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
	}
}

func BenchmarkPublicPostList(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("posts=%d", n), func(b *testing.B) {
			e := newEnv(b)
			seedPosts(b, e, n)
			benchGET(b, e.handler, "/api/v1/posts?page=2")
		})
	}
}

func BenchmarkPostDetail(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("posts=%d", n), func(b *testing.B) {
			e := newEnv(b)
			slug := seedPosts(b, e, n)
			benchGET(b, e.handler, "/api/v1/posts/slug/"+slug)
		})
	}
}
