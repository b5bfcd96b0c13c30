package blog

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"folio/httpx"
	"folio/sqlstore"
)

// movedTo returns the id and current slug of the post or page that gave up
// slug old. sqlstore.ErrNotFound when none did, or when it is deleted or,
// for public, no longer publicly visible. Only a miss asks: a live row
// with the slug is served before any redirect is looked at.
func (b *Blog) movedTo(ctx context.Context, kind, old string, public bool) (id, slug string, err error) {
	target, err := b.redirectTarget(ctx, kind, old)
	if err != nil {
		return "", "", err
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
