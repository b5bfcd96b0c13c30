package filehost

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"slices"
	"testing"
	"testing/iotest"

	"golang.org/x/image/webp"
)

// Files with metadata, made here byte by byte. Every secret a stripper must
// remove contains "SECRET", so a search for it proves it gone.

// gpsTIFF is a big-endian Exif TIFF: IFD0 with an image description, an
// orientation and a pointer to a GPS IFD holding a latitude.
func gpsTIFF(orientation uint16) []byte {
	be := binary.BigEndian
	t := []byte("MM\x00\x2a\x00\x00\x00\x08")
	entry := func(tag, typ uint16, count, value uint32) {
		t = be.AppendUint16(t, tag)
		t = be.AppendUint16(t, typ)
		t = be.AppendUint32(t, count)
		t = be.AppendUint32(t, value)
	}
	desc := "SECRET-DESCRIPTION\x00"
	t = be.AppendUint16(t, 3) // IFD0 at 8, ends at 50
	entry(0x010E, 2, uint32(len(desc)), 80)
	entry(0x0112, 3, 1, uint32(orientation)<<16)
	entry(0x8825, 4, 1, 50)
	t = be.AppendUint32(t, 0)
	t = be.AppendUint16(t, 2) // GPS IFD at 50, ends at 80
	entry(0x0001, 2, 2, uint32('N')<<24)
	entry(0x0002, 5, 3, uint32(80+len(desc)))
	t = be.AppendUint32(t, 0)
	t = append(t, desc...)
	for _, r := range [][2]uint32{{48, 1}, {51, 1}, {2976, 100}} {
		t = be.AppendUint32(t, r[0])
		t = be.AppendUint32(t, r[1])
	}
	return t
}

func jpegSeg(marker byte, body string) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(body)+2))
	return append(seg, body...)
}

// metaJPEG is a JPEG with Exif (GPS, orientation 6), XMP, IPTC, a comment
// and an ICC profile ahead of its image data.
func metaJPEG(t testing.TB) []byte {
	src := jpegBytes(t, 24, 16)
	out := append([]byte{}, src[:2]...)
	out = append(out, jpegSeg(0xE1, "Exif\x00\x00"+string(gpsTIFF(6)))...)
	out = append(out, jpegSeg(0xE1, "http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>SECRET-XMP</x:xmpmeta>")...)
	out = append(out, jpegSeg(0xED, "Photoshop 3.0\x008BIM\x04\x04\x00\x00\x00\x00\x00\x0aSECRET-IPT")...)
	out = append(out, jpegSeg(0xFE, "SECRET-COMMENT")...)
	out = append(out, jpegSeg(0xE2, "ICC_PROFILE\x00\x01\x01fake profile bytes")...)
	return append(out, src[2:]...)
}

func zlibBytes(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// metaPNG is a PNG with colour chunks, text of every kind, Exif and a
// modification time, one text chunk after the image data.
func metaPNG(t testing.TB) []byte {
	src := pngBytes(t, 12, 9)
	ihdrEnd := 8 + 25
	out := append([]byte{}, src[:ihdrEnd]...)
	out = append(out, pngChunkOf("gAMA", []byte{0, 0, 0xB1, 0x8F})...)
	out = append(out, pngChunkOf("iCCP", append([]byte("profile\x00\x00"), zlibBytes("fake profile")...))...)
	out = append(out, pngChunkOf("tEXt", []byte("Comment\x00SECRET-TEXT"))...)
	out = append(out, pngChunkOf("zTXt", append([]byte("Comment\x00\x00"), zlibBytes("SECRET-Z")...))...)
	out = append(out, pngChunkOf("iTXt", []byte("Comment\x00\x00\x00\x00\x00SECRET-I"))...)
	out = append(out, pngChunkOf("eXIf", gpsTIFF(1))...)
	out = append(out, pngChunkOf("tIME", []byte{0x07, 0xEA, 11, 23, 12, 0, 0})...)
	iend := len(src) - 12
	out = append(out, src[ihdrEnd:iend]...)
	out = append(out, pngChunkOf("tEXt", []byte("Author\x00SECRET-AFTER"))...)
	return append(out, src[iend:]...)
}

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

// vp8l is a lossless WebP bitstream of one colour: every prefix code has a
// single symbol, so the pixels take no bits at all.
func vp8l(w, h int, r, g, b, a byte) []byte {
	var out []byte
	var acc uint64
	var n uint
	put := func(v uint64, bits uint) {
		acc |= v << n
		n += bits
		for n >= 8 {
			out = append(out, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	put(0x2f, 8)
	put(uint64(w-1), 14)
	put(uint64(h-1), 14)
	put(1, 1) // alpha used
	put(0, 3) // version
	put(0, 1) // no transform
	put(0, 1) // no colour cache
	put(0, 1) // no meta prefix codes
	for _, sym := range []byte{g, r, b, a} {
		put(1, 1) // simple code
		put(0, 1) // one symbol
		put(1, 1) // of eight bits
		put(uint64(sym), 8)
	}
	put(1, 1) // distance: simple code
	put(0, 1) // one symbol
	put(0, 1) // of one bit
	put(0, 1)
	if n > 0 {
		out = append(out, byte(acc))
	}
	return out
}

func riffChunk(fourcc string, data []byte) []byte {
	c := append([]byte(fourcc), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(c[4:], uint32(len(data)))
	c = append(c, data...)
	if len(data)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

// metaWebP is an extended WebP with EXIF and XMP chunks after the image.
func metaWebP(t testing.TB) []byte {
	const w, h = 7, 5
	vp8x := []byte{0x10 | webpFlagEXIF | webpFlagXMP, 0, 0, 0, w - 1, 0, 0, h - 1, 0, 0}
	body := []byte("WEBP")
	body = append(body, riffChunk("VP8X", vp8x)...)
	body = append(body, riffChunk("VP8L", vp8l(w, h, 200, 100, 50, 255))...)
	body = append(body, riffChunk("EXIF", gpsTIFF(1))...)
	body = append(body, riffChunk("XMP ", []byte("<x:xmpmeta>SECRET-XMP!</x:xmpmeta>"))...)
	return riffChunk("RIFF", body)
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

func gifSubBlocksOf(s string) []byte {
	var out []byte
	for len(s) > 0 {
		k := min(len(s), 255)
		out = append(append(out, byte(k)), s[:k]...)
		s = s[k:]
	}
	return append(out, 0)
}

// metaGIF is a GIF with a loop count, a comment and XMP before the image and
// a comment after it.
func metaGIF(t testing.TB) []byte {
	src := gifBytes(t, 10, 4)
	start := 13 + int(gifColourTable(src[10]))
	out := append([]byte{}, src[:start]...)
	out = append(out, "\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"...)
	out = append(out, "\x21\xFE"...)
	out = append(out, gifSubBlocksOf("SECRET-COMMENT")...)
	out = append(out, "\x21\xFF\x0BXMP DataXMP"...)
	out = append(out, gifSubBlocksOf("<x:xmpmeta>SECRET-XMP "+string(bytes.Repeat([]byte("x"), 600))+"</x:xmpmeta>")...)
	trailer := len(src) - 1
	out = append(out, src[start:trailer]...)
	out = append(out, "\x21\xFE"...)
	out = append(out, gifSubBlocksOf("SECRET-LATE")...)
	return append(out, src[trailer:]...)
}

func strip(t testing.TB, r io.Reader) []byte {
	t.Helper()
	out, err := io.ReadAll(newStripReader(r))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func samePixels(t testing.TB, decode func(io.Reader) (image.Image, error), a, b []byte) {
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

func TestStrippingRemovesMetadataAndKeepsThePicture(t *testing.T) {
	for _, tt := range []struct {
		name   string
		file   func(testing.TB) []byte
		decode func(io.Reader) (image.Image, error)
		check  func(t *testing.T, in, out []byte)
	}{
		{"jpeg", metaJPEG, jpeg.Decode, func(t *testing.T, in, out []byte) {
			if o := jpegOrientation(out); o != 6 {
				t.Errorf("orientation %d, want 6 (kept upright)", o)
			}
			if !bytes.Equal(out[2:2+len(orientationExif(6))], orientationExif(6)) {
				t.Errorf("the first segment is not the orientation-only Exif")
			}
			if !bytes.Contains(out, []byte("ICC_PROFILE\x00\x01\x01fake profile bytes")) {
				t.Errorf("the ICC profile is gone")
			}
		}},
		{"png", metaPNG, png.Decode, func(t *testing.T, in, out []byte) {
			want := slices.DeleteFunc(pngChunkTypes(t, in), func(c string) bool {
				return slices.Contains([]string{"tEXt", "zTXt", "iTXt", "eXIf", "tIME"}, c)
			})
			if got := pngChunkTypes(t, out); !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
		}},
		{"webp", metaWebP, webp.Decode, func(t *testing.T, in, out []byte) {
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
		{"gif", metaGIF, gif.Decode, func(t *testing.T, in, out []byte) {
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
			samePixels(t, tt.decode, in, out)
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
	jpg := metaJPEG(t)
	pngFile := metaPNG(t)
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
		{"gif with an unknown block", append(gifBytes(t, 4, 4)[:13+6], 0x99, 1, 2, 3)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := strip(t, bytes.NewReader(tt.in)); !bytes.Equal(got, tt.in) {
				t.Fatalf("stored %d bytes differing from the %d sent", len(got), len(tt.in))
			}
		})
	}
}

func TestStrippedUploadsDescribeTheStoredBytes(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	for _, tt := range []struct {
		name string
		file []byte
	}{
		{"photo.jpg", metaJPEG(t)},
		{"shot.png", metaPNG(t)},
		{"pic.webp", metaWebP(t)},
		{"anim.gif", metaGIF(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := mustUpload(t, c, tt.name, tt.file)
			res := c.Do("GET", u.path(), nil).Expect(http.StatusOK)
			want := strip(t, bytes.NewReader(tt.file))
			if !bytes.Equal(res.Body, want) {
				t.Fatalf("served %d bytes, want the %d stripped bytes", len(res.Body), len(want))
			}
			sum := md5.Sum(res.Body)
			if u.MD5 != hex.EncodeToString(sum[:]) || res.Header.Get("ETag") != `"`+u.MD5+`"` {
				t.Errorf("md5 %s, ETag %s; the served bytes' md5 is %x", u.MD5, res.Header.Get("ETag"), sum)
			}
			if u.Size != int64(len(res.Body)) {
				t.Errorf("size %d, served %d", u.Size, len(res.Body))
			}
			// The stripped bytes are the same content: dedup shares them.
			if again := mustUpload(t, c, "again-"+tt.name, res.Body); again.Links.URL != u.Links.URL {
				t.Errorf("the stripped file uploaded again got %s, want %s", again.Links.URL, u.Links.URL)
			}
		})
	}

	t.Run("off", func(t *testing.T) {
		e.setUpload(func(u *UploadSettings) { u.StripMetadata = false })
		in := metaJPEG(t)
		in[len(in)-3] ^= 0x01 // other content than above
		u := mustUpload(t, c, "kept.jpg", in)
		if got := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(got, in) {
			t.Fatal("with strip_metadata off the file must be stored as sent")
		}
	})
}

// An upload's stripper buffer is sized to its body (bufferSize): at least
// as large as the file, it must strip exactly as the full buffer does,
// also for files cut short.
func TestStrippingWithABufferSizedToTheFile(t *testing.T) {
	files := map[string][]byte{"jpeg": metaJPEG(t), "png": metaPNG(t), "webp": metaWebP(t), "gif": metaGIF(t)}
	for name, full := range files {
		for _, n := range []int{len(full), len(full) / 2, 20, 3} {
			data := full[:n]
			t.Run(fmt.Sprintf("%s of %d bytes", name, n), func(t *testing.T) {
				want := strip(t, bytes.NewReader(data))
				got, err := io.ReadAll(newStripReaderSize(bytes.NewReader(data), bufferSize(int64(len(data)), stripBufferSize)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%d bytes with a sized buffer, %d with the full one", len(got), len(want))
				}
			})
		}
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
