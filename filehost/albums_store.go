package filehost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"folio/sqlstore"
)

// albumColumns matches scanAlbum.
const albumColumns = `a.id, a.name, a.description, a.is_public,
	(SELECT COUNT(*) FROM files f WHERE f.album_id = a.id), a.created_at, a.updated_at`

func scanAlbum(row scanner) (*album, error) {
	var a album
	var created, updated int64
	if err := row.Scan(&a.ID, &a.Name, &a.Description, &a.IsPublic, &a.FileCount, &created, &updated); err != nil {
		return nil, err
	}
	a.CreatedAt, a.UpdatedAt = sqlstore.Time(created), sqlstore.Time(updated)
	return &a, nil
}

// albumByID loads one of a user's albums; sqlstore.ErrNotFound when the
// user has no such album.
func (s *Service) albumByID(ctx context.Context, id, userID string) (*album, error) {
	if !sqlstore.ValidID(id) {
		return nil, sqlstore.ErrNotFound
	}
	a, err := scanAlbum(s.db.QueryRow(ctx, "SELECT "+albumColumns+" FROM albums a WHERE a.id = $1 AND a.user_id = $2", id, userID))
	if err != nil {
		return nil, fmt.Errorf("filehost: load album: %w", err)
	}
	return a, nil
}

// createAlbum stores a new, empty album.
func (s *Service) createAlbum(ctx context.Context, userID, name, description string, isPublic bool) (*album, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	a := &album{ID: sqlstore.NewID(), Name: name, Description: description, IsPublic: isPublic, CreatedAt: now, UpdatedAt: now}
	if _, err := s.db.Exec(ctx, `INSERT INTO albums (id, user_id, name, description, is_public, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, a.ID, userID, name, description, isPublic, sqlstore.FromTime(now)); err != nil {
		return nil, fmt.Errorf("filehost: create album: %w", err)
	}
	return a, nil
}

// listAlbums returns one page of a user's albums and their total.
func (s *Service) listAlbums(ctx context.Context, q albumQuery) ([]*album, int, error) {
	cond := " WHERE a.user_id = $1"
	args := []any{q.UserID}
	if q.Keyword != "" {
		cond += " AND " + s.db.Dialect().ILike("a.name", "$2")
		args = append(args, sqlstore.LikePattern(q.Keyword))
	}
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM albums a"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("filehost: count albums: %w", err)
	}
	col := "a.created_at"
	switch q.OrderBy {
	case "updated_at":
		col = "a.updated_at"
	case "name":
		col = "a.name"
	}
	dir := " ASC"
	if q.Desc {
		dir = " DESC"
	}
	if total == 0 || q.Offset >= total {
		return []*album{}, total, nil
	}
	// The page's ids first, then those albums whole: each counts its
	// files, which only the page's albums should do (docs/design.md#paging).
	order := " ORDER BY " + col + dir + ", a.id" + dir
	n := len(args)
	rows, err := s.db.Query(ctx, "SELECT "+albumColumns+" FROM (SELECT a.id FROM albums a"+cond+order+
		fmt.Sprintf(" LIMIT $%d OFFSET $%d", n+1, n+2)+") page JOIN albums a ON a.id = page.id"+order, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("filehost: list albums: %w", err)
	}
	defer rows.Close()
	out := []*album{}
	for rows.Next() {
		a, err := scanAlbum(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("filehost: list albums: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("filehost: list albums: %w", err)
	}
	return out, total, nil
}

// updateAlbum applies a validated patch to one of a user's albums.
func (s *Service) updateAlbum(ctx context.Context, id, userID string, p albumPatch) (*album, error) {
	if !sqlstore.ValidID(id) {
		return nil, sqlstore.ErrNotFound
	}
	sets := []string{}
	args := []any{}
	set := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, fmt.Sprintf("%s = $%d", col, len(args)))
	}
	if p.Name != nil {
		set("name", *p.Name)
	}
	if p.Description != nil {
		set("description", *p.Description)
	}
	if p.IsPublic != nil {
		set("is_public", *p.IsPublic)
	}
	set("updated_at", sqlstore.FromTime(s.now()))
	args = append(args, id, userID)
	res, err := s.db.Exec(ctx, "UPDATE albums SET "+strings.Join(sets, ", ")+
		fmt.Sprintf(" WHERE id = $%d AND user_id = $%d", len(args)-1, len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("filehost: update album: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, fmt.Errorf("filehost: update album: %w", err)
	} else if n == 0 {
		return nil, sqlstore.ErrNotFound
	}
	return s.albumByID(ctx, id, userID)
}

// deleteAlbum removes one of a user's albums. Its files stay: the foreign
// key clears their album_id.
func (s *Service) deleteAlbum(ctx context.Context, id, userID string) error {
	if !sqlstore.ValidID(id) {
		return sqlstore.ErrNotFound
	}
	res, err := s.db.Exec(ctx, "DELETE FROM albums WHERE id = $1 AND user_id = $2", id, userID)
	if err != nil {
		return fmt.Errorf("filehost: delete album: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("filehost: delete album: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// ownAlbum reports whether albumID is an album of userID.
func (s *Service) ownAlbum(ctx context.Context, q sqlstore.Querier, albumID, userID string) (bool, error) {
	if !sqlstore.ValidID(albumID) {
		return false, nil
	}
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM albums WHERE id = $1 AND user_id = $2", albumID, userID).Scan(&one)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("filehost: check album: %w", err)
	}
	return true, nil
}

// albumCount is how many albums a user has.
func (s *Service) albumCount(ctx context.Context, userID string) (int64, error) {
	var albums int64
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM albums WHERE user_id = $1", userID).Scan(&albums); err != nil {
		return 0, fmt.Errorf("filehost: count albums: %w", err)
	}
	return albums, nil
}
