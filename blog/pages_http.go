package blog

import (
	"errors"
	"net/http"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
)

func (b *Blog) handleListPages(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		f := pageFilter{Public: public}
		if !public {
			f.Keyword = strings.TrimSpace(r.URL.Query().Get("keyword"))
			f.Status = r.URL.Query().Get("status")
			switch f.Status {
			case "", StatusDraft, StatusPublished, StatusArchived:
			default:
				return httpx.Unprocessable("status", "must be draft, published or archived")
			}
		}
		items, total, err := b.listPages(r.Context(), f, spanOf(p))
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

func (b *Blog) handleGetPage(column string, public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		value, err := pathKey(r, column)
		if err != nil {
			return err
		}
		p, err := b.pageBy(r.Context(), column, value, public)
		if column == "slug" && errors.Is(err, sqlstore.ErrNotFound) {
			return b.redirectSlug(w, r, err, kindPage, value, "/api/v1/pages/slug/", public)
		}
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleCreatePage(w http.ResponseWriter, r *http.Request) error {
	var in pageInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	id, err := b.savePage(r.Context(), nil, in)
	if err != nil {
		return httpError(err)
	}
	p, err := b.pageBy(r.Context(), "id", id, false)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, p)
	return nil
}

func (b *Blog) handleUpdatePage(partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		cur, err := b.pageBy(r.Context(), "id", id, false)
		if err != nil {
			return httpError(err)
		}
		var in pageInput
		if partial {
			var patch pagePatch
			if err := httpx.DecodeJSON(w, r, &patch); err != nil {
				return err
			}
			in = pageInput{Title: cur.Title, Slug: cur.Slug, ContentMarkdown: cur.ContentMarkdown, Status: cur.Status,
				SortOrder: cur.SortOrder, ShowInNav: cur.ShowInNav, Template: cur.Template, Config: cur.Config}
			patch.apply(&in)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		if _, err := b.savePage(r.Context(), cur, in); err != nil {
			return httpError(err)
		}
		p, err := b.pageBy(r.Context(), "id", id, false)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, p)
		return nil
	}
}

func (b *Blog) handleDeletePage(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "pages", id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
