package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// approvedComments lists a post's approved comments, oldest first.
func (b *Blog) approvedComments(ctx context.Context, postID string, pg span) ([]PublicComment, int, error) {
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM comments WHERE post_id = $1 AND status = 'approved'", postID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count comments: %w", err)
	}
	// The page's ids from comments_post_paging first (docs/design.md#paging).
	rows, err := b.db.Query(ctx, `SELECT `+publicCommentColumns+` FROM (SELECT id FROM comments
		WHERE post_id = $1 AND status = 'approved' ORDER BY created_at, id LIMIT $2 OFFSET $3) page
		JOIN comments c ON c.id = page.id ORDER BY c.created_at, c.id`, postID, pg.limit, pg.offset)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	defer rows.Close()
	out := []PublicComment{}
	for rows.Next() {
		var c PublicComment
		var created int64
		if err := rows.Scan(&c.ID, &c.Author, &c.Content, &created, &c.AuthorHandle, &c.AuthorURL, &c.apID, &c.apActor, &c.ReplyTo); err != nil {
			return nil, 0, fmt.Errorf("blog: list comments: %w", err)
		}
		c.CreatedAt = sqlstore.Time(created)
		c.Fediverse = c.apID != ""
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list comments: %w", err)
	}
	return out, total, nil
}

// submitComment stores a pending comment on a publicly visible post whose
// comments are open. ErrNotFound for an invisible post; errCommentsClosed
// when closed.
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

// publicCommentColumns are what every list of comments reads; the
// fediverse mark is derived from ap_id (the Note's IRI, "" for the site's
// own comments).
const publicCommentColumns = `c.id, c.author, c.content, c.created_at, c.author_handle, c.author_url, c.ap_id, c.ap_actor, c.reply_to`

const adminCommentColumns = publicCommentColumns + `, c.email, c.ip, c.user_agent, c.post_id, p.title, c.status`

// adminCommentFrom is the comments of live posts. Whether a post is live
// is read from the index posts_live, not from the post.
const adminCommentFrom = ` FROM comments c JOIN posts p ON p.id = c.post_id AND p.deleted_at IS NULL`

func scanAdminComment(row interface{ Scan(...any) error }) (AdminComment, error) {
	var c AdminComment
	var created int64
	err := row.Scan(&c.ID, &c.Author, &c.Content, &created, &c.AuthorHandle, &c.AuthorURL, &c.apID, &c.apActor, &c.ReplyTo,
		&c.Email, &c.IP, &c.UserAgent, &c.PostID, &c.PostTitle, &c.Status)
	c.CreatedAt = sqlstore.Time(created)
	c.Fediverse = c.apID != ""
	return c, err
}

// listComments pages through comments of live posts, newest first (oldest
// first with f.Oldest): the page's ids from comments_admin_paging first,
// then those comments whole (docs/design.md#paging).
func (b *Blog) listComments(ctx context.Context, f commentFilter, pg span) ([]AdminComment, int, error) {
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
	if total == 0 || pg.offset >= total {
		return []AdminComment{}, total, nil
	}
	order := " ORDER BY c.created_at DESC, c.id DESC"
	if f.Oldest {
		order = " ORDER BY c.created_at, c.id"
	}
	ids := "SELECT c.id" + adminCommentFrom + w.sql() + order + " LIMIT " + w.arg(pg.limit) + " OFFSET " + w.arg(pg.offset)
	rows, err := b.db.Query(ctx, "SELECT "+adminCommentColumns+" FROM ("+ids+") page JOIN comments c ON c.id = page.id"+
		" JOIN posts p ON p.id = c.post_id"+order, w.args...)
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

// reviewComment sets the status of a comment on a live post and returns it
// with its post's title; sqlstore.ErrNotFound when there is none.
func (b *Blog) reviewComment(ctx context.Context, id, status string) (AdminComment, error) {
	c, err := scanAdminComment(b.db.QueryRowWrite(ctx, `UPDATE comments SET status = $1, updated_at = $2 WHERE id = $3
		AND post_id IN (SELECT id FROM posts WHERE deleted_at IS NULL)
		RETURNING id, author, content, created_at, author_handle, author_url, ap_id, ap_actor, reply_to, email, ip, user_agent, post_id, '', status`,
		status, sqlstore.FromTime(b.now()), id))
	if err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return c, err
		}
		return c, fmt.Errorf("blog: review comment: %w", err)
	}
	if p, err := b.postBy(ctx, "id", c.PostID, false); err == nil {
		c.PostTitle = p.Title
	}
	return c, nil
}

// adminComment reads a comment of a live post with its post's title;
// sqlstore.ErrNotFound when there is none.
func (b *Blog) adminComment(ctx context.Context, id string) (AdminComment, error) {
	c, err := scanAdminComment(b.db.QueryRow(ctx, "SELECT "+adminCommentColumns+adminCommentFrom+" WHERE c.id = $1", id))
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return c, fmt.Errorf("blog: read comment: %w", err)
	}
	return c, err
}

// insertReply stores the administrator's approved reply c to the comment
// c.ReplyTo, with the Note IRI apID it goes to the fediverse as.
func (b *Blog) insertReply(ctx context.Context, c AdminComment, apID string) error {
	_, err := b.db.Exec(ctx, `INSERT INTO comments (id, post_id, author, email, content, status, ip, user_agent, created_at, updated_at,
		ap_id, author_handle, author_url, reply_to) VALUES ($1, $2, $3, '', $4, $5, '', '', $6, $6, $7, '', '', $8)`,
		c.ID, c.PostID, c.Author, c.Content, CommentApproved, sqlstore.FromTime(c.CreatedAt), apID, c.ReplyTo)
	if err != nil {
		return fmt.Errorf("blog: add reply: %w", err)
	}
	return nil
}

// deleteComment removes a comment for good; sqlstore.ErrNotFound when there
// is none.
func (b *Blog) deleteComment(ctx context.Context, id string) error {
	res, err := b.db.Exec(ctx, "DELETE FROM comments WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("blog: delete comment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("blog: delete comment: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// insertComment adds a comment with its status and time inside tx: the
// write path of imports. inserted is false when another comment holds its
// ap_id already (one the inbox stored while the import ran): the Note is
// one comment however often it arrives.
func insertComment(ctx context.Context, tx *sqlstore.Tx, c AdminComment) (inserted bool, err error) {
	res, err := tx.Exec(ctx, `INSERT INTO comments (id, post_id, author, email, content, status, ip, user_agent, created_at, updated_at,
			ap_id, ap_actor, author_handle, author_url, reply_to)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (ap_id) WHERE ap_id <> '' DO NOTHING`, c.ID, c.PostID, c.Author, c.Email, c.Content, c.Status, c.IP, c.UserAgent,
		sqlstore.FromTime(c.CreatedAt), c.apID, c.apActor, c.AuthorHandle, c.AuthorURL, c.ReplyTo)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// sameComment returns the id of a comment of the post postID by author,
// made at created, saying content, read through q (an import's
// transaction); "" when there is none.
func sameComment(ctx context.Context, q sqlstore.Querier, postID, author string, created time.Time, content string) (string, error) {
	var id string
	err := q.QueryRow(ctx, "SELECT id FROM comments WHERE post_id = $1 AND author = $2 AND created_at = $3 AND content = $4 ORDER BY id LIMIT 1",
		postID, author, sqlstore.FromTime(created), content).Scan(&id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", nil
	}
	return id, err
}

// commentOfNote returns the id and post of the comment that is the Note
// apID, read through q (an import's transaction); "" when there is none.
func commentOfNote(ctx context.Context, q sqlstore.Querier, apID string) (id, postID string, err error) {
	err = q.QueryRow(ctx, "SELECT id, post_id FROM comments WHERE ap_id = $1", apID).Scan(&id, &postID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", "", nil
	}
	return id, postID, err
}
