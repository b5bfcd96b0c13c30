package imagemeta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"folio/filehost/imagemeta/imagemetatest"
)

// stripFormats are the magic bytes FuzzStrip's format byte puts before
// the data, so that most inputs reach a format's parser: none, JPEG, PNG,
// WebP (its RIFF length made to fit) and GIF.
const stripFormats = 5

func stripInput(format byte, data []byte) []byte {
	switch format % stripFormats {
	case 1:
		return append([]byte{0xFF, 0xD8, 0xFF}, data...)
	case 2:
		return append(slices.Clone(pngSignature), data...)
	case 3:
		in := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(4+len(data)))
		return append(append(in, "WEBP"...), data...)
	case 4:
		return append([]byte("GIF89a"), data...)
	}
	return slices.Clone(data)
}

// stripSeed splits a file into the format byte and data that stripInput
// turns back into it.
func stripSeed(file []byte) (byte, []byte) {
	for format := byte(stripFormats - 1); format > 0; format-- {
		magic := stripInput(format, nil)
		if format == 3 {
			magic = stripInput(format, file[min(len(file), 12):])[:12]
		}
		if bytes.HasPrefix(file, magic) {
			return format, file[len(magic):]
		}
	}
	return 0, file
}

// errSourceFailed is what FuzzStrip's failing source returns.
var errSourceFailed = errors.New("the source failed")

// failingReader yields b, then errSourceFailed on every later read.
type failingReader struct{ b []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errSourceFailed
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// FuzzStrip runs the metadata stripper over any content, mostly behind the
// magic bytes of the format the format byte picks, and checks what
// docs/filehost.md#metadata-stripping promises (the list is in
// docs/testing.md#fuzzing): it never refuses content read whole, and never
// yields more than the input plus the growth of one orientation-only Exif
// block (a WebP all inside its RIFF chunk exactly its input's length); its
// output is the same however the reads are cut, and stripping it again
// changes nothing; where the output parses as its format it holds nothing
// the allowlist does not keep, and a JPEG keeps the orientation of its
// first Exif segment; and when the source fails, the stripper returns that
// error after what it yields for the bytes read before.
func FuzzStrip(f *testing.F) {
	jpg, png, webp, gif := imagemetatest.MetaJPEG(f), imagemetatest.MetaPNG(f), imagemetatest.MetaWebP(f), imagemetatest.MetaGIF(f)
	uprightFirst := append(slices.Clone(jpg[:2]), imagemetatest.JPEGSegment(jpegAPP1, "Exif\x00\x00"+string(imagemetatest.GPSTIFF(1)))...)
	uprightFirst = append(uprightFirst, jpg[2:]...) // then imagemetatest.MetaJPEG's Exif, orientation 6
	hdr, _ := imagemetatest.UltraHDR(f)
	for _, file := range [][]byte{
		jpg, png, webp, gif, uprightFirst, imagemetatest.GoProJPEG(f), imagemetatest.CanonJPEG(f), hdr, hdr[:len(hdr)/2],
		imagemetatest.JPEG(f, 8, 8), imagemetatest.PNG(f, 4, 4), imagemetatest.GIF(f, 4, 4),
		nil, []byte("hello, this is not a picture\n"),
		jpg[:60], png[:40], webp[:40], gif[:30],
		append([]byte{0xFF, 0xD8, 0xFF, 0xFF, 0x01, 0xFF, 0xD0}, jpg[2:]...),
		append(slices.Clone(png[:len(png)-12]), pngChunkOf("eXIf", imagemetatest.GPSTIFF(6))...),
	} {
		format, data := stripSeed(file)
		f.Add(format, data)
	}
	f.Fuzz(func(t *testing.T, format byte, data []byte) {
		in := stripInput(format, data)
		if isBMFF(in) {
			return // FuzzStripBMFF's, which may refuse a layout it cannot strip
		}
		out, err := io.ReadAll(NewStripReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("the stripper refused %d bytes read whole: %v", len(in), err)
		}
		growth := len(orientationExif(2)) - 32 // the smallest segment it replaces
		if len(out) > len(in)+growth {
			t.Fatalf("%d bytes in, %d out", len(in), len(out))
		}
		if isWebP(in) && int64(binary.LittleEndian.Uint32(in[4:]))+8 >= int64(len(in)) && len(out) != len(in) {
			t.Fatalf("a WebP of %d bytes, all inside its RIFF chunk, became %d", len(in), len(out))
		}
		checkStripSteady(t, in, out)
		if what := metadataLeft(out); what != "" {
			t.Fatalf("%s left in the output", what)
		}
		if o, p := firstExifOrientation(in), firstExifOrientation(out); o != p {
			t.Fatalf("orientation %d became %d", o, p)
		}
		k := len(in) / 2
		part, err := io.ReadAll(NewStripReader(&failingReader{in[:k]}))
		if !errors.Is(err, errSourceFailed) {
			t.Fatalf("the source failed after %d bytes; the stripper returned %v", k, err)
		}
		if want, _ := io.ReadAll(NewStripReader(bytes.NewReader(in[:k]))); !bytes.Equal(part, want) {
			t.Fatalf("before the failure at %d it yielded %d bytes, not the %d it yields for those bytes", k, len(part), len(want))
		}
	})
}

func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// metadataLeft names the first block in the part of b that parses as its
// format that the allowlist of docs/filehost.md#metadata-stripping does
// not keep, or data after the format's end; "" when there is none. It
// walks the blocks as that section describes the formats, stopping where
// b stops parsing (a cut-short block, a length past the end, an unknown
// block), after which the stripper keeps everything as sent.
func metadataLeft(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return jpegLeft(b)
	case bytes.HasPrefix(b, pngSignature):
		exif := 0
		for i := len(pngSignature); i+8 <= len(b); {
			size := binary.BigEndian.Uint32(b[i:])
			typ := string(b[i+4 : i+8])
			if size > 1<<31-1 || !isLetters(typ) {
				return ""
			}
			end := int64(i) + int64(size) + 12
			switch {
			case typ == "IEND":
				if end < int64(len(b)) {
					return fmt.Sprintf("%d bytes after IEND", int64(len(b))-end)
				}
				return ""
			case typ == "eXIf":
				exif++
				if end > int64(len(b)) {
					return ""
				}
				o := tiffOrientation(b[i+8 : end-4])
				if exif > 1 || o == 1 || !bytes.Equal(b[i:end], pngChunkOf("eXIf", orientationTIFF(o))) {
					return fmt.Sprintf("PNG chunk eXIf at %d (not one orientation-only Exif)", i)
				}
			case !pngKept(typ):
				return fmt.Sprintf("PNG chunk %s at %d", typ, i)
			}
			if end > int64(len(b)) {
				return ""
			}
			i = int(end)
		}
	case isWebP(b):
		end := int64(binary.LittleEndian.Uint32(b[4:])) + 8
		i := 12
		if len(b) >= 30 && string(b[12:16]) == "VP8X" && binary.LittleEndian.Uint32(b[16:]) == 10 {
			if b[20]&(webpFlagEXIF|webpFlagXMP) != 0 {
				return fmt.Sprintf("VP8X flags %#x", b[20])
			}
			i = 30
		}
		for i+8 <= len(b) {
			if int64(i) >= end {
				return fmt.Sprintf("%d bytes after the RIFF chunk", len(b)-i)
			}
			typ := string(b[i : i+4])
			for _, c := range []byte(typ) {
				if c < 0x20 || c > 0x7E {
					return ""
				}
			}
			size := int64(binary.LittleEndian.Uint32(b[i+4:]))
			next := int64(i) + 8 + size + size&1
			switch typ {
			case "VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP":
			case webpPadding:
				if slices.ContainsFunc(b[i+8:min(next, int64(len(b)))], func(c byte) bool { return c != 0 }) {
					return fmt.Sprintf("WebP padding with data at %d", i)
				}
			default:
				return fmt.Sprintf("WebP chunk %q at %d", typ, i)
			}
			if next > int64(len(b)) {
				return ""
			}
			i = int(next)
		}
	case bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a")):
		if len(b) < 13 {
			return ""
		}
		// subBlocks returns the position after a chain of sub-blocks, -1
		// when it runs past the end.
		subBlocks := func(i int) int {
			for i < len(b) {
				size := int(b[i])
				i += 1 + size
				if size == 0 {
					return i
				}
			}
			return -1
		}
		i := 13 + int(gifColourTable(b[10]))
		for i >= 0 && i < len(b) {
			switch b[i] {
			case 0x3B:
				if i+1 < len(b) {
					return fmt.Sprintf("%d bytes after the trailer", len(b)-i-1)
				}
				return ""
			case 0x2C:
				if i+10 > len(b) {
					return ""
				}
				i = subBlocks(i + 10 + int(gifColourTable(b[i+9])) + 1)
			case 0x21:
				switch {
				case i+2 > len(b):
					return ""
				case b[i+1] == 0xF9:
					i = subBlocks(i + 2)
				case b[i+1] == 0xFF:
					if i+14 > len(b) || b[i+2] != 11 {
						return ""
					}
					if id := string(b[i+3 : i+14]); id != "NETSCAPE2.0" && id != "ANIMEXTS1.0" && id[:8] != "ICCRGBG1" {
						return fmt.Sprintf("GIF application extension %q at %d", id, i)
					}
					i = subBlocks(i + 14)
				default:
					return fmt.Sprintf("GIF extension %#x at %d", b[i+1], i)
				}
			default: // a block that does not parse
				return ""
			}
		}
	}
	return ""
}

// jpegLeft is metadataLeft for a JPEG: every picture in b, the first and
// those after it, header and segments between scans.
func jpegLeft(b []byte) string {
	exif, mpf := 0, 0
	for picture, i := 0, 2; ; picture++ {
		scanned := false
	segments:
		for {
			if i+2 > len(b) || b[i] != 0xFF {
				return ""
			}
			m := b[i+1]
			switch {
			case m == 0xFF: // a fill byte
				i++
				continue
			case m == 0x01 || m >= 0xD0 && m <= 0xD7:
				i += 2
				continue
			case m == jpegEOI:
				i += 2
				break segments
			case m == 0x00 || m == 0xD8 || m < 0xC0:
				return ""
			}
			if i+4 > len(b) {
				return ""
			}
			size := int(binary.BigEndian.Uint16(b[i+2:]))
			if size < 2 || i+2+size > len(b) {
				return ""
			}
			seg := b[i : i+2+size]
			body := seg[4:]
			preserving := picture > 0 || scanned
			kept := jpegDecoderMarker(m)
			switch {
			case kept:
			case m == jpegAPP0 && len(body) >= 14 && string(body[:5]) == jfifID:
				kept = !slices.ContainsFunc(body[12:], func(c byte) bool { return c != 0 })
			case m == jpegAPP1 && bytes.HasPrefix(body, []byte(exifID)):
				exif++
				o := tiffOrientation(body[len(exifID):])
				kept = exif == 1 && !preserving && o != 1 && bytes.Equal(seg, orientationExif(o))
			case m == jpegAPP1 && bytes.HasPrefix(body, []byte(xmpID)):
				x := bytes.TrimRight(body[len(xmpID):], " ")
				kept = bytes.Equal(gainMapXMP(x), x)
			case m == jpegAPP2 && bytes.HasPrefix(body, []byte(mpfID)):
				mpf++
				_, ok := parseMPF(body[len(mpfID):])
				kept = ok && mpf == 1 && !preserving
			case m == jpegAPP2 && (bytes.HasPrefix(body, []byte(iccID)) || bytes.HasPrefix(body, []byte(isoGMID))),
				m == jpegAPPE && bytes.HasPrefix(body, []byte(adobeID)):
				kept = true
			case m == jpegCOM && preserving:
				kept = !slices.ContainsFunc(body, func(c byte) bool { return c != 0 })
			}
			if !kept {
				return fmt.Sprintf("JPEG segment %#x at %d in picture %d", m, i, picture+1)
			}
			i += len(seg)
			if m == jpegSOS {
				scanned = true
				// The entropy-coded data, up to the next marker.
				for i < len(b) && !(b[i] == 0xFF && i+1 < len(b) && b[i+1] != 0 && (b[i+1] < 0xD0 || b[i+1] > 0xD7)) {
					i++
				}
			}
		}
		for i < len(b) && b[i] == 0 { // the blanked gap before an MPF picture
			i++
		}
		if i == len(b) {
			return ""
		}
		if !bytes.HasPrefix(b[i:], []byte{0xFF, 0xD8}) {
			return fmt.Sprintf("%d bytes after picture %d", len(b)-i, picture+1)
		}
		i += 2
	}
}

func isLetters(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// jpegSegments calls visit with each whole marker segment of a JPEG from
// SOI to the first scan, until visit returns false or b stops parsing.
func jpegSegments(b []byte, visit func(at int, marker byte, seg []byte) bool) {
	for i := 2; i+2 <= len(b) && b[i] == 0xFF; {
		switch m := b[i+1]; {
		case m == 0xFF:
			i++
			continue
		case m == jpegSOS || m == jpegEOI || m == 0x00 || m == 0xD8:
			return
		case m == 0x01 || m >= 0xD0 && m <= 0xD7:
			i += 2
			continue
		}
		if i+4 > len(b) {
			return
		}
		size := int(binary.BigEndian.Uint16(b[i+2:]))
		if size < 2 || i+2+size > len(b) {
			return
		}
		if !visit(i, b[i+1], b[i:i+2+size]) {
			return
		}
		i += 2 + size
	}
}

// firstExifOrientation is the orientation a viewer reads from a JPEG: the
// one in its first Exif segment; 1 when there is none.
func firstExifOrientation(b []byte) int {
	o := 1
	if !bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) {
		return o
	}
	jpegSegments(b, func(_ int, marker byte, seg []byte) bool {
		if marker == jpegAPP1 && len(seg) > 10 && string(seg[4:10]) == "Exif\x00\x00" {
			o = tiffOrientation(seg[10:])
			return false
		}
		return true
	})
	return o
}

// checkStripSteady fails unless out, what stripping in read whole gave, is
// what stripping gives however the reads are cut (checked a byte at a time
// up to 64 KiB), and stripping out again changes nothing.
func checkStripSteady(t *testing.T, in, out []byte) {
	t.Helper()
	if len(in) <= 64<<10 {
		cut, err := io.ReadAll(iotest.OneByteReader(NewStripReader(iotest.OneByteReader(bytes.NewReader(in)))))
		if err != nil || !bytes.Equal(cut, out) {
			t.Fatalf("read a byte at a time: %d bytes, %v; read whole: %d bytes", len(cut), err, len(out))
		}
	}
	again, err := io.ReadAll(NewStripReader(bytes.NewReader(out)))
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("stripping the output again gave %d bytes (%v), not the %d it had", len(again), err, len(out))
	}
}
