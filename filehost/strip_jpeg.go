package filehost

import "encoding/binary"

// JPEG markers the stripper acts on.
const (
	jpegAPP1 = 0xE1 // Exif, XMP and extended XMP
	jpegAPPD = 0xED // Photoshop IRB with IPTC
	jpegCOM  = 0xFE
	jpegSOS  = 0xDA
	jpegEOI  = 0xD9
)

// jpegSegment handles the segment at the stripper's position, between SOI
// and the first scan. Exif, XMP, IPTC and comments go; everything else
// stays. The first Exif segment, the one viewers (and jpegOrientation)
// read, is replaced by one holding only its orientation when that is not
// upright, so that viewers still turn the picture; a later Exif segment
// goes whatever it says, as viewers never read it. From the first scan on
// (entropy-coded data, and anything after the image such as a second MPF
// picture) the rest passes as it is: metadata lives before the scan.
func jpegSegment(s *stripReader) {
	b, ok := s.peek(2)
	if !ok || b[0] != 0xFF {
		return
	}
	switch m := b[1]; {
	case m == 0xFF: // a fill byte before the marker
		s.pass, s.next = 1, jpegSegment
		return
	case m == jpegSOS || m == jpegEOI:
		s.pass = passRest
		return
	case m == 0x01 || m >= 0xD0 && m <= 0xD7: // standalone markers
		s.pass, s.next = 2, jpegSegment
		return
	case m == 0x00 || m == 0xD8:
		return
	}
	b, ok = s.peek(4)
	if !ok {
		return
	}
	size := int(binary.BigEndian.Uint16(b[2:]))
	if size < 2 {
		return
	}
	marker := b[1]
	if marker != jpegAPP1 && marker != jpegAPPD && marker != jpegCOM {
		s.pass, s.next = int64(2+size), jpegSegment
		return
	}
	// The whole segment is read before it is dropped: one cut short is
	// not a segment, and the rest then passes as it is.
	seg, ok := s.peek(2 + size)
	if !ok {
		return
	}
	s.next = jpegSegment
	body := seg[4:]
	if marker == jpegAPP1 && len(body) > 6 && string(body[:6]) == "Exif\x00\x00" && !s.sawExif {
		s.sawExif = true
		if o := tiffOrientation(body[6:]); o != 1 {
			s.replace(2+size, orientationExif(o))
			return
		}
	}
	s.drop = int64(2 + size)
}

// orientationExif is an APP1 Exif segment holding nothing but the
// Orientation tag (0x0112) in IFD0.
func orientationExif(o int) []byte {
	seg := []byte{0xFF, jpegAPP1, 0, 0}
	seg = append(seg, "Exif\x00\x00"...)
	seg = append(seg, "MM\x00\x2a\x00\x00\x00\x08"...) // big-endian TIFF, IFD0 at 8
	seg = append(seg, 0, 1)                            // one entry
	seg = binary.BigEndian.AppendUint16(seg, 0x0112)
	seg = binary.BigEndian.AppendUint16(seg, 3) // SHORT
	seg = binary.BigEndian.AppendUint32(seg, 1)
	seg = binary.BigEndian.AppendUint16(seg, uint16(o))
	seg = append(seg, 0, 0)       // value padding
	seg = append(seg, 0, 0, 0, 0) // no next IFD
	binary.BigEndian.PutUint16(seg[2:], uint16(len(seg)-2))
	return seg
}
