package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
)

func (b *Blog) handleListApprovedComments(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	pg, err := blogPaging(r, 20)
	if err != nil {
		return err
	}
	if _, err := b.postBy(r.Context(), "id", id, true); err != nil {
		return httpError(err)
	}
	items, total, err := b.approvedComments(r.Context(), id, spanOf(pg))
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, pg))
	return nil
}

func (b *Blog) handleSubmitComment(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	var in commentInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	rc, err := b.submitComment(r.Context(), id, in, httpx.ClientIP(r), r.UserAgent())
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, rc)
	return nil
}

func (b *Blog) handleAdminListComments(w http.ResponseWriter, r *http.Request) error {
	pg, err := blogPaging(r, 10)
	if err != nil {
		return err
	}
	f := commentFilter{Status: r.URL.Query().Get("status"), Keyword: strings.TrimSpace(r.URL.Query().Get("keyword"))}
	if f.Status != "" && !validCommentStatus(f.Status) {
		return httpx.Unprocessable("status", "must be approved, pending or spam")
	}
	if f.PostID, err = httpx.QueryID(r, "post_id"); err != nil {
		return err
	}
	items, total, err := b.listComments(r.Context(), f, spanOf(pg))
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, pg))
	return nil
}

func (b *Blog) handleCommentStats(w http.ResponseWriter, r *http.Request) error {
	s, err := b.commentStats(r.Context())
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, s)
	return nil
}

func (b *Blog) handleReviewComment(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Status *string `json:"status"`
	}
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	if in.Status == nil || !validCommentStatus(*in.Status) {
		return httpx.Unprocessable("status", "must be approved, pending or spam")
	}
	c, err := b.reviewComment(r.Context(), id, *in.Status)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, c)
	return nil
}

func (b *Blog) handleDeleteComment(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.deleteComment(r.Context(), id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
