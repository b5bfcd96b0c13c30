package filehost

import (
	"errors"
	"image"

	"golang.org/x/image/draw"
)

// Thumbnails fit in thumbMax×thumbMax. Sources above maxThumbPixels are not
// decoded: a small file can claim a huge canvas and exhaust memory.
const (
	thumbMax       = 400
	maxThumbPixels = 50_000_000
)

// errNoThumb: the source cannot be made into a thumbnail (undecodable or
// too large); the short link answers 404.
var errNoThumb = errors.New("no thumbnail for this content")

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

// thumbDir is the storage folder of thumbnails; no path pattern may put
// uploads there (ValidatePathPattern).
const thumbDir = "thumbs"

// thumbKey is where an object's thumbnail is cached; named by the object id,
// which is never reused, so a thumbnail can never outlive its content.
func thumbKey(objectID string, isJPEG bool) string {
	if isJPEG {
		return thumbDir + "/" + objectID + ".jpg"
	}
	return thumbDir + "/" + objectID + ".png"
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
