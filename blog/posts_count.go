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

// postsVersion reads the posts version; "" before the first change.
func (b *Blog) postsVersion(ctx context.Context) (string, error) {
	var version string
	err := b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", postsVersionKey).Scan(&version)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return "", fmt.Errorf("blog: posts version: %w", err)
	}
	return version, nil
}

// Bounds of postCounts. A list more is counted each time, or paged without
// anchors, until the next change of a post empties the cache.
const (
	maxCachedTotals  = 1000
	maxAnchoredLists = 64
	maxAnchors       = 256 // a list's anchors; longer lists space them wider
)

// postAnchorEvery is how many posts of a list lie between two anchors:
// a page at any depth reads at most this many index entries more than the
// first page does.
const postAnchorEvery = 1000

// postCounts caches, by filter, what a post list costs in proportion to
// its length: its total, and anchors into it. The cached values stay valid
// until a post changes (the version) or the next future-dated post becomes
// visible (until).
type postCounts struct {
	mu       sync.Mutex
	version  string
	until    time.Time // zero: no future-dated post waiting
	lists    map[string]*postList
	anchored int // lists with anchors
}

// postList is what is cached of one list.
type postList struct {
	total int
	// anchors[j-1] is the key of the list's (j*every)th post: the page at
	// offset m starts right after anchors[m/every-1], m%every posts on
	// (docs/design.md#paging). Nil until a page that deep is asked for.
	anchors  []postKey
	every    int
	building bool // a request is finding the anchors; the others page without
}

// postKey is a post's place in a list's order (postOrder).
type postKey struct {
	published *int64
	created   int64
	id        string
}

// listKey names the list f selects in postCounts.
func listKey(f postFilter) string {
	return fmt.Sprintf("%t|%s|%s|%s|%s", f.Public, f.Status, f.CategoryID, f.TagID, f.When)
}

// postTotal returns the number of posts f selects at now, and the posts
// version it is valid for; w holds f's conditions. A list with a keyword
// is counted each time: its keys are unbounded, and its page reads the
// posts anyway.
func (b *Blog) postTotal(ctx context.Context, f postFilter, w where, now time.Time) (int, string, error) {
	count := func() (int, error) {
		var n int
		if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM posts p"+w.sql(), w.args...).Scan(&n); err != nil {
			return 0, fmt.Errorf("blog: count posts: %w", err)
		}
		return n, nil
	}
	if f.Keyword != "" {
		n, err := count()
		return n, "", err
	}
	key := listKey(f)

	version, err := b.postsVersion(ctx)
	if err != nil {
		return 0, "", err
	}
	c := &b.counts
	c.mu.Lock()
	fresh := c.fresh(version, now)
	if l := c.lists[key]; l != nil && fresh {
		c.mu.Unlock()
		return l.total, version, nil
	}
	c.mu.Unlock()

	total, err := count()
	if err != nil {
		return 0, "", err
	}
	var until time.Time
	if !fresh {
		var next *int64
		if err := b.db.QueryRow(ctx, `SELECT MIN(p.published_at) FROM posts p
			WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1`, sqlstore.FromTime(now)).Scan(&next); err != nil {
			return 0, "", fmt.Errorf("blog: next publication: %w", err)
		}
		if next != nil {
			until = sqlstore.Time(*next)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fresh {
		c.version, c.until, c.lists, c.anchored = version, until, map[string]*postList{}, 0
	}
	// A total counted under another version than the cache's now (another
	// request started afresh meanwhile) stays out of it.
	if c.version == version && len(c.lists) < maxCachedTotals {
		c.lists[key] = &postList{total: total}
	}
	return total, version, nil
}

// fresh reports whether the cache holds the lists of version at now; the
// caller holds c.mu.
func (c *postCounts) fresh(version string, now time.Time) bool {
	return c.lists != nil && c.version == version && (c.until.IsZero() || now.Before(c.until))
}

// postAnchor returns the anchor the page at offset of the list f selects
// starts after, and the offset of the post that follows it; ok is false
// when the page starts within the first anchorEvery posts, or the list has
// no anchors to give. version is postTotal's; the list is f's at now. A
// list's anchors are found on the first page deep enough to need them.
func (b *Blog) postAnchor(ctx context.Context, f postFilter, now time.Time, version string, offset int) (after postKey, at int, ok bool, err error) {
	if f.Keyword != "" || offset < b.anchorEvery {
		return postKey{}, 0, false, nil
	}
	key := listKey(f)
	c := &b.counts
	c.mu.Lock()
	l := c.lists[key]
	if l == nil || !c.fresh(version, now) || (l.anchors == nil && (l.building || c.anchored >= maxAnchoredLists)) {
		c.mu.Unlock()
		return postKey{}, 0, false, nil
	}
	anchors, every := l.anchors, l.every
	if anchors == nil {
		every = max(b.anchorEvery, (l.total+maxAnchors-1)/maxAnchors)
		l.building = true
	}
	c.mu.Unlock()

	if anchors == nil {
		anchors, err = b.findAnchors(ctx, f, now, version, every)
		c.mu.Lock()
		l.building = false
		if anchors != nil && c.lists[key] == l && c.anchored < maxAnchoredLists {
			l.anchors, l.every = anchors, every
			c.anchored++
		}
		c.mu.Unlock()
		if err != nil || anchors == nil {
			return postKey{}, 0, false, err
		}
	}
	j := offset / every
	if j == 0 || j > len(anchors) {
		return postKey{}, 0, false, nil
	}
	return anchors[j-1], j * every, true, nil
}

// findAnchors reads the key of every every-th post of the list f selects
// at now, each from the one before by a short walk in the list's covering
// index (one pass in all). Nil when the posts changed from version
// meanwhile: the walks need not have seen the same posts.
func (b *Blog) findAnchors(ctx context.Context, f postFilter, now time.Time, version string, every int) ([]postKey, error) {
	anchors := []postKey{}
	for len(anchors) < maxAnchors {
		var after *postKey
		if len(anchors) > 0 {
			after = &anchors[len(anchors)-1]
		}
		w := b.postWhere(f, now, after)
		var k postKey
		err := b.db.QueryRow(ctx, "SELECT p.published_at, p.created_at, p.id FROM posts p"+w.sql()+postOrder(f.Public)+
			" LIMIT 1 OFFSET "+w.arg(every-1), w.args...).Scan(&k.published, &k.created, &k.id)
		if errors.Is(err, sqlstore.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("blog: post list anchors: %w", err)
		}
		anchors = append(anchors, k)
	}
	current, err := b.postsVersion(ctx)
	if err != nil || current != version {
		return nil, err
	}
	return anchors, nil
}
