package filehost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// tusUpload is a tus_uploads row: a resumable upload
// (docs/filehost.md#resumable-uploads-tus).
type tusUpload struct {
	ID        string
	UserID    string
	Length    int64
	Offset    int64
	Metadata  string // the Upload-Metadata header as sent
	FileID    string // the file it became; "" while unfinished
	CreatedAt time.Time
	ExpiresAt time.Time
}

// tusPart is a tus_parts row: a chunk stored as its own object.
type tusPart struct {
	Offset int64
	Size   int64
	Key    string
}

// errTusMoved: the upload's offset changed under a chunk (another request
// stored one first), or it was finished or removed meanwhile.
var errTusMoved = errors.New("filehost: the upload's offset changed meanwhile")

func (s *Service) insertTusUpload(ctx context.Context, u *tusUpload) error {
	_, err := s.db.Exec(ctx, `INSERT INTO tus_uploads (id, user_id, upload_length, upload_offset, metadata, created_at, expires_at)
		VALUES ($1, $2, $3, 0, $4, $5, $6)`, u.ID, u.UserID, u.Length, u.Metadata, sqlstore.FromTime(u.CreatedAt), sqlstore.FromTime(u.ExpiresAt))
	if err != nil {
		return fmt.Errorf("filehost: record tus upload: %w", err)
	}
	return nil
}

// tusUploadByID reads an upload; sqlstore.ErrNotFound when there is none.
func (s *Service) tusUploadByID(ctx context.Context, id string) (*tusUpload, error) {
	var u tusUpload
	var fileID *string
	var created, expires int64
	err := s.db.QueryRow(ctx, `SELECT id, user_id, upload_length, upload_offset, metadata, file_id, created_at, expires_at
		FROM tus_uploads WHERE id = $1`, id).
		Scan(&u.ID, &u.UserID, &u.Length, &u.Offset, &u.Metadata, &fileID, &created, &expires)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("filehost: read tus upload: %w", err)
	}
	if fileID != nil {
		u.FileID = *fileID
	}
	u.CreatedAt, u.ExpiresAt = sqlstore.Time(created), sqlstore.Time(expires)
	return &u, nil
}

// tusParts lists an upload's parts in offset order.
func (s *Service) tusParts(ctx context.Context, id string) ([]tusPart, error) {
	rows, err := s.db.Query(ctx, "SELECT part_offset, size, storage_key FROM tus_parts WHERE upload_id = $1 ORDER BY part_offset", id)
	if err != nil {
		return nil, fmt.Errorf("filehost: list tus parts: %w", err)
	}
	defer rows.Close()
	var out []tusPart
	for rows.Next() {
		var p tusPart
		if err := rows.Scan(&p.Offset, &p.Size, &p.Key); err != nil {
			return nil, fmt.Errorf("filehost: list tus parts: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// recordTusPart records a committed part in the transaction that claims
// its 'place' intent and moves the offset from p.Offset to its end, only
// if the offset is still p.Offset (errTusMoved otherwise).
func (s *Service) recordTusPart(ctx context.Context, id, intent string, p tusPart, expires time.Time) error {
	return s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE tus_uploads SET upload_offset = $1, expires_at = $2
			WHERE id = $3 AND upload_offset = $4 AND file_id IS NULL`, p.Offset+p.Size, sqlstore.FromTime(expires), id, p.Offset)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errTusMoved
		}
		if err := claimPlaceTx(ctx, tx, intent); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO tus_parts (upload_id, part_offset, size, storage_key) VALUES ($1, $2, $3, $4)",
			id, p.Offset, p.Size, p.Key)
		return err
	})
}

// dropTusPartsTx deletes an upload's part rows and records a 'delete'
// intent for each part's bytes; it returns the keys and the intents.
func (s *Service) dropTusPartsTx(ctx context.Context, tx *sqlstore.Tx, id string) ([]string, []string, error) {
	rows, err := tx.Query(ctx, "SELECT storage_key FROM tus_parts WHERE upload_id = $1", id)
	if err != nil {
		return nil, nil, err
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	intents, err := recordDeletesTx(ctx, tx, s.instance, s.now(), keys...)
	if err != nil {
		return nil, nil, err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM tus_parts WHERE upload_id = $1", id); err != nil {
		return nil, nil, err
	}
	return keys, intents, nil
}

// finishTusRecord records the file an upload became and drops its parts,
// keeping the row until keepUntil for GET.
func (s *Service) finishTusRecord(ctx context.Context, id, fileID string, keepUntil time.Time) (keys, intents []string, err error) {
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE tus_uploads SET file_id = $1, expires_at = $2 WHERE id = $3",
			fileID, sqlstore.FromTime(keepUntil), id); err != nil {
			return err
		}
		keys, intents, err = s.dropTusPartsTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("filehost: finish tus upload: %w", err)
	}
	return keys, intents, nil
}

// deleteTusRecord deletes an upload's row and parts.
func (s *Service) deleteTusRecord(ctx context.Context, id string) (keys, intents []string, err error) {
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		keys, intents, err = s.dropTusPartsTx(ctx, tx, id)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM tus_uploads WHERE id = $1", id)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("filehost: delete tus upload: %w", err)
	}
	return keys, intents, nil
}

// expiredTusUploads lists up to limit uploads expired at now.
func (s *Service) expiredTusUploads(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := s.db.Query(ctx, "SELECT id FROM tus_uploads WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2", sqlstore.FromTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("filehost: list expired tus uploads: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("filehost: list expired tus uploads: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
