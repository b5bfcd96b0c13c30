package filehost

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

// BenchmarkVariantOf12MPJPEG times resizing a decoded 4000×3000 photo to
// 1280 pixels wide (decoding and encoding are the standard library's).
func BenchmarkVariantOf12MPJPEG(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.SetRGBA(x, y, color.RGBA{uint8(x ^ y), uint8(x * y >> 8), uint8(y), 255})
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	src, err := jpeg.Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		resize(src, 1280, 960)
	}
}
