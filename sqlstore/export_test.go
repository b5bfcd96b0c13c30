package sqlstore

import "time"

// NewIDAt exposes newIDAt so tests can make ids at chosen instants.
var NewIDAt = newIDAt

// WithBinaryParameters exposes withBinaryParameters to the DSN tests.
var WithBinaryParameters = withBinaryParameters

// SetClock replaces the registry's clock, so tests can move past
// RefreshInterval without sleeping.
func (r *Registry) SetClock(now func() time.Time) { r.now = now }

// SessionNameOf exposes sessionName to the session name tests.
var SessionNameOf = sessionName

// UsePrivateChanges gives db counters no other handle sees, as on a
// machine where memory cannot be shared: caches fall back to asking the
// database.
func (db *DB) UsePrivateChanges() { db.changes = privateChanges() }

// Waiting is how many callers of g wait for a batch, for tests that line
// several up behind a busy one.
func (g *TxGroup) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending)
}

// HoldLock holds the registry's lock until the returned function is
// called, so a test can tell which reads take it.
func (r *Registry) HoldLock() (release func()) {
	r.mu.Lock()
	return r.mu.Unlock
}
