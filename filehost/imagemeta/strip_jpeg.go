package imagemeta

import (
	"bytes"
	"encoding/binary"
)

// JPEG markers the stripper acts on.
const (
	jpegAPP0 = 0xE0 // JFIF
	jpegAPP1 = 0xE1 // Exif, XMP and extended XMP
	jpegAPP2 = 0xE2 // ICC profile, MPF, ISO 21496-1 gain map
	jpegAPPD = 0xED // Photoshop IRB with IPTC
	jpegAPPE = 0xEE // Adobe colour transform
	jpegCOM  = 0xFE
	jpegSOS  = 0xDA
	jpegEOI  = 0xD9
)

// Identifiers at the start of the APP segments that are kept.
const (
	jfifID  = "JFIF\x00"
	exifID  = "Exif\x00\x00"
	xmpID   = "http://ns.adobe.com/xap/1.0/\x00"
	iccID   = "ICC_PROFILE\x00"
	mpfID   = "MPF\x00"
	isoGMID = "urn:iso:std:iso:ts:21496:-1\x00"
	adobeID = "Adobe"
)

// jpegHoldLimit caps the header bytes held from a primary picture's MPF
// segment to its first scan (docs/filehost.md#metadata-stripping).
const jpegHoldLimit = 1 << 20

// jpegState is what the JPEG steps carry from one segment to the next.
//
// A JPEG may hold more pictures after the first one's EOI: an Ultra HDR
// photo's gain map, found through the MPF segment of the first picture
// (CIPA DC-007: offsets from the MPF segment's TIFF header) and through
// the Item:Length of its XMP container directory. Leaving out segments of
// the first picture's header only moves the pictures after it, which the
// rewritten MPF segment accounts for; so the header from the MPF segment
// to the first scan is held until the amount is known. A later picture
// keeps its size instead: a segment left out there becomes a padding
// segment of the same length, so the sizes the MPF segment and the XMP
// give for it stay true without holding anything.
type jpegState struct {
	secondary bool // in a picture after the first
	scanned   bool // past the current picture's first scan

	sawMPF  bool   // the first picture's first MPF segment was handled
	held    []byte // the first picture's kept header from its MPF segment on
	holding bool
	mpf     []byte // the MPF segment read, put back rewritten at held's start
	mpfIn   int64  // position of its TIFF header in the source
	removed int64  // bytes of the first picture left out so far
	atMPF   int64  // removed before the MPF segment

	more   bool    // the MPF segment lists the pictures that follow
	starts []int64 // where the pictures still to come begin in the source
	last   bool    // no picture that follows is kept
}

// jpegPreserving reports whether a segment left out keeps its size: in a
// later picture, and in the first one after its first scan, where the MPF
// segment giving its size has been written.
func (s *stripReader) jpegPreserving() bool {
	return s.jpeg.secondary || s.jpeg.scanned
}

// jpegKeep yields the next n bytes as they are.
func (s *stripReader) jpegKeep(n int64) {
	if s.jpeg.holding {
		b, ok := s.peek(int(n))
		if !ok {
			s.jpegGiveUp()
			return
		}
		s.jpeg.held = append(s.jpeg.held, b...)
		s.discard(int(n))
		if len(s.jpeg.held) > jpegHoldLimit {
			s.jpegRelease(false)
		}
		return
	}
	s.pass = n
}

// jpegReplace yields seg in place of the next n bytes.
func (s *stripReader) jpegReplace(n int, seg []byte) {
	if s.jpeg.holding {
		s.discard(n)
		s.jpeg.held = append(s.jpeg.held, seg...)
	} else {
		s.replace(n, seg)
	}
	if !s.jpeg.secondary {
		s.jpeg.removed += int64(n - len(seg))
	}
}

// jpegLeaveOut leaves out a segment of n bytes: it goes from the first
// picture's header, and becomes a comment of zeros (which no reader takes
// for anything, and which the next stripping turns into the same) where
// the size must stay.
func (s *stripReader) jpegLeaveOut(n int) {
	if s.jpegPreserving() {
		s.replace(4, []byte{0xFF, jpegCOM, byte((n - 2) >> 8), byte(n - 2)})
		s.zero = int64(n - 4)
		return
	}
	s.drop = int64(n)
	s.jpeg.removed += int64(n)
}

// jpegGiveUp is where the JPEG stops parsing: the rest of the first
// picture passes as sent; a later picture, needed by none, goes.
func (s *stripReader) jpegGiveUp() {
	s.next = nil
	if s.jpeg.holding {
		s.jpegRelease(false)
	}
	if s.jpeg.secondary {
		s.dropRest()
	} else {
		s.pass = passRest
	}
}

// jpegRelease yields the held header, with the MPF segment rewritten for
// the output when withMPF and the pictures it lists can be kept, and
// without it (and so without the later pictures) otherwise.
func (s *stripReader) jpegRelease(withMPF bool) {
	j := &s.jpeg
	j.holding = false
	var mpf []byte
	if withMPF {
		mpf = s.jpegRewriteMPF()
	}
	if mpf == nil {
		j.last, j.starts = true, nil
	}
	s.pending = append(mpf, j.held...)
	j.held, j.mpf = nil, nil
}

// jpegSegment handles the marker at the stripper's position, in a
// picture's header or between its scans, by the allowlist of
// docs/filehost.md#metadata-stripping.
func jpegSegment(s *stripReader) {
	b, ok := s.peek(2)
	if !ok || b[0] != 0xFF {
		s.jpegGiveUp()
		return
	}
	s.next = jpegSegment
	switch m := b[1]; {
	case m == 0xFF: // a fill byte before the marker
		s.jpegKeep(1)
		return
	case m == jpegEOI:
		if s.jpeg.holding { // a picture without a scan: nothing to hold for
			s.jpegRelease(false)
		}
		s.pass, s.next = 2, jpegAfterPicture
		return
	case m == 0x01 || m >= 0xD0 && m <= 0xD7: // standalone markers
		s.jpegKeep(2)
		return
	case m == 0x00 || m == 0xD8 || m < 0xC0:
		s.jpegGiveUp()
		return
	}
	b, ok = s.peek(4)
	if !ok {
		s.jpegGiveUp()
		return
	}
	size := int(binary.BigEndian.Uint16(b[2:]))
	if size < 2 {
		s.jpegGiveUp()
		return
	}
	marker := b[1]
	if jpegDecoderMarker(marker) {
		if marker == jpegSOS {
			if s.jpeg.holding {
				s.jpegRelease(true)
			}
			s.jpeg.scanned = true
			s.next = jpegScan
		}
		s.jpegKeep(int64(2 + size))
		return
	}
	// The whole segment is read before it is left out: one cut short is
	// not a segment, and the rest then passes as it is.
	seg, ok := s.peek(2 + size)
	if !ok {
		s.jpegGiveUp()
		return
	}
	body := seg[4:]
	switch {
	case marker == jpegAPP0 && len(body) >= 14 && string(body[:5]) == jfifID:
		s.jpegReplace(len(seg), s.jpegFit(jfifHeader(body), len(seg), 0))
		return
	case marker == jpegAPP1 && bytes.HasPrefix(body, []byte(exifID)):
		if !s.sawExif && !s.jpegPreserving() {
			s.sawExif = true
			if o := tiffOrientation(body[len(exifID):]); o != 1 {
				s.jpegReplace(len(seg), orientationExif(o))
				return
			}
		}
	case marker == jpegAPP1 && bytes.HasPrefix(body, []byte(xmpID)):
		if x := gainMapXMP(body[len(xmpID):]); x != nil {
			x = append(jpegSeg0(jpegAPP1, len(xmpID)+len(x)), append([]byte(xmpID), x...)...)
			if len(x) <= len(seg) {
				s.jpegReplace(len(seg), s.jpegFit(x, len(seg), ' '))
				return
			}
		}
	case marker == jpegAPP2 && (bytes.HasPrefix(body, []byte(iccID)) || bytes.HasPrefix(body, []byte(isoGMID))),
		marker == jpegAPPE && bytes.HasPrefix(body, []byte(adobeID)):
		s.jpegKeep(int64(len(seg)))
		return
	case marker == jpegAPP2 && bytes.HasPrefix(body, []byte(mpfID)) && !s.jpegPreserving() && !s.jpeg.sawMPF:
		// The first picture's first MPF index says where the pictures
		// after it are; one that cannot be followed takes them along.
		s.jpeg.sawMPF = true
		if _, ok := parseMPF(body[len(mpfID):]); ok {
			s.jpeg.mpf = bytes.Clone(seg)
			s.jpeg.mpfIn = s.in + 4 + int64(len(mpfID))
			s.jpeg.atMPF = s.jpeg.removed
			s.jpeg.holding = true
			s.discard(len(seg))
			return
		}
		s.jpeg.last = true
	}
	s.jpegLeaveOut(len(seg))
}

// jpegDecoderMarker reports whether a segment is one a decoder reads to
// make the pixels: frame and scan headers, tables, restart interval, line
// count, hierarchical and JPEG-LS headers.
func jpegDecoderMarker(m byte) bool {
	return m >= 0xC0 && m <= 0xCF || m >= 0xDA && m <= 0xDF || m == 0xF7 || m == 0xF8
}

// jpegFit makes a rewritten segment as long as the n bytes it replaces
// where the size must stay, filling its body with fill; elsewhere it is
// yielded as it is.
func (s *stripReader) jpegFit(seg []byte, n int, fill byte) []byte {
	if !s.jpegPreserving() || len(seg) >= n {
		return seg
	}
	seg = append(seg, bytes.Repeat([]byte{fill}, n-len(seg))...)
	binary.BigEndian.PutUint16(seg[2:], uint16(n-2))
	return seg
}

// jpegSeg0 is a segment's marker and length for a body of n bytes.
func jpegSeg0(marker byte, n int) []byte {
	return []byte{0xFF, marker, byte((n + 2) >> 8), byte(n + 2)}
}

// jfifHeader is an APP0 JFIF segment with the version, units and density
// of body and no thumbnail.
func jfifHeader(body []byte) []byte {
	seg := append(jpegSeg0(jpegAPP0, 14), body[:12]...)
	return append(seg, 0, 0) // thumbnail 0×0
}

// jpegScan passes a scan's entropy-coded data up to the marker after it.
func jpegScan(s *stripReader) {
	b, err := s.src.Peek(s.src.Size())
	if len(b) == 0 {
		s.jpegGiveUp()
		return
	}
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], 0xFF)
		if k < 0 {
			s.pass, s.next = int64(len(b)), jpegScan
			return
		}
		i += k
		if i+1 == len(b) {
			// An FF at the end of a full buffer is looked at again with
			// the byte after it; one at the end of the stream passes.
			if err != nil {
				i++
			}
			s.pass, s.next = int64(i), jpegScan
			return
		}
		if m := b[i+1]; m == 0x00 || m >= 0xD0 && m <= 0xD7 {
			i += 2
			continue
		}
		if i == 0 {
			jpegSegment(s)
			return
		}
		s.pass, s.next = int64(i), jpegSegment
		return
	}
}

// jpegAfterPicture goes on after a picture's EOI: with the next picture
// the MPF segment lists (the bytes between the two blanked, so that the
// offsets hold), or with a JPEG that follows at once when there is no MPF
// segment. Anything else after the pictures is not kept.
func jpegAfterPicture(s *stripReader) {
	j := &s.jpeg
	j.scanned = false
	switch {
	case j.last:
		s.dropRest()
	case j.more:
		if len(j.starts) == 0 || j.starts[0] < s.in {
			s.dropRest()
			return
		}
		s.zero = j.starts[0] - s.in
		j.starts = j.starts[1:]
		s.next = jpegPicture
	default:
		jpegPicture(s)
	}
}

// jpegPicture starts a picture after the first.
func jpegPicture(s *stripReader) {
	b, ok := s.peek(2)
	if !ok || b[0] != 0xFF || b[1] != 0xD8 {
		s.dropRest()
		return
	}
	s.jpeg.secondary = true
	s.pass, s.next = 2, jpegSegment
}

// mpfEntry is one picture of an MPF index: its type and flags, size,
// offset from the MPF TIFF header (0 for the first picture) and the
// pictures it depends on.
type mpfEntry struct {
	attr, size, offset uint32
	dep1, dep2         uint16
}

// parseMPF reads the MP index IFD of an MPF segment's TIFF structure t;
// ok only when it lists the first picture at offset 0 and the others in
// order without overlap, as the stripper needs to follow them.
func parseMPF(t []byte) ([]mpfEntry, bool) {
	bo, ifd, ok := tiffHeader(t)
	if !ok || ifd+2 > len(t) {
		return nil, false
	}
	n := int(bo.Uint16(t[ifd:]))
	var count int
	var list []byte
	var version bool
	for k := range n {
		e := ifd + 2 + 12*k
		if e+12 > len(t) {
			return nil, false
		}
		switch bo.Uint16(t[e:]) {
		case 0xB000:
			version = true
		case 0xB001:
			count = int(bo.Uint32(t[e+8:]))
		case 0xB002:
			off, size := int(bo.Uint32(t[e+8:])), int(bo.Uint32(t[e+4:]))
			if off < 0 || size < 0 || off+size > len(t) || off+size < off {
				return nil, false
			}
			list = t[off : off+size]
		}
	}
	if !version || count < 1 || count > 64 || len(list) != 16*count {
		return nil, false
	}
	entries := make([]mpfEntry, count)
	for k := range entries {
		r := list[16*k:]
		entries[k] = mpfEntry{bo.Uint32(r), bo.Uint32(r[4:]), bo.Uint32(r[8:]), bo.Uint16(r[12:]), bo.Uint16(r[14:])}
		if k == 0 && entries[k].offset != 0 ||
			k > 0 && (entries[k].offset == 0 || entries[k].size == 0) ||
			k > 1 && uint64(entries[k-1].offset)+uint64(entries[k-1].size) > uint64(entries[k].offset) {
			return nil, false
		}
	}
	return entries, true
}

// tiffOrder is a TIFF structure's byte order, for reading and writing.
type tiffOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// tiffHeader reads a TIFF header's byte order and first IFD offset.
func tiffHeader(t []byte) (tiffOrder, int, bool) {
	if len(t) < 8 {
		return nil, 0, false
	}
	var bo tiffOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return nil, 0, false
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off > len(t) {
		return nil, 0, false
	}
	return bo, off, true
}

// jpegRewriteMPF is the held MPF segment made true for the output: the
// first picture's size less what was left out of it, the later pictures'
// offsets less what was left out between the MPF segment and them, and
// nothing but the index (no picture UIDs, no attribute IFDs). Pictures are
// kept up to the first preview (an MPF large thumbnail, a smaller copy of
// the picture that editing may not have updated); nil when none is left
// after the first.
func (s *stripReader) jpegRewriteMPF() []byte {
	j := &s.jpeg
	t := j.mpf[4+len(mpfID):]
	entries, _ := parseMPF(t)
	bo, _, _ := tiffHeader(t)
	keep := 1
	for keep < len(entries) && entries[keep].attr&0x00FF0000 != 0x00010000 {
		keep++
	}
	if keep == 1 {
		return nil
	}
	entries = entries[:keep]
	// The TIFF header, an IFD of version, count and entry list, no next
	// IFD, then the list.
	const ifdLen = 2 + 3*12 + 4
	body := len(mpfID) + 8 + ifdLen + 16*keep
	if 4+body > len(j.mpf) { // an index squeezed into less room: not made larger
		return nil
	}
	out := append(jpegSeg0(jpegAPP2, body), mpfID...)
	if bo == binary.LittleEndian {
		out = append(out, "II*\x00"...)
	} else {
		out = append(out, "MM\x00*"...)
	}
	out = bo.AppendUint32(out, 8)
	out = bo.AppendUint16(out, 3)
	field := func(tag, typ uint16, count uint32, value []byte) {
		out = bo.AppendUint16(out, tag)
		out = bo.AppendUint16(out, typ)
		out = bo.AppendUint32(out, count)
		out = append(out, value...)
	}
	field(0xB000, 7, 4, []byte("0100"))
	field(0xB001, 4, 1, bo.AppendUint32(nil, uint32(keep)))
	field(0xB002, 7, uint32(16*keep), bo.AppendUint32(nil, 8+ifdLen))
	out = bo.AppendUint32(out, 0)
	shrink := int64(len(j.mpf) - 4 - body)
	after := j.removed - j.atMPF + shrink
	j.removed += shrink
	j.more = true
	for k, e := range entries {
		size, offset := int64(e.size), int64(e.offset)
		if k == 0 {
			size -= j.removed
		} else {
			j.starts = append(j.starts, j.mpfIn+offset)
			offset -= after
		}
		if size <= 0 || size > 1<<32-1 || k > 0 && offset <= 0 {
			return nil
		}
		for _, d := range []*uint16{&e.dep1, &e.dep2} {
			if int(*d) > keep {
				*d = 0
			}
		}
		out = bo.AppendUint32(out, e.attr)
		out = bo.AppendUint32(out, uint32(size))
		out = bo.AppendUint32(out, uint32(offset))
		out = bo.AppendUint16(out, e.dep1)
		out = bo.AppendUint16(out, e.dep2)
	}
	return out
}

// orientationExif is an APP1 Exif segment holding nothing but the
// Orientation tag (0x0112) in IFD0.
func orientationExif(o int) []byte {
	seg := append([]byte{0xFF, jpegAPP1, 0, 0}, exifID...)
	seg = append(seg, orientationTIFF(o)...)
	binary.BigEndian.PutUint16(seg[2:], uint16(len(seg)-2))
	return seg
}

// orientationTIFF is a TIFF structure with the Orientation tag alone.
func orientationTIFF(o int) []byte {
	t := []byte("MM\x00\x2a\x00\x00\x00\x08") // big-endian TIFF, IFD0 at 8
	t = append(t, 0, 1)                       // one entry
	t = binary.BigEndian.AppendUint16(t, 0x0112)
	t = binary.BigEndian.AppendUint16(t, 3) // SHORT
	t = binary.BigEndian.AppendUint32(t, 1)
	t = binary.BigEndian.AppendUint16(t, uint16(o))
	t = append(t, 0, 0)          // value padding
	return append(t, 0, 0, 0, 0) // no next IFD
}
