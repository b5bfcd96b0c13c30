package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// noteSlug records, inside a save's transaction, what a post's or page's
// slug change means for old links (docs/blog-api.md#slug-changes). The slug
// the row now has is nobody's old slug any more: a live row always wins,
// and once it is gone the link is simply missing. A slug given up while
// the row was publicly visible leads to the row's id from now on, so a
// chain of renames A→B→C sends A straight to C.
func noteSlug(ctx context.Context, tx *sqlstore.Tx, kind, id, oldSlug, newSlug string, wasVisible bool, at time.Time) error {
	if _, err := tx.Exec(ctx, "DELETE FROM slug_redirects WHERE kind = $1 AND old_slug = $2", kind, newSlug); err != nil {
		return fmt.Errorf("forget slug redirect: %w", err)
	}
	if oldSlug == "" || oldSlug == newSlug || !wasVisible {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO slug_redirects (kind, old_slug, target_id, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (kind, old_slug) DO UPDATE SET target_id = excluded.target_id, created_at = excluded.created_at`,
		kind, oldSlug, id, sqlstore.FromTime(at))
	if err != nil {
		return fmt.Errorf("remember slug redirect: %w", err)
	}
	return nil
}

// redirectTarget returns the id of the post or page (kind) that gave up
// slug old, deleted or not; sqlstore.ErrNotFound when none did.
func (b *Blog) redirectTarget(ctx context.Context, kind, old string) (string, error) {
	var target string
	err := b.db.QueryRow(ctx, "SELECT target_id FROM slug_redirects WHERE kind = $1 AND old_slug = $2", kind, old).Scan(&target)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("blog: find slug redirect: %w", err)
	}
	return target, nil
}

// slugRedirectTarget returns, read through q (an import's transaction),
// the id that old slug of kind leads to; sqlstore.ErrNotFound when none.
func slugRedirectTarget(ctx context.Context, q sqlstore.Querier, kind, old string) (string, error) {
	var target string
	err := q.QueryRow(ctx, "SELECT target_id FROM slug_redirects WHERE kind = $1 AND old_slug = $2", kind, old).Scan(&target)
	return target, err
}

// insertSlugRedirect makes old slug of kind lead to the post or page id:
// an import's old addresses (Hugo's aliases), which no rename made.
func insertSlugRedirect(ctx context.Context, tx *sqlstore.Tx, kind, old, id string, at time.Time) error {
	_, err := tx.Exec(ctx, "INSERT INTO slug_redirects (kind, old_slug, target_id, created_at) VALUES ($1, $2, $3, $4)",
		kind, old, id, sqlstore.FromTime(at))
	if err != nil {
		return fmt.Errorf("import slug redirect: %w", err)
	}
	return nil
}
