package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// keepRevision stores prev, the version a save of owner replaces, unless
// next is the same (a save that changes nothing makes no revision), then
// prunes the owner's revisions beyond keep, oldest first. It runs inside
// the save's transaction, so a revision exists exactly when its save
// does.
func keepRevision[S any](ctx context.Context, tx *sqlstore.Tx, kind, owner string, r replaced[S], next *S, title, content func(*S) string, at time.Time) error {
	if r.prev == nil {
		return nil
	}
	before, err := json.Marshal(r.prev)
	if err != nil {
		return err
	}
	after, err := json.Marshal(next)
	if err != nil {
		return err
	}
	if string(before) == string(after) {
		return nil
	}
	if r.keep > 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO revisions (id, kind, owner_id, title, size, snapshot, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			sqlstore.NewID(), kind, owner, title(r.prev), len(content(r.prev)), string(before), sqlstore.FromTime(at)); err != nil {
			return fmt.Errorf("keep revision: %w", err)
		}
	}
	// The newest keep stay; with keep 0, none.
	if _, err := tx.Exec(ctx, `DELETE FROM revisions WHERE kind = $1 AND owner_id = $2 AND id NOT IN (
			SELECT id FROM revisions WHERE kind = $1 AND owner_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3)`,
		kind, owner, r.keep); err != nil {
		return fmt.Errorf("prune revisions: %w", err)
	}
	return nil
}

// listRevisions returns one page of an owner's revisions, newest first, and
// their total.
func (b *Blog) listRevisions(ctx context.Context, kind, owner string, pg span) ([]RevisionItem, int, error) {
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM revisions WHERE kind = $1 AND owner_id = $2", kind, owner).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count revisions: %w", err)
	}
	items := []RevisionItem{}
	if total == 0 || pg.offset >= total {
		return items, total, nil
	}
	rows, err := b.db.Query(ctx, `SELECT id, title, size, created_at FROM revisions WHERE kind = $1 AND owner_id = $2
		ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, kind, owner, pg.limit, pg.offset)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it RevisionItem
		var created int64
		if err := rows.Scan(&it.ID, &it.Title, &it.Size, &created); err != nil {
			return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
		}
		it.CreatedAt = sqlstore.Time(created)
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list revisions: %w", err)
	}
	return items, total, nil
}

// revision loads one revision of owner into snap and returns its id and
// time; a revision of another owner is sqlstore.ErrNotFound, as a missing
// one.
func (b *Blog) revision(ctx context.Context, kind, owner, id string, snap any) (time.Time, error) {
	if !sqlstore.ValidID(id) {
		return time.Time{}, sqlstore.ErrNotFound
	}
	var raw string
	var created int64
	err := b.db.QueryRow(ctx, "SELECT snapshot, created_at FROM revisions WHERE id = $1 AND kind = $2 AND owner_id = $3",
		id, kind, owner).Scan(&raw, &created)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return time.Time{}, err
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("blog: load revision: %w", err)
	}
	if err := json.Unmarshal([]byte(raw), snap); err != nil {
		return time.Time{}, fmt.Errorf("blog: revision %s: %w", id, err)
	}
	return sqlstore.Time(created), nil
}
