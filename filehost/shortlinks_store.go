package filehost

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// targetByHash resolves a normalized short-link hash; ok is false for an
// unknown one, or one whose records have all expired. Unless fresh, a
// remembered target may answer until its records expire; v is the files
// counter's value, loaded before.
func (s *Service) targetByHash(ctx context.Context, h string, fresh bool, v uint64) (linkTarget, bool, error) {
	if fresh {
		s.links.forget(h)
	} else if t, ok := s.links.get(h, v); ok && (t.until == 0 || !t.stale(sqlstore.FromTime(s.now()))) {
		// The clock is read only for a target that expires: reading it
		// is a good part of what a remembered link costs.
		t.cached = true
		return t, true, nil
	}
	now := sqlstore.FromTime(s.now())
	var t linkTarget
	var created int64
	var name *string
	var open int
	// The name is the oldest live record's; until is the first expiry
	// of the live records (NULL: none expires); open is 1 when one of them
	// is not restricted.
	err := s.db.QueryRow(ctx, `SELECT o.id, o.storage_key, o.md5, o.mimetype, o.file_type, o.created_at, o.width, o.height,
		(SELECT f.origin_name FROM files f WHERE f.object_id = o.id AND `+liveFile("$2")+` ORDER BY f.created_at, f.id LIMIT 1),
		(SELECT COALESCE(MIN(f.expires_at), 0) FROM files f WHERE f.object_id = o.id AND `+liveFile("$2")+`),
		CASE WHEN EXISTS (SELECT 1 FROM files f WHERE f.object_id = o.id AND `+liveFile("$2")+` AND f.visibility <> 'restricted')
			THEN 1 ELSE 0 END
		FROM objects o WHERE o.hash = $1`, h, now).
		Scan(&t.objectID, &t.key, &t.md5, &t.mimetype, &t.fileType, &created, &t.width, &t.height, &name, &t.until, &open)
	if errors.Is(err, sqlstore.ErrNotFound) || err == nil && name == nil {
		return t, false, nil
	}
	if err != nil {
		return t, false, err
	}
	if open == 0 {
		if t.owners, err = s.linkOwners(ctx, t.objectID, now); err != nil {
			return t, false, err
		}
	}
	t.createdAt = sqlstore.Time(created)
	t.name = *name
	t.sent = newSendings(t)
	s.links.put(h, t, v)
	return t, true, nil
}

// linkOwners are the owners of the live records of an object, never nil.
func (s *Service) linkOwners(ctx context.Context, objectID string, now int64) ([]string, error) {
	rows, err := s.db.Query(ctx, "SELECT DISTINCT f.user_id FROM files f WHERE f.object_id = $1 AND "+liveFile("$2"), objectID, now)
	if err != nil {
		return nil, fmt.Errorf("filehost: link owners: %w", err)
	}
	defer rows.Close()
	owners := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("filehost: link owners: %w", err)
		}
		owners = append(owners, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: link owners: %w", err)
	}
	return owners, nil
}

// maxSizeLookup bounds the keys of one query of ImageSizes.
const maxSizeLookup = 200

// ImageSize is an image behind a short link: its pixel size as shown
// (a JPEG stored sideways, Exif orientation 5 to 8, turned) and the
// narrower widths /i/{key}?w=N serves for it, smallest first; none when
// it is served only whole (docs/filehost.md#sizes).
type ImageSize struct {
	Width, Height int
	Widths        []int
}

// ImageSizes answers the blog's question (blog.ImageSizer): the sizes of
// the images behind the short links /i/{key}, for the keys that name a
// live image whose size is known and that anyone may read
// (docs/filehost.md#visibility). Keys are given as they appear in a link
// (any case, without the extension); the answer uses them as given.
func (s *Service) ImageSizes(ctx context.Context, keys []string) (map[string]ImageSize, error) {
	byHash := map[string][]string{}
	for _, k := range keys {
		if h, ok := linkHash(k); ok {
			byHash[h] = append(byHash[h], k)
		}
	}
	hashes := make([]any, 0, len(byHash))
	for h := range byHash {
		hashes = append(hashes, h)
	}
	out := map[string]ImageSize{}
	now := sqlstore.FromTime(s.now())
	for len(hashes) > 0 {
		batch := hashes[:min(len(hashes), maxSizeLookup)]
		hashes = hashes[len(batch):]
		rows, err := s.db.Query(ctx, `SELECT o.hash, o.width, o.height, o.orientation, o.mimetype FROM objects o
			WHERE o.file_type = 'image' AND o.width > 0 AND o.height > 0 AND o.hash IN (`+sqlstore.Placeholders(2, len(batch))+`)
			AND EXISTS (SELECT 1 FROM files f WHERE f.object_id = o.id AND `+liveFile("$1")+` AND f.visibility <> 'restricted')`,
			append([]any{now}, batch...)...)
		if err != nil {
			return nil, fmt.Errorf("filehost: image sizes: %w", err)
		}
		for rows.Next() {
			var h, mime string
			var w, ht, orientation int
			if err := rows.Scan(&h, &w, &ht, &orientation, &mime); err != nil {
				rows.Close()
				return nil, fmt.Errorf("filehost: image sizes: %w", err)
			}
			if orientation >= 5 && orientation <= 8 { // stored sideways: shown turned
				w, ht = ht, w
			}
			for _, k := range byHash[h] {
				out[k] = ImageSize{Width: w, Height: ht, Widths: narrowerWidths(mime, w)}
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("filehost: image sizes: %w", err)
		}
	}
	return out, nil
}
