package blog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"folio/sqlstore"
)

const termColumns = "id, name, slug, created_at, updated_at"

func scanTerm(row interface{ Scan(...any) error }) (Term, error) {
	var t Term
	var created, updated int64
	if err := row.Scan(&t.ID, &t.Name, &t.Slug, &created, &updated); err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = sqlstore.Time(created), sqlstore.Time(updated)
	return t, nil
}

// listTerms pages through live terms, oldest first, optionally filtered by a
// keyword over name and slug.
func (b *Blog) listTerms(ctx context.Context, table termTable, keyword string, p span) ([]Term, int, error) {
	var w where
	w.add("deleted_at IS NULL")
	if keyword != "" {
		ph := w.arg(sqlstore.LikePattern(keyword))
		d := b.db.Dialect()
		w.conds = append(w.conds, "("+d.ILike("name", ph)+" OR "+d.ILike("slug", ph)+")")
	}
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM "+string(table)+w.sql(), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count %s: %w", table, err)
	}
	q := "SELECT " + termColumns + " FROM " + string(table) + w.sql() +
		" ORDER BY created_at, id LIMIT " + w.arg(p.limit) + " OFFSET " + w.arg(p.offset)
	rows, err := b.db.Query(ctx, q, w.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list %s: %w", table, err)
	}
	defer rows.Close()
	var out []Term
	for rows.Next() {
		t, err := scanTerm(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("blog: list %s: %w", table, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list %s: %w", table, err)
	}
	return out, total, nil
}

// termByID loads a live term; sqlstore.ErrNotFound when there is none.
func (b *Blog) termByID(ctx context.Context, table termTable, id string) (Term, error) {
	if !sqlstore.ValidID(id) {
		return Term{}, sqlstore.ErrNotFound
	}
	return scanTerm(b.db.QueryRow(ctx, "SELECT "+termColumns+" FROM "+string(table)+" WHERE id = $1 AND deleted_at IS NULL", id))
}

// termBySlug loads a live term by slug.
func (b *Blog) termBySlug(ctx context.Context, table termTable, slug string) (Term, error) {
	return scanTerm(b.db.QueryRow(ctx, "SELECT "+termColumns+" FROM "+string(table)+" WHERE slug = $1 AND deleted_at IS NULL", slug))
}

// saveTerm inserts (id "") or updates a term. An explicit slug that is taken
// is a conflict; a derived one gets a numbered variant.
func (b *Blog) saveTerm(ctx context.Context, table termTable, id string, in termInput) (Term, error) {
	if err := in.validate(); err != nil {
		return Term{}, err
	}
	slugs := []string{in.Slug}
	if in.Slug == "" {
		slugs = slugCandidates(in.Name)
	}
	now := sqlstore.FromTime(b.now())
	var t Term
	var err error
	for _, slug := range slugs {
		if id == "" {
			t, err = scanTerm(b.db.QueryRowWrite(ctx, "INSERT INTO "+string(table)+" (id, name, slug, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING "+termColumns,
				sqlstore.NewID(), in.Name, slug, now))
		} else {
			t, err = scanTerm(b.db.QueryRowWrite(ctx, "UPDATE "+string(table)+" SET name = $1, slug = $2, updated_at = $3 WHERE id = $4 AND deleted_at IS NULL RETURNING "+termColumns,
				in.Name, slug, now, id))
		}
		if !errors.Is(err, sqlstore.ErrConflict) {
			break
		}
	}
	switch {
	case errors.Is(err, sqlstore.ErrConflict):
		return Term{}, fmt.Errorf("blog: save %s: %w", table, errDuplicateSlug)
	case err != nil:
		return Term{}, fmt.Errorf("blog: save %s: %w", table, err)
	}
	return t, nil
}

// deleteTerm soft-deletes a term and detaches it from every post.
func (b *Blog) deleteTerm(ctx context.Context, table termTable, id string) error {
	return b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		res, err := tx.Exec(ctx, "UPDATE "+string(table)+" SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL", sqlstore.FromTime(b.now()), id)
		if err != nil {
			return fmt.Errorf("blog: delete %s: %w", table, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("blog: delete %s: %w", table, err)
		} else if n == 0 {
			return sqlstore.ErrNotFound
		}
		detach := "UPDATE posts SET category_id = NULL WHERE category_id = $1"
		if table == tags {
			detach = "DELETE FROM post_tags WHERE tag_id = $1"
		}
		if _, err := tx.Exec(ctx, detach, id); err != nil {
			return fmt.Errorf("blog: detach %s: %w", table, err)
		}
		return bumpPostsVersion(ctx, tx) // the term's cached totals
	})
}

// insertTerm adds a term with the given id and times inside tx: the write
// path of imports, which keep the times of the source.
func insertTerm(ctx context.Context, tx *sqlstore.Tx, table termTable, t Term) error {
	_, err := tx.Exec(ctx, "INSERT INTO "+string(table)+" (id, name, slug, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)",
		t.ID, t.Name, t.Slug, sqlstore.FromTime(t.CreatedAt), sqlstore.FromTime(t.UpdatedAt))
	if errors.Is(err, sqlstore.ErrConflict) {
		return errDuplicateSlug
	}
	return err
}

// termLive reports whether id is a live term of table.
func (b *Blog) termLive(ctx context.Context, table termTable, id string) (bool, error) {
	var n int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM "+string(table)+" WHERE id = $1 AND deleted_at IS NULL", id).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// termPostCounts counts the live posts, of any status, filed under each
// of terms.
func (b *Blog) termPostCounts(ctx context.Context, t termTable, terms []Term) (map[string]int, error) {
	out := map[string]int{}
	if len(terms) == 0 {
		return out, nil
	}
	var w where
	ph := make([]string, len(terms))
	for i, it := range terms {
		ph[i] = w.arg(it.ID)
	}
	in := "(" + strings.Join(ph, ", ") + ")"
	q := "SELECT p.category_id, COUNT(*) FROM posts p WHERE p.deleted_at IS NULL AND p.category_id IN " + in + " GROUP BY p.category_id"
	if t == tags {
		q = "SELECT pt.tag_id, COUNT(*) FROM post_tags pt JOIN posts p ON p.id = pt.post_id AND p.deleted_at IS NULL WHERE pt.tag_id IN " + in + " GROUP BY pt.tag_id"
	}
	rows, err := b.db.Query(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("blog: count posts of %s: %w", t, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("blog: count posts of %s: %w", t, err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: count posts of %s: %w", t, err)
	}
	return out, nil
}

// tagByName returns the id of the oldest live tag named name, compared
// case-insensitively, creating the tag when there is none.
func (b *Blog) tagByName(ctx context.Context, name string) (string, error) {
	var id string
	err := b.db.QueryRow(ctx, "SELECT id FROM tags WHERE LOWER(name) = LOWER($1) AND deleted_at IS NULL ORDER BY created_at LIMIT 1", name).Scan(&id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		t, serr := b.saveTerm(ctx, tags, "", termInput{Name: name})
		if serr != nil {
			return "", fmt.Errorf("blog: create tag %q: %w", name, serr)
		}
		id, err = t.ID, nil
	}
	if err != nil {
		return "", fmt.Errorf("blog: find tag %q: %w", name, err)
	}
	return id, nil
}

// termIDBySlug returns the id of the live term of table with slug, read
// through q (an import's transaction); sqlstore.ErrNotFound when none.
func termIDBySlug(ctx context.Context, q sqlstore.Querier, table termTable, slug string) (string, error) {
	var id string
	err := q.QueryRow(ctx, "SELECT id FROM "+string(table)+" WHERE slug = $1 AND deleted_at IS NULL", slug).Scan(&id)
	return id, err
}
