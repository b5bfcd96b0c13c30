package storage_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"folio/storage"
	"folio/storage/storagetest"
)

// testPart is the part size the tests give the S3 writer: S3's smallest,
// so that content of a few parts stays quick.
const testPart = 5 << 20

// eachBackend runs test on a fresh store of every backend, with the S3
// writer's part and List's page lowered so that several parts and pages
// are cheap.
func eachBackend(t *testing.T, test func(t *testing.T, s storage.Store)) {
	for _, b := range storagetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			s := b.New(t)
			if s3, ok := s.(*storage.S3); ok {
				s3.PartSize, s3.PageSize = testPart, 3
			}
			test(t, s)
		})
	}
}

// put stores content under key through the store's own writer.
func put(t *testing.T, s storage.Store, key, content string) {
	t.Helper()
	w, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(key); err != nil {
		t.Fatal(err)
	}
}

// read returns the whole content under key.
func read(t *testing.T, s storage.Store, key string) string {
	t.Helper()
	f, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return string(b)
}

// noTemps fails the test when the store holds content being written.
func noTemps(t *testing.T, s storage.Store) {
	t.Helper()
	temps, err := s.Temps(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(temps) != 0 {
		t.Fatalf("temporary content left: %+v", temps)
	}
}

// keys lists the store's keys with their sizes.
func keys(t *testing.T, s storage.Store) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	if err := s.List(context.Background(), func(key string, size int64) error {
		got[key] = size
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// randomBytes is n bytes that do not compress, the same for a seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// chunked writes b in pieces of odd sizes, as a network body arrives.
func chunked(w io.Writer, b []byte) error {
	_, err := io.CopyBuffer(w, struct{ io.Reader }{bytes.NewReader(b)}, make([]byte, 100_003))
	return err
}

// watchingTransport sends every request to the real server and, once its
// answer has come, shows both to after: tests count requests of a kind, or
// cancel a context at a chosen point of a commit.
type watchingTransport struct {
	after func(*http.Request, *http.Response)
}

func (w watchingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		w.after(r, resp)
	}
	return resp, err
}

// watched is a second store on s's bucket whose requests after sees.
func watched(t *testing.T, s *storage.S3, after func(*http.Request, *http.Response)) *storage.S3 {
	t.Helper()
	w, err := storage.NewS3(s.Config(), &http.Client{Transport: watchingTransport{after}})
	if err != nil {
		t.Fatal(err)
	}
	w.PartSize, w.CopyLimit, w.CopyPartSize = s.PartSize, s.CopyLimit, s.CopyPartSize
	return w
}

// isPartCopy tells an UploadPartCopy request.
func isPartCopy(r *http.Request) bool {
	return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source-Range") != ""
}

// noOpenUploads fails the test when a multipart upload is open anywhere
// in s's bucket.
func noOpenUploads(t *testing.T, s *storage.S3) {
	t.Helper()
	keys, err := storage.OpenUploads(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Fatalf("multipart uploads left open: %v", keys)
	}
}
