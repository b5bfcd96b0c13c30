package filehost

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"

	"golang.org/x/image/webp"

	"folio/filehost/imagemeta"
	"folio/sqlstore"
	"folio/storage"
)

// openThumb opens the thumbnail of t, making it first when missing. It is
// errNoThumb when there is none to make: the source is gone or does not
// decode.
func (s *Service) openThumb(ctx context.Context, t linkTarget) (storage.Object, error) {
	isJPEG := thumbJPEG(t.mimetype)
	key := thumbKey(t.objectID, isJPEG)
	f, err := s.store.Open(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		// The making outlives a client that goes away: others may be
		// waiting for it.
		mctx := context.WithoutCancel(ctx)
		made := s.thumbs.once(ctx, key, func() error {
			return s.makeThumb(mctx, t.objectID, t.key, key, t.mimetype, isJPEG)
		})
		if made != nil {
			return nil, made
		}
		f, err = s.store.Open(ctx, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Deleted between making and opening: the object went away.
		return nil, errNoThumb
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// thumbType is the media type of a thumbnail.
func thumbType(isJPEG bool) string {
	if isJPEG {
		return "image/jpeg"
	}
	return "image/png"
}

// makeThumb decodes the source, scales it to fit thumbMax keeping the
// aspect ratio (never enlarging), and stores it under dst. Two requests
// racing both write; the second commit finds the key taken, which is fine.
func (s *Service) makeThumb(ctx context.Context, objectID, src, dst, mimetype string, isJPEG bool) error {
	f, err := s.store.Open(ctx, src)
	if errors.Is(err, fs.ErrNotExist) {
		return errNoThumb
	}
	if err != nil {
		return err
	}
	defer f.Close()
	cfgDecode := configDecoder(mimetype)
	cfg, err := cfgDecode(bufio.NewReader(f))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxThumbPixels {
		return errNoThumb
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	if err := s.thumbs.acquire(ctx, pixels); err != nil {
		return err
	}
	defer s.thumbs.release(pixels)
	var img image.Image
	orientation := 1
	br := bufio.NewReaderSize(f, 64<<10)
	switch mimetype {
	case "image/jpeg":
		if head, err := br.Peek(64 << 10); err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
			orientation = imagemeta.JPEGOrientation(head)
		}
		img, err = jpeg.Decode(br)
	case "image/png":
		img, err = png.Decode(br)
	case "image/gif":
		img, err = gif.Decode(br)
	case "image/webp":
		img, err = webp.Decode(br)
	}
	if err != nil {
		return errNoThumb
	}
	thumb := scaleToFit(img, thumbMax)
	thumb = imagemeta.Orient(thumb, orientation)

	var buf bytes.Buffer
	if isJPEG {
		err = jpeg.Encode(&buf, thumb, &jpeg.Options{Quality: 85})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, thumb)
	}
	if err != nil {
		return fmt.Errorf("encode thumbnail: %w", err)
	}
	w, err := s.store.Begin(ctx)
	if err != nil {
		return err
	}
	storage.SetContentType(w, thumbType(isJPEG))
	if _, err := w.Write(buf.Bytes()); err != nil {
		w.Abort()
		return err
	}
	intent, err := s.recordPlace(ctx, dst)
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(dst); err != nil {
		s.dropIntents(ctx, intent) // nothing of ours was placed
		if errors.Is(err, storage.ErrExists) {
			return nil
		}
		return err
	}
	return s.settleThumb(ctx, objectID, dst, intent)
}

// settleThumb ends a thumbnail's placement. Its object may have been
// deleted while it was made, after the delete removed the thumbnail keys:
// then these bytes would belong to nothing, so in one transaction with the
// check the intent becomes a 'delete', and the bytes go. Otherwise the
// intent is simply dropped; a delete committing later records its own
// intents for the thumbnail keys.
func (s *Service) settleThumb(ctx context.Context, objectID, key, intent string) error {
	// The bytes are placed: a client going away must not leave the
	// intent behind.
	ctx = context.WithoutCancel(ctx)
	gone := false
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM objects WHERE id = $1", objectID).Scan(&one)
		if errors.Is(err, sqlstore.ErrNotFound) {
			gone = true
			_, err = tx.Exec(ctx, "UPDATE storage_intents SET op = $1 WHERE id = $2", opDelete, intent)
			return err
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM storage_intents WHERE id = $1", intent)
		return err
	})
	if err != nil {
		return fmt.Errorf("filehost: settle thumbnail: %w", err)
	}
	if !gone {
		return nil
	}
	if err := s.store.Delete(ctx, key); err != nil {
		return fmt.Errorf("filehost: delete thumbnail of a deleted object: %w", err)
	}
	s.dropIntents(ctx, intent)
	return errNoThumb
}
