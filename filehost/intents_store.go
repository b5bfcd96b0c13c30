package filehost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"folio/sqlstore"
)

// Storage intents record every placement and deletion of stored bytes
// before it happens, so that bytes a crash left without a record (or a
// record-less key left with bytes) are found and settled by the janitor
// (docs/filehost.md#crash-consistency).
const (
	opPlace  = "place"
	opDelete = "delete"
)

// errIntentLost: the upload's 'place' intent was turned into a 'delete' by
// a janitor that judged this process dead (it stalled past the heartbeat
// limit); its bytes are doomed, so the upload fails.
var errIntentLost = errors.New("filehost: the upload was rolled back by the janitor")

// Intent is one storage_intents row, as fsck reports it.
type Intent struct {
	ID        string    `json:"id"`
	Op        string    `json:"op"`
	Key       string    `json:"key"`
	Instance  string    `json:"instance"`
	CreatedAt time.Time `json:"created_at"`
}

// recordPlace commits a 'place' intent for key; the bytes may go there
// only after it returns.
func (s *Service) recordPlace(ctx context.Context, key string) (string, error) {
	id := sqlstore.NewID()
	now := sqlstore.FromTime(s.now())
	ctx = context.WithoutCancel(ctx) // a shared transaction (sqlstore.TxGroup.Tx)
	if err := s.uploads.Tx(ctx, func(tx *sqlstore.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO storage_intents (id, op, storage_key, instance_id, created_at)
			VALUES ($1, $2, $3, $4, $5)`, id, opPlace, key, s.instance, now)
		return err
	}); err != nil {
		return "", fmt.Errorf("filehost: record placement: %w", err)
	}
	return id, nil
}

// dropIntents deletes intents whose work is done. A failure is logged: the
// intent stays, and the janitor settles it again, which is harmless.
func (s *Service) dropIntents(ctx context.Context, ids ...string) {
	if len(ids) == 0 {
		return
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	if _, err := s.db.Exec(context.WithoutCancel(ctx), "DELETE FROM storage_intents WHERE id IN ("+sqlstore.Placeholders(1, len(ids))+")", args...); err != nil {
		s.log.Error("delete storage intents", "ids", strings.Join(ids, ","), "err", err)
	}
}

// claimPlaceTx deletes the 'place' intent id in the transaction that
// records what its bytes are for: from its commit on, a record points at
// them. errIntentLost when a janitor turned it into a 'delete'.
func claimPlaceTx(ctx context.Context, tx *sqlstore.Tx, id string) error {
	res, err := tx.Exec(ctx, "DELETE FROM storage_intents WHERE id = $1 AND op = $2", id, opPlace)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errIntentLost
	}
	return nil
}

// recordDeletesTx inserts a 'delete' intent for each key in the
// transaction that deletes the record pointing at them.
func recordDeletesTx(ctx context.Context, tx *sqlstore.Tx, instance string, now time.Time, keys ...string) ([]string, error) {
	ids := make([]string, len(keys))
	for i, key := range keys {
		ids[i] = sqlstore.NewID()
		if _, err := tx.Exec(ctx, `INSERT INTO storage_intents (id, op, storage_key, instance_id, created_at)
			VALUES ($1, $2, $3, $4, $5)`, ids[i], opDelete, key, instance, sqlstore.FromTime(now)); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// discardPlaced undoes a placement whose record was not written: the bytes
// go, then the intent. Should a record point at the key after all (a
// commit whose answer was lost), both stay.
func (s *Service) discardPlaced(ctx context.Context, key, intentID string) {
	ctx = context.WithoutCancel(ctx)
	used, err := referenced(ctx, s.db, key)
	if err != nil || used {
		if err != nil {
			s.log.Error("check stored content of failed upload", "key", key, "err", err)
		}
		return
	}
	if err := s.store.Delete(ctx, key); err != nil {
		s.log.Error("delete content of failed upload", "key", key, "err", err)
		return
	}
	s.dropIntents(ctx, intentID)
}

// thumbObject returns the object whose thumbnail or variant key is, if
// key is one.
func thumbObject(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "thumbs/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, ".jpg")
	if !ok {
		id, ok = strings.CutSuffix(rest, ".png")
	}
	if !ok {
		return "", false
	}
	// A variant's key: {id}-w{width}.
	if i := strings.LastIndex(id, "-w"); i > 0 && variantWidth(id[i+2:]) {
		id = id[:i]
	}
	if !sqlstore.ValidID(id) {
		return "", false
	}
	return strings.ToLower(id), true
}

// referenced reports whether a record still points at key: it is an
// object's storage key, the thumbnail of an object that exists, or a part
// of a resumable upload. Bytes
// are deleted only after this says no.
func referenced(ctx context.Context, q sqlstore.Querier, key string) (bool, error) {
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM objects WHERE storage_key = $1", key).Scan(&one)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, sqlstore.ErrInvalidText) {
		// A name the database cannot hold (a stray file whose name is not
		// UTF-8, on PostgreSQL) is in no row.
		return false, nil
	}
	if !errors.Is(err, sqlstore.ErrNotFound) {
		return false, fmt.Errorf("filehost: is %s referenced: %w", key, err)
	}
	if strings.HasPrefix(key, tusDir+"/") {
		err = q.QueryRow(ctx, "SELECT 1 FROM tus_parts WHERE storage_key = $1", key).Scan(&one)
		if errors.Is(err, sqlstore.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("filehost: is %s referenced: %w", key, err)
		}
		return true, nil
	}
	id, ok := thumbObject(key)
	if !ok {
		return false, nil
	}
	err = q.QueryRow(ctx, "SELECT 1 FROM objects WHERE id = $1", id).Scan(&one)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, sqlstore.ErrNotFound) {
		return false, fmt.Errorf("filehost: is %s referenced: %w", key, err)
	}
	return false, nil
}
