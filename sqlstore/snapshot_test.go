package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"folio/sqlstore"
)

// TestSnapshotHoldsWhatWasCommittedBeforeIt: the copy holds the committed
// rows and not a transaction still open when it was taken, which does not
// block it (WAL); the copy is one file that opens as a database.
func TestSnapshotHoldsWhatWasCommittedBeforeIt(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "snap.db")
	if db.Dialect() != sqlstore.SQLite {
		if err := db.SnapshotTo(ctx, path); err == nil {
			t.Fatal("a snapshot of PostgreSQL did not fail")
		}
		return
	}
	exec(t, db, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",
		"INSERT INTO notes (body) VALUES ('one'), ('two')")
	inTx, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.Tx(ctx, func(tx *sqlstore.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO notes (body) VALUES ('uncommitted')"); err != nil {
				return err
			}
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	start := time.Now()
	err := db.SnapshotTo(ctx, path)
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the snapshot waited for the open write transaction")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("the snapshot has a write-ahead log beside it")
	}
	snap, err := sqlstore.Open(ctx, "sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if n := count(t, snap, "SELECT COUNT(*) FROM notes"); n != 2 {
		t.Errorf("the snapshot holds %d notes, want the 2 committed", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM notes"); n != 3 {
		t.Errorf("the database holds %d notes after the commit, want 3", n)
	}
	if err := db.SnapshotTo(ctx, path); err == nil {
		t.Error("a snapshot over an existing database did not fail")
	}
}

// TestForgetProcessesEmptiesTheRegistryAndLeases: a copy of the database
// starts with no process registered and no lease held.
func TestForgetProcessesEmptiesTheRegistryAndLeases(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, err := sqlstore.NewInstances(db).Register(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.TryLease(ctx, "job", "someone", time.Now(), time.Hour); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := db.ForgetProcesses(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM instances") + count(t, db, "SELECT COUNT(*) FROM leases"); n != 0 {
		t.Errorf("%d rows left", n)
	}
}

func TestSQLitePathAndFiles(t *testing.T) {
	if got := sqlstore.SQLitePath("file:data/folio.db?_x=1"); got != "data/folio.db" {
		t.Errorf("SQLitePath = %q", got)
	}
	want := []string{"a.db", "a.db-wal", "a.db-shm", "a.db.changes"}
	for i, p := range sqlstore.SQLiteFiles("a.db") {
		if p != want[i] {
			t.Errorf("SQLiteFiles[%d] = %q, want %q", i, p, want[i])
		}
	}
}
