package blog

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

const linkColumns = "id, name, url, description, logo, sort, status, created_at, updated_at"

func scanLink(row interface{ Scan(...any) error }) (*FriendLink, error) {
	var l FriendLink
	var created, updated int64
	if err := row.Scan(&l.ID, &l.Name, &l.URL, &l.Description, &l.Logo, &l.Sort, &l.Status, &created, &updated); err != nil {
		return nil, err
	}
	l.IsActive = l.Status == LinkActive
	l.CreatedAt, l.UpdatedAt = sqlstore.Time(created), sqlstore.Time(updated)
	return &l, nil
}

// listLinks pages through live links by sort ASC, created_at DESC.
func (b *Blog) listLinks(ctx context.Context, f linkFilter, pg span) ([]*FriendLink, int, error) {
	var w where
	w.add("deleted_at IS NULL")
	if f.Active != nil && *f.Active {
		w.add("status = 'active'")
	} else if f.Active != nil {
		w.add("status <> 'active'")
	}
	if f.Keyword != "" {
		ph := w.arg(sqlstore.LikePattern(f.Keyword))
		d := b.db.Dialect()
		w.conds = append(w.conds, "("+d.ILike("name", ph)+" OR "+d.ILike("url", ph)+" OR "+d.ILike("description", ph)+")")
	}
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM friend_links"+w.sql(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count friend links: %w", err)
	}
	rows, err := b.db.Query(ctx, "SELECT "+linkColumns+" FROM friend_links"+w.sql()+
		" ORDER BY sort, created_at DESC, id DESC LIMIT "+w.arg(pg.limit)+" OFFSET "+w.arg(pg.offset), w.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list friend links: %w", err)
	}
	defer rows.Close()
	out := []*FriendLink{}
	for rows.Next() {
		l, err := scanLink(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("blog: list friend links: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list friend links: %w", err)
	}
	return out, total, nil
}

// linkByID loads a live link; with activeOnly, only an active one.
func (b *Blog) linkByID(ctx context.Context, id string, activeOnly bool) (*FriendLink, error) {
	if !sqlstore.ValidID(id) {
		return nil, sqlstore.ErrNotFound
	}
	q := "SELECT " + linkColumns + " FROM friend_links WHERE id = $1 AND deleted_at IS NULL"
	if activeOnly {
		q += " AND status = 'active'"
	}
	l, err := scanLink(b.db.QueryRow(ctx, q, id))
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, fmt.Errorf("blog: load friend link: %w", err)
	}
	return l, err
}

// saveLink creates (id "") or replaces a link.
func (b *Blog) saveLink(ctx context.Context, id string, in linkInput) (*FriendLink, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	now := sqlstore.FromTime(b.now())
	var l *FriendLink
	var err error
	if id == "" {
		l, err = scanLink(b.db.QueryRowWrite(ctx, `INSERT INTO friend_links (id, name, url, description, logo, sort, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING `+linkColumns,
			sqlstore.NewID(), in.Name, in.URL, in.Description, in.Logo, in.Sort, in.Status, now))
	} else {
		l, err = scanLink(b.db.QueryRowWrite(ctx, `UPDATE friend_links SET name = $1, url = $2, description = $3, logo = $4, sort = $5,
			status = $6, updated_at = $7 WHERE id = $8 AND deleted_at IS NULL RETURNING `+linkColumns,
			in.Name, in.URL, in.Description, in.Logo, in.Sort, in.Status, now, id))
	}
	switch {
	case errors.Is(err, sqlstore.ErrConflict):
		return nil, fmt.Errorf("blog: save friend link: %w", errDuplicateURL)
	case errors.Is(err, sqlstore.ErrNotFound):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("blog: save friend link: %w", err)
	}
	return l, nil
}

// insertLink adds a validated link with its times inside tx: the write path
// of imports, which keep the times of the source.
func insertLink(ctx context.Context, tx *sqlstore.Tx, l FriendLink) error {
	_, err := tx.Exec(ctx, `INSERT INTO friend_links (id, name, url, description, logo, sort, status, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, l.ID, l.Name, l.URL, l.Description, l.Logo, l.Sort, l.Status,
		sqlstore.FromTime(l.CreatedAt), sqlstore.FromTime(l.UpdatedAt))
	if errors.Is(err, sqlstore.ErrConflict) {
		return errDuplicateURL
	}
	return err
}

// linkURLTaken reports whether a live friend link has url, read through q
// (an import's transaction).
func linkURLTaken(ctx context.Context, q sqlstore.Querier, url string) (bool, error) {
	var n int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM friend_links WHERE url = $1 AND deleted_at IS NULL", url).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}
