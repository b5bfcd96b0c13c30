package blog

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// fedKeyName is the one key pair's row: the blog is one actor.
const fedKeyName = "blog"

// fedKeyRow is the stored key pair and the origin recorded with it.
type fedKeyRow struct {
	Origin     string
	PublicPEM  string
	PrivatePEM string
}

// loadFedKey reads the key pair; sqlstore.ErrNotFound when none was made.
func (b *Blog) loadFedKey(ctx context.Context) (fedKeyRow, error) {
	var k fedKeyRow
	err := b.db.QueryRow(ctx, "SELECT origin, public_pem, private_pem FROM ap_keys WHERE name = $1", fedKeyName).
		Scan(&k.Origin, &k.PublicPEM, &k.PrivatePEM)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return k, fmt.Errorf("blog: read the federation key: %w", err)
	}
	return k, err
}

// insertFedKey stores k unless a key pair exists: of processes making one
// at once, the first insert wins and every process then reads that one.
func (b *Blog) insertFedKey(ctx context.Context, k fedKeyRow) error {
	_, err := b.db.Exec(ctx, `INSERT INTO ap_keys (name, origin, public_pem, private_pem, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
		fedKeyName, k.Origin, k.PublicPEM, k.PrivatePEM, sqlstore.FromTime(b.now()))
	if err != nil {
		return fmt.Errorf("blog: store the federation key: %w", err)
	}
	return nil
}

// setFedOrigin records the origin background work builds IRIs of.
func (b *Blog) setFedOrigin(ctx context.Context, origin string) error {
	if _, err := b.db.Exec(ctx, "UPDATE ap_keys SET origin = $1 WHERE name = $2 AND origin <> $1", origin, fedKeyName); err != nil {
		return fmt.Errorf("blog: record the federation origin: %w", err)
	}
	return nil
}
