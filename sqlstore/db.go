// Package sqlstore owns the database: opening SQLite or PostgreSQL, the small
// dialect layer that lets one hand-written query run on both, the mapping of
// driver errors to shared sentinels, versioned migrations, UUID v7 ids, the
// registry that stores runtime settings groups (their types and rules live
// with their owners), and internal values that live in the database.
//
// Queries are written once with PostgreSQL-style placeholders ($1, $2, …).
// On SQLite they are rewritten to numbered ?NNN placeholders, because
// mattn/go-sqlite3 binds $N by order of appearance rather than by number.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lib/pq"
	"github.com/mattn/go-sqlite3"
)

// Dialect names the SQL flavour behind a DB.
type Dialect int

const (
	SQLite Dialect = iota + 1
	Postgres
)

func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return "unknown"
}

// Shared sentinels: handlers and domain code test for these, never for a
// driver's own error types.
var (
	ErrNotFound   = errors.New("not found")
	ErrConflict   = errors.New("conflict")
	ErrForeignKey = errors.New("referenced row does not exist")
	// ErrInvalidText: the database refused text it cannot store (a NUL
	// character or invalid UTF-8), which came from a client.
	ErrInvalidText = errors.New("text the database cannot store")
)

// Querier is what both *DB and *Tx offer, so store functions can run inside
// or outside a transaction.
type Querier interface {
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *Row
	Dialect() Dialect
}

// DB is a database handle with separate read and write pools. On SQLite every
// write goes through a single connection that opens transactions with
// BEGIN IMMEDIATE, so concurrent writers queue in Go instead of failing with
// "database is locked"; reads use their own pool and never wait for writes
// (WAL). On PostgreSQL both pools are the same *sql.DB.
type DB struct {
	dialect  Dialect
	read     *sql.DB
	write    *sql.DB
	readIdle int    // idle connections the read pool keeps
	session  string // PostgreSQL: the application_name of this pool's sessions
	changes  *Changes
}

// Open connects to the database named by driver ("sqlite" or "postgres") and
// dsn. For SQLite the dsn is a file path (its folder is created if missing),
// optionally with extra query parameters.
func Open(ctx context.Context, driver, dsn string) (*DB, error) {
	switch driver {
	case "sqlite", "sqlite3", "":
		return openSQLite(ctx, dsn)
	case "postgres", "postgresql":
		return openPostgres(ctx, dsn)
	}
	return nil, fmt.Errorf("sqlstore: unknown driver %q (want sqlite or postgres)", driver)
}

func openSQLite(ctx context.Context, dsn string) (*DB, error) {
	path, query, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	if path == "" {
		return nil, errors.New("sqlstore: empty sqlite path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlstore: create database folder: %w", err)
		}
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: sqlite dsn parameters: %w", err)
	}
	// busy_timeout first so that switching to WAL waits for other processes.
	params.Set("_busy_timeout", "10000")
	params.Set("_journal_mode", "WAL")
	params.Set("_foreign_keys", "on")
	// FULL: in WAL mode a commit then returns only once its WAL frames are
	// on disk. NORMAL would leave the last commits to a power loss, an
	// acknowledged upload's record among them while its bytes, fsynced,
	// survive (docs/filehost.md#crash-consistency). Concurrent uploads share
	// one commit, and so one fsync (TxGroup).
	params.Set("_synchronous", "FULL")
	readDSN := "file:" + path + "?" + params.Encode()
	params.Set("_txlock", "immediate")
	writeDSN := "file:" + path + "?" + params.Encode()

	// The writer keeps its temporary files in memory. Each upload of a
	// shared commit runs in a savepoint (TxGroup), whose sub-journal holds
	// the pages it changes; on disk that is two writes a page, some thirty
	// an upload, to a file that is thrown away at the commit. Its size is
	// bounded by the pages one transaction changes (docs/design.md#group-commit).
	write := sql.OpenDB(sqliteConnector{dsn: writeDSN, driver: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec("PRAGMA temp_store = MEMORY", nil)
			return err
		},
	}})
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlstore: open sqlite %s: %w", path, err)
	}
	read, err := sql.Open("sqlite3", readDSN)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlstore: open sqlite: %w", err)
	}
	n := max(4, 2*runtime.NumCPU())
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxIdleTime(5 * time.Minute)
	changes, err := openChanges(path+".changes", true)
	if err != nil {
		write.Close()
		read.Close()
		return nil, err
	}
	return &DB{dialect: SQLite, read: read, write: write, readIdle: n, changes: changes}, nil
}

// sqliteConnector opens connections to dsn through driver, whose hook
// sets what the DSN cannot say.
type sqliteConnector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c sqliteConnector) Driver() driver.Driver                        { return c.driver }

// pgIdleConns is how many PostgreSQL connections stay open between bursts.
const pgIdleConns = 8

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	session := sessionName(dsn)
	db, err := sql.Open("postgres", withApplicationName(withBinaryParameters(dsn), session))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open postgres: %w", err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(pgIdleConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlstore: connect to postgres: %w", mapError(err))
	}
	return &DB{dialect: Postgres, read: db, write: db, readIdle: pgIdleConns, session: session, changes: privateChanges()}, nil
}

// withBinaryParameters turns on lib/pq's binary_parameters unless the DSN
// says otherwise. With it a query with arguments costs one round trip
// instead of two (no separate Parse/Describe before Bind), which halves the
// latency of most requests; Folio binds no argument whose meaning changes
// in binary form. The DSN may be a URL or key=value pairs.
func withBinaryParameters(dsn string) string {
	if strings.Contains(dsn, "binary_parameters") {
		return dsn
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn // pq reports the bad DSN itself
		}
		q := u.Query()
		q.Set("binary_parameters", "yes")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn + " binary_parameters=yes")
}

// sessionName is the application_name a new pool gives its PostgreSQL
// sessions: unique to the pool, so that pg_stat_activity tells when every
// session of a killed process has ended (Instances.Live). It follows the
// DSN's own application_name, if any, cut so that the whole fits
// PostgreSQL's 63 bytes.
func sessionName(dsn string) string {
	own := "folio-" + strings.ReplaceAll(NewID(), "-", "")[16:]
	theirs := ""
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			theirs = u.Query().Get("application_name")
		}
	} else if _, v, ok := strings.Cut(dsn, "application_name="); ok {
		theirs = strings.Trim(strings.Fields(v + " ")[0], "'")
	}
	for len(theirs)+1+len(own) > 63 || !utf8.ValidString(theirs) {
		theirs = theirs[:len(theirs)-1]
	}
	if theirs == "" {
		return own
	}
	return theirs + " " + own
}

// withApplicationName sets the DSN's application_name to name.
func withApplicationName(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn // pq reports the bad DSN itself
		}
		q := u.Query()
		q.Set("application_name", name)
		u.RawQuery = q.Encode()
		return u.String()
	}
	// In key=value form the last of a repeated key wins.
	return strings.TrimSpace(dsn + " application_name='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name) + "'")
}

// SessionName is the application_name of the pool's PostgreSQL sessions;
// empty for SQLite.
func (db *DB) SessionName() string { return db.session }

// Dialect reports which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Close closes both pools.
func (db *DB) Close() error {
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	return err
}

// ReleaseIdle gives back the memory the database layer holds for busy
// times: it closes the read pool's idle connections (each SQLite
// connection keeps its own page cache; later queries open new ones),
// empties the SQLite writer's page cache, and trims the C heap SQLite
// allocates from. The server calls it when a burst of requests is over
// (docs/design.md, Memory).
func (db *DB) ReleaseIdle(ctx context.Context) {
	db.read.SetMaxIdleConns(0)
	db.read.SetMaxIdleConns(db.readIdle)
	if db.dialect == SQLite {
		// Waits for a write under way; a failure only keeps the cache.
		_, _ = db.write.ExecContext(ctx, "PRAGMA shrink_memory")
	}
	trimCHeap()
}

// IdleConns is how many connections the read pool keeps idle now.
func (db *DB) IdleConns() int { return db.read.Stats().Idle }

// Ping checks that the database answers, on the read pool, which is the one
// requests depend on most.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return err
	}
	var one int
	return db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Exec runs a statement on the write pool.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := db.write.ExecContext(ctx, db.dialect.Rebind(query), args...)
	return res, mapError(err)
}

// Query runs a query on the read pool.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := db.read.QueryContext(ctx, db.dialect.Rebind(query), args...)
	return rows, mapError(err)
}

// QueryRow runs a single-row query on the read pool.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) *Row {
	return &Row{row: db.read.QueryRowContext(ctx, db.dialect.Rebind(query), args...)}
}

// QueryRowWrite runs a single-row statement (INSERT … RETURNING, UPDATE …
// RETURNING) on the write pool.
func (db *DB) QueryRowWrite(ctx context.Context, query string, args ...any) *Row {
	return &Row{row: db.write.QueryRowContext(ctx, db.dialect.Rebind(query), args...)}
}

// Tx runs fn in a transaction on the write pool, committing when fn returns
// nil and rolling back otherwise. Inside fn use only tx: on SQLite the write
// pool has a single connection, so a call on db itself would wait for the
// transaction that is waiting for it.
func (db *DB) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", mapError(err))
	}
	tx := &Tx{tx: sqlTx, dialect: db.dialect}
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", mapError(err))
	}
	return nil
}

// Tx is a transaction. Reads inside it see its own writes.
type Tx struct {
	tx      *sql.Tx
	dialect Dialect
}

func (tx *Tx) Dialect() Dialect { return tx.dialect }

func (tx *Tx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := tx.tx.ExecContext(ctx, tx.dialect.Rebind(query), args...)
	return res, mapError(err)
}

func (tx *Tx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := tx.tx.QueryContext(ctx, tx.dialect.Rebind(query), args...)
	return rows, mapError(err)
}

func (tx *Tx) QueryRow(ctx context.Context, query string, args ...any) *Row {
	return &Row{row: tx.tx.QueryRowContext(ctx, tx.dialect.Rebind(query), args...)}
}

// Row wraps *sql.Row so that Scan reports ErrNotFound and the other shared
// sentinels instead of driver errors.
type Row struct{ row *sql.Row }

func (r *Row) Scan(dest ...any) error { return mapError(r.row.Scan(dest...)) }

// mapError turns driver errors into the shared sentinels, keeping the driver
// error wrapped for logs.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.ExtendedCode {
		case sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintPrimaryKey:
			return fmt.Errorf("%w: %v", ErrConflict, err)
		case sqlite3.ErrConstraintForeignKey:
			return fmt.Errorf("%w: %v", ErrForeignKey, err)
		}
		return err
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			return fmt.Errorf("%w: %v", ErrConflict, err)
		case "23503":
			return fmt.Errorf("%w: %v", ErrForeignKey, err)
		case "22021", "22P05": // character_not_in_repertoire, untranslatable_character
			return fmt.Errorf("%w: %v", ErrInvalidText, err)
		}
	}
	return err
}

// PoolStats are the statistics of the connection pools by name: "read"
// and "write" for SQLite, which keeps a pool of its own for its one
// writer, and "main" for PostgreSQL's one pool.
func (db *DB) PoolStats() []NamedPoolStats {
	if db.read == db.write {
		return []NamedPoolStats{{"main", db.read.Stats()}}
	}
	return []NamedPoolStats{{"read", db.read.Stats()}, {"write", db.write.Stats()}}
}

// NamedPoolStats are one pool's statistics.
type NamedPoolStats struct {
	Pool  string
	Stats sql.DBStats
}
