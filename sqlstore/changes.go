package sqlstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"unsafe"
)

// Changes are counters that every Folio process on one machine shares
// through a small memory-mapped file, so that a cache can ask "has anything
// I depend on changed?" with one atomic load instead of a query, and still
// see a write made through any other process on the very next request
// (docs/design.md#caches-across-processes).
//
// A writer bumps a counter after its transaction commits and before it
// answers; a reader remembers the value it loaded before reading the
// database and trusts what it read while the counter still holds that
// value.
//
// On SQLite every process that can write shares the database file, and
// SQLite's WAL only works on one machine: the file beside the database is
// shared by all of them, always. On PostgreSQL processes may run on
// several machines, or on one with different temporary folders; the
// counters are then authoritative only while the instance registry shows
// every live process using this same file (ConfirmShared), and callers fall
// back to asking the database otherwise (Local).
type Changes struct {
	mem    []byte
	id     string // made with the file: processes that share it share the id
	always bool   // SQLite: shared by every process that can write
	base   time.Time
	until  atomic.Int64 // Local until base plus this many nanoseconds
	handed atomic.Bool  // a Counter was taken: the file may no longer change
}

// SettingsCounter names the counter every settings Put bumps.
const SettingsCounter = "settings"

// Counter is one named counter of a Changes.
type Counter struct{ v *atomic.Uint64 }

// Load returns the counter's value.
func (c Counter) Load() uint64 { return c.v.Load() }

// Bump announces a change.
func (c Counter) Bump() { c.v.Add(1) }

// The file: a header with a magic and the file's id, then counterSlots
// counters of 8 bytes, each on its own cache line so that bumping one does
// not slow the loads of another.
const (
	changesMagic   = "FOLIOCH1"
	changesHeader  = 64
	changesSlot    = 64
	counterSlots   = 63
	changesFile    = changesHeader + counterSlots*changesSlot
	changesIDBytes = 16
)

// ScopeValid is how long one check of the registry that found every live
// process sharing this file keeps the counters authoritative on
// PostgreSQL. A process that finds one that does not waits longer than
// this before serving (docs/design.md#caches-across-processes).
const ScopeValid = 2 * time.Second

// Counter returns the counter called name. Names are spread over a fixed
// number of slots: two names may share one, which only costs the callers
// of one a needless reload when the other changes.
func (c *Changes) Counter(name string) Counter {
	c.handed.Store(true)
	h := fnv.New32a()
	h.Write([]byte(name))
	off := changesHeader + int(h.Sum32()%counterSlots)*changesSlot
	return Counter{v: counterAt(c.mem, off)}
}

// BumpAll announces a change to every counter: for a process that died
// between a commit and its announcement.
func (c *Changes) BumpAll() {
	for i := range counterSlots {
		counterAt(c.mem, changesHeader+i*changesSlot).Add(1)
	}
}

// ID identifies the file: equal ids on one host mean one shared file.
func (c *Changes) ID() string { return c.id }

// Local reports whether the counters see every process's changes now.
func (c *Changes) Local() bool {
	return c.always || time.Since(c.base) < time.Duration(c.until.Load())
}

// ConfirmShared records that a registry read started at checked found
// every live process sharing this file: the counters are authoritative
// until ScopeValid after it.
func (c *Changes) ConfirmShared(checked time.Time) {
	until := int64(checked.Sub(c.base) + ScopeValid)
	for {
		old := c.until.Load()
		if old >= until || c.until.CompareAndSwap(old, until) {
			return
		}
	}
}

// RevokeShared makes the counters not authoritative until the next
// ConfirmShared.
func (c *Changes) RevokeShared() { c.until.Store(0) }

// privateChanges are counters only this process sees: Local is false
// until the file is shared.
func privateChanges() *Changes {
	words := make([]uint64, changesFile/8) // aligned for the atomics
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), changesFile)
	return &Changes{mem: mem, id: "private-" + NewID(), base: time.Now()}
}

// openChanges maps the changes file at path, creating it when missing.
// A new file is written whole under a temporary name and then linked into
// place, so a process never maps a half-written header; two processes
// creating it at once agree on the first one linked.
func openChanges(path string, always bool) (*Changes, error) {
	for attempt := 0; ; attempt++ {
		c, err := mapChanges(path, always)
		if err == nil || !errors.Is(err, os.ErrNotExist) || attempt > 0 {
			return c, err
		}
		if err := createChanges(path); err != nil {
			return nil, err
		}
	}
}

func createChanges(path string) error {
	var id [changesIDBytes]byte
	if _, err := rand.Read(id[:]); err != nil {
		return fmt.Errorf("sqlstore: changes file id: %w", err)
	}
	buf := make([]byte, changesFile)
	copy(buf, changesMagic)
	copy(buf[len(changesMagic):], id[:])
	tmp, err := os.CreateTemp(filepath.Dir(path), ".folio-changes-*")
	if err != nil {
		return fmt.Errorf("sqlstore: create changes file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(buf)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("sqlstore: write changes file: %w", werr)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("sqlstore: create changes file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("sqlstore: create changes file: %w", err)
	}
	return nil
}

// checkChangesHeader returns the id in a mapped file's header.
func checkChangesHeader(path string, mem []byte) (string, error) {
	if len(mem) != changesFile || string(mem[:len(changesMagic)]) != changesMagic {
		return "", fmt.Errorf("sqlstore: %s is not a Folio changes file: remove it while no Folio process runs", path)
	}
	return hex.EncodeToString(mem[len(changesMagic) : len(changesMagic)+changesIDBytes]), nil
}

// PostgresChangesFile is where processes on this machine using the
// PostgreSQL database whose id (meta ChangesDBKey) is dbID share their
// changes file: shared memory when the system has it, else the temporary
// folder.
func PostgresChangesFile(dbID string) string {
	dir := "/dev/shm"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "folio-"+dbID+".changes")
}

// ChangesDBKey names the meta row holding the PostgreSQL database's id,
// which names the changes file of its processes.
const ChangesDBKey = "sqlstore.changes_db"

// ShareChanges makes this PostgreSQL handle's counters those of the file
// every process of this database on this machine shares, instead of
// private ones. The server calls it before anything takes a Counter, and
// confirms the scope with ConfirmShared from the instance registry
// (ScopeCheck). On SQLite the counters are shared from Open on.
func (db *DB) ShareChanges(ctx context.Context) error {
	if db.dialect != Postgres {
		return nil
	}
	if db.changes.handed.Load() {
		return errors.New("sqlstore: ShareChanges after a counter was taken")
	}
	id, err := db.EnsureMeta(ctx, ChangesDBKey, NewID())
	if err != nil {
		return err
	}
	c, err := openChanges(PostgresChangesFile(id), false)
	if err != nil {
		return err
	}
	db.changes = c
	return nil
}

// Changes returns the handle's change counters.
func (db *DB) Changes() *Changes { return db.changes }
