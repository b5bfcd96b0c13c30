package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Leases let one process among those sharing a database do a piece of
// background work (docs/design.md#background-work): whoever holds the lease
// called name does it, renews the lease while working, and a lease whose
// holder died expires so that another process takes over.

// TryLease takes the lease called name for holder, or renews it when holder
// already has it, until ttl after now; ok reports whether holder has it.
// One statement decides, so of two processes trying at once exactly one
// gets it.
func (db *DB) TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var got string
	err := db.QueryRowWrite(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE leases.expires_at <= $4 OR leases.holder = excluded.holder
		RETURNING holder`, name, holder, FromTime(now.Add(ttl)), FromTime(now)).Scan(&got)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlstore: take lease %s: %w", name, err)
	}
	return got == holder, nil
}

// ReleaseLease gives up holder's lease called name, so that another process
// need not wait for it to expire.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := db.Exec(ctx, "DELETE FROM leases WHERE name = $1 AND holder = $2", name, holder); err != nil {
		return fmt.Errorf("sqlstore: release lease %s: %w", name, err)
	}
	return nil
}

// LeaseHolder names the holder of the lease called name, whether or not it
// has expired; "" when no one holds it.
func (db *DB) LeaseHolder(ctx context.Context, name string) (string, error) {
	var holder string
	err := db.QueryRow(ctx, "SELECT holder FROM leases WHERE name = $1", name).Scan(&holder)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sqlstore: lease %s: %w", name, err)
	}
	return holder, nil
}

// TakeLease is TryLease that first frees the lease of a holder that live
// judges dead, so that the work it guards moves on at once rather than
// when the lease runs out. Its holders must be instance ids.
func (db *DB) TakeLease(ctx context.Context, name, holder string, live Liveness, now time.Time, ttl time.Duration) (bool, error) {
	keep := append([]any{holder}, stringsAny(live.AliveIDs())...)
	if _, err := db.Exec(ctx, "DELETE FROM leases WHERE name = $1 AND holder NOT IN ("+Placeholders(2, len(keep))+")",
		append([]any{name}, keep...)...); err != nil {
		return false, fmt.Errorf("sqlstore: take lease %s: %w", name, err)
	}
	return db.TryLease(ctx, name, holder, now, ttl)
}
