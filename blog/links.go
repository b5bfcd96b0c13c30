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

// Friend link statuses. Status is the truth; is_active is status = active.
const (
	LinkActive  = "active"
	LinkPending = "pending"
	LinkDown    = "down"
)

// FriendLink is a link to a friend's site.
type FriendLink struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Logo        string    `json:"logo"`
	Sort        int       `json:"sort"`
	Status      string    `json:"status"`
	IsActive    bool      `json:"is_active"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

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

// linkFilter selects friend links; Active nil means any status.
type linkFilter struct {
	Active  *bool
	Keyword string
}

// listLinks pages through live links by sort ASC, created_at DESC.
func (b *Blog) listLinks(ctx context.Context, f linkFilter, pg httpx.Paging) ([]*FriendLink, int, error) {
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
		" ORDER BY sort, created_at DESC, id DESC LIMIT "+w.arg(pg.Size)+" OFFSET "+w.arg(pg.Offset()), w.args...)
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

// linkInput is the create and PUT body. is_active maps true to active and
// false to pending; status, when given, wins. Neither given: active.
type linkInput struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	Sort        int    `json:"sort"`
	IsActive    *bool  `json:"is_active"`
	Status      string `json:"status"`
}

type linkPatch struct {
	Name        *string `json:"name"`
	URL         *string `json:"url"`
	Description *string `json:"description"`
	Logo        *string `json:"logo"`
	Sort        *int    `json:"sort"`
	IsActive    *bool   `json:"is_active"`
	Status      *string `json:"status"`
}

func (in *linkInput) validate() error {
	in.Name = strings.TrimSpace(in.Name)
	in.URL = strings.TrimSpace(in.URL)
	if err := checkText("name", in.Name, true, 100); err != nil {
		return err
	}
	if err := checkURL("url", in.URL, true); err != nil {
		return err
	}
	if strings.HasPrefix(in.URL, "/") {
		return invalid("url", "must be an absolute http(s) URL")
	}
	if err := checkText("description", in.Description, false, 500); err != nil {
		return err
	}
	if err := checkURL("logo", in.Logo, false); err != nil {
		return err
	}
	switch {
	case in.Status != "":
	case in.IsActive == nil || *in.IsActive:
		in.Status = LinkActive
	default:
		in.Status = LinkPending
	}
	switch in.Status {
	case LinkActive, LinkPending, LinkDown:
	default:
		return invalid("status", "must be active, pending or down")
	}
	return nil
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

func (b *Blog) handleListLinks(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		pg, err := blogPaging(r, 10)
		if err != nil {
			return err
		}
		f := linkFilter{Keyword: strings.TrimSpace(r.URL.Query().Get("keyword"))}
		if public {
			yes := true
			f.Active = &yes
		} else if f.Active, err = httpx.QueryBool(r, "is_active"); err != nil {
			return err
		}
		items, total, err := b.listLinks(r.Context(), f, pg)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, pg))
		return nil
	}
}

func (b *Blog) handleGetLink(public bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		l, err := b.linkByID(r.Context(), id, public)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, l)
		return nil
	}
}

func (b *Blog) handleCreateLink(w http.ResponseWriter, r *http.Request) error {
	var in linkInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	l, err := b.saveLink(r.Context(), "", in)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, l)
	return nil
}

func (b *Blog) handleUpdateLink(partial bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := httpx.PathID(r, "id")
		if err != nil {
			return err
		}
		var in linkInput
		if partial {
			cur, err := b.linkByID(r.Context(), id, false)
			if err != nil {
				return httpError(err)
			}
			var p linkPatch
			if err := httpx.DecodeJSON(w, r, &p); err != nil {
				return err
			}
			in = linkInput{Name: cur.Name, URL: cur.URL, Description: cur.Description, Logo: cur.Logo, Sort: cur.Sort, Status: cur.Status}
			patchField(&in.Name, p.Name)
			patchField(&in.URL, p.URL)
			patchField(&in.Description, p.Description)
			patchField(&in.Logo, p.Logo)
			patchField(&in.Sort, p.Sort)
			if p.IsActive != nil {
				in.Status, in.IsActive = "", p.IsActive
			}
			patchField(&in.Status, p.Status)
		} else if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		l, err := b.saveLink(r.Context(), id, in)
		if err != nil {
			return httpError(err)
		}
		httpx.BlogAPI.OK(w, http.StatusOK, l)
		return nil
	}
}

func (b *Blog) handleDeleteLink(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := b.softDelete(r.Context(), "friend_links", id); err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
