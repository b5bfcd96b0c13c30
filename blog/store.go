package blog

import (
	"context"
	"errors"
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
// be taken by another live row (errDuplicateSlug), or, when it is empty,
// the first free one of title's: "title", "title-2", "title-3"...
// (docs/blog-api.md#slugs).
func freeSlug(ctx context.Context, q sqlstore.Querier, table, id, slug, title string) (string, error) {
	taken := func(c string) (bool, error) {
		var n int
		err := q.QueryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE slug = $1 AND deleted_at IS NULL AND id <> $2", c, id).Scan(&n)
		return n > 0, err
	}
	if slug != "" {
		switch t, err := taken(slug); {
		case err != nil:
			return "", err
		case t:
			return "", errDuplicateSlug
		}
		return slug, nil
	}
	base := slugify(title)
	if base == "" {
		for range 3 {
			c := randomSlug()
			t, err := taken(c)
			if err != nil {
				return "", err
			}
			if !t {
				return c, nil
			}
		}
		return "", errDuplicateSlug
	}
	// One read of every live slug that a numbered variant of base could
	// be, rather than one per number: a title used a hundred times costs
	// no more than one used twice. Slugs hold no "%" or "_".
	stem := numberedSlug(base, maxSlugNumber)
	stem = stem[:strings.LastIndexByte(stem, '-')]
	rows, err := q.Query(ctx, "SELECT slug FROM "+table+" WHERE slug LIKE $1 AND deleted_at IS NULL AND id <> $2", stem+"%", id)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	used := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
		used[s] = true
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	for n := 1; n <= maxSlugNumber; n++ {
		if c := numberedSlug(base, n); !used[c] {
			return c, nil
		}
	}
	return "", errDuplicateSlug
}

// retryDerivedSlug runs save, a transaction that derives its slug when
// slug is empty, again when another save took the derived slug between
// the read that found it free and the write (PostgreSQL lets both read;
// the unique index refuses the second write). An explicit slug that is
// taken stays a conflict.
func retryDerivedSlug(slug string, save func() error) error {
	err := save()
	for try := 0; slug == "" && errors.Is(err, errDuplicateSlug) && try < 10; try++ {
		err = save()
	}
	return err
}

// maxSlugNumber bounds the numbered variants of a derived slug.
const maxSlugNumber = 99999

// numberedSlug is the n-th variant of a derived slug: base itself for 1,
// else base, shortened to fit, with "-n".
func numberedSlug(base string, n int) string {
	if n <= 1 {
		return base
	}
	suffix := "-" + strconv.Itoa(n)
	return strings.TrimRight(base[:min(len(base), maxSlug-len(suffix))], "-") + suffix
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
