package blog

import (
	"errors"
	"net/http"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
)

// postFilterOf reads the list filters shared by the public and admin lists.
func postFilterOf(r *http.Request, public bool) (postFilter, error) {
	q := r.URL.Query()
	f := postFilter{Public: public, Keyword: strings.TrimSpace(q.Get("keyword"))}
	var err error
	if f.TagID, err = httpx.QueryID(r, "tag_id"); err != nil {
		return f, err
	}
	if f.CategoryID, err = httpx.QueryID(r, "category_id"); err != nil {
		return f, err
	}
	if !public {
		f.Status = q.Get("status")
		switch f.Status {
		case "", StatusDraft, StatusPublished, StatusArchived:
		default:
			return f, httpx.Unprocessable("status", "must be draft, published or archived")
		}
	}
	return f, nil
}

func (b *Blog) handleListPosts(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		f, err := postFilterOf(r, public)
		if err != nil {
			return err
		}
		items, total, err := b.listPosts(r.Context(), f, spanOf(p))
		if err != nil {
			return httpError(err)
		}
		covers := make([]*PostItem, len(items))
		for i := range items {
			covers[i] = &items[i]
		}
		b.sizeAPICovers(r.Context(), covers)
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

// handleGetPost serves a post by {id} or {slug}.
func (b *Blog) handleGetPost(column string, public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		value, err := pathKey(r, column)
		if err != nil {
			return err
		}
		p, err := b.postBy(r.Context(), column, value, public)
		if column == "slug" && errors.Is(err, sqlstore.ErrNotFound) {
			prefix := "/api/v1/admin/posts/slug/"
			if public {
				prefix = "/api/v1/posts/slug/"
			}
			return b.redirectSlug(w, r, err, kindPost, value, prefix, public)
		}
		if err != nil {
			return httpError(err)
		}
		b.sizeAPICovers(r.Context(), []*PostItem{&p.PostItem})
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleCreatePost(w http.ResponseWriter, r *http.Request) error {
	var in postInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	id, err := b.savePost(r.Context(), nil, in)
	if err != nil {
		return httpError(err)
	}
	p, err := b.postBy(r.Context(), "id", id, false)
	b.postSaved(id)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, p)
	return nil
}

// handleUpdatePost serves PUT (the whole create body, omitted fields take
// their defaults) and PATCH (only the fields present change).
func (b *Blog) handleUpdatePost(partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		cur, err := b.postBy(r.Context(), "id", id, false)
		if err != nil {
			return httpError(err)
		}
		var in postInput
		if partial {
			var patch postPatch
			if err := httpx.DecodeJSON(w, r, &patch); err != nil {
				return err
			}
			in = inputOf(cur)
			patch.apply(&in)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		if _, err := b.savePost(r.Context(), cur, in); err != nil {
			return httpError(err)
		}
		p, err := b.postBy(r.Context(), "id", id, false)
		b.postSaved(id)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleDeletePost(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.deletePost(r.Context(), id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
