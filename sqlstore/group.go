package sqlstore

import (
	"context"
	"fmt"
	"sync"
)

// TxGroup commits the small transactions of concurrent callers together:
// the bodies waiting while one group commits run next in one database
// transaction, each inside a savepoint of its own, and that transaction's
// one commit (one WAL write on SQLite, one WAL flush on PostgreSQL) makes
// them all at once (docs/design.md#group-commit).
//
// Each caller's Tx returns only after its body is committed, or with an
// error and nothing of its body kept: a body that fails is rolled back to
// its savepoint and only its caller sees the error; when the shared
// transaction fails to begin, to roll a body back or to commit, every
// caller whose body had succeeded gets that error and none of the group's
// writes are kept.
//
// Only SQLite's writes are grouped: they go through one connection in any
// case. On PostgreSQL each Tx is a transaction of its own.
//
// There is no background goroutine: the first caller to find the group
// idle leads, runs one batch (its own body first) and hands the lead to
// the first caller still waiting.
type TxGroup struct {
	db  *DB
	max int // bodies in one transaction

	mu      sync.Mutex
	pending []*groupCall
	leading bool
}

type groupCall struct {
	fn   func(tx *Tx) error
	err  error
	wake chan bool // true: lead the next batch; false: done, err is set
}

// NewGroup returns a TxGroup writing to db, with at most size bodies in one
// transaction (at least 1).
func (db *DB) NewGroup(size int) *TxGroup {
	return &TxGroup{db: db, max: max(size, 1)}
}

// Tx runs fn in a transaction that may be shared with other callers' (see
// TxGroup). fn must not keep the Tx, and must not use a context that can be
// cancelled for its statements: on SQLite an interrupted write rolls back
// the whole shared transaction, failing every caller in it.
func (g *TxGroup) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	if g.db.dialect == Postgres {
		// Its connections write in parallel, and each statement of a
		// shared transaction would be a round trip in one line: a
		// transaction of its own is faster (docs/design.md#group-commit).
		return g.db.Tx(context.WithoutCancel(ctx), func(tx *Tx) error { return callBody(fn, tx) })
	}
	c := &groupCall{fn: fn, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead && !<-c.wake {
		return c.err
	}
	// Leading: c is first in line, since the lead passes only to the first
	// waiting caller and the group is idle only with no one waiting.
	g.mu.Lock()
	n := min(len(g.pending), g.max)
	batch := g.pending[:n:n]
	g.pending = append([]*groupCall(nil), g.pending[n:]...)
	g.mu.Unlock()

	g.run(context.WithoutCancel(ctx), batch)

	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].wake <- true
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, other := range batch[1:] {
		other.wake <- false
	}
	return c.err
}

// run commits batch in one transaction and sets each call's error.
func (g *TxGroup) run(ctx context.Context, batch []*groupCall) {
	if len(batch) == 1 {
		batch[0].err = g.db.Tx(ctx, func(tx *Tx) error { return callBody(batch[0].fn, tx) })
		return
	}
	err := g.db.Tx(ctx, func(tx *Tx) error {
		for _, c := range batch {
			if _, err := tx.Exec(ctx, "SAVEPOINT group_member"); err != nil {
				return err
			}
			if c.err = callBody(c.fn, tx); c.err != nil {
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT group_member"); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, "RELEASE SAVEPOINT group_member"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		err = fmt.Errorf("sqlstore: group commit of %d transactions: %w", len(batch), err)
		for _, c := range batch {
			if c.err == nil {
				c.err = err
			}
		}
	}
}

// callBody runs one caller's body, turning a panic into its error so that
// one caller's bug cannot take the others' answers with it.
func callBody(fn func(tx *Tx) error, tx *Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sqlstore: transaction body panicked: %v", r)
		}
	}()
	return fn(tx)
}
