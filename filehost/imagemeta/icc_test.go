package imagemeta

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"slices"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

func TestICCProfileIsReadFromEachFormat(t *testing.T) {
	profile := imagemetatest.ICC()
	big := bytes.Repeat([]byte("0123456789abcdef"), 9000) // three JPEG segments
	webpWith := func(p []byte) []byte {
		body := []byte("WEBP")
		body = append(body, imagemetatest.RIFFChunk("VP8X", []byte{0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0})...)
		body = append(body, imagemetatest.RIFFChunk("ICCP", p)...)
		return imagemetatest.RIFFChunk("RIFF", body)
	}
	jpg, pngFile := imagemetatest.JPEG(t, 8, 8), imagemetatest.PNG(t, 8, 8)
	for _, tc := range []struct {
		name string
		file []byte
		want []byte
	}{
		{"JPEG made here", JPEGWithICC(jpg, profile), profile},
		{"JPEG over three segments", JPEGWithICC(jpg, big), big},
		{"JPEG from a camera", imagemetatest.MetaJPEG(t), []byte("fake profile bytes")},
		{"JPEG without one", jpg, nil},
		{"PNG made here", PNGWithICC(pngFile, profile), profile},
		{"PNG from elsewhere", imagemetatest.MetaPNG(t), []byte("fake profile")},
		{"PNG without one", pngFile, nil},
		{"WebP", webpWith(profile), profile},
		{"WebP without one", imagemetatest.MetaWebP(t), nil},
		{"GIF", imagemetatest.GIF(t, 4, 4), nil},
		{"not a picture", []byte("hello"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ICCProfile(tc.file); !bytes.Equal(got, tc.want) {
				t.Fatalf("got a profile of %d bytes, want %d", len(got), len(tc.want))
			}
		})
	}
}

func TestPicturesWithAnEmbeddedProfileStillDecode(t *testing.T) {
	profile := imagemetatest.ICC()
	j := JPEGWithICC(imagemetatest.JPEG(t, 8, 6), profile)
	if img, err := jpeg.Decode(bytes.NewReader(j)); err != nil || img.Bounds() != image.Rect(0, 0, 8, 6) {
		t.Fatalf("JPEG: %v", err)
	}
	p := PNGWithICC(imagemetatest.PNG(t, 8, 6), profile)
	if img, err := png.Decode(bytes.NewReader(p)); err != nil || img.Bounds() != image.Rect(0, 0, 8, 6) {
		t.Fatalf("PNG: %v", err)
	}
	if types := pngChunkTypes(t, p); !slices.Equal(types[:2], []string{"IHDR", "iCCP"}) {
		t.Fatalf("chunks %v: iCCP must follow IHDR", types)
	}
}

func TestDamagedProfilesAreNone(t *testing.T) {
	jpg := imagemetatest.JPEG(t, 8, 8)
	seg := func(seq, count byte) []byte {
		return imagemetatest.JPEGSegment(jpegAPP2, iccID+string([]byte{seq, count})+"part")
	}
	with := func(segs ...[]byte) []byte {
		out := slices.Clone(jpg[:2])
		for _, s := range segs {
			out = append(out, s...)
		}
		return append(out, jpg[2:]...)
	}
	for name, file := range map[string][]byte{
		"a segment missing":        with(seg(1, 2)),
		"a segment twice":          with(seg(1, 2), seg(1, 2)),
		"counts that disagree":     with(seg(1, 2), seg(2, 3)),
		"sequence zero":            with(seg(0, 1)),
		"cut short":                JPEGWithICC(jpg, imagemetatest.ICC())[:40],
		"PNG profile not zlib":     append(slices.Clone(imagemetatest.PNG(t, 2, 2)[:33]), pngChunkOf("iCCP", []byte("p\x00\x00garbage"))...),
		"PNG profile without name": append(slices.Clone(imagemetatest.PNG(t, 2, 2)[:33]), pngChunkOf("iCCP", []byte("\x00\x00x"))...),
	} {
		if got := ICCProfile(file); got != nil {
			t.Errorf("%s: got a profile of %d bytes", name, len(got))
		}
	}
}
