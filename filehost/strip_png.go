package filehost

import "encoding/binary"

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngChunk handles the chunk at the stripper's position: text (tEXt, zTXt,
// iTXt), Exif (eXIf) and the modification time (tIME) go; colour chunks
// (iCCP, gAMA, cHRM, sRGB) and everything else stay. After IEND the rest
// passes as it is.
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
	switch string(b[4:8]) {
	case "IEND":
		s.pass = passRest
	case "tEXt", "zTXt", "iTXt", "eXIf", "tIME":
		s.drop, s.next = n, pngChunk
	default:
		s.pass, s.next = n, pngChunk
	}
}
