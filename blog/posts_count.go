package blog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"folio/sqlstore"
)

// postsVersionKey names the meta row that changes whenever any post, or
// the category or tags of one, is saved or deleted, in the same
// transaction. Every process sharing the database sees it, so a cached
// count is never stale across processes.
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

// maxCachedTotals bounds postCounts: a filter more is counted each time
// until the next change of a post empties the cache.
const maxCachedTotals = 1000

// postCounts caches the totals of post lists by filter. Counting is the one
// part of a list whose cost grows with the number of posts (a page costs
// the same wherever it is, docs/design.md#paging); the cached values stay
// valid until a post changes (the version) or the next future-dated post
// becomes visible (until).
type postCounts struct {
	mu      sync.Mutex
	version string
	until   time.Time // zero: no future-dated post waiting
	totals  map[string]int
}

// postTotal returns the number of posts f selects at now; w holds f's
// conditions. A list with a keyword is counted each time: its keys are
// unbounded, and its page reads the posts anyway.
func (b *Blog) postTotal(ctx context.Context, f postFilter, w where, now time.Time) (int, error) {
	count := func() (int, error) {
		var n int
		if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM posts p"+w.sql(), w.args...).Scan(&n); err != nil {
			return 0, fmt.Errorf("blog: count posts: %w", err)
		}
		return n, nil
	}
	if f.Keyword != "" {
		return count()
	}
	key := fmt.Sprintf("%t|%s|%s|%s", f.Public, f.Status, f.CategoryID, f.TagID)

	var version string
	err := b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", postsVersionKey).Scan(&version)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return 0, fmt.Errorf("blog: posts version: %w", err)
	}
	c := &b.counts
	c.mu.Lock()
	fresh := c.totals != nil && c.version == version && (c.until.IsZero() || now.Before(c.until))
	if total, ok := c.totals[key]; ok && fresh {
		c.mu.Unlock()
		return total, nil
	}
	c.mu.Unlock()

	total, err := count()
	if err != nil {
		return 0, err
	}
	var until time.Time
	if !fresh {
		var next *int64
		if err := b.db.QueryRow(ctx, `SELECT MIN(p.published_at) FROM posts p
			WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1`, sqlstore.FromTime(now)).Scan(&next); err != nil {
			return 0, fmt.Errorf("blog: next publication: %w", err)
		}
		if next != nil {
			until = sqlstore.Time(*next)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fresh {
		c.version, c.until, c.totals = version, until, map[string]int{}
	}
	// A total counted under another version than the cache's now (another
	// request started afresh meanwhile) stays out of it.
	if c.version == version && len(c.totals) < maxCachedTotals {
		c.totals[key] = total
	}
	return total, nil
}
