package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestOpenRejectsUnknownDriver(t *testing.T) {
	if _, err := sqlstore.Open(context.Background(), "mysql", "x"); err == nil {
		t.Fatal("Open(mysql) succeeded, want an error")
	}
}

func TestErrorMapping(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	exec(t, db,
		`CREATE TABLE parent (id {{uuid}} PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE child (id {{uuid}} PRIMARY KEY, parent_id {{uuid}} NOT NULL REFERENCES parent (id))`,
	)
	parent := sqlstore.NewID()
	if _, err := db.Exec(ctx, "INSERT INTO parent (id, name) VALUES ($1, $2)", parent, "one"); err != nil {
		t.Fatal(err)
	}
	missing := sqlstore.NewID()
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"duplicate unique column is a conflict", func() error {
			_, err := db.Exec(ctx, "INSERT INTO parent (id, name) VALUES ($1, $2)", sqlstore.NewID(), "one")
			return err
		}, sqlstore.ErrConflict},
		{"duplicate primary key is a conflict", func() error {
			_, err := db.Exec(ctx, "INSERT INTO parent (id, name) VALUES ($1, $2)", parent, "two")
			return err
		}, sqlstore.ErrConflict},
		{"missing parent is a foreign key error", func() error {
			_, err := db.Exec(ctx, "INSERT INTO child (id, parent_id) VALUES ($1, $2)", sqlstore.NewID(), missing)
			return err
		}, sqlstore.ErrForeignKey},
		{"no rows on the read pool is not found", func() error {
			var s string
			return db.QueryRow(ctx, "SELECT name FROM parent WHERE id = $1", missing).Scan(&s)
		}, sqlstore.ErrNotFound},
		{"no rows on the write pool is not found", func() error {
			var s string
			return db.QueryRowWrite(ctx, "UPDATE parent SET name = 'x' WHERE id = $1 RETURNING name", missing).Scan(&s)
		}, sqlstore.ErrNotFound},
		{"conflict inside a transaction", func() error {
			return db.Tx(ctx, func(tx *sqlstore.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO parent (id, name) VALUES ($1, $2)", sqlstore.NewID(), "one")
				return err
			})
		}, sqlstore.ErrConflict},
		{"foreign key inside a transaction", func() error {
			return db.Tx(ctx, func(tx *sqlstore.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO child (id, parent_id) VALUES ($1, $2)", sqlstore.NewID(), missing)
				return err
			})
		}, sqlstore.ErrForeignKey},
		{"no rows inside a transaction", func() error {
			return db.Tx(ctx, func(tx *sqlstore.Tx) error {
				var s string
				return tx.QueryRow(ctx, "SELECT name FROM parent WHERE id = $1", missing).Scan(&s)
			})
		}, sqlstore.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			for _, other := range []error{sqlstore.ErrConflict, sqlstore.ErrForeignKey, sqlstore.ErrNotFound} {
				if other != tt.want && errors.Is(err, other) {
					t.Errorf("error %v also matches %v", err, other)
				}
			}
		})
	}
	if n := count(t, db, "SELECT COUNT(*) FROM parent"); n != 1 {
		t.Errorf("parent rows = %d after failed writes, want 1", n)
	}
}

func TestTxRollsBackOnError(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	exec(t, db, `CREATE TABLE items (name TEXT NOT NULL)`)
	boom := errors.New("boom")
	err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO items (name) VALUES ($1)", "a"); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM items").Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			t.Errorf("transaction sees %d rows of its own writes, want 1", n)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx = %v, want the callback's error", err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM items"); n != 0 {
		t.Fatalf("rows after rollback = %d, want 0", n)
	}
}

func TestRebindBindsByNumberInRealQueries(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	var first, second, again string
	err := db.QueryRow(ctx, "SELECT CAST($2 AS TEXT), CAST($1 AS TEXT), CAST($2 AS TEXT)", "one", "two").Scan(&first, &second, &again)
	if err != nil {
		t.Fatal(err)
	}
	if first != "two" || second != "one" || again != "two" {
		t.Fatalf("SELECT $2, $1, $2 = %q, %q, %q; want two, one, two", first, second, again)
	}
	var lit string
	if err := db.QueryRow(ctx, "SELECT CAST('$1' AS TEXT) || CAST($1 AS TEXT)", "x").Scan(&lit); err != nil {
		t.Fatal(err)
	}
	if lit != "$1x" {
		t.Fatalf("quoted $1 = %q, want $1x", lit)
	}
}

// TestConcurrentWritersNeverLock writes from two handles on one database
// (two processes) with four goroutines each, in transactions, while readers
// read: no write may fail with "database is locked".
func TestConcurrentWritersNeverLock(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	dbs := []*sqlstore.DB{cfg.Open(t), cfg.Open(t)}
	ctx := context.Background()
	exec(t, dbs[0], `CREATE TABLE hits (id {{uuid}} PRIMARY KEY, worker INTEGER NOT NULL)`)
	const workers, perWorker = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker+workers)
	for w := range workers {
		db := dbs[w%len(dbs)]
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range perWorker {
				err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
					var n int
					if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM hits WHERE worker = $1", w).Scan(&n); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "INSERT INTO hits (id, worker) VALUES ($1, $2)", sqlstore.NewID(), w)
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range perWorker {
				var n int
				if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM hits").Scan(&n); err != nil {
					errs <- fmt.Errorf("reader %d: %w", w, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if strings.Contains(err.Error(), "locked") || strings.Contains(err.Error(), "busy") {
			t.Errorf("lock error: %v", err)
		} else {
			t.Error(err)
		}
	}
	if n := count(t, dbs[1], "SELECT COUNT(*) FROM hits"); n != workers*perWorker {
		t.Fatalf("rows = %d, want %d", n, workers*perWorker)
	}
}

func TestPingAndDialect(t *testing.T) {
	db := openDB(t)
	if err := db.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	want := sqlstore.SQLite
	if cfg := sqlstoretest.NewConfig(t); cfg.Driver == "postgres" {
		want = sqlstore.Postgres
	}
	if db.Dialect() != want {
		t.Fatalf("Dialect = %v, want %v", db.Dialect(), want)
	}
}

// A commit on SQLite must be on disk when it returns, on the connection
// that writes and on those that read alike: an acknowledged upload must
// survive a power loss.
func TestSQLiteCommitsAreDurable(t *testing.T) {
	if cfg := sqlstoretest.NewConfig(t); cfg.Driver != "sqlite" {
		t.Skip("SQLite's setting")
	}
	db := openDB(t)
	ctx := context.Background()
	const full = 2 // PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
	var read int
	if err := db.QueryRow(ctx, "PRAGMA synchronous").Scan(&read); err != nil {
		t.Fatal(err)
	}
	var written int
	if err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
		return tx.QueryRow(ctx, "PRAGMA synchronous").Scan(&written)
	}); err != nil {
		t.Fatal(err)
	}
	if read != full || written != full {
		t.Errorf("synchronous = %d when reading, %d when writing, want %d (FULL)", read, written, full)
	}
}

// The writer keeps its temporary files, the savepoints' sub-journals of a
// shared commit among them, in memory: on disk they cost two writes for
// each page an upload changes (docs/design.md#group-commit).
func TestSQLiteWriterKeepsTemporaryFilesInMemory(t *testing.T) {
	if cfg := sqlstoretest.NewConfig(t); cfg.Driver != "sqlite" {
		t.Skip("SQLite's setting")
	}
	db := openDB(t)
	ctx := context.Background()
	const memory = 2 // PRAGMA temp_store: 0 DEFAULT, 1 FILE, 2 MEMORY
	var got int
	if err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
		return tx.QueryRow(ctx, "PRAGMA temp_store").Scan(&got)
	}); err != nil {
		t.Fatal(err)
	}
	if got != memory {
		t.Errorf("temp_store = %d on the writing connection, want %d (MEMORY)", got, memory)
	}
}

func TestPostgresDSNGetsBinaryParameters(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://u@127.0.0.1:5432/folio?sslmode=disable", "postgres://u@127.0.0.1:5432/folio?binary_parameters=yes&sslmode=disable"},
		{"postgresql://u@h/db", "postgresql://u@h/db?binary_parameters=yes"},
		{"host=127.0.0.1 dbname=folio sslmode=disable", "host=127.0.0.1 dbname=folio sslmode=disable binary_parameters=yes"},
		{"", "binary_parameters=yes"},
		// The operator's choice stands.
		{"postgres://u@h/db?binary_parameters=no", "postgres://u@h/db?binary_parameters=no"},
		{"dbname=folio binary_parameters=no", "dbname=folio binary_parameters=no"},
	}
	for _, tt := range tests {
		if got := sqlstore.WithBinaryParameters(tt.dsn); got != tt.want {
			t.Errorf("withBinaryParameters(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
}

// PostgreSQL refuses NUL characters and invalid UTF-8 in text; that surfaces
// as ErrInvalidText, a client's error, never as the driver's message.
func TestUnstorableTextIsErrInvalidText(t *testing.T) {
	db := sqlstoretest.Open(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE notes (body TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"a\x00b", "\xff\xfe"} {
		_, err := db.Exec(ctx, "INSERT INTO notes (body) VALUES ($1)", text)
		if db.Dialect() != sqlstore.Postgres {
			if err != nil {
				t.Fatalf("SQLite refused %q: %v", text, err)
			}
			continue
		}
		if !errors.Is(err, sqlstore.ErrInvalidText) {
			t.Fatalf("insert %q: %v, want ErrInvalidText", text, err)
		}
		var n int
		err = db.QueryRow(ctx, "SELECT COUNT(*) FROM notes WHERE body = $1", text).Scan(&n)
		if !errors.Is(err, sqlstore.ErrInvalidText) {
			t.Fatalf("select %q: %v, want ErrInvalidText", text, err)
		}
	}
}

func TestReleaseIdleClosesIdleConnectionsAndQueriesGoOn(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	// Several queries at once leave several connections idle.
	rows := make([]*sql.Rows, 3)
	for i := range rows {
		r, err := db.Query(ctx, "SELECT 1")
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = r
	}
	for _, r := range rows {
		r.Close()
	}
	if n := db.IdleConns(); n < 2 {
		t.Fatalf("%d idle connections before the release, want several", n)
	}
	db.ReleaseIdle(ctx)
	if n := db.IdleConns(); n != 0 {
		t.Fatalf("%d idle connections after the release, want 0", n)
	}
	if got := count(t, db, "SELECT 1"); got != 1 {
		t.Fatalf("query after the release: %d", got)
	}
	if n := db.IdleConns(); n != 1 {
		t.Errorf("%d idle connections after a query, want 1 kept again", n)
	}
}
