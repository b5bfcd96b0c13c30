package blog

import (
	"bytes"
	"sync"
	"time"
)

// Bounds of the rendered-page cache: enough for the pages anonymous
// visitors ask for most (home, recent posts, feeds), small enough for an
// embedded host.
const (
	pageCacheEntries = 256
	pageCacheBytes   = 4 << 20
)

// settledAfter is how old the site's last change must be before a page
// may be dated (HTTP dates have whole seconds) and, where the change
// counters do not see every process, cached (another process's settings
// change reaches this one's settings only within sqlstore.RefreshInterval).
const settledAfter = 2 * time.Second

// pageCache keeps rendered classic pages for the site's current state.
// Every change that could alter a page moves the state on (a counter, the
// change time: see siteState), so an entry made for an older state is
// never served: there is nothing to invalidate, across processes too.
type pageCache struct {
	mu      sync.Mutex
	entries map[string]cachedPage
	bytes   int
}

type cachedPage struct {
	tag stateTag
	a   *answer
}

func newPageCache() *pageCache {
	return &pageCache{entries: map[string]cachedPage{}}
}

// get returns the page cached under key for the state tag.
func (c *pageCache) get(key string, tag stateTag) *answer { return c.getBytes([]byte(key), tag) }

// getBytes is get of a key in a buffer: looked up without a string made.
func (c *pageCache) getBytes(key []byte, tag stateTag) *answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(key)]
	if !ok || !e.tag.equal(tag) {
		return nil
	}
	return e.a
}

// put caches a for key; pages larger than an eighth of the budget are not
// kept. When full, entries of older states go first, then any.
func (c *pageCache) put(key string, tag stateTag, a *answer) {
	size := len(key) + len(a.body)
	if size > pageCacheBytes/8 {
		return
	}
	// The body was rendered into a growing buffer: keep only its bytes,
	// so that the budget counts what the cache holds.
	kept := *a
	kept.body = bytes.Clone(a.body)
	a = &kept
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= len(key) + len(old.a.body)
		delete(c.entries, key)
	}
	if len(c.entries) >= pageCacheEntries || c.bytes+size > pageCacheBytes {
		for k, e := range c.entries {
			if !e.tag.equal(tag) {
				c.bytes -= len(k) + len(e.a.body)
				delete(c.entries, k)
			}
		}
	}
	for k, e := range c.entries {
		if len(c.entries) < pageCacheEntries && c.bytes+size <= pageCacheBytes {
			break
		}
		c.bytes -= len(k) + len(e.a.body)
		delete(c.entries, k)
	}
	c.entries[key] = cachedPage{tag: tag, a: a}
	c.bytes += size
}

// clear drops every entry.
func (c *pageCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[string]cachedPage{}
	c.bytes = 0
}

func (t stateTag) equal(u stateTag) bool {
	return t.changed.Equal(u.changed) && t.site == u.site && t.settings == u.settings
}

// renderCalls lets the requests that miss the cache for the same page and
// state at the same time share one rendering.
type renderCalls struct {
	mu sync.Mutex
	m  map[renderKey]*renderCall
}

type renderKey struct {
	key string
	tag stateTag
}

type renderCall struct {
	done chan struct{}
	a    *answer
}

// do runs render unless a call for k is under way, then waits for that
// one. It reports whether the answer is another call's: when that one gave
// no cacheable page (an error, a redirect, another status), the waiter
// runs render itself, since only a cacheable page is the same for all.
func (c *renderCalls) do(k renderKey, render func() *answer) (*answer, bool) {
	c.mu.Lock()
	if call, ok := c.m[k]; ok {
		c.mu.Unlock()
		<-call.done
		if call.a != nil {
			return call.a, true
		}
		return render(), false
	}
	if c.m == nil {
		c.m = map[renderKey]*renderCall{}
	}
	call := &renderCall{done: make(chan struct{})}
	c.m[k] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.m, k)
		c.mu.Unlock()
		close(call.done)
	}()
	call.a = render()
	return call.a, false
}
