package filehost

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"folio/sqlstore"
)

// fileColumns matches scanFile.
const fileColumns = `f.id, f.user_id, f.object_id, f.album_id, f.origin_name, f.size, f.visibility, f.created_at, f.expires_at,
	o.storage_key, o.hash, o.md5, o.mimetype, o.extension, o.file_type, o.width, o.height`

const fileFrom = ` FROM files f JOIN objects o ON o.id = f.object_id`

// liveFile is the condition that the file record f has not expired at the
// time bound to placeholder p. Expired records are invisible at once, before
// the sweep deletes them (docs/filehost.md#expiring-files), so every read
// of file records goes through it.
func liveFile(p string) string { return "(f.expires_at IS NULL OR f.expires_at > " + p + ")" }

type scanner interface{ Scan(dest ...any) error }

func scanFile(row scanner) (*fileRecord, error) {
	var f fileRecord
	var album *string
	var created int64
	var expires *int64
	if err := row.Scan(&f.ID, &f.userID, &f.objectID, &album, &f.OriginName, &f.Size, &f.Visibility, &created, &expires,
		&f.Key, &f.hash, &f.MD5, &f.Mimetype, &f.Extension, &f.FileType, &f.Width, &f.Height); err != nil {
		return nil, err
	}
	if album != nil {
		f.AlbumID = *album
	}
	f.Name = keyBase(f.Key)
	f.IsPublic = f.Visibility == visPublic
	f.CreatedAt = sqlstore.Time(created)
	f.ExpiresAt = sqlstore.NullTime(expires)
	return &f, nil
}

// fileByID loads a file; userID, when not empty, must own it.
func (s *Service) fileByID(ctx context.Context, id, userID string) (*fileRecord, error) {
	q := "SELECT " + fileColumns + fileFrom + " WHERE f.id = $1 AND " + liveFile("$2")
	args := []any{id, sqlstore.FromTime(s.now())}
	if userID != "" {
		q += " AND f.user_id = $3"
		args = append(args, userID)
	}
	f, err := scanFile(s.db.QueryRow(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("filehost: load file: %w", err)
	}
	return f, nil
}

// updateFile applies a cleaned patch to one of a user's files: errBadAlbum
// when the album is not one of theirs (or was deleted meanwhile),
// sqlstore.ErrNotFound when the file is not.
func (s *Service) updateFile(ctx context.Context, id, userID string, body filePatch) error {
	sets := []string{}
	args := []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if body.OriginName != nil {
		sets = append(sets, "origin_name = "+arg(*body.OriginName))
	}
	if body.AlbumID != nil {
		a := *body.AlbumID
		if a == "" {
			sets = append(sets, "album_id = NULL")
		} else {
			ok, err := s.ownAlbum(ctx, s.db, a, userID)
			if err != nil {
				return err
			}
			if !ok {
				return errBadAlbum
			}
			sets = append(sets, "album_id = "+arg(a))
		}
	}
	if body.Visibility != nil {
		// is_public is kept equal to visibility = 'public' for the
		// plaza's index.
		sets = append(sets, "visibility = "+arg(*body.Visibility), "is_public = "+arg(*body.Visibility == visPublic))
	}
	sets = append(sets, "updated_at = "+arg(sqlstore.FromTime(s.now())))
	q := "UPDATE files SET " + strings.Join(sets, ", ") + " WHERE id = " + arg(id) + " AND user_id = " + arg(userID) +
		" AND (expires_at IS NULL OR expires_at > " + arg(sqlstore.FromTime(s.now())) + ")"
	res, err := s.db.Exec(ctx, q, args...)
	if errors.Is(err, sqlstore.ErrForeignKey) {
		return errBadAlbum
	}
	if err != nil {
		return fmt.Errorf("filehost: update file: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("filehost: update file: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	if body.OriginName != nil || body.Visibility != nil {
		// Downloads are named after the oldest record, and who may read
		// a link follows its records' visibility: every process asks
		// again (docs/design.md#caches-across-processes).
		s.filesChanged.Bump()
	}
	return nil
}

// filePage returns the query of the total of the files q selects and the
// query of q's page of them, with their arguments. The page's subquery
// pages the ids alone, which one of the files_*_paging indexes answers
// without reading a record (docs/design.md#paging). Only the type filter
// needs the objects: every record has its object (a foreign key), so the
// join changes no count.
func (s *Service) filePage(q fileQuery) (count, page string, countArgs, pageArgs []any) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	where = append(where, liveFile(arg(sqlstore.FromTime(s.now()))))
	if q.UserID != "" {
		where = append(where, "f.user_id = "+arg(q.UserID))
	}
	switch {
	case q.NoAlbum:
		where = append(where, "f.album_id IS NULL")
	case q.AlbumID != "":
		where = append(where, "f.album_id = "+arg(q.AlbumID))
	}
	from := " FROM files f"
	if q.FileType != "" {
		from = fileFrom
		where = append(where, "o.file_type = "+arg(q.FileType))
	}
	if q.Keyword != "" {
		where = append(where, s.db.Dialect().ILike("f.origin_name", arg(sqlstore.LikePattern(q.Keyword))))
	}
	cond := " WHERE " + strings.Join(where, " AND ")
	col := "f.created_at"
	switch q.OrderBy {
	case "size":
		col = "f.size"
	case "origin_name":
		col = "f.origin_name"
	}
	dir := " ASC"
	if q.Desc {
		dir = " DESC"
	}
	order := " ORDER BY " + col + dir + ", f.id" + dir
	countArgs = slices.Clip(args)
	ids := "SELECT f.id" + from + cond + order + " LIMIT " + arg(q.Limit) + " OFFSET " + arg(q.Offset)
	page = "SELECT " + fileColumns + " FROM (" + ids + ") page JOIN files f ON f.id = page.id JOIN objects o ON o.id = f.object_id" + order
	return "SELECT COUNT(*)" + from + cond, page, countArgs, args
}

// listFiles returns one page of files and the total that match.
func (s *Service) listFiles(ctx context.Context, q fileQuery) ([]*fileRecord, int, error) {
	count, page, countArgs, pageArgs := s.filePage(q)
	var total int
	if err := s.db.QueryRow(ctx, count, countArgs...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("filehost: count files: %w", err)
	}
	if total == 0 || q.Offset >= total {
		return []*fileRecord{}, total, nil
	}
	rows, err := s.db.Query(ctx, page, pageArgs...)
	if err != nil {
		return nil, 0, fmt.Errorf("filehost: list files: %w", err)
	}
	defer rows.Close()
	out := []*fileRecord{}
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("filehost: list files: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("filehost: list files: %w", err)
	}
	return out, total, nil
}

// usernames looks up the owners of a page of files in one query.
func (s *Service) usernames(ctx context.Context, files []*fileRecord) (map[string]string, error) {
	out := map[string]string{}
	var ids []any
	for _, f := range files {
		if _, ok := out[f.userID]; !ok {
			out[f.userID] = ""
			ids = append(ids, f.userID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT id, username FROM users WHERE id IN ("+sqlstore.Placeholders(1, len(ids))+")", ids...)
	if err != nil {
		return nil, fmt.Errorf("filehost: usernames: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("filehost: usernames: %w", err)
		}
		out[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: usernames: %w", err)
	}
	return out, nil
}

// removeFileTx deletes one file record inside tx (of userID when not
// empty; only while live at liveAt when that is not zero), gives its size
// back to its owner, and drops its object when no record uses it any more;
// the returned purge, if any, must be removed from storage after the
// transaction commits.
func (s *Service) removeFileTx(ctx context.Context, tx *sqlstore.Tx, id, userID string, liveAt int64) (*purge, error) {
	owner, objectID, size, err := deleteFileRecordTx(ctx, tx, id, userID, liveAt)
	if err != nil {
		return nil, err
	}
	if err := giveBackUsageTx(ctx, tx, owner, size, 1); err != nil {
		return nil, err
	}
	return s.releaseObjectTx(ctx, tx, objectID, 1)
}

// deleteFileRecordTx deletes one file record (of userID when not empty;
// only while live at liveAt when that is not zero) and returns its owner,
// object and size; sqlstore.ErrNotFound when there is no such record.
func deleteFileRecordTx(ctx context.Context, tx *sqlstore.Tx, id, userID string, liveAt int64) (owner, objectID string, size int64, err error) {
	q := "DELETE FROM files WHERE id = $1"
	args := []any{id}
	if userID != "" {
		args = append(args, userID)
		q += " AND user_id = $" + strconv.Itoa(len(args))
	}
	if liveAt != 0 {
		args = append(args, liveAt)
		q += " AND (expires_at IS NULL OR expires_at > $" + strconv.Itoa(len(args)) + ")"
	}
	err = tx.QueryRow(ctx, q+" RETURNING user_id, object_id, size", args...).Scan(&owner, &objectID, &size)
	return owner, objectID, size, err
}

// giveBackUsageTx takes bytes and files off owner's usage, never below
// zero.
func giveBackUsageTx(ctx context.Context, tx *sqlstore.Tx, owner string, bytes, files int64) error {
	_, err := tx.Exec(ctx, `UPDATE users SET
		used_bytes = CASE WHEN used_bytes > $1 THEN used_bytes - $1 ELSE 0 END,
		file_count = CASE WHEN file_count > $2 THEN file_count - $2 ELSE 0 END
		WHERE id = $3`, bytes, files, owner)
	return err
}

// releaseObjectTx drops n references to an object and deletes its row when
// none remain, recording in the same transaction the intent to delete its
// bytes and thumbnails (docs/filehost.md#crash-consistency).
func (s *Service) releaseObjectTx(ctx context.Context, tx *sqlstore.Tx, objectID string, n int) (*purge, error) {
	var refs, width, height int
	var key, mimetype string
	err := tx.QueryRow(ctx, `UPDATE objects SET ref_count = ref_count - $1 WHERE id = $2
		RETURNING ref_count, storage_key, mimetype, width, height`,
		n, objectID).Scan(&refs, &key, &mimetype, &width, &height)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if refs > 0 {
		return nil, nil
	}
	if _, err := tx.Exec(ctx, "DELETE FROM objects WHERE id = $1", objectID); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM image_variants WHERE object_id = $1", objectID); err != nil {
		return nil, err
	}
	p := &purge{keys: []string{key, thumbKey(objectID, true), thumbKey(objectID, false)}}
	p.keys = append(p.keys, variantKeys(objectID, mimetype, width, height)...)
	if p.intents, err = recordDeletesTx(ctx, tx, s.instance, s.now(), p.keys...); err != nil {
		return nil, err
	}
	return p, nil
}

// purgeContent removes the bytes and thumbnails of objects that no longer
// exist in the database, then the intents that recorded it. Failures are
// logged and their intents kept: the janitor tries again.
func (s *Service) purgeContent(ctx context.Context, ps []*purge) {
	// The records are gone: every process's short-link caches forget
	// them before this answer leaves.
	s.filesChanged.Bump()
	var done []string
	for _, p := range ps {
		if p == nil {
			continue
		}
		for i, key := range p.keys {
			if err := s.store.Delete(context.WithoutCancel(ctx), key); err != nil {
				s.log.Error("delete stored content", "key", key, "err", err)
				continue
			}
			done = append(done, p.intents[i])
		}
	}
	s.dropIntents(ctx, done...)
}

// deleteFiles deletes the given live file records (of userID when not
// empty) and reports how many existed.
func (s *Service) deleteFiles(ctx context.Context, userID string, ids []string) (int, error) {
	return s.removeFiles(ctx, userID, ids, sqlstore.FromTime(s.now()))
}

// removeFiles deletes file records in one transaction, only those live at
// liveAt unless it is zero, and reports how many it deleted.
//
// Whatever order ids come in, the transaction takes its rows in one order
// (docs/filehost.md#lock-order): the records in id order, then their
// owners' usage in user id order, then their objects in object id order.
// Taken file by file instead, two batches whose files share content could
// hold the same two objects the other way round and deadlock.
func (s *Service) removeFiles(ctx context.Context, userID string, ids []string, liveAt int64) (int, error) {
	sorted := make([]string, 0, len(ids))
	for _, id := range ids {
		if sqlstore.ValidID(id) {
			sorted = append(sorted, strings.ToLower(id))
		}
	}
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var purges []*purge
	n := 0
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		purges, n = purges[:0], 0
		type usage struct{ bytes, files int64 }
		owners := map[string]usage{}
		objects := map[string]int{}
		for _, id := range sorted {
			owner, objectID, size, err := deleteFileRecordTx(ctx, tx, id, userID, liveAt)
			if errors.Is(err, sqlstore.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			n++
			u := owners[owner]
			owners[owner] = usage{u.bytes + size, u.files + 1}
			objects[objectID]++
		}
		for _, owner := range slices.Sorted(maps.Keys(owners)) {
			if err := giveBackUsageTx(ctx, tx, owner, owners[owner].bytes, owners[owner].files); err != nil {
				return err
			}
		}
		for _, objectID := range slices.Sorted(maps.Keys(objects)) {
			p, err := s.releaseObjectTx(ctx, tx, objectID, objects[objectID])
			if err != nil {
				return err
			}
			purges = append(purges, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("filehost: delete files: %w", err)
	}
	s.purgeContent(ctx, purges)
	return n, nil
}

// deleteUserFiles removes every file record of a user, releases their
// objects (deleting the bytes and thumbnails of those left unreferenced)
// and zeroes the user's usage. Called before a user is deleted.
func (s *Service) deleteUserFiles(ctx context.Context, userID string) error {
	if !sqlstore.ValidID(userID) {
		return nil
	}
	var purges []*purge
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		purges = purges[:0]
		rows, err := tx.Query(ctx, "SELECT object_id, COUNT(*) FROM files WHERE user_id = $1 GROUP BY object_id", userID)
		if err != nil {
			return err
		}
		refs := map[string]int{}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return err
			}
			refs[id] = n
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		if _, err := tx.Exec(ctx, "DELETE FROM files WHERE user_id = $1", userID); err != nil {
			return err
		}
		// The owner's row before the objects, and the objects in id
		// order, as every transaction takes them (docs/filehost.md#lock-order).
		if _, err := tx.Exec(ctx, "UPDATE users SET used_bytes = 0, file_count = 0 WHERE id = $1", userID); err != nil {
			return err
		}
		for _, id := range slices.Sorted(maps.Keys(refs)) {
			p, err := s.releaseObjectTx(ctx, tx, id, refs[id])
			if err != nil {
				return err
			}
			purges = append(purges, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("filehost: delete files of user: %w", err)
	}
	s.purgeContent(ctx, purges)
	return nil
}

// batchPatch is what the console's grid changes in many files at once:
// their album ("" takes them out of any) or their visibility.
type batchPatch struct {
	AlbumID    *string
	Visibility *string
}

// updateFiles applies p to those of ids that are userID's live files, in
// one transaction, and reports how many it changed and, when it moved them
// into an album, that album's name. An album that is not userID's is
// errBadAlbum and changes nothing; ids that are not userID's files are
// left alone, as batch deletes leave them.
func (s *Service) updateFiles(ctx context.Context, userID string, ids []string, p batchPatch) (int, string, error) {
	var valid []string
	for _, id := range ids {
		if id = strings.ToLower(id); sqlstore.ValidID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 || (p.AlbumID == nil && p.Visibility == nil) {
		return 0, "", nil
	}
	n, albumName := 0, ""
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		n, albumName = 0, ""
		var args []any
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		var sets []string
		if p.AlbumID != nil {
			if a := strings.ToLower(*p.AlbumID); a == "" {
				sets = append(sets, "album_id = NULL")
			} else {
				if !sqlstore.ValidID(a) {
					return errBadAlbum
				}
				err := tx.QueryRow(ctx, "SELECT name FROM albums WHERE id = $1 AND user_id = $2", a, userID).Scan(&albumName)
				if errors.Is(err, sqlstore.ErrNotFound) {
					return errBadAlbum
				}
				if err != nil {
					return err
				}
				sets = append(sets, "album_id = "+arg(a))
			}
		}
		if p.Visibility != nil {
			// is_public follows visibility, as in updateFile.
			sets = append(sets, "visibility = "+arg(*p.Visibility), "is_public = "+arg(*p.Visibility == visPublic))
		}
		now := sqlstore.FromTime(s.now())
		sets = append(sets, "updated_at = "+arg(now))
		in := make([]string, len(valid))
		for i, id := range valid {
			in[i] = arg(id)
		}
		q := "UPDATE files SET " + strings.Join(sets, ", ") + " WHERE user_id = " + arg(userID) +
			" AND (expires_at IS NULL OR expires_at > " + arg(now) + ") AND id IN (" + strings.Join(in, ", ") + ")"
		res, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return err
		}
		changed, err := res.RowsAffected()
		n = int(changed)
		return err
	})
	if errors.Is(err, errBadAlbum) || errors.Is(err, sqlstore.ErrForeignKey) {
		return 0, "", errBadAlbum
	}
	if err != nil {
		return 0, "", fmt.Errorf("filehost: update files: %w", err)
	}
	if p.Visibility != nil && n > 0 {
		// Who may read a link follows its records' visibility: every
		// process asks again (docs/design.md#caches-across-processes).
		s.filesChanged.Bump()
	}
	return n, albumName, nil
}
