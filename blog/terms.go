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

// Term is a category or a tag.
type Term struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TermRef is how a post embeds its category and tags.
type TermRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// termTable names one of the two term tables; both have the same columns
// and the same API, so one store serves both.
type termTable string

const (
	categories termTable = "categories"
	tags       termTable = "tags"
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
func (b *Blog) listTerms(ctx context.Context, table termTable, keyword string, p httpx.Paging) ([]Term, int, error) {
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
		" ORDER BY created_at, id LIMIT " + w.arg(p.Size) + " OFFSET " + w.arg(p.Offset())
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

// termInput is the create and PUT body of a category or tag.
type termInput struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

type termPatch struct {
	Name *string `json:"name"`
	Slug *string `json:"slug"`
}

func (in *termInput) validate() error {
	in.Name = strings.TrimSpace(in.Name)
	if err := checkText("name", in.Name, true, 100); err != nil {
		return err
	}
	if in.Slug != "" && !validSlug(in.Slug) {
		return invalid("slug", "must be 1-100 characters of a-z, 0-9 and -")
	}
	return nil
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
		return nil
	})
}

// Handlers, one set per table.

func (b *Blog) handleListTerms(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		items, total, err := b.listTerms(r.Context(), table, strings.TrimSpace(r.URL.Query().Get("keyword")), p)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
		return nil
	}
}

func (b *Blog) handleGetTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		t, err := b.termByID(r.Context(), table, id)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, t)
		return nil
	}
}

func (b *Blog) handleCreateTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in termInput
		if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		t, err := b.saveTerm(r.Context(), table, "", in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusCreated, t)
		return nil
	}
}

func (b *Blog) handleUpdateTerm(table termTable, partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		var in termInput
		if partial {
			cur, err := b.termByID(r.Context(), table, id)
			if err != nil {
				return httpError(err)
			}
			var p termPatch
			if err := httpx.DecodeJSON(w, r, &p); err != nil {
				return err
			}
			in = termInput{Name: cur.Name, Slug: cur.Slug}
			patchField(&in.Name, p.Name)
			patchField(&in.Slug, p.Slug)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		t, err := b.saveTerm(r.Context(), table, id, in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, t)
		return nil
	}
}

func (b *Blog) handleDeleteTerm(table termTable) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		if err := b.deleteTerm(r.Context(), table, id); err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, nil)
		return nil
	}
}
