package filehost

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
)

// fuzzBoundary is the boundary of FuzzUploadBody's seeds.
const fuzzBoundary = "fuzz-boundary-7d1c"

// multipartBody builds a body of parts, each a header set and content.
func multipartBody(tb testing.TB, parts ...multipartPart) []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(fuzzBoundary); err != nil {
		tb.Fatal(err)
	}
	for _, p := range parts {
		pw, err := w.CreatePart(p.header)
		if err != nil {
			tb.Fatal(err)
		}
		pw.Write(p.content)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

type multipartPart struct {
	header  map[string][]string
	content []byte
}

func filePart(name string, content []byte) multipartPart {
	return multipartPart{map[string][]string{
		"Content-Disposition": {`form-data; name="file"; filename="` + name + `"`},
		"Content-Type":        {"application/octet-stream"},
	}, content}
}

func fieldPart(name, value string) multipartPart {
	return multipartPart{map[string][]string{"Content-Disposition": {`form-data; name="` + name + `"`}}, []byte(value)}
}

// FuzzUploadBody sends any body, with any boundary in its Content-Type, to
// the real upload handler as the administrator, on one file host per
// fuzzing process; the mode byte turns metadata stripping off (bit 0) and
// duplicates on (bit 1). It checks what docs/testing.md#fuzzing lists: no
// answer is a 5xx; a refused upload leaves no file in the storage folder
// (temporary ones included), no file or object row and no storage intent;
// an accepted one leaves one file row, at most one new stored file and no
// temporary file, and the record's object holds the file part's bytes
// (stripped when stripping is on), whose size and MD5 the answer gives.
func FuzzUploadBody(f *testing.F) {
	jpg, png := imagemetatest.MetaJPEG(f), pngBytes(f, 4, 4)
	seeds := []struct {
		body []byte
		mode byte
	}{
		{multipartBody(f, filePart("photo.jpg", jpg)), 0},
		{multipartBody(f, filePart("photo.jpg", jpg)), 1},
		{multipartBody(f, fieldPart("permission", "1"), filePart("a.png", png), fieldPart("expires_in", "3600")), 2},
		{multipartBody(f, filePart("a.png", png), filePart("b.png", pngBytes(f, 5, 5))), 0},
		{multipartBody(f, filePart("empty.txt", nil)), 0},
		{multipartBody(f, filePart("x.php", []byte("<?php echo 1;"))), 0},
		{multipartBody(f, filePart("page", []byte("<html><script>alert(1)</script>"))), 0},
		{multipartBody(f, fieldPart("album_id", "nope"), filePart("a.png", png)), 0},
		{multipartBody(f, fieldPart("expires_in", "3600"), fieldPart("expires_at", "2099-01-01T00:00:00Z"), filePart("a.txt", []byte("hi"))), 0},
		{multipartBody(f, fieldPart("strategy_id", "1")), 0},
		{multipartBody(f, filePart("photo.jpg", jpg))[:300], 0},
		{[]byte("--" + fuzzBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"q.txt\"\r\n" +
			"Content-Transfer-Encoding: quoted-printable\r\n\r\nh=C3=A9llo=\r\n world\r\n--" + fuzzBoundary + "--\r\n"), 0},
		{nil, 0},
	}
	for _, s := range seeds {
		f.Add(s.body, fuzzBoundary, s.mode)
	}
	f.Add(seeds[0].body, "", byte(0))
	f.Add(seeds[0].body, "other", byte(0))

	e := newTestEnv(f)
	auth := "Bearer " + e.token(e.auth.AdminID())
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte, boundary string, mode byte) {
		set := e.settings.Get(ctx)
		if strip, dup := mode&1 == 0, mode&2 != 0; set.StripMetadata != strip || set.AllowDuplicate != dup {
			set.StripMetadata, set.AllowDuplicate = strip, dup
			if err := e.settings.Put(ctx, set); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshotUploads(t, e)

		contentType := mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary})
		if contentType == "" {
			contentType = "multipart/form-data; boundary=" + boundary
		}
		req := httptest.NewRequest(http.MethodPost, "/api/v1/upload", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)

		after := snapshotUploads(t, e)
		if rec.Code >= 500 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !maps.Equal(after.temps, before.temps) {
			t.Fatalf("status %d: temporary files %v, before %v", rec.Code, slices.Sorted(maps.Keys(after.temps)), slices.Sorted(maps.Keys(before.temps)))
		}
		if after.intents != before.intents {
			t.Fatalf("status %d: %d storage intents, before %d", rec.Code, after.intents, before.intents)
		}
		if rec.Code != http.StatusOK {
			if !maps.Equal(after.files, before.files) || after.fileRows != before.fileRows || after.objectRows != before.objectRows {
				t.Fatalf("status %d (%s) left %d stored files (before %d), %d file rows (%d), %d objects (%d)", rec.Code, rec.Body,
					len(after.files), len(before.files), after.fileRows, before.fileRows, after.objectRows, before.objectRows)
			}
			return
		}

		var env struct {
			Status bool
			Data   struct {
				ID   string
				Size int64
				MD5  string
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || !env.Status {
			t.Fatalf("status 200 with %s (%v)", rec.Body, err)
		}
		if after.fileRows != before.fileRows+1 {
			t.Fatalf("an upload made %d file rows", after.fileRows-before.fileRows)
		}
		var key string
		if err := e.db.QueryRow(ctx, "SELECT o.storage_key FROM files f JOIN objects o ON o.id = f.object_id WHERE f.id = $1", env.Data.ID).Scan(&key); err != nil {
			t.Fatalf("the object of file %s: %v", env.Data.ID, err)
		}
		for k := range after.files {
			if !before.files[k] && k != key {
				t.Fatalf("stored %s besides the file's %s", k, key)
			}
		}
		r, err := e.store.Open(ctx, key)
		if err != nil {
			t.Fatalf("open %s: %v", key, err)
		}
		stored, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := firstFilePart(t, body, contentType)
		if set.StripMetadata {
			want, _ = io.ReadAll(imagemeta.NewStripReader(bytes.NewReader(want)))
		}
		if !bytes.Equal(stored, want) {
			t.Fatalf("stored %d bytes, not the %d of the file part", len(stored), len(want))
		}
		sum := md5.Sum(stored)
		if env.Data.Size != int64(len(stored)) || env.Data.MD5 != hex.EncodeToString(sum[:]) {
			t.Fatalf("the answer says %d bytes, md5 %s; stored %d, %x", env.Data.Size, env.Data.MD5, len(stored), sum)
		}
	})
}

// uploadSnapshot is what an upload may change: every file under the
// storage folder (the temporary folder apart), the rows and the intents.
type uploadSnapshot struct {
	files, temps                  map[string]bool
	fileRows, objectRows, intents int
}

func snapshotUploads(t *testing.T, e *testEnv) uploadSnapshot {
	s := uploadSnapshot{files: map[string]bool{}, temps: map[string]bool{}}
	root := e.localRoot()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if dir, name, ok := strings.Cut(rel, "/"); ok && dir == ".tmp" {
			s.temps[name] = true
		} else {
			s.files[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table string
		n     *int
	}{{"files", &s.fileRows}, {"objects", &s.objectRows}, {"storage_intents", &s.intents}} {
		if err := e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+c.table).Scan(c.n); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// firstFilePart is the content of the first part named "file", read the
// way the handler reads it.
func firstFilePart(t *testing.T, body []byte, contentType string) []byte {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("an accepted upload's Content-Type %q: %v", contentType, err)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("an accepted upload's body has no file part: %v", err)
		}
		if p.FormName() == "file" {
			b, err := io.ReadAll(p)
			if err != nil {
				t.Fatalf("an accepted upload's file part: %v", err)
			}
			return b
		}
	}
}
