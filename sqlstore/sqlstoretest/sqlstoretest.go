// Package sqlstoretest gives tests a real, migrated, throwaway database:
// a SQLite file in a temp folder, or, when FOLIO_TEST_POSTGRES_DSN is set, a
// fresh schema in that PostgreSQL database that is dropped afterwards.
package sqlstoretest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/lib/pq" // the PostgreSQL driver, for creating schemas

	"folio/sqlstore"
)

// EnvDSN names the environment variable that switches tests to PostgreSQL.
const EnvDSN = "FOLIO_TEST_POSTGRES_DSN"

// Config says how to open a test database of the current kind.
type Config struct {
	Driver string
	DSN    string
}

// NewConfig prepares an empty database for one test and returns how to open
// it; the database is removed when the test ends. Two Opens of the same
// Config share the database, as two processes would.
func NewConfig(t testing.TB) Config {
	t.Helper()
	pg := os.Getenv(EnvDSN)
	if pg == "" {
		return Config{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "folio.db")}
	}
	schema := fmt.Sprintf("t_%s", strings.ReplaceAll(sqlstore.NewID(), "-", "")[:24])
	admin, err := sql.Open("postgres", pg)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema (is PostgreSQL running and %s right?): %v", EnvDSN, err)
	}
	t.Cleanup(func() {
		// The changes file its processes shared outlives them; the
		// database's id names it (the query fails harmlessly when the test
		// never migrated or never shared the counters).
		var id string
		if admin.QueryRow("SELECT value FROM "+schema+".meta WHERE key = $1", sqlstore.ChangesDBKey).Scan(&id) == nil {
			os.Remove(sqlstore.PostgresChangesFile(id))
		}
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	return Config{Driver: "postgres", DSN: withSearchPath(pg, schema)}
}

// withSearchPath adds a search_path run-time parameter to either DSN form,
// and synchronous_commit=off: a commit then returns before its WAL record
// is on disk, and a test database makes hundreds of commits (its
// migrations alone over a hundred), each otherwise waiting for an fsync.
// Only a crash of the PostgreSQL server itself could lose them, which no
// test does; what every other session sees, and when, is unchanged
// (docs/testing.md#keeping-ci-fast).
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			q.Set("synchronous_commit", "off")
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema + " synchronous_commit=off"
}

// Open opens a database of cfg with sqlstore's own tables migrated, closed
// when the test ends.
func (cfg Config) Open(t testing.TB) *sqlstore.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, cfg.Driver, cfg.DSN)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.MigrateCore(ctx); err != nil {
		t.Fatalf("migrate test database: %v", err)
	}
	return db
}

// Open returns a fresh migrated database for one test.
func Open(t testing.TB) *sqlstore.DB {
	t.Helper()
	return NewConfig(t).Open(t)
}
