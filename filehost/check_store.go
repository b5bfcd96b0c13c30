package filehost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"folio/sqlstore"
)

// objectKeys reads every object's id and storage key.
func (s *Service) objectKeys(ctx context.Context) (byKey map[string]string, ids map[string]bool, err error) {
	rows, err := s.db.Query(ctx, "SELECT id, storage_key FROM objects")
	if err != nil {
		return nil, nil, fmt.Errorf("filehost: list objects: %w", err)
	}
	defer rows.Close()
	byKey, ids = map[string]string{}, map[string]bool{}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			return nil, nil, fmt.Errorf("filehost: list objects: %w", err)
		}
		byKey[key], ids[id] = id, true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("filehost: list objects: %w", err)
	}
	return byKey, ids, nil
}

// intentKeys reads the keys of every storage intent.
func (s *Service) intentKeys(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.Query(ctx, "SELECT storage_key FROM storage_intents")
	if err != nil {
		return nil, fmt.Errorf("filehost: list storage intents: %w", err)
	}
	defer rows.Close()
	keys := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("filehost: list storage intents: %w", err)
		}
		keys[k] = true
	}
	return keys, rows.Err()
}

// hasIntent reports whether an intent covers key now.
func (s *Service) hasIntent(ctx context.Context, key string) (bool, error) {
	var one int
	err := s.db.QueryRow(ctx, "SELECT 1 FROM storage_intents WHERE storage_key = $1 LIMIT 1", key).Scan(&one)
	if errors.Is(err, sqlstore.ErrNotFound) || errors.Is(err, sqlstore.ErrInvalidText) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("filehost: find storage intent: %w", err)
	}
	return true, nil
}

// orphansOf returns the stored keys that no record points at and no
// intent covers (an intent's key is pending work, counted as such). Each
// candidate is checked again, so that a key deleted or recorded during the
// listing is not reported.
func (s *Service) orphansOf(ctx context.Context, stored map[string]int64) ([]StoredKey, error) {
	covered, err := s.intentKeys(ctx)
	if err != nil {
		return nil, err
	}
	byKey, ids, err := s.objectKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []StoredKey
	for key, size := range stored {
		if _, ok := byKey[key]; ok || covered[key] {
			continue
		}
		if id, ok := thumbObject(key); ok && ids[id] {
			continue
		}
		orphan, err := s.stillOrphan(ctx, key)
		if err != nil {
			return nil, err
		}
		if orphan {
			out = append(out, StoredKey{Key: key, Size: size})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// stillOrphan checks one key right now: its bytes are there, no record
// points at it and no intent covers it.
func (s *Service) stillOrphan(ctx context.Context, key string) (bool, error) {
	if _, err := s.store.Stat(ctx, key); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	used, err := referenced(ctx, s.db, key)
	if err != nil || used {
		return false, err
	}
	pending, err := s.hasIntent(ctx, key)
	return !pending, err
}

// storedKeys lists the store: every key with its size.
func (s *Service) storedKeys(ctx context.Context) (map[string]int64, error) {
	stored := map[string]int64{}
	err := s.store.List(ctx, func(key string, size int64) error {
		stored[key] = size
		return nil
	})
	return stored, err
}

// orphanKeys lists the store again and returns its orphans.
func (s *Service) orphanKeys(ctx context.Context) ([]StoredKey, error) {
	stored, err := s.storedKeys(ctx)
	if err != nil {
		return nil, err
	}
	return s.orphansOf(ctx, stored)
}

// deleteOrphan deletes the bytes of key after checking once more that
// they are an orphan.
func (s *Service) deleteOrphan(ctx context.Context, key string) error {
	orphan, err := s.stillOrphan(ctx, key)
	if err != nil || !orphan {
		return err
	}
	if err := s.store.Delete(ctx, key); err != nil {
		return fmt.Errorf("filehost: delete orphan: %w", err)
	}
	s.log.Info("fsck: deleted bytes no record points at", "key", key)
	return nil
}

func (s *Service) countObjects(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM objects").Scan(&n); err != nil {
		return 0, fmt.Errorf("filehost: count objects: %w", err)
	}
	return n, nil
}

// missingIn returns the objects whose key is not among stored, each
// checked again (the object still exists, its bytes still do not).
func (s *Service) missingIn(ctx context.Context, stored map[string]int64) ([]MissingObject, error) {
	byKey, _, err := s.objectKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []MissingObject
	for key, id := range byKey {
		if _, ok := stored[key]; ok {
			continue
		}
		if _, err := s.store.Stat(ctx, key); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var files int
		err := s.db.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM files WHERE object_id = o.id) FROM objects o WHERE o.id = $1`, id).Scan(&files)
		if errors.Is(err, sqlstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("filehost: check object: %w", err)
		}
		out = append(out, MissingObject{ObjectID: id, Key: key, Files: files})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// missingObjects lists the store again and returns the objects missing
// from it.
func (s *Service) missingObjects(ctx context.Context) ([]MissingObject, error) {
	stored, err := s.storedKeys(ctx)
	if err != nil {
		return nil, err
	}
	return s.missingIn(ctx, stored)
}

// lockObjectTx takes the object's row lock (a no-op update) before its
// files are counted, so that on PostgreSQL the count, read by a later
// statement, includes every upload that held the lock before; false when
// the object is gone.
func lockObjectTx(ctx context.Context, tx *sqlstore.Tx, id string) (bool, error) {
	res, err := tx.Exec(ctx, "UPDATE objects SET ref_count = ref_count WHERE id = $1", id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// dropObject removes an object whose bytes are missing with every file
// record pointing at it, giving their usage back.
func (s *Service) dropObject(ctx context.Context, id string) (*purge, error) {
	var p *purge
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		p = nil
		ok, err := lockObjectTx(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		// Exact counts first, so that the last record's release drops it.
		if _, err := tx.Exec(ctx, "UPDATE objects SET ref_count = (SELECT COUNT(*) FROM files WHERE object_id = $1) WHERE id = $1", id); err != nil {
			return err
		}
		files, err := idsOf(ctx, tx, "SELECT id FROM files WHERE object_id = $1", id)
		if err != nil {
			return err
		}
		for _, f := range files {
			if p, err = s.removeFileTx(ctx, tx, f, "", 0); err != nil {
				return err
			}
		}
		if len(files) == 0 {
			p, err = s.releaseObjectTx(ctx, tx, id, 0)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("filehost: remove records of missing bytes: %w", err)
	}
	s.log.Info("fsck: removed the records of missing bytes", "object", id)
	return p, nil
}

// fixRefCount sets an object's ref_count to its number of file records,
// deleting it (bytes included) when it has none.
func (s *Service) fixRefCount(ctx context.Context, id string) (*purge, error) {
	var p *purge
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		p = nil
		ok, err := lockObjectTx(ctx, tx, id)
		if err != nil || !ok {
			return err
		}
		var refs int
		if err := tx.QueryRow(ctx, "UPDATE objects SET ref_count = (SELECT COUNT(*) FROM files WHERE object_id = $1) WHERE id = $1 RETURNING ref_count", id).Scan(&refs); err != nil {
			return err
		}
		if refs == 0 {
			p, err = s.releaseObjectTx(ctx, tx, id, 0)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("filehost: fix ref_count: %w", err)
	}
	return p, nil
}

// refCountErrors lists objects whose ref_count is not their number of
// file records, or that have none.
func (s *Service) refCountErrors(ctx context.Context) ([]RefCountError, error) {
	rows, err := s.db.Query(ctx, `SELECT o.id, o.ref_count, COUNT(f.id) FROM objects o LEFT JOIN files f ON f.object_id = o.id
		GROUP BY o.id, o.ref_count HAVING o.ref_count <> COUNT(f.id) OR COUNT(f.id) = 0 ORDER BY o.id`)
	if err != nil {
		return nil, fmt.Errorf("filehost: check ref counts: %w", err)
	}
	defer rows.Close()
	var out []RefCountError
	for rows.Next() {
		var e RefCountError
		if err := rows.Scan(&e.ObjectID, &e.RefCount, &e.Files); err != nil {
			return nil, fmt.Errorf("filehost: check ref counts: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// usageErrors lists users whose usage columns differ from their records.
func (s *Service) usageErrors(ctx context.Context) ([]UsageError, error) {
	rows, err := s.db.Query(ctx, `SELECT u.id, u.used_bytes, u.file_count, COALESCE(SUM(f.size), 0), COUNT(f.id)
		FROM users u LEFT JOIN files f ON f.user_id = u.id
		GROUP BY u.id, u.used_bytes, u.file_count
		HAVING u.used_bytes <> COALESCE(SUM(f.size), 0) OR u.file_count <> COUNT(f.id) ORDER BY u.id`)
	if err != nil {
		return nil, fmt.Errorf("filehost: check usage: %w", err)
	}
	defer rows.Close()
	var out []UsageError
	for rows.Next() {
		var e UsageError
		if err := rows.Scan(&e.UserID, &e.UsedBytes, &e.FileCount, &e.WantUsedBytes, &e.WantFileCount); err != nil {
			return nil, fmt.Errorf("filehost: check usage: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// fixUsage recomputes a user's usage from their file records, under the
// user row's lock (see lockObjectTx).
func (s *Service) fixUsage(ctx context.Context, userID string) error {
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE users SET used_bytes = used_bytes WHERE id = $1", userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE users SET used_bytes = (SELECT COALESCE(SUM(size), 0) FROM files WHERE user_id = $1),
			file_count = (SELECT COUNT(*) FROM files WHERE user_id = $1) WHERE id = $1`, userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("filehost: fix usage: %w", err)
	}
	return nil
}

// idsOf runs a query of one text column.
func idsOf(ctx context.Context, q sqlstore.Querier, query string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
