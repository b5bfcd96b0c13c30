package filehost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"folio/filehost/imagemeta"
	"folio/sqlstore"
	"folio/storage"
)

// errObjectGone: the object to share was deleted meanwhile.
var errObjectGone = errors.New("object deleted concurrently")

// errAuditFailed: the request's audit entry could not be written in the
// upload's transaction.
var errAuditFailed = errors.New("filehost: audit entry not written")

// errContentStored: a concurrent upload of the same content stored its
// shared object first; this upload reuses it instead.
var errContentStored = errors.New("filehost: the same content was stored meanwhile")

// save turns received content into a file record: shared with an
// identical stored object when duplicates are not allowed, otherwise
// committed as a new object. The temp file is always consumed.
func (s *Service) save(ctx context.Context, userID string, in *incoming, opt uploadOptions, set UploadSettings) (*fileRecord, error) {
	md5Taken := false
	if !set.AllowDuplicate {
		rec, taken, err := s.reuse(ctx, userID, in, opt)
		if rec != nil || err != nil {
			in.w.Abort()
			if rec != nil {
				s.metrics.deduplicated(in.size)
			}
			return rec, err
		}
		md5Taken = taken
	}

	now := s.now()
	obj := &object{ID: sqlstore.NewID(), MD5: in.md5, SHA256: in.sha256, Size: in.size,
		Mimetype: in.mimetype, Extension: in.ext, FileType: in.fileType, CreatedAt: now,
		Shared: !set.AllowDuplicate}
	var err error
	if obj.Key, obj.intent, err = s.commitNew(ctx, in.w, set.PathPattern, now, in.md5, in.ext); err != nil {
		return nil, err
	}
	obj.Width, obj.Height, obj.Orientation = s.dimensions(ctx, obj.Key, obj.Mimetype)
	obj.hashes = shortHashCandidates(in.md5, in.sha256, obj.ID, md5Taken)
	rec, err := s.insertFile(ctx, userID, obj, in, opt, true)
	if err == nil {
		s.metrics.stored(in.size)
		if canThumbnail(obj.Mimetype, obj.Width, obj.Height) { // else queueImages would read the row to learn so
			s.queueImages(ctx, obj.ID)
		}
		return rec, nil
	}
	s.discardPlaced(ctx, obj.Key, obj.intent)
	if !errors.Is(err, errContentStored) {
		return nil, err
	}
	// A concurrent upload of the same bytes stored them first: share its
	// object, as if this upload had come second.
	rec, _, err = s.reuse(ctx, userID, in, opt)
	if rec == nil && err == nil {
		// It was deleted in the moment between: the bytes are gone.
		err = errContentGone
	}
	if rec != nil {
		s.metrics.deduplicated(in.size)
	}
	return rec, err
}

// reuse records the upload against the stored object with the same content,
// if there is one; rec is nil when there is none. md5Taken then reports
// whether other content has the same MD5 (a collision), which the new
// object's short hash must avoid.
func (s *Service) reuse(ctx context.Context, userID string, in *incoming, opt uploadOptions) (rec *fileRecord, md5Taken bool, err error) {
	obj, md5Taken, err := s.objectByContent(ctx, in.md5, in.sha256)
	if err != nil || obj == nil {
		return nil, md5Taken, err
	}
	rec, err = s.insertFile(ctx, userID, obj, in, opt, false)
	if !errors.Is(err, errObjectGone) {
		return rec, false, err
	}
	// It was deleted meanwhile: does other content keep its MD5?
	var one int
	err = s.db.QueryRow(ctx, "SELECT 1 FROM objects WHERE md5 = $1 LIMIT 1", in.md5).Scan(&one)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, false, fmt.Errorf("filehost: find md5: %w", err)
	}
	return nil, err == nil, nil
}

// commitNew moves the temp file under a key made from the path pattern,
// after recording the intent to place it (the returned intent id; the
// transaction that inserts the object claims it). A taken key is not
// retried: buildKey makes every key unique, so one can only be taken by a
// fault, and Commit has consumed the temp file by then.
func (s *Service) commitNew(ctx context.Context, w storage.Writer, pattern string, now time.Time, md5hex, ext string) (string, string, error) {
	key := buildKey(pattern, now, md5hex, ext)
	// ValidatePathPattern proves every key of an accepted pattern valid;
	// this stays as the last guard, and leaves no temp file behind.
	if err := storage.CheckKey(key); err != nil {
		w.Abort()
		return "", "", fmt.Errorf("filehost: path_pattern %q: %w", pattern, err)
	}
	intent, err := s.recordPlace(ctx, key)
	if err != nil {
		w.Abort()
		return "", "", err
	}
	err = w.Commit(key)
	if err != nil {
		// Nothing of ours was placed: a failed Commit leaves nothing, and a
		// taken key holds someone else's bytes.
		s.dropIntents(ctx, intent)
	}
	if errors.Is(err, storage.ErrExists) {
		return "", "", fmt.Errorf("filehost: storage key %q already exists", key)
	}
	if err != nil {
		return "", "", fmt.Errorf("filehost: commit upload: %w", err)
	}
	return key, intent, nil
}

// dimensions reads an image's size from its header, as stored (0×0 when
// unknown), and a JPEG's Exif orientation (1 otherwise).
func (s *Service) dimensions(ctx context.Context, key, mimetype string) (width, height, orientation int) {
	decode := configDecoder(mimetype)
	if decode == nil {
		return 0, 0, 1
	}
	f, err := s.store.Open(ctx, key)
	if err != nil {
		return 0, 0, 1
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	orientation = 1
	if mimetype == "image/jpeg" {
		if head, err := br.Peek(64 << 10); len(head) > 0 && (err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull)) {
			orientation = max(imagemeta.JPEGOrientation(head), 1)
		}
	}
	cfg, err := decode(br)
	if err != nil {
		return 0, 0, 1
	}
	return cfg.Width, cfg.Height, orientation
}

// objectByContent finds the oldest object whose MD5 and SHA-256 both
// match; nil when there is none, and then md5Taken reports whether an
// object of other content has the MD5. One query answers both, as most
// uploads are new content with an MD5 no object has.
func (s *Service) objectByContent(ctx context.Context, md5hex, sha256hex string) (_ *object, md5Taken bool, _ error) {
	var o object
	var created int64
	err := s.db.QueryRow(ctx, `SELECT id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, width, height, created_at
		FROM objects WHERE md5 = $1 ORDER BY CASE WHEN sha256 = $2 THEN 0 ELSE 1 END, created_at LIMIT 1`, md5hex, sha256hex).
		Scan(&o.ID, &o.MD5, &o.SHA256, &o.Hash, &o.Key, &o.Size, &o.Mimetype, &o.Extension, &o.FileType, &o.Width, &o.Height, &created)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("filehost: find object: %w", err)
	}
	if o.SHA256 != sha256hex {
		return nil, true, nil
	}
	o.CreatedAt = sqlstore.Time(created)
	return &o, false, nil
}

// uploadGroupSize bounds how many uploads' transactions commit together.
const uploadGroupSize = 64

// insertFile records an upload in one transaction: the owner's usage grows
// only if it stays within the quota, the object is inserted (isNew) or
// gains a reference, and the file record is added.
func (s *Service) insertFile(ctx context.Context, userID string, obj *object, in *incoming, opt uploadOptions, isNew bool) (*fileRecord, error) {
	now := s.now()
	rec := &fileRecord{ID: sqlstore.NewID(), OriginName: in.originName, Size: in.size, Visibility: opt.visibility,
		IsPublic: opt.visibility == visPublic, CreatedAt: now.UTC().Truncate(time.Microsecond), userID: userID}
	if opt.albumID != nil {
		rec.AlbumID = *opt.albumID
	}
	var expires *int64
	if opt.expiresAt != nil {
		at := opt.expiresAt.UTC().Truncate(time.Microsecond)
		rec.ExpiresAt = &at
		us := sqlstore.FromTime(at)
		expires = &us
	}
	// The record is written even if the client has gone meanwhile, as the
	// bytes are placed; and the transaction may be shared (sqlstore.TxGroup.Tx).
	ctx = context.WithoutCancel(ctx)
	audit := opt.audit
	// The check and the increment of the owner's usage are one statement
	// under the row's lock, so concurrent uploads cannot jointly pass the
	// quota. On PostgreSQL that lock is held until the commit is flushed,
	// and every upload of the owner waits for it: an upload of new content
	// takes it as late as it can, after the rows no one else can wait for
	// (its intent, its new object, its audit entry) and before the record,
	// whose key share on the owner's row would otherwise meet a removal of
	// the owner the other way round. An upload of stored content takes it
	// first, as a delete does before the object's (removeFileTx): taking
	// the object's row first would deadlock with a delete of the same
	// owner's (docs/filehost.md#lock-order).
	count := func(tx *sqlstore.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE users SET used_bytes = used_bytes + $1, file_count = file_count + 1
			WHERE id = $2 AND (quota_bytes = 0 OR used_bytes + $1 <= quota_bytes)`, in.size, userID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errQuotaFull
		}
		return nil
	}
	body := func(tx *sqlstore.Tx) error {
		if isNew {
			if err := claimPlaceTx(ctx, tx, obj.intent); err != nil {
				return err
			}
			if err := insertObjectTx(ctx, tx, obj); err != nil {
				return err
			}
			if err := audit.Write(ctx, tx); err != nil {
				return errAuditFailed
			}
			if err := count(tx); err != nil {
				return err
			}
		} else {
			if err := count(tx); err != nil {
				return err
			}
			res, err := tx.Exec(ctx, "UPDATE objects SET ref_count = ref_count + 1 WHERE id = $1 AND ref_count > 0", obj.ID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return errObjectGone
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO files (id, user_id, object_id, album_id, origin_name, size, visibility, is_public, created_at, updated_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)`,
			rec.ID, userID, obj.ID, opt.albumID, rec.OriginName, rec.Size, opt.visibility, rec.IsPublic, sqlstore.FromTime(rec.CreatedAt), expires)
		if errors.Is(err, sqlstore.ErrForeignKey) {
			return errBadAlbum // the album was deleted meanwhile
		}
		if err != nil {
			return err
		}
		if !isNew {
			if err := audit.Write(ctx, tx); err != nil {
				return errAuditFailed
			}
		}
		return nil
	}
	err := s.uploads.Tx(ctx, body)
	if errors.Is(err, errAuditFailed) {
		// An audit entry never fails the request (auth.Service.Audit): the
		// upload is recorded without it, and the middleware writes it, or
		// logs why it cannot.
		audit = nil
		err = s.uploads.Tx(ctx, body)
	}
	if errors.Is(err, errQuotaFull) || errors.Is(err, errObjectGone) || errors.Is(err, errBadAlbum) || errors.Is(err, errContentStored) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("filehost: record upload: %w", err)
	}
	audit.Committed()
	if !isNew {
		// A new record of stored content may open its short link to
		// everyone, or to one more owner: every process asks again
		// (docs/design.md#caches-across-processes).
		s.filesChanged.Bump()
	}
	rec.objectID, rec.Key, rec.Name, rec.hash = obj.ID, obj.Key, keyBase(obj.Key), obj.Hash
	rec.MD5, rec.Mimetype, rec.Extension, rec.FileType = obj.MD5, obj.Mimetype, obj.Extension, obj.FileType
	rec.Width, rec.Height = obj.Width, obj.Height
	return rec, nil
}

// insertObjectTx inserts a new object with the first free short hash. A
// taken hash makes the insert do nothing (rather than fail, which would
// abort a PostgreSQL transaction), and the next candidate is tried; the
// unique index decides, so concurrent uploads cannot share a hash.
func insertObjectTx(ctx context.Context, tx *sqlstore.Tx, o *object) error {
	for _, h := range o.hashes {
		var got string
		err := tx.QueryRow(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, width, height, orientation, ref_count, shared, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1, $13, $14)
			ON CONFLICT DO NOTHING RETURNING hash`,
			o.ID, o.MD5, o.SHA256, h, o.Key, o.Size, o.Mimetype, o.Extension, o.FileType, o.Width, o.Height, max(o.Orientation, 1),
			o.Shared, sqlstore.FromTime(o.CreatedAt)).Scan(&got)
		if errors.Is(err, sqlstore.ErrNotFound) {
			if o.Shared {
				// The conflict may be the content's, not the hash's.
				var one int
				err := tx.QueryRow(ctx, "SELECT 1 FROM objects WHERE md5 = $1 AND sha256 = $2 AND shared", o.MD5, o.SHA256).Scan(&one)
				if err == nil {
					return errContentStored
				}
				if !errors.Is(err, sqlstore.ErrNotFound) {
					return err
				}
			}
			continue
		}
		if err != nil {
			return err
		}
		o.Hash = got
		return nil
	}
	return errors.New("no free short hash")
}
