package blog

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestPageCacheIsBounded(t *testing.T) {
	c := newPageCache()
	t0 := stateTag{changed: time.Unix(1000, 0)}
	big := &answer{body: bytes.Repeat([]byte("x"), pageCacheBytes/16)}
	for i := 0; i < 3*pageCacheEntries; i++ {
		a := &answer{body: []byte("small")}
		if i%2 == 0 {
			a = big
		}
		c.put(fmt.Sprint("/p", i), t0, a)
		if n, b := c.len(); n > pageCacheEntries || b > pageCacheBytes {
			t.Fatalf("after %d puts: %d entries, %d bytes", i+1, n, b)
		}
	}
	c.put("/huge", t0, &answer{body: bytes.Repeat([]byte("x"), pageCacheBytes/4)})
	if c.get("/huge", t0) != nil {
		t.Fatal("a page over an eighth of the budget was kept")
	}
}

func TestPageCacheServesOnlyItsChangeTime(t *testing.T) {
	c := newPageCache()
	t0, t1 := stateTag{changed: time.Unix(1000, 0)}, stateTag{changed: time.Unix(2000, 0)}
	a := &answer{body: []byte("page")}
	c.put("/", t0, a)
	if got := c.get("/", t0); got == nil || string(got.body) != "page" {
		t.Fatal("miss for the change time it was cached for")
	}
	if c.get("/", t1) != nil {
		t.Fatal("served for a later change time")
	}
	// Replacing an entry keeps the byte count right.
	c.put("/", t1, &answer{body: []byte("newer page")})
	if n, b := c.len(); n != 1 || b != len("/")+len("newer page") {
		t.Fatalf("%d entries, %d bytes after replacing", n, b)
	}
}

func TestPageCacheKeepsOnlyTheBodyBytes(t *testing.T) {
	c := newPageCache()
	t0 := stateTag{changed: time.Unix(1000, 0)}
	body := make([]byte, 4, 64<<10) // as rendered into a grown buffer
	copy(body, "page")
	c.put("/", t0, &answer{body: body})
	got := c.get("/", t0)
	// The allocator rounds up to its size class, not to the buffer's.
	if got == nil || string(got.body) != "page" || cap(got.body) > 16 {
		t.Fatalf("cached body %q with capacity %d, want \"page\" without the buffer's spare room", got.body, cap(got.body))
	}
}

func (c *pageCache) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}

func TestPageCacheClearForgetsEverything(t *testing.T) {
	c := newPageCache()
	t0 := stateTag{changed: time.Unix(1000, 0)}
	c.put("/", t0, &answer{body: []byte("page")})
	c.put("/feed.xml", t0, &answer{body: []byte("feed")})
	c.clear()
	if n, b := c.len(); n != 0 || b != 0 {
		t.Fatalf("%d entries, %d bytes after clear", n, b)
	}
	if c.get("/", t0) != nil {
		t.Fatal("a page was served after clear")
	}
}

// Requests missing the cache for one page at once share one rendering; when
// that one gives no cacheable page, each renders its own.
func TestRenderCallsShareOneRenderingOfAPage(t *testing.T) {
	for _, cacheable := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var c renderCalls
			var renders atomic.Int64
			gate := make(chan struct{})
			render := func() *answer {
				renders.Add(1)
				<-gate
				if !cacheable {
					return nil
				}
				return &answer{body: []byte("page")}
			}
			k := renderKey{key: "/", tag: stateTag{site: 1}}
			const requests = 10
			shared := make([]bool, requests)
			var wg sync.WaitGroup
			for i := range requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, shared[i] = c.do(k, render)
				}()
				synctest.Wait()
			}
			if n := renders.Load(); n != 1 {
				t.Fatalf("%d renderings under way, want 1", n)
			}
			close(gate)
			wg.Wait()
			n, sharers := renders.Load(), 0
			for _, s := range shared {
				if s {
					sharers++
				}
			}
			if cacheable && (n != 1 || sharers != requests-1) {
				t.Fatalf("cacheable page: %d renderings, %d shared, want 1 and %d", n, sharers, requests-1)
			}
			if !cacheable && (n != requests || sharers != 0) {
				t.Fatalf("no cacheable page: %d renderings, %d shared, want %d and 0", n, sharers, requests)
			}
			// Another state is another page.
			if _, s := c.do(renderKey{key: "/", tag: stateTag{site: 2}}, render); s {
				t.Fatal("an idle call shared an answer")
			}
		})
	}
}
