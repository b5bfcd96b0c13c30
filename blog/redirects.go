package blog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"folio/httpx"
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

// movedTo returns the id and current slug of the post or page that gave up
// slug old. sqlstore.ErrNotFound when none did, or when it is deleted or,
// for public, no longer publicly visible. Only a miss asks: a live row
// with the slug is served before any redirect is looked at.
func (b *Blog) movedTo(ctx context.Context, kind, old string, public bool) (id, slug string, err error) {
	var target string
	err = b.db.QueryRow(ctx, "SELECT target_id FROM slug_redirects WHERE kind = $1 AND old_slug = $2", kind, old).Scan(&target)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", "", err
	}
	if err != nil {
		return "", "", fmt.Errorf("blog: find slug redirect: %w", err)
	}
	if kind == kindPage {
		p, err := b.pageBy(ctx, "id", target, public)
		if err != nil {
			return "", "", err
		}
		return p.ID, p.Slug, nil
	}
	p, err := b.postBy(ctx, "id", target, public)
	if err != nil {
		return "", "", err
	}
	return p.ID, p.Slug, nil
}

// movedData is the data of an API redirect's body: where the resource
// is now, for a client that does not follow redirects.
type movedData struct {
	ID       string `json:"id"`
	Slug     string `json:"slug"`
	Location string `json:"location"`
}

// redirectSlug answers a by-slug read that missed: 301 to the slug's new
// place under prefix (the route's path up to the slug), in envelope B, or
// the miss's own error when the slug was never given up.
func (b *Blog) redirectSlug(w http.ResponseWriter, r *http.Request, miss error, kind, old, prefix string, public bool) error {
	id, slug, err := b.movedTo(r.Context(), kind, old, public)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpError(miss)
	}
	if err != nil {
		return err
	}
	loc := prefix + url.PathEscape(slug)
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", loc)
	httpx.Reply(w, http.StatusMovedPermanently, movedData{ID: id, Slug: slug, Location: loc}, "moved permanently")
	return nil
}
