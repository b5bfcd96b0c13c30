package imagemeta

import (
	"bufio"
	"io"
)

// GIFAnimated reports whether a GIF holds more than one frame, walking its
// blocks without decoding any: a variant of an animation would keep only
// its first frame, so the original is served instead. A GIF that stops
// parsing counts the frames seen before.
func GIFAnimated(r io.Reader) bool {
	br := bufio.NewReader(r)
	head := make([]byte, 13)
	if _, err := io.ReadFull(br, head); err != nil {
		return false
	}
	if head[10]&0x80 != 0 {
		if _, err := br.Discard(int(gifColourTable(head[10]))); err != nil {
			return false
		}
	}
	frames := 0
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false
		}
		switch b {
		case 0x21: // extension: label, then sub-blocks
			if _, err := br.ReadByte(); err != nil || !skipSubBlocks(br) {
				return false
			}
		case 0x2C: // image descriptor, local colour table, LZW code size, data
			desc := make([]byte, 9)
			if _, err := io.ReadFull(br, desc); err != nil {
				return false
			}
			if frames++; frames > 1 {
				return true
			}
			if desc[8]&0x80 != 0 {
				if _, err := br.Discard(int(gifColourTable(desc[8]))); err != nil {
					return false
				}
			}
			if _, err := br.ReadByte(); err != nil || !skipSubBlocks(br) {
				return false
			}
		default: // the trailer, or something else: the end
			return false
		}
	}
}

func skipSubBlocks(br *bufio.Reader) bool {
	for {
		n, err := br.ReadByte()
		if err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		if _, err := br.Discard(int(n)); err != nil {
			return false
		}
	}
}
