package blog

import (
	"context"
	"database/sql"

	"folio/sqlstore"
)

// The export's reads (archive.go): every live row of a table, oldest
// first, a batch of rows per query.

// exportBatch is how many rows the export reads at a time: its memory is
// that many posts at most, however large the blog.
const exportBatch = 100

// firstID is below every (created_at, id) key: the nil UUID, which
// PostgreSQL's uuid type accepts where "" would not be.
const firstID = "00000000-0000-0000-0000-000000000000"

// inBatches runs query (which takes the last key as $1, $2, ordered by
// created_at then id, limited to exportBatch rows) batch after batch; scan
// reads one row and returns its key; done is called after each batch.
func (b *Blog) inBatches(ctx context.Context, query string, scan func(*sql.Rows) (int64, string, error), done func() error) error {
	created, id := int64(-1<<63), firstID
	for {
		rows, err := b.db.Query(ctx, query, created, id)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			if created, id, err = scan(rows); err != nil {
				rows.Close()
				return err
			}
			n++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		if done != nil {
			if err := done(); err != nil {
				return err
			}
		}
		if n < exportBatch {
			return nil
		}
	}
}

const batchLimit = " LIMIT 100"

// eachTerm calls fn with every live term of table, oldest first.
func (b *Blog) eachTerm(ctx context.Context, table termTable, fn func(Term) error) error {
	return b.inBatches(ctx, "SELECT "+termColumns+" FROM "+string(table)+
		" WHERE deleted_at IS NULL AND (created_at, id) > ($1, $2) ORDER BY created_at, id"+batchLimit,
		func(rows *sql.Rows) (int64, string, error) {
			t, err := scanTerm(rows)
			if err != nil {
				return 0, "", err
			}
			return sqlstore.FromTime(t.CreatedAt), t.ID, fn(t)
		}, nil)
}

// eachPostBatch calls fn with every live post, oldest first, a batch at a
// time: each with its Markdown and its tags, not its HTML. fn must not
// keep the slice, which the next batch reuses.
func (b *Blog) eachPostBatch(ctx context.Context, fn func([]*Post) error) error {
	var batch []*Post
	return b.inBatches(ctx, "SELECT "+postItemColumns+", p.content_markdown"+postFrom+
		" WHERE p.deleted_at IS NULL AND (p.created_at, p.id) > ($1, $2) ORDER BY p.created_at, p.id"+batchLimit,
		func(rows *sql.Rows) (int64, string, error) {
			p := &Post{}
			if err := scanPost(rows, &p.PostItem, &p.ContentMarkdown); err != nil {
				return 0, "", err
			}
			batch = append(batch, p)
			return sqlstore.FromTime(p.CreatedAt), p.ID, nil
		},
		func() error {
			items := make([]*PostItem, len(batch))
			for i, p := range batch {
				items[i] = &p.PostItem
			}
			if err := b.loadTags(ctx, b.db, items); err != nil {
				return err
			}
			if err := fn(batch); err != nil {
				return err
			}
			batch = batch[:0]
			return nil
		})
}

// eachPage calls fn with every live page, oldest first.
func (b *Blog) eachPage(ctx context.Context, fn func(*Page) error) error {
	return b.inBatches(ctx, "SELECT "+pageColumns+" FROM pages WHERE deleted_at IS NULL AND (created_at, id) > ($1, $2) ORDER BY created_at, id"+batchLimit,
		func(rows *sql.Rows) (int64, string, error) {
			p, err := scanPage(rows)
			if err != nil {
				return 0, "", err
			}
			if err := fn(p); err != nil {
				return 0, "", err
			}
			return sqlstore.FromTime(p.CreatedAt), p.ID, nil
		}, nil)
}

// eachComment calls fn with every comment of a live post, oldest first,
// as the archive keeps it.
func (b *Blog) eachComment(ctx context.Context, fn func(archiveComment) error) error {
	return b.inBatches(ctx, `SELECT c.id, p.slug, c.author, c.email, c.content, c.status, c.ip, c.user_agent, c.created_at,
			c.ap_id, c.ap_actor, c.author_handle, c.author_url, c.reply_to
		FROM comments c JOIN posts p ON p.id = c.post_id AND p.deleted_at IS NULL
		WHERE (c.created_at, c.id) > ($1, $2) ORDER BY c.created_at, c.id`+batchLimit,
		func(rows *sql.Rows) (int64, string, error) {
			var id string
			var c archiveComment
			var created int64
			if err := rows.Scan(&id, &c.Post, &c.Author, &c.Email, &c.Content, &c.Status, &c.IP, &c.UserAgent, &created,
				&c.APID, &c.APActor, &c.AuthorHandle, &c.AuthorURL, &c.ReplyTo); err != nil {
				return 0, "", err
			}
			c.CreatedAt = sqlstore.Time(created)
			if c.APID != "" {
				c.ID = id
			}
			return created, id, fn(c)
		}, nil)
}

// eachLink calls fn with every live friend link, oldest first.
func (b *Blog) eachLink(ctx context.Context, fn func(*FriendLink) error) error {
	return b.inBatches(ctx, "SELECT "+linkColumns+" FROM friend_links WHERE deleted_at IS NULL AND (created_at, id) > ($1, $2) ORDER BY created_at, id"+batchLimit,
		func(rows *sql.Rows) (int64, string, error) {
			l, err := scanLink(rows)
			if err != nil {
				return 0, "", err
			}
			return sqlstore.FromTime(l.CreatedAt), l.ID, fn(l)
		}, nil)
}
