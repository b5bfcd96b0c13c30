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
	"net/http"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"folio/storage"
)

// Thumbnails fit in thumbMax×thumbMax. Sources above maxThumbPixels are not
// decoded: a small file can claim a huge canvas and exhaust memory.
const (
	thumbMax       = 400
	maxThumbPixels = 50_000_000
)

// thumbnailable reports whether a type gets a thumbnail.
func thumbnailable(mimetype string) bool {
	switch mimetype {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// canThumbnail reports whether content of this type and size, as its header
// told at upload, gets a thumbnail: links offer thumbnail_url only then.
// (An image whose header is sound but whose data is not still fails at
// the first /t/ request, with a 404.)
func canThumbnail(mimetype string, width, height int) bool {
	return thumbnailable(mimetype) && width > 0 && height > 0 && int64(width)*int64(height) <= maxThumbPixels
}

// thumbJPEG: photos become JPEG thumbnails; PNG and GIF, which may be
// transparent, become PNG.
func thumbJPEG(mimetype string) bool { return mimetype == "image/jpeg" || mimetype == "image/webp" }

// thumbKey is where an object's thumbnail is cached; named by the object id,
// which is never reused, so a thumbnail can never outlive its content.
func thumbKey(objectID string, isJPEG bool) string {
	if isJPEG {
		return "thumbs/" + objectID + ".jpg"
	}
	return "thumbs/" + objectID + ".png"
}

// handleThumb serves /t/{hash}, making the thumbnail on first request.
func (s *Service) handleThumb(w http.ResponseWriter, r *http.Request) {
	h, ok := linkHash(r.PathValue("hash"))
	if !ok {
		notFound(w, r)
		return
	}
	// A second round only when a remembered target's bytes are gone.
	for _, fresh := range []bool{false, true} {
		t, ok, err := s.targetByHash(r.Context(), h, fresh)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if !ok || !thumbnailable(t.mimetype) {
			break
		}
		f, ctype, err := s.openThumb(r.Context(), t)
		if errors.Is(err, errNoThumb) && t.cached {
			continue
		}
		if errors.Is(err, errNoThumb) {
			break
		}
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		defer f.Close()
		serveContent(w, r, f, thumbKey(t.objectID, ctype == "image/jpeg"), ctype, `"t-`+t.md5+`"`, t.createdAt, false)
		return
	}
	notFound(w, r)
}

// openThumb opens the thumbnail of t, making it first when missing. It is
// errNoThumb when there is none to make: the source is gone or does not
// decode.
func (s *Service) openThumb(ctx context.Context, t linkTarget) (storage.Object, string, error) {
	isJPEG := thumbJPEG(t.mimetype)
	ctype := "image/png"
	if isJPEG {
		ctype = "image/jpeg"
	}
	key := thumbKey(t.objectID, isJPEG)
	f, err := s.store.Open(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		if err := s.makeThumb(ctx, t.key, key, t.mimetype, isJPEG); err != nil {
			return nil, "", err
		}
		f, err = s.store.Open(ctx, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Deleted between making and opening: the object went away.
		return nil, "", errNoThumb
	}
	if err != nil {
		return nil, "", err
	}
	return f, ctype, nil
}

// errNoThumb: the source cannot be made into a thumbnail (undecodable or
// too large); the short link answers 404.
var errNoThumb = errors.New("no thumbnail for this content")

// makeThumb decodes the source, scales it to fit thumbMax keeping the
// aspect ratio (never enlarging), and stores it under dst. Two requests
// racing both write; the second commit finds the key taken, which is fine.
func (s *Service) makeThumb(ctx context.Context, src, dst, mimetype string, isJPEG bool) error {
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
	var img image.Image
	orientation := 1
	br := bufio.NewReaderSize(f, 64<<10)
	switch mimetype {
	case "image/jpeg":
		if head, err := br.Peek(64 << 10); err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
			orientation = jpegOrientation(head)
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
	thumb = orient(thumb, orientation)

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
	if _, err := w.Write(buf.Bytes()); err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(dst); err != nil && !errors.Is(err, storage.ErrExists) {
		return err
	}
	return nil
}

// scaleToFit returns img scaled down to fit limit×limit, keeping its aspect.
func scaleToFit(img image.Image, limit int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > limit || h > limit {
		if w >= h {
			h = max(1, h*limit/w)
			w = limit
		} else {
			w = max(1, w*limit/h)
			h = limit
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
