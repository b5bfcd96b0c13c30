package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
)

// Handlers, one set per table.

func (b *Blog) handleListTerms(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		items, total, err := b.listTerms(r.Context(), table, strings.TrimSpace(r.URL.Query().Get("keyword")), spanOf(p))
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

func (b *Blog) handleGetTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		t, err := b.termByID(r.Context(), table, id)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, t)
		return nil
	}
}

func (b *Blog) handleCreateTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in termInput
		if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		t, err := b.saveTerm(r.Context(), table, "", in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusCreated, t)
		return nil
	}
}

func (b *Blog) handleUpdateTerm(table termTable, partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		var in termInput
		if partial {
			cur, err := b.termByID(r.Context(), table, id)
			if err != nil {
				return httpError(err)
			}
			var p termPatch
			if err := httpx.DecodeJSON(w, r, &p); err != nil {
				return err
			}
			in = termInput{Name: cur.Name, Slug: cur.Slug}
			patchField(&in.Name, p.Name)
			patchField(&in.Slug, p.Slug)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		t, err := b.saveTerm(r.Context(), table, id, in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, t)
		return nil
	}
}

func (b *Blog) handleDeleteTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		if err := b.deleteTerm(r.Context(), table, id); err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, nil)
		return nil
	}
}
