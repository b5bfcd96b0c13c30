package filehost

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"folio/httpx"
	"folio/httpx/httpxtest"
)

// otherProcess serves the same database and storage folder through a second
// Service, as a second Folio process would, with a link cache of its own.
func (e *testEnv) otherProcess(t *testing.T) (*Service, *httpxtest.Client) {
	t.Helper()
	svc, err := New(context.Background(), Deps{DB: e.db, Auth: e.auth, Settings: e.settings, Store: e.store,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	routes := httpx.NewRouter()
	svc.Routes(routes)
	return svc, httpxtest.NewServer(t, routes)
}

// A process remembers short-link targets; another process deleting the
// content, or uploading the same bytes again under a new storage key, must
// show at once in what the first one serves.
func TestRememberedShortLinksFollowDeletionAndReupload(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	_, other := e.otherProcess(t)
	other.Header = c.Header.Clone() // alice, through the other process
	content := pngBytes(t, 30, 20)

	for _, first := range []string{"i", "t"} {
		t.Run("/"+first+"/ asked first", func(t *testing.T) {
			u := mustUpload(t, other, "a.png", content)
			e.c.Do("GET", u.path(), nil).Expect(200)
			e.c.Do("GET", "/t/"+u.hash(), nil).Expect(200)
			if _, ok := e.svc.links.get(u.hash(), e.svc.filesChanged.Load()); !ok {
				t.Fatal("a served short link was not remembered")
			}

			other.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(200)
			again := mustUpload(t, other, "a.png", content)
			if again.hash() != u.hash() {
				t.Fatalf("the same content got hash %s, then %s", u.hash(), again.hash())
			}
			second := map[string]string{"i": "t", "t": "i"}[first]
			for _, p := range []string{"/" + first + "/" + u.hash(), "/" + second + "/" + u.hash()} {
				r := e.c.Do("GET", p, nil).Expect(200)
				if p[1] == 'i' && !bytes.Equal(r.Body, content) {
					t.Fatalf("GET %s: the uploaded-again content was not served", p)
				}
			}

			other.Do("DELETE", "/api/v1/files/"+again.ID, nil).Expect(200)
			for _, p := range []string{"/i/", "/t/", "/f/"} {
				e.c.Do("GET", p+u.hash(), nil).Expect(404)
			}
		})
	}
}

func TestLinkCacheIsBounded(t *testing.T) {
	c := newLinkCache()
	for i := 0; i < 3*linkCacheSize; i++ {
		c.put(itoa(i), linkTarget{key: "k"}, 0)
		if n := c.len(); n > linkCacheSize {
			t.Fatalf("%d entries after %d puts, want at most %d", n, i+1, linkCacheSize)
		}
	}
	c.put("x", linkTarget{key: "x"}, 0)
	if got, ok := c.get("x", 0); !ok || got.key != "x" {
		t.Fatalf("get after put = %+v, %v", got, ok)
	}
	c.forget("x")
	if _, ok := c.get("x", 0); ok {
		t.Fatal("forget kept the entry")
	}

	for i := range 3 * contentCacheBytes / contentCacheMax {
		c.keep(itoa(i), make([]byte, contentCacheMax), 0)
		if c.bytes > contentCacheBytes {
			t.Fatalf("%d bytes kept after %d files, want at most %d", c.bytes, i+1, contentCacheBytes)
		}
	}
	c.keep("big", make([]byte, contentCacheMax+1), 0)
	if _, ok := c.bytesOf("big", 0); ok {
		t.Fatal("a file over contentCacheMax was kept")
	}
	c.dropContent()
	if c.bytes != 0 || len(c.content) != 0 {
		t.Fatalf("after dropContent: %d bytes in %d entries", c.bytes, len(c.content))
	}
}

// The cache holds for one value of the files counter: a newer value empties
// it, and what was read under an older one is not kept.
func TestLinkCacheHoldsForOneCounterValue(t *testing.T) {
	c := newLinkCache()
	c.put("h", linkTarget{key: "k"}, 5)
	c.keep("k", []byte("bytes"), 5)
	if _, ok := c.get("h", 5); !ok {
		t.Fatal("miss under the value it was put with")
	}
	if _, ok := c.bytesOf("k", 6); ok {
		t.Fatal("bytes served under a newer counter value")
	}
	if _, ok := c.get("h", 6); ok {
		t.Fatal("target served under a newer counter value")
	}
	// Read before the change, kept after it: dropped.
	c.put("h", linkTarget{key: "k"}, 5)
	c.keep("k", []byte("bytes"), 5)
	if _, ok := c.get("h", 6); ok {
		t.Fatal("a target read under an older counter value was kept")
	}
	if _, ok := c.bytesOf("k", 6); ok {
		t.Fatal("bytes read under an older counter value were kept")
	}
	// A request that loaded the counter before the change still sees
	// nothing stale: the cache moved on.
	if _, ok := c.get("h", 5); ok {
		t.Fatal("an older counter value reads the newer cache")
	}
}

func (c *linkCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.targets)
}

// A remembered link with no expiry is served without reading the clock,
// which costs a good part of what serving it from memory does; one that
// expires still reads it, to stop at its expiry (TestExpiredFilesAreInvisibleAtOnce).
func TestRememberedLinkWithoutExpiryReadsNoClock(t *testing.T) {
	e := newTestEnv(t)
	// Links are remembered where the change counters see every process:
	// on PostgreSQL once a registry read confirmed it, as here.
	e.db.Changes().ConfirmShared(time.Now().Add(time.Hour))
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.png", pngBytes(t, 30, 20))
	paths := []string{u.path(), "/t/" + u.hash()}
	for _, p := range paths {
		e.c.Do("GET", p, nil).Expect(200)
	}
	var reads atomic.Int64
	e.svc.now = func() time.Time { reads.Add(1); return time.Now() }
	for _, p := range paths {
		e.c.Do("GET", p, nil).Expect(200)
	}
	if n := reads.Load(); n != 0 {
		t.Fatalf("serving remembered links read the clock %d times, want 0", n)
	}
}
