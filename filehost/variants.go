package filehost

import (
	"errors"
	"image"
	"image/color"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
)

// variantWidths are the widths /i/{hash}?w=N makes of an image
// (docs/filehost.md#sizes); the blog's and the console's srcset use the
// same numbers. Any other width is refused, so that a client cannot fill
// the store with a variant for every number.
var variantWidths = []int{160, 320, 480, 640, 800, 960, 1280, 1600, 1920, 2560}

// pregenWidths are the variants made in the background right after an
// upload, those the theme and the console ask for first.
var pregenWidths = []int{320, 640, 960, 1280}

// errBadWidth: the w query parameter is not one of variantWidths.
var errBadWidth = errors.New("w must be one of 160, 320, 480, 640, 800, 960, 1280, 1600, 1920, 2560")

// errServeOriginal: the variant asked for would be the original, or not a
// faithful copy of it (an animation): the original is served instead.
var errServeOriginal = errors.New("serve the original")

// requestedWidth reads the w query parameter of a raw query: 0 when
// there is none. The query a srcset sends, w=N alone, is read without
// parsing it into a map: it is what url.ParseQuery would find in it.
func requestedWidth(rawQuery string) (int, error) {
	if v, ok := strings.CutPrefix(rawQuery, "w="); ok && !strings.ContainsAny(v, "&;%+=") {
		return widthValues([]string{v})
	}
	q, _ := url.ParseQuery(rawQuery) // as URL.Query: what parsed
	return widthValues(q["w"])
}

// widthValues reads the values of w: 0 when there are none.
func widthValues(vs []string) (int, error) {
	if vs == nil {
		return 0, nil
	}
	if len(vs) != 1 {
		return 0, errBadWidth
	}
	if !variantWidth(vs[0]) {
		return 0, errBadWidth
	}
	n, _ := strconv.Atoi(vs[0])
	return n, nil
}

// variantKey is where an object's variant of width n is stored, next to
// its thumbnail: named by the object id, never reused, like thumbKey.
func variantKey(objectID string, n int, isJPEG bool) string {
	ext := ".png"
	if isJPEG {
		ext = ".jpg"
	}
	return thumbDir + "/" + objectID + "-w" + strconv.Itoa(n) + ext
}

// variantKeys are the keys every variant of an object could have: an
// object's purge deletes them all, made or not, as it does both thumbnail
// keys, so a variant made while the object is deleted is never missed.
func variantKeys(objectID, mimetype string, width, height int) []string {
	if !thumbnailable(mimetype) {
		return nil
	}
	var keys []string
	for _, n := range variantWidths {
		if n < max(width, height) {
			keys = append(keys, variantKey(objectID, n, thumbJPEG(mimetype)))
		}
	}
	return keys
}

// variantHeight keeps the aspect ratio: round(h·n/w).
func variantHeight(w, h, n int) int {
	return max(1, int((int64(h)*int64(n)*2+int64(w))/(2*int64(w))))
}

// resize scales img to w×h: a box filter first divides it by the whole
// factor that leaves it at least the target's size (cheap: each source
// pixel is read once), then Catmull-Rom scales the rest, by less than
// two, so its kernel stays a few pixels wide. Catmull-Rom alone over a
// 12-megapixel photo reads a dozen source pixels a row for each output
// pixel (docs/filehost.md#sizes has the timings).
func resize(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if k := min(b.Dx()/w, b.Dy()/h); k >= 2 {
		if small := boxShrink(img, k); small != nil {
			img, b = small, small.Bounds()
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// boxShrink averages k×k blocks of the decoders' usual pixel layouts
// (premultiplied, so transparent pixels lend no colour); nil for others,
// which Catmull-Rom then reads whole.
func boxShrink(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	n := uint32(k * k)
	switch src := img.(type) {
	case *image.YCbCr:
		for y := range h {
			for x := range w {
				var sy, scb, scr uint32
				for dy := range k {
					py := b.Min.Y + y*k + dy
					yi := src.YOffset(b.Min.X+x*k, py)
					for dx := range k {
						sy += uint32(src.Y[yi+dx])
						ci := src.COffset(b.Min.X+x*k+dx, py)
						scb += uint32(src.Cb[ci])
						scr += uint32(src.Cr[ci])
					}
				}
				r, g, bl := color.YCbCrToRGB(uint8(sy/n), uint8(scb/n), uint8(scr/n))
				i := out.PixOffset(x, y)
				out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = r, g, bl, 0xFF
			}
		}
	case *image.NRGBA:
		for y := range h {
			for x := range w {
				var r, g, bl, a uint32
				for dy := range k {
					si := src.PixOffset(b.Min.X+x*k, b.Min.Y+y*k+dy)
					for dx := range k {
						p := src.Pix[si+4*dx : si+4*dx+4]
						pa := uint32(p[3])
						r += uint32(p[0]) * pa / 255
						g += uint32(p[1]) * pa / 255
						bl += uint32(p[2]) * pa / 255
						a += pa
					}
				}
				i := out.PixOffset(x, y)
				out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(r/n), uint8(g/n), uint8(bl/n), uint8(a/n)
			}
		}
	case *image.RGBA:
		for y := range h {
			for x := range w {
				var sum [4]uint32
				for dy := range k {
					si := src.PixOffset(b.Min.X+x*k, b.Min.Y+y*k+dy)
					for dx := range 4 * k {
						sum[dx&3] += uint32(src.Pix[si+dx])
					}
				}
				i := out.PixOffset(x, y)
				for c := range 4 {
					out.Pix[i+c] = uint8(sum[c] / n)
				}
			}
		}
	default:
		return nil
	}
	return out
}

// variantWidth reports whether s is one of variantWidths, as a variant's
// key spells it.
func variantWidth(s string) bool {
	// Every width is positive: Itoa(n) spells s unless s has a sign or
	// leading zeros.
	n, err := strconv.Atoi(s)
	return err == nil && s[0] != '+' && s[0] != '0' && slices.Contains(variantWidths, n)
}
