package blog

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"folio/sqlstore"
)

// span is the part of a list one page shows, in rows. The stores take it
// rather than the HTTP paging parameters, of which they know nothing.
type span struct{ limit, offset int }

// where collects SQL conditions and their arguments, numbering placeholders.
type where struct {
	conds []string
	args  []any
}

// add appends a condition in which "?" stands for the next placeholder(s).
func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

// arg adds an argument and returns its placeholder.
func (w *where) arg(a any) string {
	w.args = append(w.args, a)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// freeSlug picks the slug of a row of table: the given one, which must not
// be taken by another live row (errDuplicateSlug), or one derived from title.
func freeSlug(ctx context.Context, q sqlstore.Querier, table, id, slug, title string) (string, error) {
	candidates := []string{slug}
	if slug == "" {
		candidates = slugCandidates(title)
	}
	for _, c := range candidates {
		var n int
		if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE slug = $1 AND deleted_at IS NULL AND id <> $2", c, id).Scan(&n); err != nil {
			return "", err
		}
		if n == 0 {
			return c, nil
		}
	}
	return "", errDuplicateSlug
}

// softDelete marks a live row of table deleted; ErrNotFound when none.
func (b *Blog) softDelete(ctx context.Context, table, id string) error {
	if !sqlstore.ValidID(id) {
		return sqlstore.ErrNotFound
	}
	res, err := b.db.Exec(ctx, "UPDATE "+table+" SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL", sqlstore.FromTime(b.now()), id)
	if err != nil {
		return fmt.Errorf("blog: delete from %s: %w", table, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("blog: delete from %s: %w", table, err)
	}
	if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// setMeta stores value under key in the meta table, replacing any earlier
// value; q may be a transaction, for a value that changes with its write.
func setMeta(ctx context.Context, q sqlstore.Querier, key, value string) error {
	_, err := q.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}
