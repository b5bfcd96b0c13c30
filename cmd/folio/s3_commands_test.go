package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/sqlstore/sqlstoretest"
	"folio/storage"
	"folio/storage/storagetest"
)

// s3ConfigLines are the configuration-file lines naming the bucket of cfg.
func s3ConfigLines(cfg storage.S3Config) string {
	return fmt.Sprintf("storage.s3.endpoint = %q\nstorage.s3.bucket = %q\nstorage.s3.access_key = %q\nstorage.s3.secret_key = %q\n",
		cfg.Endpoint, cfg.Bucket, cfg.AccessKey, cfg.SecretKey)
}

// s3Env is the environment of a server storing in the bucket of cfg.
func s3Env(cfg storage.S3Config) []string {
	return []string{"FOLIO_STORAGE_DRIVER=s3",
		"FOLIO_STORAGE_S3_ENDPOINT=" + cfg.Endpoint, "FOLIO_STORAGE_S3_BUCKET=" + cfg.Bucket,
		"FOLIO_STORAGE_S3_ACCESS_KEY=" + cfg.AccessKey, "FOLIO_STORAGE_S3_SECRET_KEY=" + cfg.SecretKey}
}

// newS3Site is a running site storing in a new bucket, with a
// configuration file saying storage.driver = s3, and the bucket itself.
func newS3Site(t *testing.T) (*backupSite, *storage.S3) {
	t.Helper()
	cfg := storagetest.S3Config(t)
	bucket := storagetest.S3With(t, cfg)
	s := &backupSite{db: sqlstoretest.NewConfig(t)}
	s.app, s.admin = newTestAppOn(t, s.db, s3Env(cfg)...)
	s.admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	// storage.dir is named but never created: on s3 nothing may use it.
	s.config = writeSiteConfig(t, s.db, filepath.Join(t.TempDir(), "unused"))
	appendConfig(t, s.config, "storage.driver = s3\n"+s3ConfigLines(cfg))
	return s, bucket
}

func TestBackupOfASiteOnS3HoldsEveryObject(t *testing.T) {
	site, bucket := newS3Site(t)
	site.populate(t)
	stored := storeDigests(t, bucket)
	entries := readArchive(t, site.backup(t))
	m := manifestOf(t, entries)
	// The three distinct uploads and the two PNGs' thumbnails.
	if len(stored) != 5 || len(m.Objects) != 5 {
		t.Fatalf("%d objects in the bucket, %d in the manifest; want 5 each: %v", len(stored), len(m.Objects), m.Objects)
	}
	body := map[string][]byte{}
	for _, e := range entries {
		body[e.hdr.Name] = e.body
	}
	for _, o := range m.Objects {
		b, ok := body[o.Name]
		sum := md5.Sum(b)
		if !ok || o.Name != "files/"+o.Key || o.Size != int64(len(b)) || o.SHA256 != sha(b) || stored[o.Key] != hex.EncodeToString(sum[:]) {
			t.Errorf("manifest entry %+v does not describe the object in the bucket (in the archive: %v)", o, ok)
		}
	}
}

func TestFsckOnS3FindsThenFixesOrphanAndMissingObjects(t *testing.T) {
	site, bucket := newS3Site(t)
	files := site.populate(t)
	ctx := context.Background()
	const orphan = "2026/11/lost.png"
	w, err := bucket.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("bytes of no record")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(orphan); err != nil {
		t.Fatal(err)
	}
	missing := files[3] // notes.txt, an object of its own
	if err := bucket.Delete(ctx, missing.Key); err != nil {
		t.Fatal(err)
	}
	fsck := fsckSite{config: site.config}

	code, rep := fsck.fsckJSON(t)
	if code != 1 || rep["orphans"] != float64(1) || rep["missing"] != float64(1) || rep["remaining"] != float64(2) {
		t.Fatalf("exit %d, report %v; want 1, one orphan and one missing", code, rep)
	}
	if code, out := fsck.fsck(t); code != 1 || !strings.Contains(out, orphan) || !strings.Contains(out, missing.Key) {
		t.Errorf("text output: exit %d, %q", code, out)
	}
	if _, err := bucket.Stat(ctx, orphan); err != nil {
		t.Fatalf("fsck without -fix touched the orphan: %v", err)
	}

	code, rep = fsck.fsckJSON(t, "-fix")
	if code != 0 || rep["fixed"] != true || rep["remaining"] != float64(0) {
		t.Fatalf("fix: exit %d, report %v", code, rep)
	}
	if _, err := bucket.Stat(ctx, orphan); err == nil {
		t.Error("the orphan is still in the bucket after -fix")
	}
	site.admin.Do("GET", missing.Link, nil).Expect(404)
	for _, f := range files[:3] {
		site.admin.Do("GET", f.Link, nil).Expect(200)
	}
	if code, rep := fsck.fsckJSON(t); code != 0 {
		t.Errorf("exit %d after the fix: %v", code, rep)
	}
}
