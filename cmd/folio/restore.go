package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"folio/sqlstore"
	"folio/storage"
)

// restoreBackup restores the archive at file into the configured database
// and storage folder, which must be empty (emptyTargets). Everything is
// extracted beside the targets first, into a staging folder inside the
// storage folder and a temporary file beside the database, and checked
// against the manifest; only then is it renamed into place. On any failure
// everything it created is removed.
func restoreBackup(ctx context.Context, cfg *Config, file string) (m *backupManifest, err error) {
	in, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("open the backup: %w", err)
	}
	defer in.Close()
	if err := emptyTargets(cfg); err != nil {
		return nil, err
	}

	r := &restoring{cfg: cfg}
	defer func() {
		if err != nil {
			r.undo()
		}
	}()
	if err := r.stage(); err != nil {
		return nil, err
	}
	m, err = r.extract(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := r.place(); err != nil {
		return nil, err
	}
	return m, nil
}

// emptyTargets checks that the restore writes over nothing: the SQLite
// database (with its log) does not exist, and the storage folder is missing
// or empty; a server started once on an empty storage folder leaves its
// empty temporary folder there, which counts as empty.
func emptyTargets(cfg *Config) error {
	if !storageDriver(cfg).Restore {
		// Restoring is a rename into a folder; a bucket is filled from one
		// afterwards (docs/backup.md#s3).
		return errors.New("folio restore writes into a local storage.dir: restore with storage.driver = local, then copy the objects into the bucket with folio storage migrate (docs/backup.md#s3)")
	}
	if cfg.DBDriver == "sqlite" {
		for _, p := range sqlstore.SQLiteFiles(sqlstore.SQLitePath(cfg.DBDSN))[:3] {
			if _, err := os.Lstat(p); err == nil {
				return fmt.Errorf("the database %s already exists: folio restore writes only into an empty data directory (move it away, or point database.dsn elsewhere)", p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("database: %w", err)
			}
		}
	}
	st, err := os.Stat(cfg.StorageDir) // a link to a folder elsewhere is fine
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("storage folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("the storage folder %s is not a folder", cfg.StorageDir)
	}
	entries, err := os.ReadDir(cfg.StorageDir)
	if err != nil {
		return fmt.Errorf("storage folder: %w", err)
	}
	for _, e := range entries {
		if e.Name() == ".tmp" && e.IsDir() {
			if sub, err := os.ReadDir(filepath.Join(cfg.StorageDir, e.Name())); err == nil && len(sub) == 0 {
				continue
			}
		}
		return fmt.Errorf("the storage folder %s is not empty (it holds %s): folio restore writes only into an empty data directory (move it away, or point storage.dir elsewhere)", cfg.StorageDir, e.Name())
	}
	return nil
}

// restoring is one restore under way: what it created, to place or undo.
type restoring struct {
	cfg *Config
	// created lists the folders made for the targets, parents first.
	created []string
	// staging is the folder the objects are extracted into, inside the
	// storage folder, so that placing them is a rename.
	staging string
	store   *storage.Local
	// dbTmp is the file the SQLite database is extracted into, beside it.
	dbTmp string
	// placed lists the names moved into the storage folder and the
	// database once linked, for undo.
	placed []string
}

func (r *restoring) stage() error {
	made, err := mkdirAllTracked(r.cfg.StorageDir)
	r.created = append(r.created, made...)
	if err != nil {
		return fmt.Errorf("create the storage folder: %w", err)
	}
	if r.staging, err = os.MkdirTemp(r.cfg.StorageDir, ".folio-restore-*"); err != nil {
		return fmt.Errorf("create a staging folder: %w", err)
	}
	if r.store, err = storage.NewLocal(r.staging); err != nil {
		return err
	}
	if r.cfg.DBDriver != "sqlite" {
		return nil
	}
	path := sqlstore.SQLitePath(r.cfg.DBDSN)
	made, err = mkdirAllTracked(filepath.Dir(path))
	r.created = append(r.created, made...)
	if err != nil {
		return fmt.Errorf("create the database folder: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".restore-*")
	if err != nil {
		return fmt.Errorf("create the database: %w", err)
	}
	r.dbTmp = f.Name()
	return f.Close()
}

// extract reads the whole archive into the staging places, hashing every
// entry, and checks it against the manifest.
func (r *restoring) extract(ctx context.Context, in io.Reader) (*backupManifest, error) {
	gz, err := gzip.NewReader(bufio.NewReaderSize(in, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("not a gzip-compressed archive: %w", err)
	}
	tr := tar.NewReader(gz)
	got := map[string]backupEntry{}
	var manifest []byte // decoded once gzip has vouched for it
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted: %w", err)
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, tar.ErrInsecurePath) {
			return nil, fmt.Errorf("unsafe entry name %q", hdr.Name)
		}
		if err != nil {
			return nil, damaged(err)
		}
		if manifest != nil {
			return nil, fmt.Errorf("entry %q after the manifest, which comes last", hdr.Name)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("entry %q is not a regular file (links, folders and devices are refused)", hdr.Name)
		}
		key, err := backupName(hdr.Name)
		if err != nil {
			return nil, err
		}
		if _, dup := got[hdr.Name]; dup {
			return nil, fmt.Errorf("entry %q appears twice", hdr.Name)
		}
		switch {
		case hdr.Name == backupManifestName:
			if hdr.Size > maxManifest {
				return nil, fmt.Errorf("manifest.json of %d bytes: more than the %d a manifest may have", hdr.Size, maxManifest)
			}
			if manifest, err = io.ReadAll(tr); err != nil {
				return nil, damaged(err)
			}
			continue
		case hdr.Name == backupDatabaseName:
			if r.cfg.DBDriver != "sqlite" {
				return nil, errors.New("the archive holds a SQLite database, but the configuration names PostgreSQL: restore it with database.driver = sqlite")
			}
			got[hdr.Name], err = r.extractDatabase(tr)
		default:
			got[hdr.Name], err = r.extractObject(ctx, tr, key)
		}
		if err != nil {
			return nil, err
		}
	}
	// The tar reader stops at the end-of-archive blocks; reading on to the
	// end of the gzip stream makes gzip check its CRC and length.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return nil, damaged(err)
	}
	if manifest == nil {
		return nil, errors.New("no manifest.json: not a folio backup, or cut short")
	}
	m := &backupManifest{}
	if err := json.Unmarshal(manifest, m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	return m, r.check(m, got)
}

// maxManifest bounds the manifest, which is read into memory: about four
// million objects.
const maxManifest = 1 << 30

// damaged describes a read error of the archive.
func damaged(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the archive is cut short: %w", err)
	}
	return fmt.Errorf("the archive is damaged: %w", err)
}

func (r *restoring) extractDatabase(tr io.Reader) (backupEntry, error) {
	f, err := os.OpenFile(r.dbTmp, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return backupEntry{}, fmt.Errorf("write the database: %w", err)
	}
	hw := newHashWriter(f)
	if _, err := io.Copy(hw, tr); err != nil {
		f.Close()
		return backupEntry{}, fmt.Errorf("%s: %w", backupDatabaseName, readOrWrite(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return backupEntry{}, fmt.Errorf("write the database: %w", err)
	}
	if err := f.Close(); err != nil {
		return backupEntry{}, fmt.Errorf("write the database: %w", err)
	}
	return backupEntry{Name: backupDatabaseName, Size: hw.size, SHA256: hw.sum()}, nil
}

func (r *restoring) extractObject(ctx context.Context, tr io.Reader, key string) (backupEntry, error) {
	w, err := r.store.Begin(ctx)
	if err != nil {
		return backupEntry{}, err
	}
	hw := newHashWriter(w)
	if _, err := io.Copy(hw, tr); err != nil {
		w.Abort()
		return backupEntry{}, fmt.Errorf("%s%s: %w", backupFilesPrefix, key, readOrWrite(err))
	}
	if err := w.Commit(key); err != nil {
		return backupEntry{}, fmt.Errorf("write %s: %w", key, err)
	}
	return backupEntry{Name: backupFilesPrefix + key, Key: key, Size: hw.size, SHA256: hw.sum()}, nil
}

// readOrWrite says which side of a copy failed: the archive (damaged)
// or the target.
func readOrWrite(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return damaged(err)
}

// check compares what was extracted with the manifest: the same entries,
// each with the size and SHA-256 the manifest gives.
func (r *restoring) check(m *backupManifest, got map[string]backupEntry) error {
	if m.Format != backupFormat {
		return fmt.Errorf("manifest.json names format %q: not a folio backup", m.Format)
	}
	if m.FormatVersion != backupFormatVersion {
		return fmt.Errorf("manifest format version %d: this folio reads version %d (restore with the folio that made it, %s)",
			m.FormatVersion, backupFormatVersion, m.FolioVersion)
	}
	switch {
	case m.DatabaseDriver == "sqlite" && m.Database != nil:
		if r.cfg.DBDriver != "sqlite" {
			return errors.New("the archive holds a SQLite database, but the configuration names PostgreSQL: restore it with database.driver = sqlite")
		}
	case m.DatabaseDriver == "postgres" && m.Database == nil:
		if r.cfg.DBDriver != "postgres" {
			return errors.New("the archive is of a PostgreSQL site and holds no database, but the configuration names SQLite: restore it with database.driver = postgres, after pg_restore")
		}
	default:
		return fmt.Errorf("manifest.json: database driver %q with %s database entry", m.DatabaseDriver, map[bool]string{true: "a", false: "no"}[m.Database != nil])
	}
	want := map[string]backupEntry{}
	if m.Database != nil {
		if m.Database.Name != backupDatabaseName {
			return fmt.Errorf("manifest.json: database entry named %q", m.Database.Name)
		}
		want[m.Database.Name] = *m.Database
	}
	var total int64
	for _, o := range m.Objects {
		if o.Name != backupFilesPrefix+o.Key {
			return fmt.Errorf("manifest.json: object %q is not under its key %q", o.Name, o.Key)
		}
		if _, dup := want[o.Name]; dup {
			return fmt.Errorf("manifest.json: %q listed twice", o.Name)
		}
		want[o.Name] = o
		total += o.Size
	}
	if total != m.ObjectBytes {
		return fmt.Errorf("manifest.json: objects total %d bytes, object_bytes says %d", total, m.ObjectBytes)
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w, g := want[name], got[name]
		switch {
		case g.Name == "":
			return fmt.Errorf("%s is in the manifest but not in the archive", name)
		case g.Size != w.Size:
			return fmt.Errorf("%s: %d bytes, the manifest says %d: the archive is damaged", name, g.Size, w.Size)
		case !strings.EqualFold(g.SHA256, w.SHA256):
			return fmt.Errorf("%s: SHA-256 %s, the manifest says %s: the archive is damaged", name, g.SHA256, w.SHA256)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			return fmt.Errorf("%s is in the archive but not in the manifest", name)
		}
	}
	return nil
}

// place renames the extracted objects into the storage folder and links
// the database into place, which fails rather than replace one made
// meanwhile.
func (r *restoring) place() error {
	entries, err := os.ReadDir(r.staging)
	if err != nil {
		return fmt.Errorf("read the staging folder: %w", err)
	}
	for _, e := range entries {
		if e.Name() == ".tmp" {
			continue
		}
		dst := filepath.Join(r.cfg.StorageDir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s appeared during the restore", dst)
		}
		if err := os.Rename(filepath.Join(r.staging, e.Name()), dst); err != nil {
			return fmt.Errorf("move into the storage folder: %w", err)
		}
		r.placed = append(r.placed, dst)
	}
	syncDir(r.cfg.StorageDir)
	if r.dbTmp != "" {
		dst := sqlstore.SQLitePath(r.cfg.DBDSN)
		if err := placeFile(r.dbTmp, dst, false); errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("the database %s appeared during the restore", dst)
		} else if err != nil {
			return err
		}
		r.dbTmp = ""
		r.placed = append(r.placed, dst)
	}
	// Everything is in place: what is left of the staging folder is its
	// empty temporary folder, which holds no key, so failing to remove it
	// is no reason to undo the restore.
	_ = os.RemoveAll(r.staging)
	r.staging = ""
	return nil
}

// undo removes everything the restore created.
func (r *restoring) undo() {
	for _, p := range slices.Backward(r.placed) {
		os.RemoveAll(p)
	}
	if r.staging != "" {
		os.RemoveAll(r.staging)
	}
	if r.dbTmp != "" {
		os.Remove(r.dbTmp)
	}
	for _, d := range slices.Backward(r.created) {
		os.Remove(d) // only if empty: nothing of anyone else's goes
	}
}

// mkdirAllTracked creates dir and its missing parents, returning the
// folders it created, parents first (also those made before an error).
func mkdirAllTracked(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for _, d := range slices.Backward(missing) {
		if err := os.Mkdir(d, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		} else if err == nil {
			created = append(created, d)
		}
	}
	return created, nil
}
