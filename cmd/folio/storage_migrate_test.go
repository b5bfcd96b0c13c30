package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/filehost"
	"folio/storage"
	"folio/storage/storagetest"
)

// migrateFixture is a populated site on local storage and an empty local
// destination: the copying itself does not depend on the drivers, so it
// is tested here on two folders, and end to end against S3 in
// TestStorageMigrateToS3AndBack.
type migrateFixture struct {
	site     *backupSite
	files    []uploaded
	src, dst *storage.Local
	dstDir   string
}

func newMigrateFixture(t *testing.T) migrateFixture {
	t.Helper()
	f := migrateFixture{site: newBackupSite(t), dstDir: t.TempDir()}
	f.files = f.site.populate(t)
	var err error
	if f.src, err = storage.NewLocal(f.site.storage); err != nil {
		t.Fatal(err)
	}
	if f.dst, err = storage.NewLocal(f.dstDir); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f migrateFixture) run(t *testing.T, ctx context.Context) (migrateReport, error) {
	t.Helper()
	recorded := func(ctx context.Context, key string) (string, bool, error) {
		return filehost.RecordedMD5(ctx, f.site.app.db, key)
	}
	return migrateObjects(ctx, f.src, f.dst, recorded, noType, 2)
}

// noType is the type of everything copied between folders, which keep none.
func noType(context.Context, string) (string, error) { return "", nil }

// keys lists every key of s with the MD5 of its bytes.
func storeDigests(t *testing.T, s storage.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.List(context.Background(), func(key string, _ int64) error {
		sum, err := storedMD5(context.Background(), s, key)
		out[key] = sum
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMigrateCopiesEveryObjectAndResumes(t *testing.T) {
	f := newMigrateFixture(t)
	want := storeDigests(t, f.src)
	if len(want) < 4 { // three distinct uploads and a thumbnail
		t.Fatalf("source holds %d keys: %v", len(want), want)
	}

	rep, err := f.run(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Objects != len(want) || rep.Copied != len(want) || rep.Failed != 0 || len(rep.Mismatched) != 0 {
		t.Fatalf("first run: %+v, want %d copied", rep, len(want))
	}
	if got := storeDigests(t, f.dst); !equalMaps(got, want) {
		t.Fatalf("destination %v, want %v", got, want)
	}

	// A second run finds everything there and copies nothing.
	rep, err = f.run(t, context.Background())
	if err != nil || rep.Present != len(want) || rep.Copied != 0 || rep.Bytes != 0 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}

	// Damaged or missing copies are made again; the rest are kept.
	var damaged, missing string
	for key := range want {
		switch {
		case damaged == "":
			damaged = key
		case missing == "":
			missing = key
		}
	}
	path := filepath.Join(f.dstDir, filepath.FromSlash(damaged))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff // same size, other bytes
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.dst.Delete(context.Background(), missing); err != nil {
		t.Fatal(err)
	}
	rep, err = f.run(t, context.Background())
	if err != nil || rep.Replaced != 1 || rep.Copied != 1 || rep.Present != len(want)-2 {
		t.Fatalf("third run: %+v, %v", rep, err)
	}
	if got := storeDigests(t, f.dst); !equalMaps(got, want) {
		t.Fatalf("after the third run the destination differs: %v, want %v", got, want)
	}
}

func TestMigrateReportsSourceBytesThatDifferFromTheirRecord(t *testing.T) {
	f := newMigrateFixture(t)
	key := f.files[3].Key // notes.txt: no thumbnail, one record
	path := filepath.Join(f.site.storage, filepath.FromSlash(key))
	if err := os.WriteFile(path, []byte("damaged on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := f.run(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Mismatched) != 1 || rep.Mismatched[0] != key || rep.Failed != 0 {
		t.Fatalf("report %+v, want %s mismatched", rep, key)
	}
	var out bytes.Buffer
	printMigrateReport(&out, rep)
	if !strings.Contains(out.String(), "differ from their file record") || !strings.Contains(out.String(), key) {
		t.Errorf("text report does not name the mismatch:\n%s", out.String())
	}
}

func TestMigrateInterruptedLeavesOnlyVerifiedCopies(t *testing.T) {
	f := newMigrateFixture(t)
	want := storeDigests(t, f.src)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel while the first object is being read from the source.
	src := &cancellingStore{Store: f.src, cancel: cancel}
	recorded := func(context.Context, string) (string, bool, error) { return "", false, nil }
	_, err := migrateObjects(ctx, src, f.dst, recorded, noType, 1)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want interrupted", err)
	}
	for key, sum := range storeDigests(t, f.dst) {
		if want[key] != sum {
			t.Errorf("the destination holds %s with MD5 %s, not the source's %s", key, sum, want[key])
		}
	}
	if temps, err := f.dst.Temps(context.Background()); err != nil || len(temps) != 0 {
		t.Errorf("temporary content left at the destination: %v, %v", temps, err)
	}
	// The next run completes the copy.
	rep, err := f.run(t, context.Background())
	if err != nil || rep.Failed != 0 {
		t.Fatalf("resumed run: %+v, %v", rep, err)
	}
	if got := storeDigests(t, f.dst); !equalMaps(got, want) {
		t.Fatalf("after resuming: %v, want %v", got, want)
	}
}

// cancellingStore cancels the run once a source object has been half read,
// as an operator's Ctrl-C in the middle of a copy.
type cancellingStore struct {
	storage.Store
	cancel context.CancelFunc
}

func (s *cancellingStore) Open(ctx context.Context, key string) (storage.Object, error) {
	obj, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &cancellingObject{Object: obj, cancel: s.cancel, ctx: ctx}, nil
}

type cancellingObject struct {
	storage.Object
	cancel context.CancelFunc
	ctx    context.Context
}

func (o *cancellingObject) Read(p []byte) (int, error) {
	if len(p) > 8 {
		p = p[:8]
	}
	n, err := o.Object.Read(p)
	o.cancel()
	if o.ctx.Err() != nil && err == nil {
		return n, o.ctx.Err()
	}
	return n, err
}

func TestStorageMigrateUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"storage"}, "missing argument"},
		{"unknown subcommand", []string{"storage", "move", "-to", "s3"}, `unknown subcommand "move"`},
		{"no -to", []string{"storage", "migrate"}, "-to must be s3 or local"},
		{"bad -to", []string{"storage", "migrate", "-to", "ftp"}, "-to must be s3 or local"},
		{"bad -jobs", []string{"storage", "migrate", "-to", "s3", "-jobs", "0"}, "-jobs must be 1 to 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := folio(tc.args...)
			if code != exitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestStorageMigrateToS3AndBack runs the command as an operator would: a
// site on local storage is copied to a bucket, served from it by a server
// configured for s3, and copied back into an empty folder.
func TestStorageMigrateToS3AndBack(t *testing.T) {
	s3cfg := storagetest.S3Config(t)
	bucket := storagetest.S3With(t, s3cfg)
	site := newBackupSite(t)
	files := site.populate(t)
	local, err := storage.NewLocal(site.storage)
	if err != nil {
		t.Fatal(err)
	}
	want := storeDigests(t, local)

	s3Lines := s3ConfigLines(s3cfg)
	appendConfig(t, site.config, s3Lines)

	migrate := func(config, to string) migrateReport {
		t.Helper()
		code, out, errOut := folio("-config", config, "storage", "migrate", "-to", to, "-json")
		if code != exitOK {
			t.Fatalf("migrate -to %s: exit %d\nstdout: %s\nstderr: %s", to, code, out, errOut)
		}
		var rep migrateReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("migrate -json printed %q: %v", out, err)
		}
		return rep
	}
	if rep := migrate(site.config, "s3"); rep.Copied != len(want) || rep.From != "local" || rep.To != "s3" {
		t.Fatalf("to s3: %+v, want %d copied", rep, len(want))
	}
	if got := storeDigests(t, bucket); !equalMaps(got, want) {
		t.Fatalf("bucket holds %v, want %v", got, want)
	}
	// Each object in the bucket carries its file's type, as an upload's
	// would.
	for key := range want {
		typ, err := filehost.RecordedType(context.Background(), site.app.db, key)
		if err != nil || typ == "" {
			t.Fatalf("type of %s: %q, %v", key, typ, err)
		}
		if got := storagetest.ContentType(t, bucket, key); got != typ {
			t.Errorf("%s in the bucket has Content-Type %q, want %q", key, got, typ)
		}
	}
	if rep := migrate(site.config, "s3"); rep.Present != len(want) || rep.Copied != 0 {
		t.Fatalf("second run to s3: %+v", rep)
	}

	// A server switched to s3 serves every link from the bucket.
	_, c := newTestAppOn(t, site.db, s3Env(s3cfg)...)
	for _, f := range files {
		if got := c.Do("GET", f.Link, nil).Expect(200).Body; !bytes.Equal(got, f.Content) {
			t.Errorf("%s from the bucket: %d bytes, want %d", f.Link, len(got), len(f.Content))
		}
	}
	if files[0].Thumb != "" {
		c.Do("GET", files[0].Thumb, nil).Expect(200)
	}

	// And back, into an empty folder.
	back := filepath.Join(t.TempDir(), "files")
	config := writeSiteConfig(t, site.db, back)
	appendConfig(t, config, s3Lines)
	if rep := migrate(config, "local"); rep.Failed != 0 || rep.From != "s3" {
		t.Fatalf("to local: %+v", rep)
	}
	backStore, err := storage.NewLocal(back)
	if err != nil {
		t.Fatal(err)
	}
	got := storeDigests(t, backStore)
	for key, sum := range want {
		if got[key] != sum {
			t.Errorf("back in the folder %s has MD5 %q, want %q", key, got[key], sum)
		}
	}
}

func TestStorageMigrateRefusesAMissingSourceFolder(t *testing.T) {
	site := newBackupSite(t)
	config := writeSiteConfig(t, site.db, filepath.Join(t.TempDir(), "nowhere"))
	appendConfig(t, config, "storage.s3.endpoint = \"http://127.0.0.1:1\"\nstorage.s3.bucket = \"b\"\nstorage.s3.access_key = \"k\"\nstorage.s3.secret_key = \"s\"\n")
	code, _, errOut := folio("-config", config, "storage", "migrate", "-to", "s3")
	if code != exitFail || !strings.Contains(errOut, "source (local): storage folder") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func appendConfig(t *testing.T, path, lines string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
}
