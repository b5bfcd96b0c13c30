package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
)

func (b *Blog) handleListLinks(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		pg, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		f := linkFilter{Keyword: strings.TrimSpace(r.URL.Query().Get("keyword"))}
		if public {
			yes := true
			f.Active = &yes
		} else if f.Active, err = httpx.QueryBool(r, "is_active"); err != nil {
			return err
		}
		items, total, err := b.listLinks(r.Context(), f, spanOf(pg))
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, pg))
		return nil
	}
}

func (b *Blog) handleGetLink(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		l, err := b.linkByID(r.Context(), id, public)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, l)
		return nil
	}
}

func (b *Blog) handleCreateLink(w http.ResponseWriter, r *http.Request) error {
	var in linkInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	l, err := b.saveLink(r.Context(), "", in)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, l)
	return nil
}

func (b *Blog) handleUpdateLink(partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		var in linkInput
		if partial {
			cur, err := b.linkByID(r.Context(), id, false)
			if err != nil {
				return httpError(err)
			}
			var p linkPatch
			if err := httpx.DecodeJSON(w, r, &p); err != nil {
				return err
			}
			in = linkInput{Name: cur.Name, URL: cur.URL, Description: cur.Description, Logo: cur.Logo, Sort: cur.Sort, Status: cur.Status}
			patchField(&in.Name, p.Name)
			patchField(&in.URL, p.URL)
			patchField(&in.Description, p.Description)
			patchField(&in.Logo, p.Logo)
			patchField(&in.Sort, p.Sort)
			if p.IsActive != nil {
				in.Status, in.IsActive = "", p.IsActive
			}
			patchField(&in.Status, p.Status)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		l, err := b.saveLink(r.Context(), id, in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, l)
		return nil
	}
}

func (b *Blog) handleDeleteLink(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "friend_links", id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
