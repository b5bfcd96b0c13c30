package filehost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"folio/filehost/imagemeta"
	"folio/sqlstore"
	"folio/storage"
)

// openVariant opens the variant of width n of t, making it first when
// missing. It is errNoThumb when there is none to make (the source is gone
// or does not decode) and errServeOriginal when the original is the
// answer.
func (s *Service) openVariant(ctx context.Context, t linkTarget, n int) (storage.Object, error) {
	key := variantKey(t.objectID, n, thumbJPEG(t.mimetype))
	f, err := s.store.Open(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		if err := s.ensureVariant(ctx, t.objectID, t.key, t.mimetype, n); err != nil {
			return nil, err
		}
		f, err = s.store.Open(ctx, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoThumb // deleted between making and opening
	}
	return f, err
}

// ensureVariant makes the variant of width n of an object unless it is
// stored. Concurrent callers for one variant share one making, which
// outlives a client that goes away: others may be waiting for it.
func (s *Service) ensureVariant(ctx context.Context, objectID, src, mimetype string, n int) error {
	isJPEG := thumbJPEG(mimetype)
	key := variantKey(objectID, n, isJPEG)
	if _, err := s.store.Stat(ctx, key); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mctx := context.WithoutCancel(ctx)
	return s.thumbs.once(ctx, key, func() error {
		return s.makeVariant(mctx, objectID, src, key, mimetype, n, isJPEG)
	})
}

// makeVariant decodes the source and stores it n pixels wide, upright,
// with its colour profile and no other metadata, recording the variant in
// image_variants. An animated GIF, or a source whose upright width is
// not above n, is errServeOriginal.
func (s *Service) makeVariant(ctx context.Context, objectID, src, dst, mimetype string, n int, isJPEG bool) error {
	if _, err := s.store.Stat(ctx, dst); err == nil {
		return nil // made by a caller that just left once
	}
	if mimetype == "image/gif" {
		f, err := s.store.Open(ctx, src)
		if errors.Is(err, fs.ErrNotExist) {
			return errNoThumb
		}
		if err != nil {
			return err
		}
		animated := imagemeta.GIFAnimated(f)
		f.Close()
		if animated {
			return errServeOriginal
		}
	}
	// The upright size, as shown: orientations 5 to 8 swap the sides.
	swap := false
	uw, uh := 0, 0
	d, release, err := s.decodeSource(ctx, src, mimetype, func(w, h, orientation int) error {
		swap = orientation >= 5 && orientation <= 8
		uw, uh = w, h
		if swap {
			uw, uh = h, w
		}
		if n >= uw {
			return errServeOriginal // before decoding anything
		}
		return nil
	})
	if err != nil {
		return err
	}
	vh := variantHeight(uw, uh, n)
	tw, th := n, vh // in the stored pixels' frame, turned after
	if swap {
		tw, th = vh, n
	}
	img := resize(d.img, tw, th)
	release()
	img = imagemeta.Orient(img, d.orientation)
	out, err := encodeDerived(img, isJPEG, d.icc)
	if err != nil {
		return fmt.Errorf("encode variant: %w", err)
	}
	return s.placeDerived(ctx, objectID, dst, isJPEG, out, func(tx *sqlstore.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO image_variants (object_id, width, storage_key, size, created_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (object_id, width) DO NOTHING`,
			objectID, n, dst, len(out), sqlstore.FromTime(s.now()))
		return err
	})
}

// variantBytes is what the stored variants of existing objects take.
func (s *Service) variantBytes(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRow(ctx, `SELECT COALESCE(SUM(v.size), 0) FROM image_variants v
		JOIN objects o ON o.id = v.object_id`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("filehost: variant bytes: %w", err)
	}
	return n, nil
}
