package imagemeta

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"golang.org/x/image/webp"

	"folio/filehost/imagemeta/imagemetatest"
)

// The files with metadata these tests strip are imagemetatest's: every
// secret a stripper must remove contains "SECRET", so a search for it
// proves it gone.

func pngChunkTypes(t testing.TB, b []byte) []string {
	t.Helper()
	var types []string
	for i := 8; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		types = append(types, string(b[i+4:i+8]))
		i += 12 + n
	}
	return types
}

func webpChunkTypes(t testing.TB, b []byte) []string {
	t.Helper()
	var types []string
	for i := 12; i+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		types = append(types, string(b[i:i+4]))
		i += 8 + n + n%2
	}
	return types
}

// strip is what the stripper yields for r, read whole.
func strip(t testing.TB, r io.Reader) []byte {
	t.Helper()
	return imagemetatest.ReadAll(t, NewStripReader(r))
}

func TestStrippingRemovesMetadataAndKeepsThePicture(t *testing.T) {
	for _, tt := range []struct {
		name   string
		file   func(testing.TB) []byte
		decode func(io.Reader) (image.Image, error)
		check  func(t *testing.T, in, out []byte)
	}{
		{"jpeg", imagemetatest.MetaJPEG, jpeg.Decode, func(t *testing.T, in, out []byte) {
			if o := JPEGOrientation(out); o != 6 {
				t.Errorf("orientation %d, want 6 (kept upright)", o)
			}
			if !bytes.Equal(out[2:2+len(orientationExif(6))], orientationExif(6)) {
				t.Errorf("the first segment is not the orientation-only Exif")
			}
			if !bytes.Contains(out, []byte("ICC_PROFILE\x00\x01\x01fake profile bytes")) {
				t.Errorf("the ICC profile is gone")
			}
		}},
		{"png", imagemetatest.MetaPNG, png.Decode, func(t *testing.T, in, out []byte) {
			want := slices.DeleteFunc(pngChunkTypes(t, in), func(c string) bool {
				return slices.Contains([]string{"tEXt", "zTXt", "iTXt", "eXIf", "tIME"}, c)
			})
			if got := pngChunkTypes(t, out); !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
		}},
		{"webp", imagemetatest.MetaWebP, webp.Decode, func(t *testing.T, in, out []byte) {
			if len(out) != len(in) {
				t.Errorf("length %d, want %d (metadata becomes padding)", len(out), len(in))
			}
			if got, want := webpChunkTypes(t, out), []string{"VP8X", "VP8L", "JUNK", "JUNK"}; !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if flags := out[20]; flags&(webpFlagEXIF|webpFlagXMP) != 0 || flags&0x10 == 0 {
				t.Errorf("VP8X flags %#x: metadata flags must be clear, alpha kept", flags)
			}
		}},
		{"gif", imagemetatest.MetaGIF, gif.Decode, func(t *testing.T, in, out []byte) {
			if !bytes.Contains(out, []byte("NETSCAPE2.0")) {
				t.Errorf("the loop count extension is gone")
			}
			if bytes.Contains(out, []byte("XMP DataXMP")) {
				t.Errorf("the XMP extension is still there")
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.file(t)
			if !bytes.Contains(in, []byte("SECRET")) {
				t.Fatal("the test file carries no secret")
			}
			out := strip(t, bytes.NewReader(in))
			if i := bytes.Index(out, []byte("SECRET")); i >= 0 {
				t.Fatalf("metadata left at %d: %q", i, out[i:min(len(out), i+20)])
			}
			if bytes.Contains(out, []byte{0x88, 0x25}) && tt.name != "webp" {
				t.Errorf("a GPS IFD pointer is left")
			}
			imagemetatest.SamePixels(t, tt.decode, in, out)
			tt.check(t, in, out)
			// The same bytes whatever the reads' sizes.
			checkStripReadsAgree(t, in, out)
			// Stripping is idempotent: a stripped file passes unchanged.
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Errorf("stripping the stripped file changed it")
			}
		})
	}
}

func TestStrippingLeavesWhatItCannotParseAsSent(t *testing.T) {
	jpg := imagemetatest.MetaJPEG(t)
	pngFile := imagemetatest.MetaPNG(t)
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"text", []byte("hello, this is not a picture\n")},
		{"jpeg magic then garbage", append([]byte{0xFF, 0xD8, 0xFF}, bytes.Repeat([]byte{0x42}, 300)...)},
		{"jpeg cut inside its Exif segment", jpg[:60]},
		{"jpeg without a marker after SOI", append([]byte{0xFF, 0xD8, 0xFF, 0x00}, jpg[4:]...)},
		{"png signature then garbage", append(append([]byte{}, pngSignature...), bytes.Repeat([]byte{0xFF}, 100)...)},
		{"png cut inside its header", pngFile[:12]},
		{"riff that is not webp", append([]byte("RIFF\x10\x00\x00\x00WAVEfmt "), make([]byte, 16)...)},
		{"webp with a bad chunk name", append([]byte("RIFF\x10\x00\x00\x00WEBP\x01\x02\x03\x04"), make([]byte, 8)...)},
		{"gif header only", []byte("GIF89a\x01")},
		{"gif with an unknown block", append(imagemetatest.GIF(t, 4, 4)[:13+6], 0x99, 1, 2, 3)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := strip(t, bytes.NewReader(tt.in)); !bytes.Equal(got, tt.in) {
				t.Fatalf("stored %d bytes differing from the %d sent", len(got), len(tt.in))
			}
		})
	}
}

// checkStripReadsAgree fails unless stripping in gives out however its
// reads are cut.
func checkStripReadsAgree(t *testing.T, in, out []byte) {
	t.Helper()
	for name, r := range map[string]io.Reader{
		"one byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
		"half reads":         iotest.HalfReader(bytes.NewReader(in)),
		"EOF with the data":  iotest.DataErrReader(bytes.NewReader(in)),
	} {
		if got := strip(t, r); !bytes.Equal(got, out) {
			t.Errorf("%s: output differs", name)
		}
	}
}
