package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/storage"
	"folio/storage/storagetest"
)

func TestDriverTableNamesEachDriverOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range storage.Drivers() {
		if d.Name == "" || d.Where == "" || d.Open == nil {
			t.Errorf("row %+v lacks a name, a place or an opener", d)
		}
		if seen[d.Name] {
			t.Errorf("driver %q is listed twice", d.Name)
		}
		seen[d.Name] = true
		got, ok := storage.Lookup(d.Name)
		if !ok || got.Name != d.Name {
			t.Errorf("Lookup(%q) = %q, %v", d.Name, got.Name, ok)
		}
	}
	if !seen["local"] || !seen["s3"] || len(seen) != 2 {
		t.Errorf("drivers = %v, want local and s3", seen)
	}
	// The table is rebuilt on each call: a caller cannot change it.
	storage.Drivers()[0].Name = "changed"
	if storage.Drivers()[0].Name == "changed" {
		t.Error("a change to the returned table reached the next call")
	}
}

func TestDriverCapabilities(t *testing.T) {
	local, _ := storage.Lookup("local")
	if !local.Folder || !local.Restore || local.Redirect != nil || local.Validate != nil || local.Where != "storage.dir" {
		t.Errorf("local: Folder %v, Restore %v, Redirect set %v, Validate set %v, Where %q; want a restorable folder that never redirects",
			local.Folder, local.Restore, local.Redirect != nil, local.Validate != nil, local.Where)
	}
	s3, _ := storage.Lookup("s3")
	if s3.Folder || s3.Restore || s3.Redirect == nil || s3.Validate == nil || s3.Where != "storage.s3.*" {
		t.Errorf("s3: Folder %v, Restore %v, Redirect set %v, Validate set %v, Where %q; want a bucket that can redirect",
			s3.Folder, s3.Restore, s3.Redirect != nil, s3.Validate != nil, s3.Where)
	}
	for _, redirect := range []bool{false, true} {
		cfg := storage.Config{Driver: "s3", S3: storage.S3Config{Redirect: redirect}}
		if got := s3.Redirect(cfg); got != redirect {
			t.Errorf("s3 Redirect with storage.s3.redirect = %v: %v", redirect, got)
		}
	}
}

func TestDriverValidateNamesTheSettings(t *testing.T) {
	s3, _ := storage.Lookup("s3")
	err := s3.Validate(storage.Config{Driver: "s3"})
	if err == nil {
		t.Fatal("an empty bucket configuration passed")
	}
	for _, want := range []string{"storage.s3: ", "an endpoint is required", "bucket name", "access key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "storage: s3:") {
		t.Errorf("error %q carries the store's prefix as well", err)
	}
	if err := s3.Validate(storage.Config{Driver: "s3", S3: validS3Config()}); err != nil {
		t.Errorf("a valid bucket configuration: %v", err)
	}
}

func validS3Config() storage.S3Config {
	return storage.S3Config{Endpoint: "http://127.0.0.1:1", Bucket: "folio-bucket", AccessKey: "a", SecretKey: "b"}
}

func TestOpenUnknownDriver(t *testing.T) {
	for _, name := range []string{"", "ftp", "S3"} {
		if _, ok := storage.Lookup(name); ok {
			t.Errorf("Lookup(%q) found a row", name)
		}
		s, err := storage.Open(storage.Config{Driver: name, Dir: t.TempDir()})
		if err == nil || s != nil {
			t.Fatalf("Open(%q) = %v, %v; want an error", name, s, err)
		}
		if want := `storage: unknown driver "` + name + `" (the drivers are local, s3)`; err.Error() != want {
			t.Errorf("Open(%q): %q, want %q", name, err, want)
		}
	}
}

func TestOpenLocalFromConfig(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "files")
	s, err := storage.Open(storage.Config{Driver: "local", Dir: dir, Instance: "inst-1"})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := s.(*storage.Local)
	if !ok || l.Root() != dir {
		t.Fatalf("Open = %T rooted at %v, want a *storage.Local at %s", s, l, dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("the folder was not created: %v", err)
	}
	if temps := beginOne(t, s, []byte("held")); len(temps) != 1 || temps[0].Instance != "inst-1" {
		t.Errorf("temps %+v, want one tagged inst-1", temps)
	}
	if err := storage.Check(ctx, s); err != nil {
		t.Errorf("Check on a folder: %v", err)
	}

	if _, err := storage.Open(storage.Config{Driver: "local"}); err == nil {
		t.Error("a local store without a folder opened")
	}
	if s, err := storage.Open(storage.Config{Driver: "local", Dir: dir, Instance: "bad tag"}); err == nil || s != nil {
		t.Errorf("a bad instance tag: %v, %v", s, err)
	}
}

// beginOne begins a write of content on s, leaves it open until the test
// ends, and returns the store's temporaries.
func beginOne(t *testing.T, s storage.Store, content []byte) []storage.Temp {
	t.Helper()
	ctx := context.Background()
	w, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Abort() })
	if err := chunked(w, content); err != nil {
		t.Fatal(err)
	}
	temps, err := s.Temps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return temps
}

func TestOpenS3FromConfigMakesNoRequest(t *testing.T) {
	s, err := storage.Open(storage.Config{Driver: "s3", S3: validS3Config(), Instance: "inst-1"})
	if err != nil {
		t.Fatal(err)
	}
	s3, ok := s.(*storage.S3)
	if !ok || s3.Config().Bucket != "folio-bucket" {
		t.Fatalf("Open = %T, want a *storage.S3 on folio-bucket", s)
	}
	// Nothing listens on port 1: Check is the first request, and fails.
	if err := storage.Check(context.Background(), s); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("Check on a server that is not there: %v", err)
	}
	if _, err := storage.Open(storage.Config{Driver: "s3"}); err == nil || !strings.HasPrefix(err.Error(), "storage: s3: ") {
		t.Errorf("an empty bucket configuration opened: %v", err)
	}
}

func TestOpenS3FromConfigOnABucket(t *testing.T) {
	cfg := storagetest.S3Config(t)
	storagetest.S3With(t, cfg) // creates the bucket, removes it at the end
	s, err := storage.Open(storage.Config{Driver: "s3", S3: cfg, Instance: "inst-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := storage.Check(context.Background(), s); err != nil {
		t.Errorf("Check on the test bucket: %v", err)
	}
	// More than a part, so that the writer has begun an upload.
	s.(*storage.S3).PartSize = testPart
	if temps := beginOne(t, s, randomBytes(testPart+1, 7)); len(temps) != 1 || temps[0].Instance != "inst-1" {
		t.Errorf("temps %+v, want one tagged inst-1", temps)
	}
}
