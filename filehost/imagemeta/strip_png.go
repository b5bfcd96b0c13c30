package imagemeta

import (
	"encoding/binary"
	"hash/crc32"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngChunk handles the chunk at the stripper's position by the allowlist
// of docs/filehost.md#metadata-stripping: the critical chunks and those
// that say how the pixels are shown stay; text, Exif, times and anything
// else go. A first eXIf chunk with an orientation other than upright
// becomes one holding that orientation alone. After IEND nothing is kept.
func pngChunk(s *stripReader) {
	b, ok := s.peek(8)
	if !ok {
		return
	}
	size := binary.BigEndian.Uint32(b)
	if size > 1<<31-1 {
		return
	}
	for _, c := range b[4:8] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return
		}
	}
	n := int64(size) + 12 // length, type, data, CRC
	s.next = pngChunk
	switch typ := string(b[4:8]); {
	case typ == "IEND":
		s.pass, s.next = n, pngEnd
	case pngKept(typ):
		s.pass = n
	case typ == "eXIf" && !s.sawExif:
		// The orientation is in IFD0 at the Exif's start; of a chunk
		// larger than 64 KiB the first 64 KiB are read.
		s.sawExif = true
		s.drop = n
		if head, ok := s.peek(8 + int(min(size, 64<<10))); ok {
			if o := tiffOrientation(head[8:]); o != 1 {
				s.pending = pngChunkOf("eXIf", orientationTIFF(o))
			}
		}
	default:
		s.drop = n
	}
}

// pngKept reports whether a chunk type stays: the critical chunks (an
// upper-case first letter: a decoder must understand them), the colour
// space, transparency, background, pixel density, HDR and animation
// chunks.
func pngKept(typ string) bool {
	if typ[0] >= 'A' && typ[0] <= 'Z' {
		return true
	}
	switch typ {
	case "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "cICP", "mDCV", "cLLI",
		"pHYs", "bKGD", "acTL", "fcTL", "fdAT":
		return true
	}
	return false
}

// pngEnd leaves out whatever follows IEND.
func pngEnd(s *stripReader) { s.dropRest() }

// pngChunkOf is a whole chunk: length, type, data and CRC.
func pngChunkOf(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(append(c, typ...), data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}
