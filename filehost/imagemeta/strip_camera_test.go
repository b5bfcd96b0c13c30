package imagemeta

import (
	"bytes"
	"encoding/binary"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/image/webp"

	"folio/filehost/imagemeta/imagemetatest"
)

// Camera-shaped JPEGs (imagemetatest's GoPro, Canon and Ultra HDR photos)
// and the allowlist at its edges; filehost/upload_strip_test.go reads the
// same photos back with exiftool after uploading them.

// The MPF offsets and the gain map's size must hold in the output however
// the primary's header shrinks, and the gain map keeps its size.
func TestStrippingAnUltraHDRPhotoKeepsTheGainMapWhereTheMPFSays(t *testing.T) {
	in, gainMap := imagemetatest.UltraHDR(t)
	out := strip(t, bytes.NewReader(in))
	if len(out) >= len(in) {
		t.Fatalf("%d bytes in, %d out: nothing was left out", len(in), len(out))
	}
	var mpf []byte
	jpegSegments(out, func(at int, marker byte, seg []byte) bool {
		if marker == jpegAPP2 && bytes.HasPrefix(seg[4:], []byte(mpfID)) {
			mpf = seg[4+len(mpfID):]
			mpfBase := at + 4 + len(mpfID)
			entries, ok := parseMPF(mpf)
			if !ok || len(entries) != 2 {
				t.Fatalf("the output's MPF does not parse: %v", entries)
			}
			gm := out[mpfBase+int(entries[1].offset):]
			if int(entries[1].size) != len(gm) || int(entries[0].size) != mpfBase+int(entries[1].offset) {
				t.Fatalf("MPF sizes %d and %d, offset %d; the primary has %d bytes and the gain map %d",
					entries[0].size, entries[1].size, entries[1].offset, mpfBase+int(entries[1].offset), len(gm))
			}
			imagemetatest.SamePixels(t, jpeg.Decode, gainMap, gm)
		}
		return true
	})
	if mpf == nil {
		t.Fatal("the MPF segment is gone")
	}
	for name, r := range map[string]io.Reader{
		"one byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
		"sized to the file":  NewStripReaderSize(bytes.NewReader(in), len(in)),
	} {
		if name == "one byte at a time" {
			r = NewStripReader(r)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, out) {
			t.Errorf("%s: %d bytes (%v), want %d", name, len(got), err, len(out))
		}
	}
}

func TestStrippingKeepsOnlyWhatTheAllowlistNames(t *testing.T) {
	hdr, _ := imagemetatest.UltraHDR(t)
	preview, _ := imagemetatest.MultiPicture(t, 0x00010001) // an MPF large thumbnail
	second := imagemetatest.CanonJPEG(t)
	for _, tt := range []struct {
		name  string
		in    []byte
		check func(t *testing.T, in, out []byte)
	}{
		{"png: orientation-only eXIf, colour and HDR chunks stay; others and the trailer go", func() []byte {
			src := imagemetatest.PNG(t, 6, 5)
			out := slices.Clone(src[:33])
			out = append(out, pngChunkOf("cICP", []byte{1, 13, 0, 1})...)
			out = append(out, pngChunkOf("eXIf", imagemetatest.GPSTIFF(6))...)
			out = append(out, pngChunkOf("caBX", []byte("SECRET-C2PA"))...)
			out = append(out, pngChunkOf("prVt", []byte("SECRET-PRIVATE"))...)
			out = append(out, src[33:]...)
			return append(out, "SECRET-TRAILER"...)
		}(), func(t *testing.T, in, out []byte) {
			if got, want := pngChunkTypes(t, out), []string{"IHDR", "cICP", "eXIf", "IDAT", "IEND"}; !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if !bytes.Contains(out, pngChunkOf("eXIf", orientationTIFF(6))) {
				t.Errorf("the orientation-only eXIf is not there")
			}
			imagemetatest.SamePixels(t, png.Decode, in, out)
		}},
		{"webp: unknown chunks become padding, the trailer goes", append(func() []byte {
			w := imagemetatest.MetaWebP(t)
			w = append(w, imagemetatest.RIFFChunk("XYZW", []byte("SECRET-UNKNOWN"))...)
			binary.LittleEndian.PutUint32(w[4:], uint32(len(w)-8))
			return w
		}(), "SECRET-TRAILER"...), func(t *testing.T, in, out []byte) {
			if got, want := webpChunkTypes(t, out), []string{"VP8X", "VP8L", "JUNK", "JUNK", "JUNK"}; !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if len(out) != len(in)-len("SECRET-TRAILER") {
				t.Errorf("%d bytes, want the RIFF chunk's %d", len(out), len(in)-len("SECRET-TRAILER"))
			}
			imagemetatest.SamePixels(t, webp.Decode, in, out)
		}},
		{"gif: the ICC profile and loop count stay; plain text, other extensions and the trailer go", func() []byte {
			src := imagemetatest.GIF(t, 6, 4)
			start := 13 + int(gifColourTable(src[10]))
			out := slices.Clone(src[:start])
			out = append(out, "\x21\xFF\x0BICCRGBG1012"...)
			out = append(out, imagemetatest.GIFSubBlocks("profile bytes")...)
			out = append(out, "\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"...)
			out = append(out, "\x21\xFF\x0BMAGPIE01.00"...)
			out = append(out, imagemetatest.GIFSubBlocks("SECRET-APP")...)
			out = append(out, "\x21\x01\x0c\x00\x00\x00\x00\x04\x00\x04\x00\x01\x01\x00\x01"...)
			out = append(out, imagemetatest.GIFSubBlocks("SECRET-TEXT")...)
			out = append(out, "\x21\x77"...)
			out = append(out, imagemetatest.GIFSubBlocks("SECRET-UNKNOWN")...)
			out = append(out, src[start:]...)
			return append(out, "SECRET-TRAILER"...)
		}(), func(t *testing.T, in, out []byte) {
			if !bytes.Contains(out, []byte("ICCRGBG1012\x0dprofile bytes")) || !bytes.Contains(out, []byte("NETSCAPE2.0")) {
				t.Errorf("the ICC profile or the loop count is gone")
			}
			if out[len(out)-1] != 0x3B {
				t.Errorf("the file does not end with its trailer")
			}
			imagemetatest.SamePixels(t, gif.Decode, imagemetatest.GIF(t, 6, 4), out) // Go's decoder refuses in's unknown extension
		}},
		{"jpeg: a picture appended without MPF is stripped and keeps its size", append(slices.Clone(second), second...), func(t *testing.T, in, out []byte) {
			first := strip(t, bytes.NewReader(second))
			if !bytes.HasPrefix(out, first) {
				t.Fatalf("the first picture is not stripped as alone")
			}
			rest := out[len(first):]
			if len(rest) != len(second) {
				t.Errorf("the second picture has %d bytes, want its %d", len(rest), len(second))
			}
			if what := metadataLeft(out); what != "" {
				t.Errorf("%s left", what)
			}
			imagemetatest.SamePixels(t, jpeg.Decode, second, rest)
		}},
		{"jpeg: an MPF preview goes with the MPF segment", preview, func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) {
				t.Errorf("the MPF segment is still there")
			}
			if bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 || !bytes.HasSuffix(out, []byte{0xFF, 0xD9}) {
				t.Errorf("a picture after the first is still there")
			}
			imagemetatest.SamePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: an MPF index that does not parse goes with the pictures after the first", func() []byte {
			b := slices.Clone(hdr)
			i := bytes.Index(b, []byte(mpfID+"MM"))
			b[i+len(mpfID)+8+2+12+11] = 3 // NumberOfImages 3, with two entries
			return b
		}(), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) || bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 {
				t.Errorf("the MPF segment or the gain map is still there")
			}
			imagemetatest.SamePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: a header held past its limit goes out without the MPF index and the pictures after the first", func() []byte {
			var icc [][]byte
			for range jpegHoldLimit/60000 + 1 {
				icc = append(icc, imagemetatest.JPEGSegment(jpegAPP2, iccID+"\x02\x02"+strings.Repeat("p", 60000)))
			}
			b, _ := imagemetatest.MultiPicture(t, 0, icc...)
			return b
		}(), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) || bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 {
				t.Errorf("the MPF segment or the gain map is still there")
			}
			if n := bytes.Count(out, []byte(iccID)); n != jpegHoldLimit/60000+2 {
				t.Errorf("%d ICC segments, want all %d", n, jpegHoldLimit/60000+2)
			}
			imagemetatest.SamePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: XMP without gain-map properties goes whole", imagemetatest.MetaJPEG(t), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(xmpID)) {
				t.Errorf("the XMP segment is still there")
			}
		}},
		{"jpeg: an Ultra HDR photo keeps its gain map and nothing after it", hdr, func(t *testing.T, in, out []byte) {
			if bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 2 || !bytes.HasSuffix(out, []byte{0xFF, 0xD9}) {
				t.Errorf("want the primary picture and the gain map, ending with its EOI")
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := strip(t, bytes.NewReader(tt.in))
			if i := bytes.Index(out, []byte("SECRET")); i >= 0 {
				t.Errorf("metadata left at %d: %q", i, out[i:min(len(out), i+20)])
			}
			if what := metadataLeft(out); what != "" {
				t.Errorf("%s left", what)
			}
			tt.check(t, tt.in, out)
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Errorf("stripping the output again changed it")
			}
		})
	}
}
