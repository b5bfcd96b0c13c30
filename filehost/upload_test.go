package filehost

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/filehost/imagemeta/imagemetatest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/storage"
)

// Content helpers -------------------------------------------------------

// The pictures of these tests are imagemetatest's, which the stripping
// tests of filehost/imagemeta make their files from too.
func pngBytes(t testing.TB, w, h int) []byte  { return imagemetatest.PNG(t, w, h) }
func jpegBytes(t testing.TB, w, h int) []byte { return imagemetatest.JPEG(t, w, h) }
func gifBytes(t testing.TB, w, h int) []byte  { return imagemetatest.GIF(t, w, h) }

var (
	pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	mp4Bytes = append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), make([]byte, 64)...)
	mp3Bytes = append([]byte("ID3\x03\x00\x00\x00\x00\x00\x0a"), make([]byte, 64)...)
	svgBytes = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>`)
)

// uploaded is the decoded data of a successful upload.
type uploaded struct {
	ID         string `json:"id"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	OriginName string `json:"origin_name"`
	Size       int64  `json:"size"`
	Mimetype   string `json:"mimetype"`
	Extension  string `json:"extension"`
	MD5        string `json:"md5"`
	Links      struct {
		URL          string `json:"url"`
		ThumbnailURL string `json:"thumbnail_url"`
		Markdown     string `json:"markdown"`
		HTML         string `json:"html"`
		BBCode       string `json:"bbcode"`
		DeleteURL    string `json:"delete_url"`
	} `json:"links"`
}

// path is the link's path (the server's address removed).
func (u uploaded) path() string {
	i := strings.Index(u.Links.URL, "/"+linkPrefix(fileTypeOf(u.Mimetype))+"/")
	return u.Links.URL[i:]
}

// hash is the short hash of the link.
func (u uploaded) hash() string { return u.Links.URL[strings.LastIndexByte(u.Links.URL, '/')+1:] }

// mustUpload uploads through c and fails the test unless it succeeds.
func mustUpload(t testing.TB, c *httpxtest.Client, name string, content []byte, fields ...string) uploaded {
	t.Helper()
	env := c.Upload("/api/v1/upload", "file", name, content, fields...).Expect(http.StatusOK).U()
	if !env.Status || env.Message != "success" {
		t.Fatalf("upload %s: %+v", name, env)
	}
	var u uploaded
	httpxtest.Into(t, env.Data, &u)
	return u
}

// expectUploadError checks an upload-shaped failure.
func expectUploadError(t testing.TB, r *httpxtest.Response, status, code int) {
	t.Helper()
	r.Expect(status)
	env := r.U()
	if env.Status || env.Code != code || string(env.Data) != "null" || env.Message == "" {
		t.Fatalf("want status false, code %d, data null: %s", code, r.Body)
	}
}

func (e *testEnv) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// createAlbum inserts an album for a user directly (albums are the
// accounts side's API).
func (e *testEnv) createAlbum(userID, name string) string {
	e.t.Helper()
	id := sqlstore.NewID()
	now := sqlstore.FromTime(time.Now())
	if _, err := e.db.Exec(context.Background(), `INSERT INTO albums (id, user_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`,
		id, userID, name, now); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// storedFiles lists every key in the store, sorted.
func (e *testEnv) storedFiles() []string {
	e.t.Helper()
	out := e.storedKeys()
	sort.Strings(out)
	return out
}

// tempFiles lists the names of the temporary uploads in the store.
func (e *testEnv) tempFiles() []string {
	e.t.Helper()
	var out []string
	for name := range e.temps() {
		out = append(out, name)
	}
	return out
}

// Tests -----------------------------------------------------------------

func TestUploadAnswersTheInterfaceShape(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		uid, c := e.newUser("alice", 0)
		content := pngBytes(t, 20, 10)
		r := c.Upload("/api/v1/upload", "file", "Holiday Photo.PNG", content).Expect(http.StatusOK)
		env := r.U()
		var keys map[string]json.RawMessage
		httpxtest.Into(t, env.Data, &keys)
		for _, k := range []string{"id", "key", "name", "origin_name", "size", "mimetype", "extension", "md5", "links"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("data lacks %q: %s", k, env.Data)
			}
		}
		var u uploaded
		httpxtest.Into(t, env.Data, &u)
		base := e.c.Base
		md5 := fmt.Sprintf("%x", md5sum(content))
		if u.MD5 != md5 || u.Size != int64(len(content)) || u.Mimetype != "image/png" || u.Extension != "png" || u.OriginName != "Holiday Photo.PNG" {
			t.Fatalf("fields: %+v", u)
		}
		if !regexp.MustCompile(`^\d{4}/\d{2}/` + md5[:8] + `/[0-9a-f-]{36}\.png$`).MatchString(u.Key) {
			t.Fatalf("key %q does not follow the default pattern", u.Key)
		}
		if u.Name != u.Key[strings.LastIndexByte(u.Key, '/')+1:] {
			t.Fatalf("name %q is not the key's base name", u.Name)
		}
		url := base + "/i/" + md5[:8]
		want := map[string]string{
			"url":           url,
			"thumbnail_url": base + "/t/" + md5[:8],
			"markdown":      "![" + u.OriginName + "](" + url + ")",
			"html":          `<img src="` + url + `" alt="` + u.OriginName + `" />`,
			"bbcode":        "[img]" + url + "[/img]",
			"delete_url":    base + "/api/v1/files/" + u.ID,
		}
		got := map[string]string{"url": u.Links.URL, "thumbnail_url": u.Links.ThumbnailURL, "markdown": u.Links.Markdown,
			"html": u.Links.HTML, "bbcode": u.Links.BBCode, "delete_url": u.Links.DeleteURL}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("links.%s = %q, want %q", k, got[k], v)
			}
		}
		if used, n := e.usage(uid); used != int64(len(content)) || n != 1 {
			t.Fatalf("usage %d bytes %d files", used, n)
		}
		var w, h int
		if err := e.db.QueryRow(context.Background(), "SELECT width, height FROM objects").Scan(&w, &h); err != nil || w != 20 || h != 10 {
			t.Fatalf("dimensions %dx%d %v", w, h, err)
		}
		// The bare API token form of Authorization works too.
		tok, err := e.auth.CreateAPIToken(context.Background(), uid, "picgo", nil)
		if err != nil {
			t.Fatal(err)
		}
		bare := e.c.Clone()
		bare.Header.Set("Authorization", tok.Token)
		mustUpload(t, bare, "b.png", pngBytes(t, 3, 3))
	})
}

func TestUploadErrorsCarryTheirCodes(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	bobID := e.createUser("bob2", 0)
	bobAlbum := e.createAlbum(bobID, "bob's")
	_, small := e.newUser("small", 100)
	e.setUpload(func(u *UploadSettings) { u.MaxFileSize = 4096 })
	_ = bob

	noFile := func() *httpxtest.Response {
		return c.Upload("/api/v1/upload", "", "", nil, "album_id", "")
	}
	tests := []struct {
		name   string
		do     func() *httpxtest.Response
		status int
		code   int
	}{
		{"no file field", noFile, 400, 40000},
		{"album of another user", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 2, 2), "album_id", bobAlbum)
		}, 400, 40000},
		{"album that does not exist", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 2, 2), "album_id", sqlstore.NewID())
		}, 400, 40000},
		{"malformed album id", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 2, 2), "album_id", "nope")
		}, 400, 40000},
		{"no credentials", func() *httpxtest.Response {
			return e.c.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 2, 2))
		}, 401, 40100},
		{"bad token", func() *httpxtest.Response {
			cl := e.c.Clone()
			cl.Header.Set("Authorization", "Bearer nonsense")
			return cl.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 2, 2))
		}, 401, 40100},
		{"larger than max_file_size", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "big.bin", bytes.Repeat([]byte{1}, 5000))
		}, 413, 41300},
		{"forbidden extension", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "shell.PHP", []byte("<?php echo 1; ?>"))
		}, 415, 41500},
		{"quota full", func() *httpxtest.Response {
			return small.Upload("/api/v1/upload", "file", "a.bin", bytes.Repeat([]byte{7}, 101))
		}, 507, 50700},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectUploadError(t, tc.do(), tc.status, tc.code)
		})
	}

	t.Run("type not in allowed_types", func(t *testing.T) {
		e.setUpload(func(u *UploadSettings) { u.AllowedTypes = List{"image/*", "pdf"} })
		defer e.setUpload(func(u *UploadSettings) { u.AllowedTypes = List{} })
		expectUploadError(t, c.Upload("/api/v1/upload", "file", "notes.txt", []byte("hello")), 415, 41500)
		// A PNG renamed .txt is still an image by its content.
		mustUpload(t, c, "renamed.txt", pngBytes(t, 2, 2))
		mustUpload(t, c, "doc.pdf", pdfBytes)
	})

	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id <> $1", uid); n != 0 {
		t.Fatalf("%d records from failed uploads", n)
	}
	if left := e.tempFiles(); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	if used, n := e.usage(e.createUser("zed", 0)); used != 0 || n != 0 {
		t.Fatal("fresh user has usage")
	}
}

func TestQuotaAllowsUpToTheLimit(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 200)
	mustUpload(t, c, "a.bin", bytes.Repeat([]byte{1}, 150))
	expectUploadError(t, c.Upload("/api/v1/upload", "file", "b.bin", bytes.Repeat([]byte{2}, 51)), 507, 50700)
	mustUpload(t, c, "c.bin", bytes.Repeat([]byte{3}, 50))
	if used, n := e.usage(uid); used != 200 || n != 2 {
		t.Fatalf("usage %d/%d", used, n)
	}
	if files := e.storedFiles(); len(files) != 2 {
		t.Fatalf("stored %v", files)
	}
}

// Concurrent uploads of new content by one owner near the quota: the check
// and the count are one statement under the owner's row lock, wherever the
// upload takes it, so exactly as many as fit are stored and the usage is
// exact (docs/filehost.md#lock-order).
func TestConcurrentUploadsNearTheQuotaNeverExceedIt(t *testing.T) {
	e := newTestEnv(t)
	const size, fit, clients = 1000, 5, 16
	uid, c := e.newUser("alice", size*fit+size/2)
	statuses := make(chan int, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			r := c.Upload("/api/v1/upload", "file", "f.bin", bytes.Repeat([]byte{byte(i + 1)}, size))
			statuses <- r.Status
		})
	}
	wg.Wait()
	close(statuses)
	byStatus := map[int]int{}
	for st := range statuses {
		byStatus[st]++
	}
	if byStatus[http.StatusOK] != fit || byStatus[507] != clients-fit {
		t.Fatalf("answers %v, want %d stored and %d refused for the quota", byStatus, fit, clients-fit)
	}
	if used, n := e.usage(uid); used != size*fit || n != fit {
		t.Fatalf("usage %d bytes in %d files, want %d in %d", used, n, size*fit, fit)
	}
	if files := e.storedFiles(); len(files) != fit {
		t.Fatalf("stored %d files, want %d", len(files), fit)
	}
	if n := e.count("SELECT COUNT(*) FROM storage_intents"); n != 0 {
		t.Fatalf("%d intents left", n)
	}
}

// On PostgreSQL every upload of an owner waits for the owner's row, which
// its holder keeps until its commit is flushed: an upload of new content
// asks for it only after its object is inserted, so it holds it for the
// record and the commit alone (docs/filehost.md#lock-order).
func TestUploadOfNewContentLocksItsOwnerLast(t *testing.T) {
	e := newTestEnv(t)
	if e.db.Dialect() != sqlstore.Postgres {
		t.Skip("row locks are PostgreSQL's; SQLite has one writer")
	}
	owner, c := e.newUser("alice", 0)
	ctx := context.Background()
	answer := make(chan *httpxtest.Response, 1)
	var held []string
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var me int
		if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&me); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT 1 FROM users WHERE id = $1 FOR UPDATE", owner); err != nil {
			return err
		}
		go func() { answer <- c.Upload("/api/v1/upload", "file", "new.bin", []byte("new content")) }()
		// The upload's session, once it waits for this transaction.
		var waiter int
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			err := e.db.QueryRow(ctx, "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", me).Scan(&waiter)
			if err == nil {
				break
			}
			if !errors.Is(err, sqlstore.ErrNotFound) || time.Now().After(deadline) {
				return fmt.Errorf("no upload waits for the owner's row: %v", err)
			}
		}
		rows, err := e.db.Query(ctx, `SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE l.pid = $1 AND l.mode = 'RowExclusiveLock' ORDER BY c.relname`, waiter)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return err
			}
			held = append(held, name)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := <-answer; r.Status != http.StatusOK {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	if !slices.Contains(held, "objects") || slices.Contains(held, "files") {
		t.Fatalf("waiting for its owner's row, the upload had written to %v; want objects before, files after", held)
	}
}

func TestGuestUpload(t *testing.T) {
	e := newTestEnv(t)
	r := e.c.Upload("/api/v1/public/upload", "file", "a.png", pngBytes(t, 2, 2))
	expectUploadError(t, r, 403, 40300)
	if env := r.U(); env.Message != "guest upload is disabled" {
		t.Fatalf("message %q", env.Message)
	}

	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = true })
	for i := 0; i < 10; i++ {
		env := e.c.Upload("/api/v1/public/upload", "file", "a.png", pngBytes(t, 2, 2+i)).Expect(200).U()
		if !env.Status {
			t.Fatalf("guest upload %d: %+v", i, env)
		}
	}
	r = e.c.Upload("/api/v1/public/upload", "file", "a.png", pngBytes(t, 3, 3))
	expectUploadError(t, r, 429, 42900)
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", e.auth.GuestID()); n != 10 {
		t.Fatalf("guest owns %d files, want 10", n)
	}
}

func TestSameContentIsStoredOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		aliceID, alice := e.newUser("alice", 0)
		_, bob := e.newUser("bob", 0)
		content := pngBytes(t, 30, 30)
		a := mustUpload(t, alice, "a.png", content)
		b := mustUpload(t, bob, "b.png", content)
		if a.Key != b.Key || a.Links.URL != b.Links.URL || a.ID == b.ID {
			t.Fatalf("dedup: %+v %+v", a, b)
		}
		if n := e.count("SELECT COUNT(*) FROM objects"); n != 1 {
			t.Fatalf("%d objects", n)
		}
		if n := e.count("SELECT ref_count FROM objects"); n != 2 {
			t.Fatalf("ref_count %d", n)
		}
		if files := e.storedFiles(); len(files) != 1 {
			t.Fatalf("stored %v", files)
		}
		if left := e.tempFiles(); len(left) != 0 {
			t.Fatalf("temp left: %v", left)
		}
		// Each user pays for their own record.
		if used, _ := e.usage(aliceID); used != int64(len(content)) {
			t.Fatalf("alice used %d", used)
		}

		alice.Do("DELETE", "/api/v1/files/"+a.ID, nil).Expect(200)
		e.c.Do("GET", a.path(), nil).Expect(200)
		e.c.Do("GET", "/t/"+a.hash(), nil).Expect(200)
		if used, n := e.usage(aliceID); used != 0 || n != 0 {
			t.Fatalf("alice usage after delete %d/%d", used, n)
		}
		bob.Do("DELETE", "/api/v1/files/"+b.ID, nil).Expect(200)
		e.c.Do("GET", a.path(), nil).Expect(404)
		e.c.Do("GET", "/t/"+a.hash(), nil).Expect(404)
		if files := e.storedFiles(); len(files) != 0 {
			t.Fatalf("content and thumbnail should be gone: %v", files)
		}
		if n := e.count("SELECT COUNT(*) FROM objects"); n != 0 {
			t.Fatalf("%d objects left", n)
		}
	})
}

// Uploads of the same bytes at the same moment still share one object: the
// unique index on shared content settles the race, and the losers reuse the
// winner's object and drop their copy.
func TestConcurrentIdenticalUploadsShareOneObject(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, alice := e.newUser("alice", 0)
		_, bob := e.newUser("bob", 0)
		content := pngBytes(t, 64, 48)
		const n = 12
		got := make(chan uploaded, n)
		var wg sync.WaitGroup
		for i := range n {
			c := alice
			if i%2 == 1 {
				c = bob
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				got <- mustUpload(t, c, "same.png", content)
			}()
		}
		wg.Wait()
		close(got)
		hashes := map[string]int{}
		for u := range got {
			hashes[u.hash()]++
		}
		if len(hashes) != 1 {
			t.Fatalf("%d uploads of the same bytes got short links %v, want one", n, hashes)
		}
		if objs := e.count("SELECT COUNT(*) FROM objects"); objs != 1 {
			t.Fatalf("%d objects, want 1", objs)
		}
		if refs := e.count("SELECT ref_count FROM objects"); refs != n {
			t.Fatalf("ref_count %d, want %d", refs, n)
		}
		if files := e.storedFiles(); len(files) != 1 {
			t.Fatalf("stored %v, want one copy", files)
		}
		if rows := e.count("SELECT COUNT(*) FROM files"); rows != n {
			t.Fatalf("%d file records, want %d", rows, n)
		}
	})
}

// Uploads of stored content and deletes of the same owner's copies, all at
// once, are each answered: on PostgreSQL both lock the owner's row before
// the object's, so neither waits on the other in a cycle the database would
// break by failing one (docs/filehost.md#lock-order).
func TestUploadsAndDeletesOfStoredContentTogether(t *testing.T) {
	e := newTestEnv(t)
	owner, c := e.newUser("alice", 0)
	content := pngBytes(t, 32, 24)
	mustUpload(t, c, "kept.png", content) // keeps the object while the rest come and go
	const clients, rounds = 8, 12
	failures := make(chan string, clients*rounds*2)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				r := c.Upload("/api/v1/upload", "file", "again.png", content)
				if r.Status != http.StatusOK {
					failures <- fmt.Sprintf("upload: %d %s", r.Status, r.Body)
					continue
				}
				var u uploaded
				if err := json.Unmarshal(r.U().Data, &u); err != nil {
					failures <- fmt.Sprintf("upload answer %s: %v", r.Body, err)
					continue
				}
				if r := c.Do("DELETE", "/api/v1/files/"+u.ID, nil); r.Status != http.StatusOK {
					failures <- fmt.Sprintf("delete %s: %d %s", u.ID, r.Status, r.Body)
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	if refs := e.count("SELECT ref_count FROM objects"); refs != 1 {
		t.Errorf("ref_count %d, want 1", refs)
	}
	if used, files := e.usage(owner); used != int64(len(content)) || files != 1 {
		t.Errorf("usage %d bytes in %d files, want %d in 1", used, files, len(content))
	}
}

// Batch deletes whose files share stored content, sent in opposite
// orders by two owners at once, must take the rows they change in one
// order (docs/filehost.md#lock-order): on PostgreSQL, two that took the
// same two objects the other way round would deadlock and one would fail.
func TestBatchDeletesOfSharedContentInOppositeOrders(t *testing.T) {
	e := newTestEnv(t)
	type owner struct {
		id string
		c  *httpxtest.Client
	}
	aliceID, alice := e.newUser("alice", 0)
	bobID, bob := e.newUser("bob", 0)
	owners := []owner{{aliceID, alice}, {bobID, bob}}
	contents := [][]byte{pngBytes(t, 32, 24), pngBytes(t, 24, 32), pngBytes(t, 16, 16)}
	for _, o := range owners {
		for i, content := range contents {
			mustUpload(t, o.c, fmt.Sprintf("kept%d.png", i), content) // keep the objects
		}
	}
	const rounds = 12
	for round := range rounds {
		var ids [2][]string
		for n, o := range owners {
			for i, content := range contents {
				ids[n] = append(ids[n], mustUpload(t, o.c, fmt.Sprintf("again%d.png", i), content).ID)
			}
		}
		slices.Reverse(ids[1]) // bob takes the objects the other way round
		var wg sync.WaitGroup
		failures := make(chan string, len(owners))
		for n, o := range owners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := map[string]any{"ids": ids[n]}
				if r := o.c.Do("POST", "/api/v1/files/batch-delete", body); r.Status != http.StatusOK {
					failures <- fmt.Sprintf("round %d: batch delete: %d %s", round, r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		close(failures)
		for f := range failures {
			t.Fatal(f)
		}
	}
	if refs := e.count("SELECT SUM(ref_count) FROM objects"); refs != len(owners)*len(contents) {
		t.Errorf("references %d, want %d", refs, len(owners)*len(contents))
	}
	for _, o := range owners {
		if _, files := e.usage(o.id); files != int64(len(contents)) {
			t.Errorf("%d files left, want %d", files, len(contents))
		}
	}
}

func TestAllowDuplicateStoresEveryUpload(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowDuplicate = true })
	_, c := e.newUser("alice", 0)
	content := []byte("same bytes every time")
	var hashes []string
	for i := 0; i < 3; i++ {
		u := mustUpload(t, c, "a.txt", content)
		hashes = append(hashes, u.hash())
		e.c.Do("GET", "/f/"+u.hash(), nil).Expect(200)
	}
	if hashes[0] == hashes[1] || hashes[1] == hashes[2] || hashes[0] == hashes[2] {
		t.Fatalf("short hashes not unique: %v", hashes)
	}
	if len(hashes[0]) != 8 || !strings.HasPrefix(hashes[1], hashes[0]) {
		t.Fatalf("hashes should be growing MD5 prefixes: %v", hashes)
	}
	if n := e.count("SELECT COUNT(*) FROM objects"); n != 3 {
		t.Fatalf("%d objects", n)
	}
	if files := e.storedFiles(); len(files) != 3 {
		t.Fatalf("stored %v", files)
	}
}

func TestMD5CollisionIsStoredApartWithASHA256Hash(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	content := []byte("the real content")
	md5 := fmt.Sprintf("%x", md5sum(content))
	// Another content with the same MD5 but a different SHA-256: what an
	// MD5 collision looks like in the table.
	if _, err := e.db.Exec(context.Background(), `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, ref_count, created_at)
		VALUES ($1, $2, $3, $4, 'other/key.txt', 5, 'text/plain', 'txt', 'file', 1, 0)`,
		sqlstore.NewID(), md5, strings.Repeat("0", 64), md5[:8]); err != nil {
		t.Fatal(err)
	}
	u := mustUpload(t, c, "a.txt", content)
	sha := fmt.Sprintf("%x", sha256sum(content))
	if u.hash() != sha[:8] {
		t.Fatalf("hash %q, want SHA-256 prefix %q", u.hash(), sha[:8])
	}
	if u.Key == "other/key.txt" {
		t.Fatal("colliding content shared an object")
	}
	body := e.c.Do("GET", "/f/"+u.hash(), nil).Expect(200).Body
	if !bytes.Equal(body, content) {
		t.Fatalf("served %q", body)
	}
}

func TestShortHashCandidates(t *testing.T) {
	md5 := "0123456789abcdef0123456789abcdef"
	sha := strings.Repeat("f", 64)
	id := "01900000-0000-7000-8000-000000000001"
	c := shortHashCandidates(md5, sha, id, false)
	if c[0] != md5[:8] || c[1] != md5[:9] || c[24] != md5 || c[25] != sha[:8] || c[len(c)-1] != strings.ReplaceAll(id, "-", "") {
		t.Fatalf("candidates %v", c)
	}
	c = shortHashCandidates(md5, sha, id, true)
	if c[0] != sha[:8] {
		t.Fatalf("taken MD5 must start at SHA-256: %v", c[:3])
	}
}

func TestFieldsMayFollowTheFile(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 0)
	album := e.createAlbum(uid, "trip")
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "x.png")
	fw.Write(pngBytes(t, 4, 4))
	mw.WriteField("album_id", album)
	mw.WriteField("permission", "1")
	mw.WriteField("strategy_id", "1")
	mw.WriteField("ssl", "true")
	mw.Close()
	req, _ := http.NewRequest("POST", c.Base+"/api/v1/upload", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var u uploaded
	httpxtest.Into(t, c.Send(req).Expect(200).U().Data, &u)
	var gotAlbum string
	var public bool
	if err := e.db.QueryRow(context.Background(), "SELECT album_id, is_public FROM files WHERE id = $1", u.ID).Scan(&gotAlbum, &public); err != nil {
		t.Fatal(err)
	}
	if gotAlbum != album || !public {
		t.Fatalf("album %q public %v", gotAlbum, public)
	}
}

func TestTypeComesFromTheContent(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	tests := []struct {
		name, file         string
		content            []byte
		mimetype, ext, pfx string
	}{
		{"png without extension", "picture", pngBytes(t, 2, 2), "image/png", "png", "/i/"},
		{"png named txt", "x.txt", pngBytes(t, 2, 3), "image/png", "txt", "/i/"},
		{"html named txt", "page.txt", []byte("<html><body><script>alert(1)</script>"), "text/html", "txt", "/f/"},
		{"plain text falls back to the extension", "data.csv", []byte("a,b\n1,2\n"), "text/csv", "csv", "/f/"},
		{"svg", "logo.svg", svgBytes, "image/svg+xml", "svg", "/i/"},
		{"pdf", "doc.pdf", pdfBytes, "application/pdf", "pdf", "/f/"},
		{"mp4", "clip.mp4", mp4Bytes, "video/mp4", "mp4", "/v/"},
		{"mp3", "song.mp3", mp3Bytes, "audio/mpeg", "mp3", "/a/"},
		{"jpeg with lying name", "x.gif", jpegBytes(t, 3, 3), "image/jpeg", "gif", "/i/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := mustUpload(t, c, tc.file, tc.content)
			if u.Mimetype != tc.mimetype || u.Extension != tc.ext || !strings.Contains(u.Links.URL, tc.pfx) {
				t.Fatalf("got %s %s %s", u.Mimetype, u.Extension, u.Links.URL)
			}
			if thumb := u.Links.ThumbnailURL != ""; thumb != thumbnailable(tc.mimetype) {
				t.Fatalf("thumbnail_url %q for %s", u.Links.ThumbnailURL, tc.mimetype)
			}
		})
	}
}

func TestLinksFollowOnlyTrustedProxies(t *testing.T) {
	e := newTestEnv(t)
	uid := e.createUser("alice", 0)
	tok := e.token(uid)
	send := func(remote string) uploaded {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "a.txt")
		fw.Write([]byte("proxy test " + remote))
		mw.Close()
		req := httptest.NewRequest("POST", "/api/v1/upload", &buf)
		req.RemoteAddr = remote
		req.Host = "files.example.com"
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-Forwarded-Proto", "https")
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var env struct{ Data uploaded }
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		return env.Data
	}
	if u := send("127.0.0.1:40000"); !strings.HasPrefix(u.Links.URL, "https://files.example.com/f/") ||
		!strings.HasPrefix(u.Links.DeleteURL, "https://files.example.com/api/v1/files/") {
		t.Fatalf("trusted proxy: %s", u.Links.URL)
	}
	if u := send("203.0.113.9:40000"); !strings.HasPrefix(u.Links.URL, "http://files.example.com/f/") {
		t.Fatalf("untrusted peer: %s", u.Links.URL)
	}
}

func TestInterruptedUploadLeavesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		// On S3, parts of S3's smallest size and more than two of them sent
		// before the hang-up, so that a multipart upload is really open.
		const part = 5 << 20
		sent := 1 << 20
		if s3, ok := e.store.(*storage.S3); ok {
			s3.PartSize = part
			sent = 2*part + 1<<20
		}
		uid := e.createUser("alice", 0)
		addr := strings.TrimPrefix(e.c.Base, "http://")
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		boundary := "XBOUNDARYX"
		head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n" +
			"Content-Type: application/octet-stream\r\n\r\n"
		fmt.Fprintf(conn, "POST /api/v1/upload HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s",
			addr, e.token(uid), boundary, 4*part, head)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for i := 0; i < sent/len(chunk); i++ { // less than the announced length
			if _, err := conn.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		// Wait until the server has begun storing the bytes, then hang up.
		deadline := time.Now().Add(20 * time.Second)
		for len(e.tempFiles()) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if len(e.tempFiles()) == 0 {
			t.Fatal("upload never reached a temp file")
		}
		conn.Close()
		for len(e.tempFiles()) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		// Temps lists temporary objects and, on S3, open multipart uploads.
		if left := e.tempFiles(); len(left) != 0 {
			t.Fatalf("temp files left: %v", left)
		}
		if files := e.storedFiles(); len(files) != 0 {
			t.Fatalf("stored files: %v", files)
		}
		if n := e.count("SELECT COUNT(*) FROM files"); n != 0 {
			t.Fatalf("%d records", n)
		}
		if n := e.count("SELECT COUNT(*) FROM objects"); n != 0 {
			t.Fatalf("%d objects", n)
		}
		if used, n := e.usage(uid); used != 0 || n != 0 {
			t.Fatalf("usage %d/%d", used, n)
		}
	})
}

func TestStreamHashedMatchesOneShotHashes(t *testing.T) {
	for _, size := range []int{1, chunkSize - 1, chunkSize, chunkSize*chunkCount + 17, 3*chunkSize*chunkCount + 5} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		var out bytes.Buffer
		// A reader that returns odd-sized pieces, like a multipart part.
		res, err := streamHashed(&out, &oddReader{data: data}, int64(size), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.size != int64(size) || res.md5 != fmt.Sprintf("%x", md5sum(data)) ||
			res.sha256 != fmt.Sprintf("%x", sha256sum(data)) || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("size %d: wrong result", size)
		}
		if _, err := streamHashed(io.Discard, bytes.NewReader(data), int64(size-1), nil); err != errTooLarge {
			t.Fatalf("size %d over limit: %v", size, err)
		}
	}
}

type oddReader struct {
	data []byte
	n    int
}

func (r *oddReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.n++
	k := min(len(p), len(r.data), 1000+r.n%4000)
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

func md5sum(b []byte) [16]byte    { return md5.Sum(b) }
func sha256sum(b []byte) [32]byte { return sha256.Sum256(b) }

func itoa(n int) string { return fmt.Sprint(n) }

func TestCleanNameKeepsASafeBaseName(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tt := range []struct{ name, in, want string }{
		{"plain name", "photo.jpg", "photo.jpg"},
		{"unix path", "../../etc/passwd", "passwd"},
		{"windows path", `C:\Users\a\photo.jpg`, "photo.jpg"},
		{"control characters", "a\x00b\x1f\x7f.png", "ab.png"},
		{"invalid utf-8", "bad\xffname.txt", "badname.txt"},
		{"surrounding spaces", "  photo.jpg  ", "photo.jpg"},
		{"empty", "", "file"},
		{"only spaces", "   ", "file"},
		{"root", "/", "file"},
		{"dot", ".", "file"},
		{"too long", long, strings.Repeat("é", maxNameRunes)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanName(tt.in); got != tt.want {
				t.Fatalf("cleanName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNameExtIsALowerCaseExtensionOrNothing(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a.JPG", "jpg"},
		{"a.tar.gz", "gz"},
		{"a.mp4", "mp4"},
		{"a", ""},
		{"a.", ""},
		{"a.j-pg", ""},
		{"a.ñu", ""},
		{"a.abcdefghijklmnop", "abcdefghijklmnop"},
		{"a.abcdefghijklmnopq", ""},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := nameExt(tt.in); got != tt.want {
				t.Fatalf("nameExt(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDetectMIMETrustsTheContentBeforeTheExtension(t *testing.T) {
	pngHead := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tt := range []struct {
		name string
		head string
		ext  string
		want string
	}{
		{"png named txt", string(pngHead), "txt", "image/png"},
		{"html named png", "<html><body>hi</body></html>", "png", "text/html"},
		{"text named json", `{"a": 1}`, "json", "application/json"},
		{"text without extension", "hello", "", "text/plain"},
		{"unknown bytes named pdf", "\x00\x01\x02\x03", "pdf", "application/pdf"},
		{"unknown bytes without extension", "\x00\x01\x02\x03", "", "application/octet-stream"},
		{"xml named svg", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>`, "svg", "image/svg+xml"},
		{"xml named json stays xml", `<?xml version="1.0"?><a/>`, "json", "text/xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := detectMIME([]byte(tt.head), tt.ext); got != tt.want {
				t.Fatalf("detectMIME(%q, %q) = %q, want %q", tt.head, tt.ext, got, tt.want)
			}
		})
	}
}

func TestMIMEExtPrefersTheUsualExtension(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"image/jpeg", "jpg"},
		{"image/svg+xml", "svg"},
		{"text/plain", "txt"},
		{"application/wasm", "wasm"},
		{"application/x-folio-unknown", "bin"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := mimeExt(tt.in); got != tt.want {
				t.Fatalf("mimeExt(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFileTypeFollowsTheMIMEFamily(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"image/png", "image"},
		{"image/svg+xml", "image"},
		{"video/mp4", "video"},
		{"audio/ogg", "audio"},
		{"application/ogg", "file"},
		{"application/pdf", "file"},
		{"text/plain", "file"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := fileTypeOf(tt.in); got != tt.want {
				t.Fatalf("fileTypeOf(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTypeAllowListMatchesTypesFamiliesAndExtensions(t *testing.T) {
	for _, tt := range []struct {
		name     string
		allowed  List
		mimetype string
		ext      string
		want     bool
	}{
		{"empty list allows all", nil, "application/x-msdownload", "exe", true},
		{"family matches", List{"image/*"}, "image/png", "png", true},
		{"family does not match another", List{"image/*"}, "video/mp4", "mp4", false},
		{"exact type matches", List{"application/pdf"}, "application/pdf", "pdf", true},
		{"exact type is not a prefix", List{"image/png"}, "image/pngx", "png", false},
		{"extension matches", List{"zip"}, "application/zip", "zip", true},
		{"extension does not match another", List{"zip"}, "application/x-gzip", "gz", false},
		{"any entry may match", List{"video/*", "txt"}, "text/plain", "txt", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := typeAllowed(tt.allowed, tt.mimetype, tt.ext); got != tt.want {
				t.Fatalf("typeAllowed(%v, %q, %q) = %v, want %v", tt.allowed, tt.mimetype, tt.ext, got, tt.want)
			}
		})
	}
}

func TestBuildKeyExpandsThePatternAndIsAlwaysUnique(t *testing.T) {
	// 2024-03-06 01:30 three hours east of UTC, still the 5th in UTC.
	now := time.Date(2024, 3, 6, 1, 30, 0, 0, time.FixedZone("east", 3*3600))
	md5hex := "0123456789abcdef0123456789abcdef"
	for _, tt := range []struct {
		name    string
		pattern string
		want    string // a regular expression
	}{
		{"uuid pattern is used as it is, dated in UTC", "{year}/{month}/{day}/{uuid}.{ext}",
			`^2024/03/05/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.png$`},
		{"suffix goes before the extension", "{md5_8}.{ext}", `^01234567-[0-9a-f]{12}\.png$`},
		{"suffix goes at the end without an extension", "files/{md5}", `^files/0123456789abcdef0123456789abcdef-[0-9a-f]{12}$`},
		{"a dot in a folder is no extension", "v1.2/{timestamp}", `^v1\.2/1709677800-[0-9a-f]{12}$`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := buildKey(tt.pattern, now, md5hex, "png"), buildKey(tt.pattern, now, md5hex, "png")
			if !regexp.MustCompile(tt.want).MatchString(a) {
				t.Fatalf("buildKey(%q) = %q, want it to match %s", tt.pattern, a, tt.want)
			}
			if a == b {
				t.Fatalf("buildKey(%q) gave %q twice", tt.pattern, a)
			}
		})
	}
}

// TestCommitOfARefusedKeyIsACleanError: should a pattern that the rules
// refuse reach commitNew anyway, the upload fails with an error and leaves
// no file, temporary or committed, behind.
func TestCommitOfARefusedKeyIsACleanError(t *testing.T) {
	e := newTestEnv(t)
	for _, pattern := range []string{".tmp/{uuid}", strings.Repeat("{md5}", 16), strings.Repeat("a/", 600) + "{uuid}", "{md5}\x00"} {
		w, err := e.store.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "content")
		key, _, err := e.svc.commitNew(context.Background(), w, pattern, time.Now(), "0cc175b9c0f1b6a831c399e269772661", "png")
		if !errors.Is(err, storage.ErrInvalidKey) || key != "" {
			t.Fatalf("commitNew(%.40q) = %q, %v; want ErrInvalidKey", pattern, key, err)
		}
		var files []string
		filepath.WalkDir(e.localRoot(), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		if len(files) != 0 {
			t.Fatalf("commitNew(%.40q) left %v", pattern, files)
		}
	}
}

func TestUploadBuffersAreSizedToTheBody(t *testing.T) {
	tests := []struct {
		name          string
		contentLength int64
		want          int
	}{
		{"unknown length (chunked)", -1, chunkSize},
		{"empty", 0, chunkSize},
		{"tiny", 1, 4096},
		{"a page", 4096, 4096},
		{"just over a page", 4097, 8192},
		{"small image", 30_000, 32768},
		{"as large as the buffer", chunkSize, chunkSize},
		{"larger", 100 << 20, chunkSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bufferSize(tt.contentLength, chunkSize); got != tt.want {
				t.Fatalf("bufferSize(%d) = %d, want %d", tt.contentLength, got, tt.want)
			}
		})
	}
}
