package sqlstore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"folio/sqlstore"
)

// lineUp starts n callers of g behind one that holds the group busy until
// they all wait, so that on SQLite they share one transaction; body(i)
// is the i-th caller's. It returns each caller's error.
func lineUp(t *testing.T, db *sqlstore.DB, g *sqlstore.TxGroup, n int, body func(i int) func(*sqlstore.Tx) error) []error {
	t.Helper()
	ctx := context.Background()
	release, busy := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- g.Tx(ctx, func(tx *sqlstore.Tx) error { close(busy); <-release; return nil })
	}()
	errs := make([]error, n)
	var wg sync.WaitGroup
	<-busy // on PostgreSQL too: the body runs before the others start
	for i := range n {
		wg.Go(func() { errs[i] = g.Tx(ctx, body(i)) })
	}
	// On PostgreSQL nobody waits: each caller has a transaction of its own.
	for deadline := time.Now().Add(10 * time.Second); db.Dialect() == sqlstore.SQLite && g.Waiting() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatalf("the busy caller: %v", err)
	}
	return errs
}

func TestTxGroupCommitsEveryConcurrentBody(t *testing.T) {
	db := openDB(t)
	exec(t, db, `CREATE TABLE grouped (id {{uuid}} PRIMARY KEY, n INTEGER NOT NULL)`)
	g := db.NewGroup(8)
	const n = 20 // more than one batch
	errs := lineUp(t, db, g, n, func(i int) func(*sqlstore.Tx) error {
		return func(tx *sqlstore.Tx) error {
			_, err := tx.Exec(context.Background(), "INSERT INTO grouped (id, n) VALUES ($1, $2)", sqlstore.NewID(), i)
			return err
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if got := count(t, db, "SELECT COUNT(*) FROM grouped"); got != n {
		t.Errorf("%d rows committed, want %d", got, n)
	}
}

func TestTxGroupFailingBodyLosesOnlyItsOwnWrites(t *testing.T) {
	db := openDB(t)
	exec(t, db, `CREATE TABLE grouped (id {{uuid}} PRIMARY KEY, n INTEGER NOT NULL UNIQUE)`,
		`INSERT INTO grouped (id, n) VALUES ('`+sqlstore.NewID()+`', 1)`)
	g := db.NewGroup(64)
	refused := errors.New("refused")
	errs := lineUp(t, db, g, 6, func(i int) func(*sqlstore.Tx) error {
		return func(tx *sqlstore.Tx) error {
			ctx := context.Background()
			if _, err := tx.Exec(ctx, "INSERT INTO grouped (id, n) VALUES ($1, $2)", sqlstore.NewID(), 100+i); err != nil {
				return err
			}
			switch i {
			case 1: // a failed statement, after a write of its own
				_, err := tx.Exec(ctx, "INSERT INTO grouped (id, n) VALUES ($1, $2)", sqlstore.NewID(), 1)
				return err
			case 3: // the body's own decision
				return refused
			case 4:
				panic("a bug in a body")
			}
			return nil
		}
	})
	for i, err := range errs {
		switch i {
		case 1:
			if !errors.Is(err, sqlstore.ErrConflict) {
				t.Errorf("caller 1: %v, want a conflict", err)
			}
		case 3:
			if !errors.Is(err, refused) {
				t.Errorf("caller 3: %v, want its own error", err)
			}
		case 4:
			if err == nil {
				t.Error("caller 4 panicked but got no error")
			}
		default:
			if err != nil {
				t.Errorf("caller %d: %v", i, err)
			}
		}
	}
	for i := range 6 {
		want := map[bool]int{true: 0, false: 1}[i == 1 || i == 3 || i == 4]
		if got := count(t, db, "SELECT COUNT(*) FROM grouped WHERE n = $1", 100+i); got != want {
			t.Errorf("caller %d: %d rows kept, want %d", i, got, want)
		}
	}
}

// A failed commit (here a deferred foreign key, checked only then) fails
// every caller of the transaction, and none of their writes is kept.
func TestTxGroupFailedCommitFailsEveryCaller(t *testing.T) {
	db := openDB(t)
	exec(t, db,
		`CREATE TABLE parent (id {{uuid}} PRIMARY KEY)`,
		`CREATE TABLE grouped (id {{uuid}} PRIMARY KEY, parent_id {{uuid}} REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`,
	)
	g := db.NewGroup(64)
	const n = 5
	ids := make([]string, n)
	errs := lineUp(t, db, g, n, func(i int) func(*sqlstore.Tx) error {
		ids[i] = sqlstore.NewID()
		return func(tx *sqlstore.Tx) error {
			var parent any
			if i == 2 {
				parent = sqlstore.NewID() // no such parent: the commit fails
			}
			_, err := tx.Exec(context.Background(), "INSERT INTO grouped (id, parent_id) VALUES ($1, $2)", ids[i], parent)
			return err
		}
	})
	alone := db.Dialect() == sqlstore.Postgres // a transaction each: only the bad one fails
	for i, err := range errs {
		if (err != nil) != (i == 2 || !alone) {
			t.Errorf("caller %d: error %v", i, err)
		}
	}
	want := 0
	if alone {
		want = n - 1
	}
	if got := count(t, db, "SELECT COUNT(*) FROM grouped"); got != want {
		t.Errorf("%d rows kept, want %d", got, want)
	}
	if err := g.Tx(context.Background(), func(tx *sqlstore.Tx) error {
		_, err := tx.Exec(context.Background(), "INSERT INTO grouped (id) VALUES ($1)", sqlstore.NewID())
		return err
	}); err != nil {
		t.Fatalf("the group after a failed commit: %v", err)
	}
}
