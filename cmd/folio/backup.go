package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"folio/filehost"
	"folio/sqlstore"
	"folio/storage"
)

// setupBackup defines the flags of `folio backup` and returns what runs
// it: it writes the database snapshot (SQLite) and every stored object, with
// a manifest, to the one argument FILE.tar.gz (docs/backup.md). Exit status:
// 0 written, 1 failed (nothing left behind), 2 usage.
func setupBackup(fs *flag.FlagSet) func(*invocation) int {
	force := fs.Bool("force", false, "replace FILE if it exists")
	return func(inv *invocation) int {
		file := inv.args[0]
		cfg, ok := inv.loadConfig()
		if !ok {
			return exitFail
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		warn := func(format string, args ...any) {
			fmt.Fprintf(inv.stderr, "folio backup: warning: "+format+"\n", args...)
		}
		m, err := writeBackup(ctx, cfg, file, *force, warn)
		if err != nil {
			fmt.Fprintln(inv.stderr, "folio backup:", err)
			return exitFail
		}
		db := "no database (PostgreSQL)"
		if m.Database != nil {
			db = fmt.Sprintf("database %d bytes", m.Database.Size)
		}
		fmt.Fprintf(inv.stdout, "wrote %s: %s, %d objects (%d bytes), %d missing\n", file, db, len(m.Objects), m.ObjectBytes, len(m.Missing))
		if m.Database == nil {
			fmt.Fprintln(inv.stderr, "folio backup: the database is PostgreSQL, which this archive does not hold: "+
				"save it with pg_dump -Fc BEFORE running folio backup, and keep the dump with this archive (docs/backup.md)")
		}
		return exitOK
	}
}

// runRestore is `folio restore`: it verifies FILE against its manifest and
// restores it into the configured, empty, database and storage folder
// (docs/backup.md). Exit status: 0 restored, 1 refused or failed (nothing
// left behind), 2 usage.
func runRestore(inv *invocation) int {
	file := inv.args[0]
	cfg, ok := inv.loadConfig()
	if !ok {
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	m, err := restoreBackup(ctx, cfg, file)
	if err != nil {
		fmt.Fprintln(inv.stderr, "folio restore:", err)
		return exitFail
	}
	fmt.Fprintf(inv.stdout, "restored %d objects (%d bytes) into %s", len(m.Objects), m.ObjectBytes, cfg.StorageDir)
	if m.Database != nil {
		fmt.Fprintf(inv.stdout, " and the database (%d bytes) into %s", m.Database.Size, sqlstore.SQLitePath(cfg.DBDSN))
	}
	fmt.Fprintf(inv.stdout, ", from a backup of %s\n", m.CreatedAt.Format(time.RFC3339))
	if len(m.Missing) > 0 {
		fmt.Fprintf(inv.stderr, "folio restore: warning: the backup lacks %d objects deleted while it ran; folio fsck reports their records, folio fsck -fix removes them\n", len(m.Missing))
	}
	if m.Database == nil {
		fmt.Fprintln(inv.stderr, "folio restore: the database is PostgreSQL: restore it with pg_restore from the dump taken before this backup, then run folio fsck (docs/backup.md)")
	}
	return exitOK
}

// backupKey is a storage key to copy; optional keys (thumbnails, and on
// PostgreSQL keys no record read names) may hold nothing.
type backupKey struct {
	key      string
	optional bool
}

// writeBackup writes the archive to out through a temporary file beside it,
// which it renames into place only when the archive is complete. The
// database snapshot comes first; the objects its records point at are
// copied after it, so that each one either is in the archive or was
// deleted after the snapshot (reported through warn, and listed in the
// manifest as missing).
func writeBackup(ctx context.Context, cfg *Config, out string, force bool, warn func(string, ...any)) (m *backupManifest, err error) {
	if !force {
		if _, err := os.Lstat(out); err == nil {
			return nil, fmt.Errorf("%s exists; add -force to replace it", out)
		}
	}
	// Nothing is created where the configuration points: a wrong path
	// would otherwise back up an empty site and say it went well.
	if err := checkLocalFolder(cfg); err != nil {
		return nil, err
	}
	if cfg.DBDriver == "sqlite" {
		if _, err := os.Stat(sqlstore.SQLitePath(cfg.DBDSN)); err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
	}
	if storageDriver(cfg).Folder && inside(out, cfg.StorageDir) {
		// It would be listed, and copied into itself, as a stored file.
		return nil, fmt.Errorf("%s is inside the storage folder %s: write the backup elsewhere", out, cfg.StorageDir)
	}
	store, err := openStore(cfg, "")
	if err != nil {
		return nil, err
	}
	if err := checkBucket(ctx, store); err != nil {
		return nil, err
	}
	dir, base := filepath.Dir(out), filepath.Base(out)
	f, err := os.CreateTemp(dir, base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create the archive: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	m = &backupManifest{Format: backupFormat, FormatVersion: backupFormatVersion, FolioVersion: folioVersion(),
		CreatedAt: time.Now().UTC().Truncate(time.Second), DatabaseDriver: cfg.DBDriver,
		Objects: []backupEntry{}, Missing: []backupMissingEntry{}}
	buf := bufio.NewWriterSize(f, 256<<10)
	// Most stored bytes are already compressed images: the fastest level
	// saves nearly as much as the best at a fraction of the CPU.
	gz, err := gzip.NewWriterLevel(buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)

	var keys []backupKey
	if cfg.DBDriver == "sqlite" {
		var snap string
		snap, keys, err = snapshotSQLite(ctx, cfg, dir, base)
		if snap != "" {
			defer removeSQLite(snap)
		}
		if err != nil {
			return nil, err
		}
		entry, err := archiveFile(tw, backupDatabaseName, snap, m.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("database snapshot: %w", err)
		}
		m.Database = &entry
	} else {
		if keys, err = postgresKeys(ctx, cfg, store); err != nil {
			return nil, err
		}
	}

	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted: %w", err)
		}
		entry, found, err := archiveObject(ctx, tw, store, k.key)
		if err != nil {
			return nil, err
		}
		if !found {
			if !k.optional {
				warn("%s: deleted after the database snapshot; listed as missing in the manifest", k.key)
				m.Missing = append(m.Missing, backupMissingEntry{Key: k.key, Reason: "deleted after the database snapshot"})
			}
			continue
		}
		m.Objects = append(m.Objects, entry)
		m.ObjectBytes += entry.Size
	}

	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	manifest = append(manifest, '\n')
	if _, err := writeBackupEntry(tw, backupManifestName, int64(len(manifest)), m.CreatedAt, bytes.NewReader(manifest)); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write the archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("write the archive: %w", err)
	}
	if err := buf.Flush(); err != nil {
		return nil, fmt.Errorf("write the archive: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("write the archive: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write the archive: %w", err)
	}
	if err := placeFile(tmp, out, force); errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s exists; add -force to replace it", out)
	} else if err != nil {
		return nil, err
	}
	return m, nil
}

// snapshotSQLite takes the snapshot into a temporary file in dir, makes it
// a copy of a site at rest (no processes, no storage intents: see
// sqlstore.ForgetProcesses and filehost.ForgetIntents) and lists the keys
// its records point at. snap, when not empty, is the snapshot's path, for
// the caller to remove.
func snapshotSQLite(ctx context.Context, cfg *Config, dir, base string) (snap string, keys []backupKey, err error) {
	f, err := os.CreateTemp(dir, base+".snapshot-*")
	if err != nil {
		return "", nil, fmt.Errorf("create the database snapshot: %w", err)
	}
	snap = f.Name()
	f.Close()
	live, err := sqlstore.Open(ctx, "sqlite", cfg.DBDSN)
	if err != nil {
		return snap, nil, err
	}
	err = live.SnapshotTo(ctx, snap)
	live.Close()
	if err != nil {
		return snap, nil, err
	}
	db, err := sqlstore.Open(ctx, "sqlite", snap)
	if err != nil {
		return snap, nil, err
	}
	err = db.ForgetProcesses(ctx)
	if err == nil {
		err = filehost.ForgetIntents(ctx, db)
	}
	if err == nil {
		err = filehost.BackupKeys(ctx, db, func(key string, thumb bool) error {
			keys = append(keys, backupKey{key: key, optional: thumb})
			return nil
		})
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the database snapshot: %w", cerr)
	}
	if err != nil {
		return snap, nil, err
	}
	// Closing the last connection moves the log into the file; a log left
	// beside it would hold changes the archive lacks.
	if _, err := os.Stat(snap + "-wal"); err == nil {
		return snap, nil, errors.New("the database snapshot kept a write-ahead log after closing")
	}
	return snap, keys, nil
}

// inside reports whether path is inside the folder dir (by their absolute
// names; links are not followed).
func inside(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// removeSQLite removes a SQLite file with its companions.
func removeSQLite(path string) {
	for _, p := range sqlstore.SQLiteFiles(path) {
		os.Remove(p)
	}
}

// postgresKeys lists what to copy beside a pg_dump: the dump was taken
// before and its rows cannot be seen from here, so every stored key is
// copied, and the keys the rows read now point at are checked for too, so
// that one whose bytes are gone is reported.
func postgresKeys(ctx context.Context, cfg *Config, store storage.Store) ([]backupKey, error) {
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	optional := map[string]bool{}
	err = filehost.BackupKeys(ctx, db, func(key string, thumb bool) error {
		optional[key] = thumb
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = store.List(ctx, func(key string, size int64) error {
		if _, ok := optional[key]; !ok {
			optional[key] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the storage folder: %w", err)
	}
	keys := make([]backupKey, 0, len(optional))
	for k, opt := range optional {
		keys = append(keys, backupKey{key: k, optional: opt})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].key < keys[j].key })
	return keys, nil
}

// archiveObject copies the object under key into the archive; found is
// false when the store has nothing under key.
func archiveObject(ctx context.Context, tw *tar.Writer, store storage.Store, key string) (e backupEntry, found bool, err error) {
	if err := storage.CheckKey(key); err != nil {
		// Written by an older version under a looser rule: restore would
		// refuse the whole archive, so the backup stops here instead.
		return e, false, fmt.Errorf("object %s cannot be restored: %w", key, err)
	}
	obj, err := store.Open(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("open %s: %w", key, err)
	}
	defer obj.Close()
	st, err := obj.Stat()
	if err != nil {
		return e, false, fmt.Errorf("open %s: %w", key, err)
	}
	e, err = writeBackupEntry(tw, backupFilesPrefix+key, st.Size(), st.ModTime(), obj)
	e.Key = key
	return e, true, err
}

// archiveFile copies the file at path into the archive as name.
func archiveFile(tw *tar.Writer, name, path string, mtime time.Time) (backupEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return backupEntry{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return backupEntry{}, err
	}
	return writeBackupEntry(tw, name, st.Size(), mtime, f)
}

// placeFile gives the complete file tmp its name dst: replacing what is
// there when replace is set, else only if nothing is (a hard link fails on
// an existing name, so a file created meanwhile is not lost), failing with
// fs.ErrExist. On failure tmp is left for the caller to remove.
func placeFile(tmp, dst string, replace bool) error {
	if !replace {
		err := os.Link(tmp, dst)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", dst, fs.ErrExist)
		}
		if err == nil {
			os.Remove(tmp)
			syncDir(filepath.Dir(dst))
			return nil
		}
		// A file system without hard links (FAT, some network shares):
		// check, then rename.
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s: %w", dst, fs.ErrExist)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("name the file %s: %w", dst, err)
	}
	syncDir(filepath.Dir(dst))
	return nil
}

// syncDir makes new names in dir durable; failure only weakens durability
// after a crash, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
