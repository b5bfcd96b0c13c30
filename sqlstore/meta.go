package sqlstore

import (
	"context"
	"fmt"
)

// Meta reads an internal value (generated secrets, bootstrap facts).
// It returns ErrNotFound when the key was never set.
func (db *DB) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := db.QueryRowWrite(ctx, "SELECT value FROM meta WHERE key = $1", key).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("sqlstore: read meta %s: %w", key, err)
	}
	return v, nil
}

// EnsureMeta stores value under key unless a value is already there, and
// returns the stored one. Two processes racing on the same key agree on the
// first writer's value.
func (db *DB) EnsureMeta(ctx context.Context, key, value string) (string, error) {
	if _, err := db.Exec(ctx, "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", key, value); err != nil {
		return "", fmt.Errorf("sqlstore: write meta %s: %w", key, err)
	}
	return db.Meta(ctx, key)
}

// SetMeta stores value under key, replacing any earlier value.
func (db *DB) SetMeta(ctx context.Context, key, value string) error {
	_, err := db.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("sqlstore: write meta %s: %w", key, err)
	}
	return nil
}
