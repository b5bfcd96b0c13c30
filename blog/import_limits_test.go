package blog_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/blog"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/storage"
)

// bombEntry is a file of a hostile archive: head, then fill repeated to
// size bytes in all.
type bombEntry struct {
	name, head string
	fill       byte
	size       int64
	// declare, when not 0, is the size the zip headers declare, whatever
	// the real one.
	declare uint64
}

// bombZip writes an archive of entries, each compressed as a stream: 300
// MiB of one byte becomes some 300 KiB, and is never held in memory. The
// stream is put together rather than compressed byte by byte, which under
// the race detector took a minute per archive (docs/testing.md#keeping-ci-fast):
// the head and 32 KiB of fill compressed as usual, then blocks that each
// repeat the fill (compressed once, against a window of fill, and cut on a
// byte boundary by Flush), then an empty final block. Any reader gets the
// same bytes as from compressing the whole; TestBombZipReadsBackWhole
// checks that.
func bombZip(t testing.TB, entries ...bombEntry) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	// runs[fill][k] is a deflate segment of 2^k bytes of fill, for a
	// window that ends in 32 KiB of fill.
	runs := map[byte][][]byte{}
	starts := map[string][]byte{}
	const window, most = 32 << 10, 20
	compress := func(dict, data []byte, final bool) []byte {
		var b bytes.Buffer
		fw, err := flate.NewWriterDict(&b, flate.BestCompression, dict)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
		if final {
			err = fw.Close()
		} else {
			err = fw.Flush()
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, en := range entries {
		fill := bytes.Repeat([]byte{en.fill}, window)
		if runs[en.fill] == nil {
			big := bytes.Repeat([]byte{en.fill}, 1<<most)
			for k := range most + 1 {
				runs[en.fill] = append(runs[en.fill], compress(fill, big[:1<<k], false))
			}
		}
		crc := crc32.NewIEEE()
		io.WriteString(crc, en.head)
		left := en.size - int64(len(en.head))
		first := min(left, window)
		// The 300 posts of one archive start alike: compressed once.
		key := fmt.Sprintf("%q %c %d", en.head, en.fill, first)
		if starts[key] == nil {
			starts[key] = compress(nil, append([]byte(en.head), fill[:first]...), false)
		}
		comp := slices.Clone(starts[key])
		crc.Write(fill[:first])
		left -= first
		for k := most; k >= 0; k-- {
			for ; left >= 1<<k; left -= 1 << k {
				comp = append(comp, runs[en.fill][k]...)
				for n := 0; n < 1<<k; n += window {
					crc.Write(fill[:min(window, 1<<k-n)])
				}
			}
		}
		comp = append(comp, compress(nil, nil, true)...)
		declared := uint64(en.size)
		if en.declare != 0 {
			declared = en.declare
		}
		raw, err := zw.CreateRaw(&zip.FileHeader{Name: en.name, Method: zip.Deflate, CRC32: crc.Sum32(),
			CompressedSize64: uint64(len(comp)), UncompressedSize64: declared})
		if err != nil {
			t.Fatal(err)
		}
		raw.Write(comp)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestBombZipReadsBackWhole holds bombZip to archives whose every entry
// reads back, through archive/zip and its checksum, as head then fill to
// the size, at sizes on each side of its 32 KiB and power-of-two seams.
func TestBombZipReadsBackWhole(t *testing.T) {
	var entries []bombEntry
	for i, size := range []int64{0, 1, 17, 32 << 10, 32<<10 + 1, 1<<20 + 32<<10 - 1, 3<<20 + 12345} {
		en := bombEntry{name: fmt.Sprintf("e%d", i), fill: 'a' + byte(i%2), size: size}
		if size >= 17 {
			en.head = "---\ntitle: P\n---\n"[:17]
		}
		entries = append(entries, en)
	}
	archive := bombZip(t, entries...)
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(entries) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(entries))
	}
	for i, f := range zr.File {
		en := entries[i]
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		want := en.head + strings.Repeat(string(en.fill), int(en.size)-len(en.head))
		if err != nil || string(got) != want {
			t.Errorf("%s: %d bytes (%v), want %d", en.name, len(got), err, len(want))
		}
	}
}

// heapPeak samples the heap in use until stop is called, which returns the
// largest growth over what was in use at the start.
func heapPeak() (stop func() uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak - base
	}
}

// spoolFiles lists what an import left in its spool folder.
func spoolFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// contentRows counts what an import may have written.
func (e *env) contentRows() int {
	e.t.Helper()
	var n int
	err := e.db.QueryRow(context.Background(), `SELECT (SELECT COUNT(*) FROM posts) + (SELECT COUNT(*) FROM pages) +
		(SELECT COUNT(*) FROM comments) + (SELECT COUNT(*) FROM categories) + (SELECT COUNT(*) FROM tags)`).Scan(&n)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// The archive: some 300 KiB that expand to 300 MiB, over the
// import limit of 64 MiB, in the shapes that reach each bound. Each is
// answered with the bound it broke, quickly, with the heap far below what
// was declared, no spool file left and nothing written.
func TestImportRefusesArchivesThatExpandBeyondTheLimits(t *testing.T) {
	spool := t.TempDir()
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.SpoolDir = spool }})
	const huge = 300 << 20
	manifest := bombEntry{name: "manifest.json", head: manifestV1, size: int64(len(manifestV1))}
	var manyPosts, lyingPosts []bombEntry
	for i := range 300 {
		p := bombEntry{name: fmt.Sprintf("posts/p%d.md", i), head: "---\ntitle: P\n---\n", fill: 'a', size: 1 << 20}
		manyPosts = append(manyPosts, p)
		p.declare = 100
		lyingPosts = append(lyingPosts, p)
	}
	tests := []struct {
		name    string
		entries []bombEntry
		status  int
		msg     string
	}{
		{"a post of 300 MiB", []bombEntry{manifest, {name: "posts/bomb.md", size: huge}},
			413, "the archive expands to more than the import limit of 64 MiB"},
		{"300 posts of 1 MiB", append([]bombEntry{manifest}, manyPosts...),
			413, "the archive expands to more than the import limit of 64 MiB"},
		// archive/zip stops a file at the size declared for it.
		{"a post of 300 MiB declaring 100 bytes", []bombEntry{manifest, {name: "posts/bomb.md", head: "---\ntitle: B\n---\n", fill: 'a', size: huge, declare: 100}},
			400, "posts/bomb.md is damaged: it expands beyond the size the archive declares for it"},
		{"300 MiB of spaces in comments.json declaring 100 bytes", []bombEntry{manifest, {name: "comments.json", head: "[", fill: ' ', size: huge, declare: 100}},
			400, "comments.json is damaged: it expands beyond the size the archive declares for it"},
		{"300 posts of 1 MiB declaring 100 bytes each", append([]bombEntry{manifest}, lyingPosts...),
			400, "posts/p0.md is damaged: it expands beyond the size the archive declares for it"},
		// Sizes that add up past 2⁶⁴ must not wrap around to a small sum.
		{"four posts declaring 2⁶² bytes each", []bombEntry{manifest, {name: "posts/a.md", size: 1, declare: 1 << 62}, {name: "posts/b.md", size: 1, declare: 1 << 62},
			{name: "posts/c.md", size: 1, declare: 1 << 62}, {name: "posts/d.md", size: 1, declare: 1 << 62}},
			413, "the archive expands to more than the import limit of 64 MiB"},
		// Within the import limit, but one comment the decoder would hold
		// whole.
		{"a comment of 60 MiB", []bombEntry{manifest, {name: "comments.json", head: `[{"post": "p", "content": "`, fill: 'a', size: 60 << 20}},
			400, "comments.json: item 1 is too large (at most 4 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			archive := bombZip(t, tt.entries...)
			if len(archive) > 1<<20 {
				t.Fatalf("the archive is %d bytes, not a small one", len(archive))
			}
			stop := heapPeak()
			start := time.Now()
			r := e.admin.Upload("/api/v1/admin/import", "file", "bomb.zip", archive)
			took, grew := time.Since(start), stop()
			t.Logf("%d-byte archive answered in %v, heap grew by %.1f MiB", len(archive), took.Round(time.Millisecond), float64(grew)/(1<<20))
			expectError(t, r, tt.status, tt.msg)
			// Generous bounds: the import reads at most 64 MiB of the 300.
			if took > 30*time.Second {
				t.Errorf("answered after %v", took)
			}
			if grew > 64<<20 {
				t.Errorf("the heap grew by %d MiB", grew>>20)
			}
			if left := spoolFiles(t, spool); len(left) > 0 {
				t.Errorf("spool files left: %v", left)
			}
			if n := e.contentRows(); n != 0 {
				t.Errorf("%d rows written", n)
			}
		})
	}
}

func TestImportRefusesAnArchiveOfTooManyFiles(t *testing.T) {
	spool := t.TempDir()
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.SpoolDir = spool }})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 100_001 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("x/%d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "many.zip", buf.Bytes()), 413, "the archive holds more than 100000 files")
	if left := spoolFiles(t, spool); len(left) > 0 {
		t.Errorf("spool files left: %v", left)
	}
}

func TestImportRouteRefusesADeclaredOversizedBodyAtOnce(t *testing.T) {
	e := newEnv(t)
	// The administrator, and anybody: the bound comes before any check.
	for _, cl := range []*httpxtest.Client{e.admin, e.anon} {
		r := cl.DeclareBody("POST", "/api/v1/admin/import", "multipart/form-data; boundary=x", 1<<30)
		expectError(t, r, 413, "the file is larger than the import limit of 64 MiB")
	}
}

// An import past its time limit stops and writes nothing; the answer says
// why and what to do.
func TestImportStopsAtItsTimeLimit(t *testing.T) {
	spool := t.TempDir()
	e, b := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.SpoolDir = spool }})
	b.SetImportTimeout(time.Nanosecond)
	archive := makeZip(t, "manifest.json", manifestV1, "posts/a.md", "---\ntitle: A\n---\nwords\n", "tags.json", `[{"name": "T", "slug": "t"}]`)
	expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "a.zip", archive), 413,
		"the import did not finish within 1ns, so nothing was imported; split the export, or run folio import on the server")
	if n := e.contentRows(); n != 0 {
		t.Errorf("%d rows written", n)
	}
	if left := spoolFiles(t, spool); len(left) > 0 {
		t.Errorf("spool files left: %v", left)
	}
}

// An import whose context ends midway (its client left) stops at the next
// read or write, and its transaction leaves nothing.
func TestImportStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var armed atomic.Bool
	var calls atomic.Int32
	e, b := newEnvWith(t, setup{now: func() time.Time {
		// The importer dates each item it adds: the third ends the import.
		if armed.Load() && calls.Add(1) == 3 {
			cancel()
		}
		return time.Now()
	}})
	files := []string{"manifest.json", manifestV1}
	for i := range 20 {
		files = append(files, fmt.Sprintf("posts/p%d.md", i), fmt.Sprintf("---\ntitle: P%d\n---\nwords\n", i))
	}
	archive := makeZip(t, files...)
	armed.Store(true)
	_, err := b.Import(ctx, bytes.NewReader(archive), int64(len(archive)), blog.ImportOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import with its context ended: %v", err)
	}
	if calls.Load() < 3 {
		t.Fatalf("the import ended before its context did (%d items)", calls.Load())
	}
	if n := e.contentRows(); n != 0 {
		t.Errorf("%d rows written", n)
	}
}

// A client that leaves while its file is arriving: the spool file goes,
// and nothing is written.
func TestImportOfAClientThatLeavesLeavesNothing(t *testing.T) {
	spool := t.TempDir()
	instance := sqlstore.NewID()
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.SpoolDir, d.Instance = spool, instance }})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.admin.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	base, _ := url.Parse(e.admin.Base)
	for _, ck := range e.admin.HTTP.Jar.Cookies(base) {
		cookies = append(cookies, ck.String())
	}
	fmt.Fprintf(conn, "POST /api/v1/admin/import HTTP/1.1\r\nHost: x\r\nCookie: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n",
		strings.Join(cookies, "; "), 1<<20)
	fmt.Fprintf(conn, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n\r\n%s", strings.Repeat("x", 64<<10))
	// The spool file exists once the file part has begun to arrive.
	waitFor(t, func() bool { return len(spoolFiles(t, spool)) == 1 })
	// Named after the process, so that the janitor can tell it is the
	// spool of a dead one should this process die now.
	if sp, err := storage.Spools(spool); err != nil || len(sp) != 1 || sp[0].Instance != instance {
		t.Fatalf("spool files %+v (%v), want one of instance %s", sp, err, instance)
	}
	conn.Close()
	waitFor(t, func() bool { return len(spoolFiles(t, spool)) == 0 })
	if n := e.contentRows(); n != 0 {
		t.Errorf("%d rows written", n)
	}
}

// waitFor polls cond until it holds; the bound only keeps a broken build
// from hanging.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The site's comment form takes 64 KiB: a larger one shows the post again
// with the reason, and one declared far larger is refused before it is
// read, like every body over its route's bound.
func TestSiteCommentFormIsBounded(t *testing.T) {
	e := newSiteEnv(t)
	e.publish("Talk", "slug", "talk")
	body := string(e.form("/posts/talk/comments", url.Values{"author": {"Bob"}, "content": {strings.Repeat("x", 64<<10)}}).Expect(413).Body)
	siteHas(t, "a long comment", body, "The comment is too long to be sent (at most 64 KiB in all).", "<h1")
	expectError(t, e.anon.DeclareBody("POST", "/posts/talk/comments", "application/x-www-form-urlencoded", 1<<30), 413, "request body too large (at most 1 MiB)")
	if n := e.contentRows(); n != 1 {
		t.Errorf("%d rows, want the post alone", n)
	}
}
