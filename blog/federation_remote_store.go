package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// loadRemoteActor reads a stored actor by its id or its key id (column
// "id" or "key_id") and when it was fetched; sqlstore.ErrNotFound when
// none is stored. Of actors claiming one key id, the last fetched is read.
func (b *Blog) loadRemoteActor(ctx context.Context, column, value string) (*remoteActor, time.Time, error) {
	if column != "id" && column != "key_id" {
		return nil, time.Time{}, fmt.Errorf("blog: no actor lookup by %q", column)
	}
	var a remoteActor
	var fetched int64
	err := b.db.QueryRow(ctx, `SELECT id, key_id, public_pem, inbox, shared_inbox, handle, name, url, icon, host, fetched_at
		FROM ap_actors WHERE `+column+` = $1 ORDER BY fetched_at DESC LIMIT 1`, value).
		Scan(&a.ID, &a.KeyID, &a.PublicPEM, &a.Inbox, &a.SharedInbox, &a.Handle, &a.Name, &a.URL, &a.Icon, &a.Host, &fetched)
	if err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return nil, time.Time{}, err
		}
		return nil, time.Time{}, fmt.Errorf("blog: read remote actor: %w", err)
	}
	return &a, sqlstore.Time(fetched), nil
}

// saveRemoteActor stores an actor as just fetched, replacing what was
// stored of it.
func (b *Blog) saveRemoteActor(ctx context.Context, a *remoteActor) error {
	_, err := b.db.Exec(ctx, `INSERT INTO ap_actors (id, key_id, public_pem, inbox, shared_inbox, handle, name, url, icon, host, fetched_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (id) DO UPDATE SET key_id = excluded.key_id, public_pem = excluded.public_pem, inbox = excluded.inbox,
			shared_inbox = excluded.shared_inbox, handle = excluded.handle, name = excluded.name, url = excluded.url,
			icon = excluded.icon, host = excluded.host, fetched_at = excluded.fetched_at`,
		a.ID, a.KeyID, a.PublicPEM, a.Inbox, a.SharedInbox, a.Handle, a.Name, a.URL, a.Icon, a.Host, sqlstore.FromTime(b.now()))
	if err != nil {
		return fmt.Errorf("blog: store remote actor: %w", err)
	}
	return nil
}

// isBlocked reports whether the actor actorID, or the domain of host or
// one it is under, is blocked (ap_blocks).
func (b *Blog) isBlocked(ctx context.Context, actorID, host string) (bool, error) {
	domains := blockedDomains(host)
	args := []any{actorID}
	for _, d := range domains {
		args = append(args, d)
	}
	q := "SELECT COUNT(*) FROM ap_blocks WHERE (kind = 'actor' AND value = $1)"
	if len(domains) > 0 {
		q += " OR (kind = 'domain' AND value IN (" + sqlstore.Placeholders(2, len(domains)) + "))"
	}
	var n int
	if err := b.db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return false, fmt.Errorf("blog: read blocks: %w", err)
	}
	return n > 0, nil
}
