package blog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"folio/sqlstore"
)

// postsVersionKey names the meta row that changes whenever any post is
// saved or deleted, in the same transaction. Every process sharing the
// database sees it, so a cached count is never stale across processes.
const postsVersionKey = "blog.posts_version"

// bumpPostsVersion marks the posts as changed.
func bumpPostsVersion(ctx context.Context, q sqlstore.Querier) error {
	_, err := q.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, postsVersionKey, sqlstore.NewID())
	if err != nil {
		return fmt.Errorf("blog: mark posts changed: %w", err)
	}
	return nil
}

// publicCount caches the number of publicly visible posts. Counting is the
// one part of the public list whose cost grows with the number of posts;
// the cached value stays valid until a post changes (the version) or the
// next future-dated post becomes visible (until).
type publicCount struct {
	mu      sync.Mutex
	version string
	until   time.Time // zero: no future-dated post waiting
	total   int
	valid   bool
}

// publicTotal returns the number of publicly visible posts at now.
func (b *Blog) publicTotal(ctx context.Context, now time.Time) (int, error) {
	var version string
	err := b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", postsVersionKey).Scan(&version)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return 0, fmt.Errorf("blog: posts version: %w", err)
	}
	c := &b.count
	c.mu.Lock()
	if c.valid && c.version == version && (c.until.IsZero() || now.Before(c.until)) {
		total := c.total
		c.mu.Unlock()
		return total, nil
	}
	c.mu.Unlock()

	at := sqlstore.FromTime(now)
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM posts p WHERE "+publicCond+"$1", at).Scan(&total); err != nil {
		return 0, fmt.Errorf("blog: count posts: %w", err)
	}
	var next *int64
	if err := b.db.QueryRow(ctx, `SELECT MIN(p.published_at) FROM posts p
		WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1`, at).Scan(&next); err != nil {
		return 0, fmt.Errorf("blog: next publication: %w", err)
	}
	c.mu.Lock()
	c.version, c.total, c.valid, c.until = version, total, true, time.Time{}
	if next != nil {
		c.until = sqlstore.Time(*next)
	}
	c.mu.Unlock()
	return total, nil
}
