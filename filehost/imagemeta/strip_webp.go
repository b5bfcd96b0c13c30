package imagemeta

import "encoding/binary"

// VP8X feature flags of the metadata chunks.
const (
	webpFlagEXIF = 0x08
	webpFlagXMP  = 0x04
)

// webpPadding names the chunk a chunk left out becomes. The RIFF header
// gives the file's length before any chunk, and the metadata chunks come
// after the image data, so removing them in one pass would need the length
// before knowing it. Instead each keeps its size and becomes a chunk of
// zeros that no reader knows and every reader skips (docs/filehost.md).
const webpPadding = "JUNK"

// webpFirstChunk clears the metadata flags of the extended header, when
// there is one, and goes on with the chunks up to the end the RIFF header
// gives.
func webpFirstChunk(s *stripReader) {
	b, _ := s.peek(12)
	next := webpChunks(8 + int64(binary.LittleEndian.Uint32(b[4:])))
	b, ok := s.peek(12 + 18)
	if !ok || string(b[12:16]) != "VP8X" || binary.LittleEndian.Uint32(b[16:]) != 10 {
		s.pass, s.next = 12, next
		return
	}
	head := append([]byte(nil), b...)
	head[20] &^= webpFlagEXIF | webpFlagXMP
	s.replace(len(head), head)
	s.next = next
}

// webpChunks handles the chunk at the stripper's position: the image data,
// alpha, animation and the ICC profile stay; anything else (EXIF, XMP,
// chunks no decoder reads) becomes padding. After the RIFF's end nothing is
// kept.
func webpChunks(end int64) stripStep {
	var step stripStep
	step = func(s *stripReader) {
		if s.in >= end {
			s.dropRest()
			return
		}
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
		s.next = step
		switch string(b[:4]) {
		case "VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP":
			s.pass = 8 + size
		default:
			head := append([]byte(webpPadding), b[4:8]...)
			s.replace(8, head)
			s.zero = size
		}
	}
	return step
}
