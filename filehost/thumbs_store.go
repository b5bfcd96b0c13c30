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
	d, release, err := s.decodeSource(ctx, src, mimetype, nil)
	if err != nil {
		return err
	}
	thumb := scaleToFit(d.img, thumbMax)
	release()
	thumb = imagemeta.Orient(thumb, d.orientation)
	b, err := encodeDerived(thumb, isJPEG, nil)
	if err != nil {
		return fmt.Errorf("encode thumbnail: %w", err)
	}
	return s.placeDerived(ctx, objectID, dst, isJPEG, b, nil)
}

// decodedSource is a source image as decoded for a thumbnail or variant:
// its pixels as stored, the Exif orientation that turns them upright
// (JPEG only, as browsers apply it), and its ICC colour profile, read from
// its first iccHead bytes.
type decodedSource struct {
	img         image.Image
	orientation int
	icc         []byte
}

// iccHead is how much of a source's start is searched for its profile
// and orientation; they come before the image data.
const iccHead = 256 << 10

// decodeSource decodes the image stored under src within the pixel
// budget; release gives the pixels back once the caller is done with
// them. It is errNoThumb when the source is gone, does not decode or is
// above maxThumbPixels. check, when not nil, is given the size and
// orientation the header tells before anything is decoded, and its error
// stops there.
func (s *Service) decodeSource(ctx context.Context, src, mimetype string, check func(w, h, orientation int) error) (d decodedSource, release func(), err error) {
	f, err := s.store.Open(ctx, src)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil, errNoThumb
	}
	if err != nil {
		return d, nil, err
	}
	defer f.Close()
	cfgDecode := configDecoder(mimetype)
	cfg, err := cfgDecode(bufio.NewReader(f))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxThumbPixels {
		return d, nil, errNoThumb
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return d, nil, err
	}
	d.orientation = 1
	br := bufio.NewReaderSize(f, iccHead)
	if head, err := br.Peek(iccHead); err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
		d.icc = imagemeta.ICCProfile(head)
		if mimetype == "image/jpeg" {
			d.orientation = imagemeta.JPEGOrientation(head)
		}
	}
	if check != nil {
		if err := check(cfg.Width, cfg.Height, d.orientation); err != nil {
			return d, nil, err
		}
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	if err := s.thumbs.acquire(ctx, pixels); err != nil {
		return d, nil, err
	}
	release = func() { s.thumbs.release(pixels) }
	s.thumbs.decodes.Add(1)
	switch mimetype {
	case "image/jpeg":
		d.img, err = jpeg.Decode(br)
	case "image/png":
		d.img, err = png.Decode(br)
	case "image/gif":
		d.img, err = gif.Decode(br)
	case "image/webp":
		d.img, err = webp.Decode(br)
	}
	if err != nil || d.img == nil {
		release()
		return d, nil, errNoThumb
	}
	return d, release, nil
}

// encodeDerived encodes a thumbnail or variant, with the source's colour
// profile when it has one, and nothing else of its metadata.
func encodeDerived(img image.Image, isJPEG bool, icc []byte) ([]byte, error) {
	var buf bytes.Buffer
	if isJPEG {
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			return nil, err
		}
		return imagemeta.JPEGWithICC(buf.Bytes(), icc), nil
	}
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, err
	}
	return imagemeta.PNGWithICC(buf.Bytes(), icc), nil
}

// placeDerived stores a thumbnail or variant of an object under dst,
// with the intent that makes a crash harmless, then settles it; record,
// when not nil, runs in the settling transaction while the object still
// exists.
func (s *Service) placeDerived(ctx context.Context, objectID, dst string, isJPEG bool, b []byte, record func(*sqlstore.Tx) error) error {
	w, err := s.store.Begin(ctx)
	if err != nil {
		return err
	}
	storage.SetContentType(w, thumbType(isJPEG))
	if _, err := w.Write(b); err != nil {
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
	return s.settleThumb(ctx, objectID, dst, intent, record)
}

// settleThumb ends a thumbnail's placement. Its object may have been
// deleted while it was made, after the delete removed the thumbnail keys:
// then these bytes would belong to nothing, so in one transaction with the
// check the intent becomes a 'delete', and the bytes go. Otherwise the
// intent is simply dropped; a delete committing later records its own
// intents for the thumbnail keys.
func (s *Service) settleThumb(ctx context.Context, objectID, key, intent string, record func(*sqlstore.Tx) error) error {
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
		if record != nil {
			if err := record(tx); err != nil {
				return err
			}
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
