package blog_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
)

// seedBigPosts inserts n published posts of about 4.5 KB each (the size
// of a real post with its rendered HTML), each with one tag and every
// fourth in a category, straight into the database, many rows a
// statement.
func seedBigPosts(b *testing.B, e *env, n int) (categoryID string) {
	b.Helper()
	ctx := b.Context()
	tag, cat := e.createTerm("tags", "bench"), e.createTerm("categories", "bench")
	markdown := strings.Repeat("Some words of a post, with *emphasis* and a [link](https://example.com).\n", 30)
	html := strings.Repeat("<p>Some words of a post, with <em>emphasis</em> and a <a href=\"https://example.com\">link</a>.</p>\n", 25)
	base := time.Now().Add(-time.Duration(n+1) * time.Minute)
	const batch = 200
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for from := 0; from < n; from += batch {
			var posts, tags []string
			var pargs, targs []any
			for i := from; i < min(from+batch, n); i++ {
				id := sqlstore.NewID()
				var category any
				if i%4 == 0 {
					category = cat.ID
				}
				posts = append(posts, fmt.Sprintf("($%d, $%d, $%d, 'A summary of the post.', $%d, $%d, 'published', $%d, $%d, $%d, $%d)",
					len(pargs)+1, len(pargs)+2, len(pargs)+3, len(pargs)+4, len(pargs)+5, len(pargs)+6, len(pargs)+7, len(pargs)+6, len(pargs)+6))
				at := sqlstore.FromTime(base.Add(time.Duration(i) * time.Minute))
				pargs = append(pargs, id, fmt.Sprintf("Post number %d", i), fmt.Sprintf("post-%d", i), markdown, html, at, category)
				tags = append(tags, fmt.Sprintf("($%d, $%d)", len(targs)+1, len(targs)+2))
				targs = append(targs, id, tag.ID)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO posts (id, title, slug, summary, content_markdown, content_html, status,
				published_at, category_id, created_at, updated_at) VALUES `+strings.Join(posts, ", "), pargs...); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO post_tags (post_id, tag_id) VALUES "+strings.Join(tags, ", "), targs...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	settle(b, e.db, "posts", "post_tags")
	return cat.ID
}

// settle brings a freshly filled PostgreSQL database to the state a live
// one is in: autovacuum has analyzed the tables (the planner's statistics)
// and vacuumed them (the visibility map, without which an index-only scan
// still visits the table).
func settle(b *testing.B, db *sqlstore.DB, tables ...string) {
	b.Helper()
	if db.Dialect() == sqlstore.Postgres {
		if _, err := db.Exec(b.Context(), "VACUUM ANALYZE "+strings.Join(tables, ", ")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPostListDeepPage compares a middle page of the public post
// list (offset 49,990 of 100,000) with the first, through the HTTP
// handler: go test -run '^$' -bench PostListDeepPage ./blog/ (and with
// FOLIO_TEST_POSTGRES_DSN set for PostgreSQL). A deep page should cost
// about what the first costs.
func BenchmarkPostListDeepPage(b *testing.B) {
	const n = 100_000
	e := newEnv(b)
	cat := seedBigPosts(b, e, n)
	for _, tt := range []struct{ name, path string }{
		{"first", "/api/v1/posts?page=1&page_size=10"},
		{"middle", fmt.Sprintf("/api/v1/posts?page=%d&page_size=10", n/2/10)},
		// A quarter of the posts are in the category.
		{"category-first", "/api/v1/posts?page=1&page_size=10&category_id=" + cat},
		{"category-middle", fmt.Sprintf("/api/v1/posts?page=%d&page_size=10&category_id=%s", n/4/2/10, cat)},
	} {
		b.Run(tt.name, func(b *testing.B) { benchGET(b, e.handler, tt.path) })
	}
	// Right after a post changed: the total is counted again and the
	// anchors found again (once per change, whatever the traffic).
	b.Run("middle-after-a-change", func(b *testing.B) {
		path := fmt.Sprintf("/api/v1/posts?page=%d&page_size=10", n/2/10)
		for b.Loop() {
			if _, err := e.db.Exec(b.Context(), `INSERT INTO meta (key, value) VALUES ('blog.posts_version', $1)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, sqlstore.NewID()); err != nil {
				b.Fatal(err)
			}
			w := httptest.NewRecorder()
			e.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.Code != 200 {
				b.Fatalf("%s: %d %s", path, w.Code, w.Body)
			}
		}
	})
}
