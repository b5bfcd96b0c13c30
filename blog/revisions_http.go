package blog

import (
	"context"
	"net/http"

	"folio/httpx"
)

// revisionOwner loads the live post or page a revision route names by {id}
// and returns its id; unknown or deleted: 404.
func (b *Blog) revisionOwner(ctx context.Context, kind, id string) error {
	var err error
	if kind == kindPage {
		_, err = b.pageBy(ctx, "id", id, false)
	} else {
		_, err = b.postBy(ctx, "id", id, false)
	}
	return httpError(err)
}

// handleListRevisions serves GET /admin/{posts,pages}/{id}/revisions: the
// versions saves replaced, newest first, paged as the other admin lists.
func (b *Blog) handleListRevisions(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		if err := b.revisionOwner(r.Context(), kind, id); err != nil {
			return err
		}
		items, total, err := b.listRevisions(r.Context(), kind, id, spanOf(p))
		if err != nil {
			return err
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

// loadRevision reads {id} and {rev} and loads that revision of that live
// post or page: a revision of another one is 404, as a missing one.
func (b *Blog) loadRevision(r *http.Request, kind string) (any, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	rev, err := httpx.PathID(r, "rev")
	if err != nil {
		return nil, err
	}
	if err := b.revisionOwner(r.Context(), kind, id); err != nil {
		return nil, err
	}
	var out any
	if kind == kindPage {
		out, err = b.pageRevision(r.Context(), id, rev)
	} else {
		out, err = b.postRevision(r.Context(), id, rev)
	}
	if err != nil {
		return nil, httpError(err)
	}
	return out, nil
}

// handleGetRevision serves one revision in full: its snapshot, id and time.
func (b *Blog) handleGetRevision(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rev, err := b.loadRevision(r, kind)
		if err != nil {
			return err
		}
		httpx.BlogAPI.OK(w, http.StatusOK, rev)
		return nil
	}
}

// handleRestoreRevision saves a revision as the post's or page's new state
// and answers the post or page as its GET does.
func (b *Blog) handleRestoreRevision(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rev, err := b.loadRevision(r, kind)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		out, err := b.restore(r.Context(), id, rev)
		if err != nil {
			return err
		}
		httpx.BlogAPI.OK(w, http.StatusOK, out)
		return nil
	}
}

// restore saves rev (a *PostRevision or *PageRevision of id) as the current
// state and returns the post or page as saved.
func (b *Blog) restore(ctx context.Context, id string, rev any) (any, error) {
	switch rev := rev.(type) {
	case *PageRevision:
		cur, err := b.pageBy(ctx, "id", id, false)
		if err != nil {
			return nil, httpError(err)
		}
		if err := b.restorePage(ctx, cur, rev); err != nil {
			return nil, httpError(err)
		}
		p, err := b.pageBy(ctx, "id", id, false)
		return p, httpError(err)
	case *PostRevision:
		cur, err := b.postBy(ctx, "id", id, false)
		if err != nil {
			return nil, httpError(err)
		}
		if err := b.restorePost(ctx, cur, rev); err != nil {
			return nil, httpError(err)
		}
		p, err := b.postBy(ctx, "id", id, false)
		b.postSaved(id)
		return p, httpError(err)
	}
	return nil, httpx.NotFound()
}
