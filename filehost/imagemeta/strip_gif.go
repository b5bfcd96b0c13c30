package imagemeta

// gifScreen passes the header, the logical screen descriptor and the
// global colour table.
func gifScreen(s *stripReader) {
	b, ok := s.peek(13)
	if !ok {
		return
	}
	s.pass, s.next = 13+gifColourTable(b[10]), gifBlock
}

// gifColourTable is the size of the colour table a packed field announces.
func gifColourTable(packed byte) int64 {
	if packed&0x80 == 0 {
		return 0
	}
	return 3 << ((packed & 7) + 1)
}

// gifBlock handles the block at the stripper's position by the allowlist
// of docs/filehost.md#metadata-stripping: images, graphic controls, the
// loop count (NETSCAPE2.0, ANIMEXTS1.0) and the ICC profile (ICCRGBG1)
// stay; comments, plain text and every other extension go. After the
// trailer nothing is kept.
func gifBlock(s *stripReader) {
	b, ok := s.peek(1)
	if !ok {
		return
	}
	switch b[0] {
	case 0x3B: // trailer
		s.pass, s.next = 1, gifEnd
	case 0x2C: // image descriptor, then the LZW code size, then data
		d, ok := s.peek(10)
		if !ok {
			return
		}
		s.pass, s.next = 10+gifColourTable(d[9])+1, gifPassBlocks
	case 0x21:
		e, ok := s.peek(2)
		if !ok {
			return
		}
		switch e[1] {
		case 0xF9: // graphic control
			s.pass, s.next = 2, gifPassBlocks
		case 0xFF: // application: an 11-byte identifier block first
			a, ok := s.peek(14)
			if !ok || a[2] != 11 {
				return
			}
			switch id := string(a[3:14]); {
			case id == "NETSCAPE2.0", id == "ANIMEXTS1.0", id[:8] == "ICCRGBG1":
				s.pass, s.next = 14, gifPassBlocks
			default:
				s.drop, s.next = 14, gifDropBlocks
			}
		default:
			s.drop, s.next = 2, gifDropBlocks
		}
	}
}

// gifEnd leaves out whatever follows the trailer.
func gifEnd(s *stripReader) { s.dropRest() }

func gifPassBlocks(s *stripReader) { gifSubBlocks(s, false) }
func gifDropBlocks(s *stripReader) { gifSubBlocks(s, true) }

// gifSubBlocks passes or drops a chain of data sub-blocks up to its
// terminator, as many as the read buffer holds at a time.
func gifSubBlocks(s *stripReader, drop bool) {
	n := 0
	next := stripStep(gifPassBlocks)
	if drop {
		next = gifDropBlocks
	}
	for n+1+255 < StripBufferSize {
		b, ok := s.peek(n + 1)
		if !ok {
			if n == 0 {
				return
			}
			break
		}
		size := int(b[n])
		n += 1 + size
		if size == 0 {
			next = gifBlock
			break
		}
	}
	if drop {
		s.drop = int64(n)
	} else {
		s.pass = int64(n)
	}
	s.next = next
}
