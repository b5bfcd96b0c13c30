package filehost

import "sync"

// linkCacheSize bounds the remembered short-link targets: the hot set of a
// busy image host is small, and at a few hundred bytes an entry this stays
// under a megabyte on small hosts.
const linkCacheSize = 2048

// linkCache remembers what short links resolve to, so that serving one
// costs no database read. It needs no invalidation messages between
// processes: an object never changes once written, and it goes away only
// with its bytes. A handler that finds a remembered target's bytes gone
// forgets it and asks the database again (the same content uploaded anew
// has the same hash and another storage key).
type linkCache struct {
	mu sync.Mutex
	m  map[string]linkTarget
}

func newLinkCache() *linkCache {
	return &linkCache{m: make(map[string]linkTarget, 64)}
}

func (c *linkCache) get(hash string) (linkTarget, bool) {
	c.mu.Lock()
	t, ok := c.m[hash]
	c.mu.Unlock()
	return t, ok
}

func (c *linkCache) put(hash string, t linkTarget) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= linkCacheSize {
		// Drop about a quarter, in map order, which is random: cheaper
		// than keeping recency and good enough for a working set that
		// fits.
		n := 0
		for k := range c.m {
			delete(c.m, k)
			if n++; n >= linkCacheSize/4 {
				break
			}
		}
	}
	c.m[hash] = t
}

func (c *linkCache) forget(hash string) {
	c.mu.Lock()
	delete(c.m, hash)
	c.mu.Unlock()
}
