// Package imagemetatest makes the files that the tests of metadata
// stripping feed to filehost/imagemeta directly and to filehost through its
// uploads: pictures and movies built byte by byte in the shapes cameras and
// phones write (pictures.go: JPEG, PNG, WebP and GIF with every kind of
// metadata; camera.go: a GoPro's, an old Canon's and an Ultra HDR photo;
// bmff.go: HEIC, AVIF, MP4 and MOV), and exiftool, the outside parser the
// tests read stripped files back with (exiftool.go). It imports nothing of
// Folio, so that imagemeta's own tests can use it.
package imagemetatest

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"testing"
)

// PNG is a w×h PNG of a colour gradient.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// JPEG is a w×h JPEG of a colour gradient, as Go's encoder writes it: no
// metadata at all.
func JPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), 100, uint8(y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GIF is a w×h two-colour GIF with a global colour table.
func GIF(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	for x := 0; x < w; x++ {
		img.SetColorIndex(x, x%h, 1)
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// SamePixels fails unless a and b decode to the same picture.
func SamePixels(t testing.TB, decode func(io.Reader) (image.Image, error), a, b []byte) {
	t.Helper()
	ia, err := decode(bytes.NewReader(a))
	if err != nil {
		t.Fatalf("decode the original: %v", err)
	}
	ib, err := decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode the stripped file: %v", err)
	}
	if ia.Bounds() != ib.Bounds() {
		t.Fatalf("bounds %v, want %v", ib.Bounds(), ia.Bounds())
	}
	for y := ia.Bounds().Min.Y; y < ia.Bounds().Max.Y; y++ {
		for x := ia.Bounds().Min.X; x < ia.Bounds().Max.X; x++ {
			if ia.At(x, y) != ib.At(x, y) {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, ib.At(x, y), ia.At(x, y))
			}
		}
	}
}

// ReadAll reads r to its end, failing the test when it fails: a stripper's
// output, read whole.
func ReadAll(t testing.TB, r io.Reader) []byte {
	t.Helper()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
