package storage_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"folio/storage"
	"folio/storage/storagetest"
)

func TestNewS3RefusesABadConfiguration(t *testing.T) {
	good := storage.S3Config{Endpoint: "http://127.0.0.1:7070", Bucket: "folio", AccessKey: "a", SecretKey: "s", PathStyle: true}
	for _, tc := range []struct {
		name string
		edit func(c *storage.S3Config)
		want string
	}{
		{"no endpoint", func(c *storage.S3Config) { c.Endpoint = "" }, "endpoint is required"},
		{"endpoint not http", func(c *storage.S3Config) { c.Endpoint = "ftp://x" }, "http:// or https://"},
		{"endpoint with a path", func(c *storage.S3Config) { c.Endpoint = "http://x/bucket" }, "only a host"},
		{"bad bucket", func(c *storage.S3Config) { c.Bucket = "Up_per" }, "bucket name"},
		{"no secret", func(c *storage.S3Config) { c.SecretKey = "" }, "secret key"},
		{"prefix escaping", func(c *storage.S3Config) { c.Prefix = "../x" }, "prefix"},
	} {
		c := good
		tc.edit(&c)
		if _, err := storage.NewS3(c, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewS3 = %v, want an error about %q", tc.name, err, tc.want)
		}
	}
	if _, err := storage.NewS3(good, nil); err != nil {
		t.Fatal(err)
	}
}

func TestS3CheckSaysWhatIsWrong(t *testing.T) {
	cfg := storagetest.S3Config(t)
	s := storagetest.S3With(t, cfg)
	if err := s.Check(context.Background()); err != nil {
		t.Fatalf("Check of a good bucket: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(c *storage.S3Config)
		want string
	}{
		{"unknown bucket", func(c *storage.S3Config) { c.Bucket += "-missing" }, "does not exist"},
		{"wrong secret", func(c *storage.S3Config) { c.SecretKey = "wrong" }, "refused the credentials"},
		{"nothing listening", func(c *storage.S3Config) { c.Endpoint = "http://127.0.0.1:1" }, "cannot be reached"},
	} {
		c := cfg
		tc.edit(&c)
		bad, err := storage.NewS3(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = bad.Check(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), c.SecretKey) {
			t.Errorf("%s: Check = %v, want an error about %q without the secret", tc.name, err, tc.want)
		}
	}
}

func TestS3KeepsObjectsUnderThePrefixWithTheStoreKeys(t *testing.T) {
	cfg := storagetest.S3Config(t)
	whole := storagetest.S3With(t, cfg)
	cfg.Prefix = "folio/files"
	s, err := storage.NewS3(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "2026/11/a b+c.png", "x")
	got := keys(t, whole)
	if len(got) != 1 || got["folio/files/2026/11/a b+c.png"] != 1 {
		t.Fatalf("bucket holds %v", got)
	}
	if got := keys(t, s); len(got) != 1 || got["2026/11/a b+c.png"] != 1 {
		t.Fatalf("List under the prefix = %v", got)
	}
}

func TestPresignedGetWorksWithPlainHTTPAndExpires(t *testing.T) {
	s := storagetest.S3(t)
	put(t, s, "p/q r.txt", "presigned")
	// X-Amz-Date has whole seconds, so a URL lives from ttl-1s to ttl
	// after it is made: three seconds leave the first GET at least two.
	const ttl = 3 * time.Second
	u, err := s.PresignGet("p/q r.txt", ttl)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := time.Parse("20060102T150405Z", parsed.Query().Get("X-Amz-Date"))
	if err != nil {
		t.Fatalf("X-Amz-Date of %s: %v", u, err)
	}
	get := func() (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(); code != 200 || body != "presigned" {
		t.Fatalf("presigned GET = %d %q", code, body)
	}
	// The server compares whole seconds too: one more past the expiry.
	time.Sleep(time.Until(signed.Add(ttl + 1100*time.Millisecond)))
	if code, _ := get(); code != http.StatusForbidden {
		t.Fatalf("expired presigned GET = %d, want 403", code)
	}
	if _, err := s.PresignGet("../x", time.Minute); !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("PresignGet of a bad key = %v", err)
	}
}

// patternReader gives n bytes of a repeated incompressible block without
// holding them, so that memory measured is the writer's.
type patternReader struct {
	block []byte
	left  int64
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p, r.block[int(r.left%int64(len(r.block))):])
	n = int(min(int64(n), r.left))
	r.left -= int64(n)
	return n, nil
}

func TestS3WriterMemoryStaysBounded(t *testing.T) {
	s := storagetest.S3(t)
	const total = 64 << 20
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	w, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	src := &patternReader{block: randomBytes(1<<20, 6), left: total}
	chunk := make([]byte, 256<<10)
	for {
		n, err := src.Read(chunk)
		if n > 0 {
			if _, err := w.Write(chunk[:n]); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		if err == io.EOF {
			break
		}
	}
	if err := w.Commit("big"); err != nil {
		t.Fatal(err)
	}
	if grew := int64(peak) - int64(base); grew > 40<<20 {
		t.Fatalf("the heap grew by %d MiB writing %d MiB", grew>>20, total>>20)
	}
	if st, err := s.Stat(context.Background(), "big"); err != nil || st.Size() != total {
		t.Fatalf("Stat = %v, %v", st, err)
	}
}

// BenchmarkUpload writes 256 MiB through each store. Run each backend in
// its own process so that peak-RSS-MiB (VmHWM) is its own:
//
//	go test -run '^$' -bench 'Upload/local' -benchtime 1x ./storage/
//	go test -run '^$' -bench 'Upload/s3' -benchtime 1x ./storage/
func BenchmarkUpload(b *testing.B) {
	const total = 256 << 20
	block := randomBytes(1<<20, 7)
	for _, be := range storagetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.New(b)
			b.SetBytes(total)
			buf := make([]byte, 256<<10)
			b.ResetTimer()
			for i := range b.N {
				w, err := s.Begin(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(w, &patternReader{block: block, left: total}, buf); err != nil {
					b.Fatal(err)
				}
				if err := w.Commit("bench/" + strconv.Itoa(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if hwm := vmHWM(); hwm > 0 {
				b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// vmHWM is the process's peak resident set in bytes, 0 where unknown.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func TestS3CopiesBeyondTheCopyLimitInParts(t *testing.T) {
	const size = 16<<20 + 12345
	want := randomBytes(size, 8)
	for _, tc := range []struct {
		name     string
		partSize int64
		copies   int64 // UploadPartCopy requests
	}{
		{"parts of S3's minimum", 5 << 20, 4},
		{"a smaller part size is raised to S3's minimum", 1 << 20, 4},
		{"parts of 8 MiB", 8 << 20, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := storagetest.S3(t)
			s.PartSize, s.CopyLimit, s.CopyPartSize = testPart, 6<<20, tc.partSize
			var copies atomic.Int64
			w := watched(t, s, func(r *http.Request, _ *http.Response) {
				if isPartCopy(r) {
					copies.Add(1)
				}
			})
			wr, err := w.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := chunked(wr, want); err != nil {
				t.Fatal(err)
			}
			if err := wr.Commit("copied/big.bin"); err != nil {
				t.Fatal(err)
			}
			if got := copies.Load(); got != tc.copies {
				t.Errorf("%d UploadPartCopy requests, want %d", got, tc.copies)
			}
			if got := read(t, s, "copied/big.bin"); got != string(want) {
				t.Fatalf("%d bytes read back as %d different ones", size, len(got))
			}
			if got := keys(t, s); len(got) != 1 || got["copied/big.bin"] != size {
				t.Fatalf("bucket holds %v", got)
			}
			noTemps(t, s)
			noOpenUploads(t, s)
		})
	}
}

func TestS3PartCopyFailingHalfwayLeavesNothing(t *testing.T) {
	s := storagetest.S3(t)
	s.PartSize, s.CopyLimit, s.CopyPartSize = testPart, 6<<20, testPart
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The request's context ends once the first range is copied, as when
	// the client goes away during the commit.
	w := watched(t, s, func(r *http.Request, _ *http.Response) {
		if isPartCopy(r) {
			cancel()
		}
	})
	wr, err := w.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := chunked(wr, randomBytes(3*testPart+1, 9)); err != nil {
		t.Fatal(err)
	}
	if err := wr.Commit("copied/big.bin"); err == nil {
		t.Fatal("commit succeeded after its context ended")
	}
	if _, err := s.Stat(context.Background(), "copied/big.bin"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Stat of the final key = %v, want ErrNotFound", err)
	}
	if got := keys(t, s); len(got) != 0 {
		t.Fatalf("objects left: %v", got)
	}
	noTemps(t, s)
	noOpenUploads(t, s)
}

// An object carries the media type its writer was told, whichever way it
// reached its key: one PUT, a multipart upload copied whole, or one copied
// in parts.
func TestS3ObjectsCarryTheirContentType(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
	}{
		{"one PUT", 1000},
		{"multipart, copied whole", 2*testPart + 1},
		{"multipart, copied in parts", 6<<20 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := storagetest.S3(t)
			s.PartSize, s.CopyLimit, s.CopyPartSize = testPart, 6<<20, 5<<20
			w, err := s.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			storage.SetContentType(w, "image/webp")
			if err := chunked(w, randomBytes(tc.size, 3)); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit("typed/x.webp"); err != nil {
				t.Fatal(err)
			}
			got, err := storage.ContentType(context.Background(), s, "typed/x.webp")
			if err != nil {
				t.Fatal(err)
			}
			if got != "image/webp" {
				t.Fatalf("stored Content-Type %q, want image/webp", got)
			}
			noTemps(t, s)
		})
	}
}
