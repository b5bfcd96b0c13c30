package blog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// Comment statuses.
const (
	CommentPending  = "pending"
	CommentApproved = "approved"
	CommentSpam     = "spam"
)

// PublicComment is what visitors see: never the email or the IP.
type PublicComment struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// AdminComment is a comment as the administrator reviews it.
type AdminComment struct {
	PublicComment
	Email     string `json:"email"`
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	PostID    string `json:"post_id"`
	PostTitle string `json:"post_title"`
	Status    string `json:"status"`
}

// CommentStats counts comments of live posts by status.
type CommentStats struct {
	Total    int `json:"total"`
	Approved int `json:"approved"`
	Pending  int `json:"pending"`
	Spam     int `json:"spam"`
}

// approvedComments lists a post's approved comments, oldest first.
func (b *Blog) approvedComments(ctx context.Context, postID string, pg httpx.Paging) ([]PublicComment, int, error) {
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM comments WHERE post_id = $1 AND status = 'approved'", postID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count comments: %w", err)
	}
	rows, err := b.db.Query(ctx, `SELECT id, author, content, created_at FROM comments WHERE post_id = $1 AND status = 'approved'
		ORDER BY created_at, id LIMIT $2 OFFSET $3`, postID, pg.Size, pg.Offset())
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	defer rows.Close()
	out := []PublicComment{}
	for rows.Next() {
		var c PublicComment
		var created int64
		if err := rows.Scan(&c.ID, &c.Author, &c.Content, &created); err != nil {
			return nil, 0, fmt.Errorf("blog: list comments: %w", err)
		}
		c.CreatedAt = sqlstore.Time(created)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	return out, total, nil
}

// commentInput is a visitor's submission.
type commentInput struct {
	Author  string `json:"author"`
	Email   string `json:"email"`
	Content string `json:"content"`
}

func (in *commentInput) validate() error {
	in.Author = strings.TrimSpace(in.Author)
	in.Email = strings.TrimSpace(in.Email)
	in.Content = strings.TrimSpace(in.Content)
	if err := checkText("author", in.Author, true, 50); err != nil {
		return err
	}
	if err := checkEmail("email", in.Email); err != nil {
		return err
	}
	return checkText("content", in.Content, true, 5000)
}

// commentReceipt answers a submission.
type commentReceipt struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// submitComment stores a pending comment on a publicly visible post whose
// comments are open. ErrNotFound for an invisible post; 403 when closed.
func (b *Blog) submitComment(ctx context.Context, postID string, in commentInput, ip, userAgent string) (commentReceipt, error) {
	p, err := b.postBy(ctx, "id", postID, true)
	if err != nil {
		return commentReceipt{}, err
	}
	if !p.ShowComments || !b.settings.Get(ctx).Post.EnableComment {
		return commentReceipt{}, errCommentsClosed
	}
	if err := in.validate(); err != nil {
		return commentReceipt{}, err
	}
	if len(userAgent) > 512 {
		userAgent = userAgent[:512]
	}
	now := b.now()
	rc := commentReceipt{ID: sqlstore.NewID(), Status: CommentPending, CreatedAt: sqlstore.Time(sqlstore.FromTime(now))}
	_, err = b.db.Exec(ctx, `INSERT INTO comments (id, post_id, author, email, content, status, ip, user_agent, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`, rc.ID, p.ID, in.Author, in.Email, in.Content, CommentPending, ip, userAgent, sqlstore.FromTime(now))
	if err != nil {
		return commentReceipt{}, fmt.Errorf("blog: add comment: %w", err)
	}
	return rc, nil
}

// commentFilter selects comments for the administrator.
type commentFilter struct {
	Status  string
	Keyword string
	PostID  string
}

const adminCommentColumns = `c.id, c.author, c.content, c.created_at, c.email, c.ip, c.user_agent, c.post_id, p.title, c.status`

const adminCommentFrom = ` FROM comments c JOIN posts p ON p.id = c.post_id AND p.deleted_at IS NULL`

func scanAdminComment(row interface{ Scan(...any) error }) (AdminComment, error) {
	var c AdminComment
	var created int64
	err := row.Scan(&c.ID, &c.Author, &c.Content, &created, &c.Email, &c.IP, &c.UserAgent, &c.PostID, &c.PostTitle, &c.Status)
	c.CreatedAt = sqlstore.Time(created)
	return c, err
}

// listComments pages through comments of live posts, newest first.
func (b *Blog) listComments(ctx context.Context, f commentFilter, pg httpx.Paging) ([]AdminComment, int, error) {
	var w where
	if f.Status != "" {
		w.add("c.status = ?", f.Status)
	}
	if f.PostID != "" {
		w.add("c.post_id = ?", f.PostID)
	}
	if f.Keyword != "" {
		ph := w.arg(sqlstore.LikePattern(f.Keyword))
		d := b.db.Dialect()
		w.conds = append(w.conds, "("+d.ILike("c.content", ph)+" OR "+d.ILike("c.author", ph)+")")
	}
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*)"+adminCommentFrom+w.sql(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count comments: %w", err)
	}
	rows, err := b.db.Query(ctx, "SELECT "+adminCommentColumns+adminCommentFrom+w.sql()+
		" ORDER BY c.created_at DESC, c.id DESC LIMIT "+w.arg(pg.Size)+" OFFSET "+w.arg(pg.Offset()), w.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	defer rows.Close()
	out := []AdminComment{}
	for rows.Next() {
		c, err := scanAdminComment(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("blog: list comments: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	return out, total, nil
}

func (b *Blog) commentStats(ctx context.Context) (CommentStats, error) {
	var s CommentStats
	rows, err := b.db.Query(ctx, "SELECT c.status, COUNT(*)"+adminCommentFrom+" GROUP BY c.status")
	if err != nil {
		return s, fmt.Errorf("blog: comment stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return s, fmt.Errorf("blog: comment stats: %w", err)
		}
		s.Total += n
		switch status {
		case CommentApproved:
			s.Approved = n
		case CommentPending:
			s.Pending = n
		case CommentSpam:
			s.Spam = n
		}
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("blog: comment stats: %w", err)
	}
	return s, nil
}

func validCommentStatus(s string) bool {
	return s == CommentApproved || s == CommentPending || s == CommentSpam
}

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
