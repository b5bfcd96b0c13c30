package filehost

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/filehost/imagemeta/imagemetatest"
	"folio/filehost/tus"
	"folio/httpx/httpxtest"
)

func TestTusChunkedUploadAnswersAsAnUpload(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, alice := e.newUser("alice", 0)
		e.setUpload(func(u *UploadSettings) { u.AllowDuplicate = true })
		content := pngBytes(t, 40, 30)
		path, got := tusSend(t, alice, "a.png", content, 100)
		want := mustUpload(t, alice, "b.png", content)
		sum := md5.Sum(content)
		if got.MD5 != hex.EncodeToString(sum[:]) || got.MD5 != want.MD5 || got.Size != want.Size || got.Mimetype != "image/png" ||
			got.OriginName != "a.png" || got.Links.URL == "" || got.Links.DeleteURL == "" {
			t.Fatalf("tus result %+v, upload %+v", got, want)
		}
		if served := alice.Do("GET", got.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(served, content) {
			t.Fatal("the assembled file is not the bytes sent")
		}
		r := tusHead(alice, path).Expect(http.StatusOK)
		if r.Header.Get(tus.HeaderUploadOffset) != strconv.Itoa(len(content)) || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("HEAD after finish: %v", r.Header)
		}
		if n := e.count("SELECT COUNT(*) FROM tus_parts"); n != 0 {
			t.Fatalf("%d parts left", n)
		}
		e.expectClean()
	})
}

func TestTusOptionsDescribesTheServer(t *testing.T) {
	e := newTestEnv(t)
	for _, path := range []string{"/api/v1/tus/", "/api/v1/tus/" + "0190aaaa-0000-7000-8000-000000000000"} {
		r := e.c.Do(http.MethodOptions, path, nil).Expect(http.StatusNoContent)
		h := r.Header
		if h.Get(tus.HeaderResumable) != "1.0.0" || h.Get(tus.HeaderVersion) != "1.0.0" ||
			h.Get(tus.HeaderExtension) != "creation,creation-with-upload,termination,checksum,expiration" ||
			h.Get(tus.HeaderMaxSize) != strconv.FormatInt(DefaultUploadSettings().MaxFileSize, 10) ||
			h.Get(tus.HeaderChecksumAlgorithm) != "md5,sha1" {
			t.Fatalf("OPTIONS %s: %v", path, h)
		}
	}
}

func TestTusRefusesBadRequests(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	_, small := e.newUser("small", 100)
	album := e.createAlbum(aliceID, "mine")
	bobsAlbum := e.createAlbum(e.createUser("carol", 0), "hers")
	e.setUpload(func(u *UploadSettings) { u.MaxFileSize = 1000 })
	path := tusPath(t, tusCreate(alice, 10, map[string]string{"filename": "a.bin", "album_id": album}))
	tusPatch(alice, path, 0, []byte("12345")).Expect(http.StatusNoContent)
	v := []string{tus.HeaderResumable, tus.Version}
	tests := []struct {
		name         string
		send         func() *httpxtest.Response
		status, code int
	}{
		{"POST without Tus-Resumable", func() *httpxtest.Response {
			return alice.Do(http.MethodPost, "/api/v1/tus/", nil, tus.HeaderUploadLength, "5")
		}, 412, 41200},
		{"PATCH of another version", func() *httpxtest.Response {
			return tusPatch(alice, path, 5, []byte("x"), tus.HeaderResumable, "0.2.2")
		}, 412, 41200},
		{"no credentials", func() *httpxtest.Response { return tusCreate(e.c, 5, nil) }, 401, 40100},
		{"no Upload-Length", func() *httpxtest.Response {
			return alice.Do(http.MethodPost, "/api/v1/tus/", nil, v...)
		}, 400, 40000},
		{"Upload-Defer-Length", func() *httpxtest.Response {
			return alice.Do(http.MethodPost, "/api/v1/tus/", nil, tus.HeaderResumable, tus.Version, tus.HeaderUploadDeferLength, "1")
		}, 400, 40000},
		{"malformed metadata", func() *httpxtest.Response {
			return tusCreate(alice, 5, nil, tus.HeaderUploadMetadata, "filename a.png")
		}, 400, 40000},
		{"longer than the maximum file size", func() *httpxtest.Response { return tusCreate(alice, 1001, nil) }, 413, 41300},
		{"forbidden extension", func() *httpxtest.Response {
			return tusCreate(alice, 5, map[string]string{"filename": "run.exe"})
		}, 415, 41500},
		{"over the quota", func() *httpxtest.Response { return tusCreate(small, 101, nil) }, 507, 50700},
		{"another user's album", func() *httpxtest.Response {
			return tusCreate(alice, 5, map[string]string{"album_id": bobsAlbum})
		}, 400, 40000},
		{"a bad visibility", func() *httpxtest.Response {
			return tusCreate(alice, 5, map[string]string{"visibility": "everyone"})
		}, 400, 40000},
		{"PATCH not as offset+octet-stream", func() *httpxtest.Response {
			return tusPatch(alice, path, 5, []byte("x"), "Content-Type", "application/octet-stream")
		}, 415, 41500},
		{"PATCH at the wrong offset", func() *httpxtest.Response { return tusPatch(alice, path, 3, []byte("x")) }, 409, 40900},
		{"PATCH beyond Upload-Length", func() *httpxtest.Response { return tusPatch(alice, path, 5, []byte("123456")) }, 413, 41301},
		{"unsupported checksum algorithm", func() *httpxtest.Response {
			return tusPatch(alice, path, 5, []byte("x"), tus.HeaderUploadChecksum, "sha256 "+base64.StdEncoding.EncodeToString(make([]byte, 32)))
		}, 400, 40000},
		{"unknown upload", func() *httpxtest.Response {
			return tusPatch(alice, "/api/v1/tus/0190aaaa-0000-7000-8000-000000000000", 0, []byte("x"))
		}, 404, 40400},
		{"not an id", func() *httpxtest.Response { return tusPatch(alice, "/api/v1/tus/nope", 0, []byte("x")) }, 404, 40400},
		{"another user's upload", func() *httpxtest.Response { return tusPatch(bob, path, 5, []byte("x")) }, 404, 40400},
		{"another user's upload, deleted", func() *httpxtest.Response {
			return bob.Do(http.MethodDelete, path, nil, v...)
		}, 404, 40400},
		{"GET of an unfinished upload", func() *httpxtest.Response { return alice.Do(http.MethodGet, path, nil, v...) }, 409, 40901},
		{"POST to an upload without an override", func() *httpxtest.Response {
			return alice.Do(http.MethodPost, path, nil, v...)
		}, 405, 40500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectTusError(t, tt.send(), tt.status, tt.code)
		})
	}
	if r := tusHead(alice, path).Expect(http.StatusOK); r.Header.Get(tus.HeaderUploadOffset) != "5" {
		t.Fatalf("the refused requests moved the offset: %v", r.Header)
	}
	if r := tusHead(bob, path); r.Status != http.StatusNotFound || len(r.Body) != 0 || r.Header.Get(tus.HeaderResumable) != tus.Version {
		t.Fatalf("HEAD of another's upload: %d %q", r.Status, r.Body)
	}
	e.expectClean()
}

func TestTusTypeRefusedAtCreationByDeclaredTypeOrName(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	e.setUpload(func(u *UploadSettings) { u.AllowedTypes = List{"image/*"} })
	expectTusError(t, tusCreate(alice, 5, map[string]string{"filename": "a", "filetype": "application/pdf"}), 415, 41500)
	expectTusError(t, tusCreate(alice, 5, map[string]string{"filename": "doc.pdf"}), 415, 41500)
	tusPath(t, tusCreate(alice, 5, map[string]string{"filename": "a.png", "filetype": "image/png"}))
}

func TestTusErrorsAtFinishRemoveTheUpload(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	e.setUpload(func(u *UploadSettings) { u.AllowedTypes = List{"image/*"} })
	// The name says nothing; the bytes say PDF.
	path := tusPath(t, tusCreate(alice, len(pdfBytes), map[string]string{"filename": "doc"}))
	expectTusError(t, tusPatch(alice, path, 0, pdfBytes), 415, 41500)
	if r := tusHead(alice, path); r.Status != http.StatusNotFound {
		t.Fatalf("the refused upload is still there: %d", r.Status)
	}
	if len(e.storedKeys()) != 0 {
		t.Fatalf("stored %v", e.storedKeys())
	}
	// The quota is checked again when the file is stored.
	content := pngBytes(t, 8, 8)
	q := e.clientFor(e.createUser("quota", int64(len(content)*3/2)))
	p1 := tusPath(t, tusCreate(q, len(content), map[string]string{"filename": "a.png"}))
	p2 := tusPath(t, tusCreate(q, len(content), map[string]string{"filename": "b.png"}))
	tusPatch(q, p1, 0, content).Expect(http.StatusNoContent)
	expectTusError(t, tusPatch(q, p2, 0, content), 507, 50700)
	if r := tusHead(q, p2); r.Status != http.StatusNotFound {
		t.Fatalf("the upload over the quota is still there: %d", r.Status)
	}
	e.expectClean()
}

func TestTusCreationWithUpload(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 20, 20)
	md := map[string]string{"filename": "w.png"}
	r := alice.Do(http.MethodPost, "/api/v1/tus/", content[:50], tus.HeaderResumable, tus.Version,
		tus.HeaderUploadLength, strconv.Itoa(len(content)), tus.HeaderUploadMetadata, tus.EncodeMetadata(md), "Content-Type", tus.ContentType)
	path := tusPath(t, r)
	if r.Header.Get(tus.HeaderUploadOffset) != "50" || r.Header.Get(tus.HeaderUploadExpires) == "" {
		t.Fatalf("creation with upload: %v", r.Header)
	}
	if _, err := http.ParseTime(r.Header.Get(tus.HeaderUploadExpires)); err != nil {
		t.Fatalf("Upload-Expires: %v", err)
	}
	tusPatch(alice, path, 50, content[50:]).Expect(http.StatusNoContent)
	if got := tusResult(t, alice, path); got.Size != int64(len(content)) {
		t.Fatalf("result %+v", got)
	}
	// A whole file in the creation request is finished at once.
	whole := pngBytes(t, 21, 20)
	r = alice.Do(http.MethodPost, "/api/v1/tus/", whole, tus.HeaderResumable, tus.Version,
		tus.HeaderUploadLength, strconv.Itoa(len(whole)), tus.HeaderUploadMetadata, tus.EncodeMetadata(md), "Content-Type", tus.ContentType)
	if got := tusResult(t, alice, tusPath(t, r)); got.Size != int64(len(whole)) {
		t.Fatalf("result %+v", got)
	}
	e.expectClean()
}

func TestTusChecksums(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 30, 20)
	path := tusPath(t, tusCreate(alice, len(content), map[string]string{"filename": "c.png"}))
	a, b := content[:60], content[60:]
	m := md5.Sum(a)
	tusPatch(alice, path, 0, a, tus.HeaderUploadChecksum, "md5 "+base64.StdEncoding.EncodeToString(m[:])).Expect(http.StatusNoContent)
	wrong := sha1.Sum([]byte("other"))
	expectTusError(t, tusPatch(alice, path, 60, b, tus.HeaderUploadChecksum, "sha1 "+base64.StdEncoding.EncodeToString(wrong[:])), 460, 46000)
	if r := tusHead(alice, path); r.Header.Get(tus.HeaderUploadOffset) != "60" {
		t.Fatalf("the mismatched chunk moved the offset: %v", r.Header)
	}
	s := sha1.Sum(b)
	tusPatch(alice, path, 60, b, tus.HeaderUploadChecksum, "sha1 "+base64.StdEncoding.EncodeToString(s[:])).Expect(http.StatusNoContent)
	if got := tusResult(t, alice, path); got.Size != int64(len(content)) {
		t.Fatalf("result %+v", got)
	}
	e.expectClean()
}

func TestTusTerminationRemovesTheBytes(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, alice := e.newUser("alice", 0)
		path := tusPath(t, tusCreate(alice, 100, map[string]string{"filename": "t.bin"}))
		tusPatch(alice, path, 0, bytes.Repeat([]byte("a"), 40)).Expect(http.StatusNoContent)
		if len(e.storedKeys()) != 1 {
			t.Fatalf("stored %v, want one part", e.storedKeys())
		}
		e.expectClean()
		alice.Do(http.MethodDelete, path, nil, tus.HeaderResumable, tus.Version).Expect(http.StatusNoContent)
		if keys := e.storedKeys(); len(keys) != 0 {
			t.Fatalf("stored %v after termination", keys)
		}
		expectTusError(t, tusPatch(alice, path, 40, []byte("b")), 404, 40400)
		if n := e.count("SELECT COUNT(*) FROM storage_intents"); n != 0 {
			t.Fatalf("%d intents left", n)
		}
		e.expectClean()
	})
}

func TestTusExpiredUploadsAreGoneAndSwept(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		clock := newTestClock(e)
		_, alice := e.newUser("alice", 0)
		open := tusPath(t, tusCreate(alice, 100, map[string]string{"filename": "x.bin"}))
		tusPatch(alice, open, 0, bytes.Repeat([]byte("a"), 40)).Expect(http.StatusNoContent)
		done, _ := tusSend(t, alice, "p.png", pngBytes(t, 5, 5), 30)
		clock.advance(23 * time.Hour)
		tusHead(alice, open).Expect(http.StatusOK)
		tusHead(alice, done).Expect(http.StatusOK)
		clock.advance(2 * time.Hour)
		expectTusError(t, tusPatch(alice, open, 40, []byte("b")), 404, 40400)
		expectTusError(t, alice.Do(http.MethodGet, done, nil, tus.HeaderResumable, tus.Version), 404, 40400)
		rep, err := e.svc.JanitorPass(context.Background())
		if err != nil || rep.TusExpired != 2 {
			t.Fatalf("janitor: %+v, %v", rep, err)
		}
		if n := e.count("SELECT COUNT(*) FROM tus_uploads"); n != 0 {
			t.Fatalf("%d uploads left", n)
		}
		if keys := e.storedKeys(); len(keys) != 1 { // the finished file stays
			t.Fatalf("stored %v", keys)
		}
		e.expectClean()
	})
}

func TestTusDroppedChunkKeepsWhatCame(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	content := pngBytes(t, 60, 60)
	path := tusPath(t, tusCreate(alice, len(content), map[string]string{"filename": "d.png"}))
	// A client that declares the whole rest and goes away after 100 bytes.
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.c.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PATCH %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nTus-Resumable: 1.0.0\r\n"+
		"Content-Type: %s\r\nUpload-Offset: 0\r\nContent-Length: %d\r\n\r\n", path, e.token(aliceID), tus.ContentType, len(content))
	conn.Write(content[:100])
	time.Sleep(50 * time.Millisecond)
	conn.Close()
	var offset string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if offset = tusHead(alice, path).Header.Get(tus.HeaderUploadOffset); offset != "0" {
			break
		}
	}
	if offset != "100" {
		t.Fatalf("offset %s after a chunk cut at 100 bytes", offset)
	}
	tusPatch(alice, path, 100, content[100:]).Expect(http.StatusNoContent)
	got := tusResult(t, alice, path)
	if served := alice.Do("GET", got.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(served, content) {
		t.Fatal("the file is not the bytes sent")
	}
	e.expectClean()
}

func TestTusLoserOfARaceDiscardsItsChunk(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	path := tusPath(t, tusCreate(alice, 10, map[string]string{"filename": "r.bin"}))
	ctx := context.Background()
	u, err := e.svc.tusOwned(ctx, path[len("/api/v1/tus/"):], aliceID)
	if err != nil {
		t.Fatal(err)
	}
	stale := *u
	if _, err := e.svc.writeTusChunk(ctx, u, 0, bytes.NewReader([]byte("abc")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.writeTusChunk(ctx, &stale, 0, bytes.NewReader([]byte("xyz")), nil); !errors.Is(err, errTusOffset) {
		t.Fatalf("the second chunk at 0: %v, want the 409", err)
	}
	if keys := e.storedKeys(); len(keys) != 1 {
		t.Fatalf("stored %v, want the winner's part only", keys)
	}
	e.expectClean()
}

func TestTusContinuesOnAnotherProcess(t *testing.T) {
	cfg, dir := sqlstoreConfig(t), t.TempDir()
	one := newTestEnvOn(t, cfg.Open(t), dir)
	two := newTestEnvOn(t, cfg.Open(t), dir)
	aliceID := one.createUser("alice", 0)
	content := pngBytes(t, 50, 40)
	a, b := one.clientFor(aliceID), two.clientFor(aliceID)
	path := tusPath(t, tusCreate(a, len(content), map[string]string{"filename": "m.png"}))
	tusPatch(a, path, 0, content[:100]).Expect(http.StatusNoContent)
	if r := tusHead(b, path).Expect(http.StatusOK); r.Header.Get(tus.HeaderUploadOffset) != "100" {
		t.Fatalf("the other process sees %v", r.Header)
	}
	tusPatch(b, path, 100, content[100:]).Expect(http.StatusNoContent)
	got := tusResult(t, a, path)
	if served := a.Do("GET", got.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(served, content) {
		t.Fatal("the file is not the bytes sent")
	}
	one.expectClean()
}

func TestTusDeduplicatesWithAnEarlierUpload(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 33, 33)
	first := mustUpload(t, alice, "first.png", content)
	_, got := tusSend(t, alice, "again.png", content, 64)
	if got.Key != first.Key || got.Links.URL != first.Links.URL || got.ID == first.ID {
		t.Fatalf("tus %+v, first %+v: want the same object, another record", got, first)
	}
	if n := e.count("SELECT COUNT(*) FROM objects"); n != 1 {
		t.Fatalf("%d objects", n)
	}
	e.expectClean()
}

func TestTusStripsMetadata(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	photo := imagemetatest.MetaJPEG(t)
	_, got := tusSend(t, alice, "photo.jpg", photo, 1000)
	served := alice.Do("GET", got.path(), nil).Expect(http.StatusOK).Body
	want := strip(t, bytes.NewReader(photo))
	if !bytes.Equal(served, want) || got.Size != int64(len(want)) || len(want) >= len(photo) {
		t.Fatalf("served %d bytes, want the %d stripped of %d", len(served), len(want), len(photo))
	}
	e.expectClean()
}

func TestTusWithAConsoleSession(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	content := pngBytes(t, 9, 9)
	good := []string{"Origin", e.c.Base}
	r := tusCreate(b, len(content), map[string]string{"filename": "s.png"}, good...)
	path := tusPath(t, r)
	expectTusError(t, tusPatch(b, path, 0, content, "Origin", "https://elsewhere.example"), 403, 40300)
	tusPatch(b, path, 0, content, good...).Expect(http.StatusNoContent)
	if got := tusResult(t, b, path); got.Size != int64(len(content)) {
		t.Fatalf("result %+v", got)
	}
	expectTusError(t, tusCreate(b, 5, nil, "Origin", "https://elsewhere.example"), 403, 40300)
	e.expectClean()
}

func TestTusMethodOverride(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 7, 7)
	path := tusPath(t, tusCreate(alice, len(content), map[string]string{"filename": "o.png"}))
	alice.Do(http.MethodPost, path, content, tus.HeaderResumable, tus.Version, tus.HeaderMethodOverride, "PATCH",
		"Content-Type", tus.ContentType, tus.HeaderUploadOffset, "0").Expect(http.StatusNoContent)
	r := alice.Do(http.MethodPost, path, nil, tus.HeaderResumable, tus.Version, tus.HeaderMethodOverride, "HEAD").Expect(http.StatusOK)
	if r.Header.Get(tus.HeaderUploadOffset) != strconv.Itoa(len(content)) {
		t.Fatalf("HEAD by override: %v", r.Header)
	}
	alice.Do(http.MethodPost, path, nil, tus.HeaderResumable, tus.Version, tus.HeaderMethodOverride, "DELETE").Expect(http.StatusNoContent)
	tusHead(alice, path).Expect(http.StatusNotFound)
	e.expectClean()
}
