package sqlstore

import (
	"context"
	"errors"
	"fmt"
)

// Migration is one schema step. Version = position in its component's slice
// plus one; a migration, once released, is never edited, only followed.
type Migration struct {
	Name string
	Up   func(ctx context.Context, tx *Tx) error
}

// Statements returns an Up that runs each DDL statement in order, after
// rewriting its type tokens for the dialect (see Dialect.DDL).
func Statements(stmts ...string) func(ctx context.Context, tx *Tx) error {
	return func(ctx context.Context, tx *Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, tx.Dialect().DDL(s)); err != nil {
				return err
			}
		}
		return nil
	}
}

// migrateLockKey is the PostgreSQL advisory lock that serialises migrations
// of every Folio process sharing a database ("folio" in ASCII).
const migrateLockKey = 0x666f6c696f

// Migrate brings one component's schema (each domain package owns its own
// tables) up to date. Each migration runs in its own transaction together with
// the version bump, under a lock that other processes migrating the same
// database wait on: an advisory lock on PostgreSQL, BEGIN IMMEDIATE on
// SQLite. Running it twice, or from two processes at once, applies each step
// exactly once. A database newer than the binary is refused.
func (db *DB) Migrate(ctx context.Context, component string, migrations []Migration) error {
	for i := 0; ; i++ {
		done := false
		err := db.Tx(ctx, func(tx *Tx) error {
			if db.dialect == Postgres {
				if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrateLockKey); err != nil {
					return err
				}
			}
			// Once per call: the first step's transaction commits the
			// table, and nothing drops it, so the later steps (a fresh
			// database has over a hundred) need not ask again.
			if i == 0 {
				if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
					component TEXT PRIMARY KEY,
					version INTEGER NOT NULL
				)`); err != nil {
					return err
				}
			}
			var version int
			err := tx.QueryRow(ctx, "SELECT version FROM schema_version WHERE component = $1", component).Scan(&version)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			if version > len(migrations) {
				return fmt.Errorf("schema of %q is at version %d but this binary knows only %d: upgrade Folio", component, version, len(migrations))
			}
			if version == len(migrations) {
				done = true
				return nil
			}
			m := migrations[version]
			if err := m.Up(ctx, tx); err != nil {
				return fmt.Errorf("migration %s #%d (%s): %w", component, version+1, m.Name, err)
			}
			_, err = tx.Exec(ctx, `INSERT INTO schema_version (component, version) VALUES ($1, $2)
				ON CONFLICT (component) DO UPDATE SET version = excluded.version`, component, version+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlstore: migrate: %w", err)
		}
		if done {
			return nil
		}
	}
}

// SchemaVersion reports the applied version of a component (0 when none).
func (db *DB) SchemaVersion(ctx context.Context, component string) (int, error) {
	var v int
	err := db.QueryRow(ctx, "SELECT version FROM schema_version WHERE component = $1", component).Scan(&v)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return v, err
}

// coreMigrations are the tables sqlstore itself owns.
func coreMigrations() []Migration {
	return []Migration{
		{Name: "meta and settings", Up: Statements(
			`CREATE TABLE meta (
			key TEXT PRIMARY KEY,
			value TEXT NOT NULL
		)`,
			`CREATE TABLE settings (
			key TEXT PRIMARY KEY,
			value TEXT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
		)},
		{Name: "leases", Up: Statements(
			`CREATE TABLE leases (
			name TEXT PRIMARY KEY,
			holder TEXT NOT NULL,
			expires_at BIGINT NOT NULL
		)`,
		)},
		// Running processes and their heartbeats (docs/filehost.md#crash-consistency).
		{Name: "instances", Up: Statements(
			`CREATE TABLE instances (
			id TEXT PRIMARY KEY,
			host TEXT NOT NULL,
			pid INTEGER NOT NULL,
			started_at BIGINT NOT NULL,
			heartbeat_at BIGINT NOT NULL
		)`,
		)},
		// The name of a process's PostgreSQL sessions, to tell when they
		// have all ended (docs/filehost.md#crash-consistency).
		{Name: "instances_db_session", Up: Statements(
			`ALTER TABLE instances ADD COLUMN db_session TEXT NOT NULL DEFAULT ''`,
		)},
		// Which changes file a process announces its writes in, to tell
		// whether every live process shares one
		// (docs/design.md#caches-across-processes).
		{Name: "instances_changes_scope", Up: Statements(
			`ALTER TABLE instances ADD COLUMN changes_scope TEXT NOT NULL DEFAULT ''`,
		)},
		// The administrators' writes, sign-ins and sign-outs
		// (docs/observability.md#audit-log), listed newest first and
		// pruned by age: both by the index on time.
		{Name: "audit_log", Up: Statements(
			`CREATE TABLE audit_log (
			id TEXT PRIMARY KEY,
			at BIGINT NOT NULL,
			user_id TEXT NOT NULL,
			username TEXT NOT NULL,
			via TEXT NOT NULL,
			action TEXT NOT NULL,
			method TEXT NOT NULL,
			route TEXT NOT NULL,
			path TEXT NOT NULL,
			resource_id TEXT NOT NULL,
			status INTEGER NOT NULL,
			client_ip TEXT NOT NULL
		)`,
			`CREATE INDEX audit_log_at ON audit_log (at, id)`,
		)},
		// Durable background jobs (docs/design.md#background-work): one
		// pending job per subject, claims picked oldest first.
		{Name: "jobs", Up: Statements(
			`CREATE TABLE jobs (
			id TEXT PRIMARY KEY,
			kind TEXT NOT NULL,
			subject TEXT NOT NULL,
			state TEXT NOT NULL,
			attempts INTEGER NOT NULL DEFAULT 0,
			claimed_by TEXT NOT NULL DEFAULT '',
			claim_until BIGINT NOT NULL DEFAULT 0,
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
			`CREATE UNIQUE INDEX jobs_pending ON jobs (kind, subject) WHERE state = 'pending'`,
			`CREATE INDEX jobs_claim ON jobs (kind, created_at, id)`,
		)},
		// Jobs that wait: a retry with backoff (a federated delivery to a
		// server that is down) is a pending job with a time before which
		// no claim takes it, and a count of its failed runs.
		{Name: "jobs_run_after", Up: Statements(
			`ALTER TABLE jobs ADD COLUMN run_after BIGINT NOT NULL DEFAULT 0`,
			`ALTER TABLE jobs ADD COLUMN tries INTEGER NOT NULL DEFAULT 0`,
		)},
	}
}

// MigrateCore applies the migrations of sqlstore's own tables.
func (db *DB) MigrateCore(ctx context.Context) error {
	return db.Migrate(ctx, "core", coreMigrations())
}
