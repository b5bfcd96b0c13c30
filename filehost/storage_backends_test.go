package filehost

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"folio/sqlstore/sqlstoretest"
	"folio/storage/storagetest"
)

func TestDeletingAFileRemovesItsObjectsOnEachBackend(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		u := mustUpload(t, c, "a.png", pngBytes(t, 600, 300))
		e.c.Do("GET", u.Links.ThumbnailURL[len(e.c.Base):], nil).Expect(200)
		if n := len(e.storedFiles()); n != 2 {
			t.Fatalf("stored %v, want the file and its thumbnail", e.storedFiles())
		}
		c.Do("DELETE", "/api/v1/images/"+u.Key, nil).Expect(200)
		if left := e.storedFiles(); len(left) != 0 {
			t.Fatalf("objects left after delete: %v", left)
		}
	})
}

func TestRedirectModeSendsAPresignedURL(t *testing.T) {
	store := storagetest.S3(t)
	e := newTestEnvStore(t, sqlstoretest.Open(t), store, func(d *Deps) { d.Redirect = true })
	_, c := e.newUser("alice", 0)
	content := pngBytes(t, 40, 40)
	u := mustUpload(t, c, "a.png", content)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, method := range []string{"GET", "HEAD"} {
		req, _ := http.NewRequest(method, e.c.Base+u.path(), nil)
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Cache-Control") != "private, max-age=600" {
			t.Fatalf("%s: %d, Cache-Control %q", method, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if method == "HEAD" {
			continue
		}
		got, err := http.Get(resp.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(got.Body)
		got.Body.Close()
		if got.StatusCode != 200 || !bytes.Equal(b, content) || got.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("presigned GET: %d, %d bytes, type %q", got.StatusCode, len(b), got.Header.Get("Content-Type"))
		}
	}
}

// An upload stored in a bucket carries its type there, as its thumbnail
// does: what reads the bucket directly (a presigned URL without Folio's
// override, a CDN in front of it) serves it as what it is.
func TestS3ObjectsCarryTheFilesType(t *testing.T) {
	store := storagetest.S3(t)
	e := newTestEnvStore(t, sqlstoretest.Open(t), store, nil)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.png", pngBytes(t, 600, 300))
	e.c.Do("GET", "/t/"+u.hash(), nil).Expect(200)
	objectID, key := e.objectOf(u.ID)
	for key, want := range map[string]string{key: "image/png", thumbKey(objectID, false): "image/png"} {
		if got := storagetest.ContentType(t, store, key); got != want {
			t.Errorf("%s in the bucket: Content-Type %q, want %s", key, got, want)
		}
	}
}

// BenchmarkShortLinkGet fetches a short link through the real HTTP handler
// on each backend: a 100 KiB file (its bytes kept in memory after the
// first GET, as on a live site) and a 2 MiB one (read from the store on
// every GET):
//
//	go test -run '^$' -bench ShortLinkGet ./filehost/
func BenchmarkShortLinkGet(b *testing.B) {
	for _, be := range storagetest.Backends() {
		for _, size := range []struct {
			name string
			n    int
		}{{"100KiB", 100 << 10}, {"2MiB", 2 << 20}} {
			b.Run(be.Name+"/"+size.name, func(b *testing.B) {
				e := newTestEnvStore(b, sqlstoretest.Open(b), be.New(b), nil)
				_, c := e.newUser("alice", 0)
				content := bytes.Repeat([]byte("0123456789abcdef"), size.n/16)
				u := mustUpload(b, c, "a.bin", content)
				url := e.c.Base + "/f/" + u.hash()
				b.SetBytes(int64(len(content)))
				b.ResetTimer()
				for range b.N {
					resp, err := http.Get(url)
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n != int64(len(content)) {
						b.Fatalf("GET: %d, %d bytes", resp.StatusCode, n)
					}
				}
			})
		}
	}
}
