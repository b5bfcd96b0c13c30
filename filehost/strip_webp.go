package filehost

import "encoding/binary"

// VP8X feature flags of the metadata chunks.
const (
	webpFlagEXIF = 0x08
	webpFlagXMP  = 0x04
)

// webpPadding names the chunk an EXIF or XMP chunk becomes. The RIFF header
// gives the file's length before any chunk, and the metadata chunks come
// after the image data, so removing them in one pass would need the length
// before knowing it. Instead each keeps its size and becomes a chunk of
// zeros that no reader knows and every reader skips (docs/filehost.md).
const webpPadding = "JUNK"

// webpFirstChunk clears the metadata flags of the extended header, when
// there is one, and goes on with the chunks.
func webpFirstChunk(s *stripReader) {
	b, ok := s.peek(18)
	if !ok || string(b[:4]) != "VP8X" || binary.LittleEndian.Uint32(b[4:]) != 10 {
		webpChunk(s)
		return
	}
	head := append([]byte(nil), b...)
	head[8] &^= webpFlagEXIF | webpFlagXMP
	s.replace(18, head)
	s.next = webpChunk
}

// webpChunk handles the chunk at the stripper's position: EXIF and XMP
// become padding; the rest stays.
func webpChunk(s *stripReader) {
	b, ok := s.peek(8)
	if !ok {
		return
	}
	for _, c := range b[:4] {
		if c < 0x20 || c > 0x7E {
			return
		}
	}
	size := int64(binary.LittleEndian.Uint32(b[4:]))
	size += size & 1 // chunks are padded to an even length
	s.next = webpChunk
	switch string(b[:4]) {
	case "EXIF", "XMP ":
		head := append([]byte(webpPadding), b[4:8]...)
		s.replace(8, head)
		s.zero = size
	default:
		s.pass = 8 + size
	}
}
