package sqlstore_test

import (
	"context"
	"os"
	"testing"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// openDB returns a fresh migrated database of the kind the environment selects.
func openDB(t *testing.T) *sqlstore.DB {
	t.Helper()
	return sqlstoretest.Open(t)
}

// exec runs statements that must succeed, each rewritten for the dialect.
func exec(t *testing.T, db *sqlstore.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(context.Background(), db.Dialect().DDL(s)); err != nil {
			t.Fatalf("exec %q: %v", s, err)
		}
	}
}

// count returns the result of a COUNT(*) query.
func count(t *testing.T, db *sqlstore.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("count %q: %v", query, err)
	}
	return n
}

// ownPID is this test process's pid.
func ownPID() int { return os.Getpid() }
