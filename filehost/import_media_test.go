package filehost

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

func TestImportMediaStoresThroughTheUploadPipeline(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	owner, c := e.newUser("alice", 0)
	// Her own uploads are restricted; the blog's images must not be.
	c.Do("PATCH", "/api/v1/auth/me", map[string]any{"default_visibility": "restricted"}).Expect(http.StatusOK)
	photo := imagemetatest.MetaJPEG(t)
	link, err := e.svc.ImportMedia(ctx, owner, "photo.jpg", MediaImage, bytes.NewReader(photo))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, "/i/") {
		t.Fatalf("link %q is not a short link's path", link)
	}
	got := e.c.Do("GET", link, nil).Expect(http.StatusOK).Body // anyone reads it
	if want := strip(t, bytes.NewReader(photo)); !bytes.Equal(got, want) {
		t.Fatalf("served %d bytes, want the %d stripped bytes", len(got), len(want))
	}
	var visibility, name string
	if err := e.db.QueryRow(ctx, "SELECT visibility, origin_name FROM files WHERE user_id = $1", owner).Scan(&visibility, &name); err != nil {
		t.Fatal(err)
	}
	if visibility != visUnlisted || name != "photo.jpg" {
		t.Errorf("the file is %s, named %q", visibility, name)
	}
	// The same picture again, from another address: the same file.
	again, err := e.svc.ImportMedia(ctx, owner, "copy.jpg", MediaImage, bytes.NewReader(photo))
	if err != nil || again != link {
		t.Fatalf("again: %q, %v; want %q", again, err, link)
	}
	if used, files := e.usage(owner); files != 1 || used != int64(len(got)) {
		t.Errorf("usage %d bytes in %d files after two imports of one picture", used, files)
	}
	if ok, err := e.svc.MediaExists(ctx, link); !ok || err != nil {
		t.Errorf("MediaExists(%s) = %v, %v", link, ok, err)
	}
	for _, bad := range []string{"", "/i/", "/x/" + strings.TrimPrefix(link, "/i/"), "/v/" + strings.TrimPrefix(link, "/i/"), "/i/zzzzzzzz", "/i/00000000"} {
		if ok, err := e.svc.MediaExists(ctx, bad); ok || err != nil {
			t.Errorf("MediaExists(%q) = %v, %v", bad, ok, err)
		}
	}
	var id string
	if err := e.db.QueryRow(ctx, "SELECT id FROM files WHERE user_id = $1", owner).Scan(&id); err != nil {
		t.Fatal(err)
	}
	c.Do("DELETE", "/api/v1/files/"+id, nil).Expect(http.StatusOK)
	if ok, err := e.svc.MediaExists(ctx, link); ok || err != nil {
		t.Errorf("MediaExists of a deleted file = %v, %v", ok, err)
	}
}

func TestImportMediaRefusalsSayWhy(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	owner, _ := e.newUser("bob", 0)
	small, _ := e.newUser("carol", 10)
	e.setUpload(func(u *UploadSettings) { u.MaxFileSize = 1 << 20 })
	readFails := errors.New("the old site hung up")
	tests := []struct {
		name, owner, kind string
		r                 io.Reader
		want              string
	}{
		{"a web page where an image was wanted", owner, MediaImage, strings.NewReader("<!doctype html><p>Not found</p>"), "it is not an image but text/html"},
		{"a file over the upload limit", owner, "", bytes.NewReader(make([]byte, 2<<20)), "larger than the file host's upload.max_file_size"},
		{"a full quota", small, MediaImage, bytes.NewReader(imagemetatest.MetaPNG(t)), "the owner's storage quota is full"},
		{"an empty file", owner, "", strings.NewReader(""), "file is empty"},
		{"a source that fails", owner, "", io.MultiReader(strings.NewReader("partial"), errReader{readFails}), readFails.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link, err := e.svc.ImportMedia(ctx, tt.owner, "x.bin", tt.kind, tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.want) || link != "" {
				t.Fatalf("%q, %v; want an error saying %q", link, err, tt.want)
			}
			if len(e.temps()) != 0 {
				t.Errorf("temporary files left: %v", e.temps())
			}
		})
	}
	if _, files := e.usage(owner); files != 0 {
		t.Errorf("%d files recorded", files)
	}
	// A file that is not an image is taken when any file is.
	if link, err := e.svc.ImportMedia(ctx, owner, "notes.pdf", "", strings.NewReader("%PDF-1.4 notes")); err != nil || !strings.HasPrefix(link, "/f/") {
		t.Errorf("a PDF: %q, %v", link, err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
