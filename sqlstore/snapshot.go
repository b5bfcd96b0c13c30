package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Snapshots serve folio backup (docs/backup.md): a copy of a SQLite
// database as of one moment, taken while servers keep writing to it.

// SQLitePath is the database file a SQLite DSN names (Open's form: a path,
// optionally behind "file:" and followed by "?parameters").
func SQLitePath(dsn string) string {
	path, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	return path
}

// SQLiteFiles lists the files that belong to the SQLite database at path:
// the database itself, then its write-ahead log and shared-memory index
// (which SQLite applies to the database when it opens it, so a stale one
// beside another database would damage it), then the changes file Open
// maps (docs/design.md#caches-across-processes).
func SQLiteFiles(path string) []string {
	return []string{path, path + "-wal", path + "-shm", path + ".changes"}
}

// SnapshotTo writes a consistent copy of the SQLite database to path, which
// must not exist or be empty, with VACUUM INTO: one read transaction, so
// writers go on meanwhile (WAL) and the copy holds every transaction
// committed before it began and none after. The copy is compact and a
// single file, with no write-ahead log beside it.
func (db *DB) SnapshotTo(ctx context.Context, path string) error {
	if db.dialect != SQLite {
		return errors.New("sqlstore: a snapshot is for SQLite; PostgreSQL is copied with pg_dump")
	}
	if _, err := db.read.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("sqlstore: snapshot: %w", mapError(err))
	}
	return nil
}

// ForgetProcesses deletes the registered processes and their leases. It is
// for a copy of a database (a snapshot, a restored backup): the processes
// that served the original do not serve the copy, and a server started on
// it must not wait for their heartbeats to age out.
func (db *DB) ForgetProcesses(ctx context.Context) error {
	return db.Tx(ctx, func(tx *Tx) error {
		for _, table := range []string{"instances", "leases"} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+table); err != nil {
				return fmt.Errorf("sqlstore: forget processes: %w", err)
			}
		}
		return nil
	})
}
