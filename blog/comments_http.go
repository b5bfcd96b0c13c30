package blog

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
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
	items, total, err := b.approvedComments(r.Context(), id, pg)
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
	items, total, err := b.listComments(r.Context(), f, pg)
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
	c, err := scanAdminComment(b.db.QueryRowWrite(r.Context(), `UPDATE comments SET status = $1, updated_at = $2 WHERE id = $3
		AND post_id IN (SELECT id FROM posts WHERE deleted_at IS NULL)
		RETURNING id, author, content, created_at, email, ip, user_agent, post_id, '', status`,
		*in.Status, sqlstore.FromTime(b.now()), id))
	if err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return err
		}
		return fmt.Errorf("blog: review comment: %w", err)
	}
	if p, err := b.postBy(r.Context(), "id", c.PostID, false); err == nil {
		c.PostTitle = p.Title
	}
	httpx.BlogAPI.OK(w, http.StatusOK, c)
	return nil
}

func (b *Blog) handleDeleteComment(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	res, err := b.db.Exec(r.Context(), "DELETE FROM comments WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("blog: delete comment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("blog: delete comment: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
