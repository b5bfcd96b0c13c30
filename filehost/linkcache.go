package filehost

import "sync"

// filesCounter names the change counter bumped after every commit that
// deletes file records (and so, perhaps, the bytes of their objects): the
// short-link caches of every process check it on each request, so a
// deleted file stops serving at once everywhere
// (docs/design.md#caches-across-processes).
const filesCounter = "filehost.files"

// Bounds of the short-link caches: the hot set of a busy image host is
// small. A target is a few hundred bytes; the bytes of small files are
// kept up to contentCacheBytes, which the idle memory release gives back.
const (
	linkCacheSize     = 2048
	contentCacheBytes = 8 << 20
	contentCacheMax   = 512 << 10 // larger files are sent from disk (sendfile)
)

// linkCache remembers what short links resolve to, and the bytes of small
// files behind them, so that serving one costs no database read and, for
// a small file, no file system call. Both are valid for one value of the
// files counter: a request that loads another value empties them first,
// and what was read from the database or the disk under an older value is
// not kept. Where the counters do not see every process
// (sqlstore.Changes.Local is false) only targets are kept, and a handler
// that finds a remembered target's bytes gone forgets it and asks the
// database again (the same content uploaded anew has the same hash and
// another storage key).
type linkCache struct {
	mu      sync.Mutex
	seen    uint64 // the counter's value the entries hold for
	targets map[string]linkTarget
	content map[string][]byte // by storage key
	bytes   int
}

func newLinkCache() *linkCache {
	return &linkCache{targets: make(map[string]linkTarget, 64), content: map[string][]byte{}}
}

// at empties the cache when the counter moved on to v, and reports whether
// entries read under v may be kept (v is not older than the cache).
// c.mu is held.
func (c *linkCache) at(v uint64) bool {
	if v > c.seen {
		clear(c.targets)
		clear(c.content)
		c.bytes, c.seen = 0, v
	}
	return v == c.seen
}

func (c *linkCache) get(hash string, v uint64) (linkTarget, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(v) {
		return linkTarget{}, false
	}
	t, ok := c.targets[hash]
	return t, ok
}

func (c *linkCache) put(hash string, t linkTarget, v uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(v) {
		return
	}
	if len(c.targets) >= linkCacheSize {
		// Drop about a quarter, in map order, which is random: cheaper
		// than keeping recency and good enough for a working set that
		// fits.
		n := 0
		for k := range c.targets {
			delete(c.targets, k)
			if n++; n >= linkCacheSize/4 {
				break
			}
		}
	}
	c.targets[hash] = t
}

func (c *linkCache) forget(hash string) {
	c.mu.Lock()
	delete(c.targets, hash)
	c.mu.Unlock()
}

// bytesOf returns the kept bytes of the stored content under key.
func (c *linkCache) bytesOf(key string, v uint64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(v) {
		return nil, false
	}
	b, ok := c.content[key]
	return b, ok
}

// keep keeps b as the content under key, read under counter value v.
func (c *linkCache) keep(key string, b []byte, v uint64) {
	if len(b) > contentCacheMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(v) {
		return
	}
	if old, ok := c.content[key]; ok {
		c.bytes -= len(old)
	}
	for k, old := range c.content {
		if c.bytes+len(b) <= contentCacheBytes {
			break
		}
		delete(c.content, k)
		c.bytes -= len(old)
	}
	c.content[key] = b
	c.bytes += len(b)
}

// dropContent gives back the kept bytes (the idle memory release).
func (c *linkCache) dropContent() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.content)
	c.content = map[string][]byte{} // clear keeps the buckets
	c.bytes = 0
}

// fileChanges returns the files counter's value now, and whether it sees
// every process.
func (s *Service) fileChanges() (uint64, bool) {
	return s.filesChanged.Load(), s.changes.Local()
}

// DropCaches gives back the memory of the kept bytes of small files; the
// server calls it when a burst of requests is over (docs/design.md#memory).
func (s *Service) DropCaches() { s.links.dropContent() }
