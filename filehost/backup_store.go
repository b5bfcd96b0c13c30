package filehost

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"folio/sqlstore"
)

// Backups (folio backup, docs/backup.md) hold a snapshot of the database and
// the bytes its records point at. The functions below tell a backup what
// that is, from the records alone, so they work on a snapshot as well as on
// a live database.

// BackupKeys calls fn, in key order, with the storage key of every object
// db records and, right after each one that may have a thumbnail, the key
// its cached thumbnail would have (thumb true). A thumbnail is a cache made
// on first request: its key may hold nothing, and a backup without it
// loses nothing the server cannot make again. The recorded image
// variants (docs/filehost.md#sizes) follow their object's thumbnail the
// same way, thumb true: they are a cache too.
func BackupKeys(ctx context.Context, db *sqlstore.DB, fn func(key string, thumb bool) error) error {
	variants, err := recordedVariants(ctx, db)
	if err != nil {
		return err
	}
	rows, err := db.Query(ctx, "SELECT id, storage_key, mimetype, width, height FROM objects ORDER BY storage_key")
	if err != nil {
		return fmt.Errorf("filehost: list objects: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, key, mimetype string
		var width, height int
		if err := rows.Scan(&id, &key, &mimetype, &width, &height); err != nil {
			return fmt.Errorf("filehost: list objects: %w", err)
		}
		if err := fn(key, false); err != nil {
			return err
		}
		if canThumbnail(mimetype, width, height) {
			if err := fn(thumbKey(id, thumbJPEG(mimetype)), true); err != nil {
				return err
			}
		}
		for _, k := range variants[id] {
			if err := fn(k, true); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("filehost: list objects: %w", err)
	}
	return nil
}

// recordedVariants are the variant keys image_variants records, by
// object, narrowest first.
func recordedVariants(ctx context.Context, db *sqlstore.DB) (map[string][]string, error) {
	rows, err := db.Query(ctx, "SELECT object_id, storage_key FROM image_variants ORDER BY object_id, width")
	if err != nil {
		return nil, fmt.Errorf("filehost: list image variants: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			return nil, fmt.Errorf("filehost: list image variants: %w", err)
		}
		out[id] = append(out[id], key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: list image variants: %w", err)
	}
	return out, nil
}

// RecordedMD5 is the MD5 (hex) db records for the object stored under
// key, for a copy of the bytes to be checked against (folio storage
// migrate); ok is false for a key no object has, such as a thumbnail.
func RecordedMD5(ctx context.Context, db *sqlstore.DB, key string) (md5 string, ok bool, err error) {
	err = db.QueryRow(ctx, "SELECT md5 FROM objects WHERE storage_key = $1", key).Scan(&md5)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("filehost: recorded md5: %w", err)
	}
	return md5, true, nil
}

// RecordedType is the MIME type of the content under key as db records
// it: an object's, or a thumbnail's (JPEG or PNG, by its key); "" for a
// key nothing records. Copies to a store whose objects carry a type (S3)
// are made with it (docs/filehost.md#s3).
func RecordedType(ctx context.Context, db *sqlstore.DB, key string) (string, error) {
	var mimetype string
	err := db.QueryRow(ctx, "SELECT mimetype FROM objects WHERE storage_key = $1", key).Scan(&mimetype)
	if errors.Is(err, sqlstore.ErrNotFound) {
		if dir, name, ok := strings.Cut(key, "/"); ok && dir == thumbDir {
			return thumbType(strings.HasSuffix(name, ".jpg")), nil
		}
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("filehost: recorded type: %w", err)
	}
	return mimetype, nil
}

// ForgetIntents deletes every storage intent of a database copy taken for
// a backup. They are the unfinished work of the processes that served the
// original: a placement whose record was not yet written, or a deletion
// whose record is already gone. Either way no record of the copy points at
// their keys, so the backup holds none of those bytes, and there is nothing
// left for a janitor to settle.
func ForgetIntents(ctx context.Context, db *sqlstore.DB) error {
	if _, err := db.Exec(ctx, "DELETE FROM storage_intents"); err != nil {
		return fmt.Errorf("filehost: forget storage intents: %w", err)
	}
	return nil
}
