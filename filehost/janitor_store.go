package filehost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"folio/sqlstore"
)

// intentsAfter lists up to limit intents with ids above after, in id
// (creation) order.
func (s *Service) intentsAfter(ctx context.Context, after string, limit int) ([]Intent, error) {
	q := "SELECT id, op, storage_key, instance_id, created_at FROM storage_intents"
	args := []any{limit}
	if after != "" {
		q += " WHERE id > $2"
		args = append(args, after)
	}
	rows, err := s.db.Query(ctx, q+" ORDER BY id LIMIT $1", args...)
	if err != nil {
		return nil, fmt.Errorf("filehost: list storage intents: %w", err)
	}
	defer rows.Close()
	out := []Intent{}
	for rows.Next() {
		var in Intent
		var created int64
		if err := rows.Scan(&in.ID, &in.Op, &in.Key, &in.Instance, &created); err != nil {
			return nil, fmt.Errorf("filehost: list storage intents: %w", err)
		}
		in.CreatedAt = sqlstore.Time(created)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: list storage intents: %w", err)
	}
	return out, nil
}

// settleIntent finishes one intent. A 'place' is first turned into a
// 'delete', in one statement that only matches while it is still a
// 'place': from then on the upload that recorded it can no longer claim
// it (claimPlaceTx), so no record can come to point at the bytes between
// the check below and their deletion. If the upload claimed it first, its
// object row exists and the check keeps the bytes.
func (s *Service) settleIntent(ctx context.Context, in Intent, rep *JanitorReport) error {
	if in.Op == opPlace {
		res, err := s.db.Exec(ctx, "UPDATE storage_intents SET op = $1 WHERE id = $2 AND op = $3", opDelete, in.ID, opPlace)
		if err != nil {
			return fmt.Errorf("filehost: roll back placement: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("filehost: roll back placement: %w", err)
		} else if n == 0 {
			return nil // claimed (or settled) meanwhile
		}
		rep.RolledBack++
	}
	used, err := referenced(ctx, s.db, in.Key)
	if err != nil {
		return err
	}
	if used {
		rep.Kept++
		s.log.Info("janitor: kept bytes a record points at", "key", in.Key, "op", in.Op, "instance", in.Instance)
	} else if _, err := s.store.Stat(ctx, in.Key); !errors.Is(err, fs.ErrNotExist) {
		// Most 'delete' intents name a thumbnail never made: only bytes
		// that are there are deleted and reported.
		if err := s.store.Delete(ctx, in.Key); err != nil {
			return fmt.Errorf("filehost: janitor: %w", err)
		}
		rep.Deleted = append(rep.Deleted, in.Key)
		s.log.Info("janitor: deleted bytes no record points at", "key", in.Key, "op", in.Op, "instance", in.Instance)
	}
	if _, err := s.db.Exec(ctx, "DELETE FROM storage_intents WHERE id = $1", in.ID); err != nil {
		return fmt.Errorf("filehost: janitor: drop intent: %w", err)
	}
	rep.Settled++
	return nil
}
