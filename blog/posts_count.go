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
	if f.Keyword != "" {
		n, err := b.countPosts(ctx, w)
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

	total, err := b.countPosts(ctx, w)
	if err != nil {
		return 0, "", err
	}
	var until time.Time
	if !fresh {
		if until, err = b.nextPublication(ctx, now); err != nil {
			return 0, "", err
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
		k, err := b.postKeyAt(ctx, b.postWhere(f, now, after), f.Public, every-1)
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
