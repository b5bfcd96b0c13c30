package imagemetatest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// Pictures with metadata, made here byte by byte. Every secret a stripper
// must remove contains "SECRET", so a search for it proves it gone.

// GPSTIFF is a big-endian Exif TIFF: IFD0 with an image description, an
// orientation and a pointer to a GPS IFD holding a latitude.
func GPSTIFF(orientation uint16) []byte {
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

// JPEGSegment is a JPEG marker segment: FF, the marker, the length and
// body.
func JPEGSegment(marker byte, body string) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(body)+2))
	return append(seg, body...)
}

// MetaJPEG is a JPEG with Exif (GPS, orientation 6), XMP, IPTC, a comment
// and an ICC profile ahead of its image data.
func MetaJPEG(t testing.TB) []byte {
	src := JPEG(t, 24, 16)
	out := append([]byte{}, src[:2]...)
	out = append(out, JPEGSegment(0xE1, "Exif\x00\x00"+string(GPSTIFF(6)))...)
	out = append(out, JPEGSegment(0xE1, "http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>SECRET-XMP</x:xmpmeta>")...)
	out = append(out, JPEGSegment(0xED, "Photoshop 3.0\x008BIM\x04\x04\x00\x00\x00\x00\x00\x0aSECRET-IPT")...)
	out = append(out, JPEGSegment(0xFE, "SECRET-COMMENT")...)
	out = append(out, JPEGSegment(0xE2, "ICC_PROFILE\x00\x01\x01fake profile bytes")...)
	return append(out, src[2:]...)
}

func zlibBytes(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// MetaPNG is a PNG with colour chunks, text of every kind, Exif and a
// modification time, one text chunk after the image data.
func MetaPNG(t testing.TB) []byte {
	src := PNG(t, 12, 9)
	ihdrEnd := 8 + 25
	out := append([]byte{}, src[:ihdrEnd]...)
	out = append(out, pngChunk("gAMA", []byte{0, 0, 0xB1, 0x8F})...)
	out = append(out, pngChunk("iCCP", append([]byte("profile\x00\x00"), zlibBytes("fake profile")...))...)
	out = append(out, pngChunk("tEXt", []byte("Comment\x00SECRET-TEXT"))...)
	out = append(out, pngChunk("zTXt", append([]byte("Comment\x00\x00"), zlibBytes("SECRET-Z")...))...)
	out = append(out, pngChunk("iTXt", []byte("Comment\x00\x00\x00\x00\x00SECRET-I"))...)
	out = append(out, pngChunk("eXIf", GPSTIFF(1))...)
	out = append(out, pngChunk("tIME", []byte{0x07, 0xEA, 11, 23, 12, 0, 0})...)
	iend := len(src) - 12
	out = append(out, src[ihdrEnd:iend]...)
	out = append(out, pngChunk("tEXt", []byte("Author\x00SECRET-AFTER"))...)
	return append(out, src[iend:]...)
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

// RIFFChunk is a RIFF chunk (a WebP's): its type, length and data, padded
// to an even length.
func RIFFChunk(fourcc string, data []byte) []byte {
	c := append([]byte(fourcc), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(c[4:], uint32(len(data)))
	c = append(c, data...)
	if len(data)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

// MetaWebP is an extended WebP with EXIF and XMP chunks after the image.
func MetaWebP(t testing.TB) []byte {
	const w, h = 7, 5
	vp8x := []byte{0x10 | 0x08 | 0x04, 0, 0, 0, w - 1, 0, 0, h - 1, 0, 0} // alpha, Exif and XMP flags
	body := []byte("WEBP")
	body = append(body, RIFFChunk("VP8X", vp8x)...)
	body = append(body, RIFFChunk("VP8L", vp8l(w, h, 200, 100, 50, 255))...)
	body = append(body, RIFFChunk("EXIF", GPSTIFF(1))...)
	body = append(body, RIFFChunk("XMP ", []byte("<x:xmpmeta>SECRET-XMP!</x:xmpmeta>"))...)
	return RIFFChunk("RIFF", body)
}

// GIFSubBlocks is s as a GIF extension's data sub-blocks, ended by the
// empty one.
func GIFSubBlocks(s string) []byte {
	var out []byte
	for len(s) > 0 {
		k := min(len(s), 255)
		out = append(append(out, byte(k)), s[:k]...)
		s = s[k:]
	}
	return append(out, 0)
}

// MetaGIF is a GIF with a loop count, a comment and XMP before the image and
// a comment after it.
func MetaGIF(t testing.TB) []byte {
	src := GIF(t, 10, 4)
	start := 13 + 3<<(src[10]&7+1) // after the screen and its colour table
	out := append([]byte{}, src[:start]...)
	out = append(out, "\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"...)
	out = append(out, "\x21\xFE"...)
	out = append(out, GIFSubBlocks("SECRET-COMMENT")...)
	out = append(out, "\x21\xFF\x0BXMP DataXMP"...)
	out = append(out, GIFSubBlocks("<x:xmpmeta>SECRET-XMP "+string(bytes.Repeat([]byte("x"), 600))+"</x:xmpmeta>")...)
	trailer := len(src) - 1
	out = append(out, src[start:trailer]...)
	out = append(out, "\x21\xFE"...)
	out = append(out, GIFSubBlocks("SECRET-LATE")...)
	return append(out, src[trailer:]...)
}

// pngChunk is a PNG chunk: length, type, data and CRC.
func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(append(c, typ...), data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

// WebP is an extended, lossless WebP of one colour, w×h, with profile in
// an ICCP chunk when it is not nil.
func WebP(w, h int, profile []byte) []byte {
	vp8x := []byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0} // alpha
	if profile != nil {
		vp8x[0] |= 0x20
	}
	vp8x[4], vp8x[5], vp8x[6] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
	vp8x[7], vp8x[8], vp8x[9] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
	body := []byte("WEBP")
	body = append(body, RIFFChunk("VP8X", vp8x)...)
	if profile != nil {
		body = append(body, RIFFChunk("ICCP", profile)...)
	}
	body = append(body, RIFFChunk("VP8L", vp8l(w, h, 200, 100, 50, 255))...)
	return RIFFChunk("RIFF", body)
}
