package imagemeta

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// ISO BMFF files (HEIC, HEIF, AVIF, MP4, MOV, 3GP: the first box is ftyp)
// are stripped by blanking in place, never by removing
// (docs/filehost.md#heif-and-mp4): a box that goes becomes a free box of
// the same size with a zeroed payload, and the bytes of an Exif or XMP
// item become zeros. Every offset in the file (chunk offsets in stco and
// co64, item locations in iloc) stays right whatever the boxes' order, the
// output has exactly the input's length, and the walk streams: it holds
// one box header at a time, and reads whole only a picture's meta box and
// a movie's small header boxes.

// bmffMaxMeta bounds the one box the walk reads whole, a picture's meta
// box: a few kilobytes in real files, and above this the file is refused
// rather than stored with its metadata.
const bmffMaxMeta = 16 << 20

// ErrUnstrippable: a picture's metadata lies where the one pass cannot
// blank it (docs/filehost.md#heif-and-mp4), so the stripper fails rather
// than yield it; the error wrapping it says where, and that re-saving the
// picture helps. Unstripped, the file is fine to store as sent.
var ErrUnstrippable = errors.New("the picture's metadata cannot be removed")

// errBMFFUnstrippable refuses a picture whose metadata the one pass cannot
// blank.
func errBMFFUnstrippable(why string) error {
	return fmt.Errorf("%w (%s); re-save the picture and upload it again", ErrUnstrippable, why)
}

// bmffSpan is a range of file offsets, end exclusive.
type bmffSpan struct{ start, end int64 }

// bmffStripper is the walk's state: the file offset of the stripper's
// position, the containers it is inside, and the Exif and XMP item bytes
// still ahead that are to be zeroed wherever they lie.
type bmffStripper struct {
	pos     int64
	parents []bmffParent
	zeros   []bmffSpan // sorted, disjoint
}

type bmffParent struct {
	typ string
	end int64
}

// isBMFF: the first box is a file type box, or one a QuickTime movie
// from before ftyp starts with (moov, mdat, or wide before mdat).
func isBMFF(head []byte) bool {
	return len(head) >= 12 && (string(head[4:8]) == "ftyp" && binary.BigEndian.Uint32(head) >= 8 || isOldQuickTime(head))
}

// isOldQuickTime: a QuickTime movie without ftyp. The size must be binary
// (its first byte below any printable character) as well as large enough,
// so that text starting with four letters and "moov" is not taken for one.
func isOldQuickTime(head []byte) bool {
	if len(head) < 12 || head[0] >= 0x20 {
		return false
	}
	switch size := binary.BigEndian.Uint32(head); string(head[4:8]) {
	case "moov", "mdat":
		return size >= 8 || size == 1
	case "wide":
		return size == 8
	}
	return false
}

func bmffStart(s *stripReader) {
	b := &bmffStripper{}
	b.box(s)
}

// What the walk does with a box.
const (
	bmffBlank   = iota // a free box of the same size, payload zeroed
	bmffKeep           // passes whole (but for item bytes to zero)
	bmffDescend        // its children are walked
	bmffItems          // a picture's meta box: read whole, its metadata items zeroed
	bmffTimes          // a movie, track or media header: its creation and modification times zeroed
)

// bmffAction is the allowlist: what a box of this type does inside a
// parent of that type ("" is the top level). Everything not named here
// is blanked; the containers a movie's metadata lives in (moov, trak,
// mdia, udta) are walked, the rest a player needs passes whole.
func bmffAction(parent, typ string) int {
	if typ == "free" || typ == "skip" || typ == "wide" {
		return bmffKeep
	}
	switch parent {
	case "":
		switch typ {
		case "ftyp", "styp", "mdat", "moof", "mfra", "sidx", "ssix", "prft", "emsg", "pdin":
			return bmffKeep
		case "moov":
			return bmffDescend
		case "meta":
			return bmffItems
		}
	case "moov":
		switch typ {
		case "mvhd":
			return bmffTimes
		case "mvex", "iods", "pssh", "cmov", "clip", "ctab":
			return bmffKeep
		case "trak", "udta":
			return bmffDescend
		}
	case "trak":
		switch typ {
		case "tkhd":
			return bmffTimes
		case "tref", "trgr", "edts", "tapt", "load", "imap", "matt", "txas", "clip":
			return bmffKeep
		case "mdia", "udta":
			return bmffDescend
		}
	case "mdia":
		switch typ {
		case "mdhd":
			return bmffTimes
		case "hdlr", "minf", "elng":
			return bmffKeep
		case "udta":
			return bmffDescend
		}
	case "udta":
		// Track selection, kind and hint information steer players and
		// streaming servers; nothing else in udta does.
		switch typ {
		case "tsel", "kind", "strk", "hnti", "hinf":
			return bmffKeep
		}
	}
	return bmffBlank
}

// box handles the box at the stripper's position.
func (b *bmffStripper) box(s *stripReader) {
	for len(b.parents) > 0 && b.pos >= b.parents[len(b.parents)-1].end {
		b.parents = b.parents[:len(b.parents)-1]
	}
	parent, limit := "", int64(math.MaxInt64)
	if n := len(b.parents); n > 0 {
		parent, limit = b.parents[n-1].typ, b.parents[n-1].end
	}
	if limit-b.pos < 8 { // a few bytes closing a container, such as udta's zero terminator
		b.copyTo(limit)(s)
		return
	}
	h, ok := s.peek(8)
	if !ok {
		b.copyTo(math.MaxInt64)(s)
		return
	}
	size, hdr, toEnd := int64(binary.BigEndian.Uint32(h)), 8, false
	switch size {
	case 1:
		if h, ok = s.peek(16); !ok {
			b.copyTo(math.MaxInt64)(s)
			return
		}
		size, hdr = int64(binary.BigEndian.Uint64(h[8:])), 16
	case 0: // to the end of the file, or of the parent
		size = limit - b.pos
		toEnd = limit == math.MaxInt64
	}
	if size < int64(hdr) || size > limit-b.pos {
		b.broken(s, limit)
		return
	}
	if b.overlapsItems(b.pos, b.pos+int64(hdr)) { // item data over a box header: not a layout to walk
		b.broken(s, limit)
		return
	}
	typ := string(h[4:8])
	switch bmffAction(parent, typ) {
	case bmffKeep:
		b.copyTo(b.pos + size)(s)
	case bmffDescend:
		b.parents = append(b.parents, bmffParent{typ, b.pos + size})
		b.copyTo(b.pos + int64(hdr))(s)
	case bmffItems:
		b.meta(s, hdr, size, toEnd)
	case bmffTimes:
		b.times(s, hdr, size)
	default:
		b.blank(s, h[:hdr], size)
	}
}

// times zeroes the creation and modification times of a movie, track or
// media header (when the recording was made; players read neither): 32
// bits each after the version and flags, 64 in version 1. A header too
// short for them, or larger than any real one, passes as it is.
func (b *bmffStripper) times(s *stripReader, hdr int, size int64) {
	if size > 512 {
		b.copyTo(b.pos + size)(s)
		return
	}
	box, ok := b.read(s, size, false)
	if !ok {
		return
	}
	n := 8
	if len(box) > hdr && box[hdr] == 1 {
		n = 16
	}
	if len(box) >= hdr+4+n {
		clear(box[hdr+4 : hdr+4+n])
	}
}

// broken handles a box whose size does not fit: at the top level the rest
// passes as it is (but for item bytes to zero), as with every format that
// stops parsing; inside a container, whose contents are metadata or
// described by the allowlist, the rest of the container becomes one free
// box (a few bytes too short for a header become zeros).
func (b *bmffStripper) broken(s *stripReader, limit int64) {
	if limit == math.MaxInt64 {
		b.copyTo(limit)(s)
		return
	}
	rest := limit - b.pos // box saw eight bytes or more
	hdr := binary.BigEndian.AppendUint32(nil, uint32(min(rest, math.MaxUint32)))
	if rest > math.MaxUint32 {
		clear(hdr) // to the container's end
	}
	b.blank(s, append(hdr, "free"...), rest)
}

// blank turns the box into a free box of the same size: hdr, its header,
// is the one it had, or the one it gets.
func (b *bmffStripper) blank(s *stripReader, hdr []byte, size int64) {
	free := slices.Clone(hdr)
	copy(free[4:8], "free")
	b.clearItems(free, b.pos)
	s.replace(len(hdr), free)
	s.zero, s.next = size-int64(len(hdr)), b.box
	b.pos += size
}

// copyTo returns the step that passes the bytes up to end, zeroing those
// of metadata items, and then walks on.
func (b *bmffStripper) copyTo(end int64) stripStep {
	var step stripStep
	step = func(s *stripReader) {
		if b.pos >= end {
			s.next = b.box
			return
		}
		for len(b.zeros) > 0 && b.zeros[0].end <= b.pos {
			b.zeros = b.zeros[1:]
		}
		n := end - b.pos
		switch {
		case len(b.zeros) > 0 && b.zeros[0].start <= b.pos:
			n = min(n, b.zeros[0].end-b.pos)
			s.zero = n
		case len(b.zeros) > 0:
			n = min(n, b.zeros[0].start-b.pos)
			s.pass = n
		default:
			s.pass = n
		}
		b.pos += n
		s.next = step
	}
	return step
}

// meta reads a top-level meta box whole. A picture's (handler pict) has
// its Exif and XMP items zeroed: those inside the box at once, those after
// it as the stream reaches them. Any other top-level meta box is blanked.
func (b *bmffStripper) meta(s *stripReader, hdr int, size int64, toEnd bool) {
	if size > bmffMaxMeta && !toEnd {
		failStrip(s, errBMFFUnstrippable("its meta box is larger than 16 MiB"))
		return
	}
	if b.overlapsItems(b.pos, b.pos+size) {
		failStrip(s, errBMFFUnstrippable("an Exif or XMP item overlaps a later meta box"))
		return
	}
	start := b.pos
	box, ok := b.read(s, size, toEnd)
	if !ok {
		return
	}
	if bmffHandler(box[hdr:]) != "pict" {
		copy(box[4:8], "free")
		clear(box[hdr:])
		return
	}
	items, err := bmffMetadataItems(box, hdr, start)
	if err == errBMFFUnparsed {
		return // items that do not parse: the picture is kept as it is
	}
	if err != nil {
		failStrip(s, err)
		return
	}
	bmffBlankProperties(box[hdr:])
	for _, sp := range items {
		if sp.start < b.pos {
			clear(box[sp.start-start : min(sp.end, b.pos)-start])
		}
		if sp.end > b.pos {
			b.zeros = append(b.zeros, bmffSpan{max(sp.start, b.pos), sp.end})
		}
	}
	b.zeros = mergeSpans(b.zeros)
}

// read consumes the box at the stripper's position, size bytes, or all
// that is left when the box runs to the end of the file (toEnd), and
// yields it after the caller has changed it in place. A box cut short is
// yielded as it came, and the walk ends; ok is false then.
func (b *bmffStripper) read(s *stripReader, size int64, toEnd bool) (box []byte, ok bool) {
	if toEnd {
		size = bmffMaxMeta + 1
	}
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, s.src, size)
	s.pending = buf.Bytes()
	b.pos += n
	switch {
	case toEnd && err == nil:
		failStrip(s, errBMFFUnstrippable("its meta box is larger than 16 MiB"))
		return nil, false
	case toEnd && err == io.EOF && n >= 8: // the box is the rest of the file
	case err == io.EOF:
		b.copyTo(math.MaxInt64)(s)
		return nil, false
	case err != nil:
		failStrip(s, err)
		return nil, false
	}
	b.clearItems(s.pending, b.pos-n)
	s.next = b.box
	return s.pending, true
}

// bmffBlankProperties turns the item properties that tell of the
// picture's making rather than its pixels into free boxes, in a meta box's
// payload: udes (a user's name, description and tags), crtt and mdft
// (creation and modification times). Their places in ipco stay, so the
// property indices in ipma still point where they did.
func bmffBlankProperties(payload []byte) {
	var within func(b []byte, path ...string)
	within = func(b []byte, path ...string) {
		bmffChildren(b, func(typ string, start, hdr, end int) {
			switch {
			case len(path) > 0 && typ == path[0]:
				within(b[start+hdr:end], path[1:]...)
			case len(path) == 0 && (typ == "udes" || typ == "crtt" || typ == "mdft"):
				copy(b[start+4:], "free")
				clear(b[start+hdr : end])
			}
		})
	}
	within(metaChildren(payload), "iprp", "ipco")
}

// overlapsItems reports whether item bytes still to zero lie in [start, end).
func (b *bmffStripper) overlapsItems(start, end int64) bool {
	return slices.ContainsFunc(b.zeros, func(sp bmffSpan) bool { return sp.start < end && sp.end > start })
}

// clearItems zeroes the metadata item bytes in buf, the file's bytes from
// offset at: item data is zeros in the output wherever it lies, even
// across a box header.
func (b *bmffStripper) clearItems(buf []byte, at int64) {
	end := at + int64(len(buf))
	for _, sp := range b.zeros {
		if sp.start < end && sp.end > at {
			clear(buf[max(sp.start, at)-at : min(sp.end, end)-at])
		}
	}
}

// failStrip makes the stripper return err once the bytes it has yielded
// so far are read.
func failStrip(s *stripReader, err error) {
	s.src = bufio.NewReaderSize(failedSource{err}, 16)
	s.pass, s.next = passRest, nil
}

type failedSource struct{ err error }

func (f failedSource) Read([]byte) (int, error) { return 0, f.err }

func mergeSpans(spans []bmffSpan) []bmffSpan {
	slices.SortFunc(spans, func(a, b bmffSpan) int { return cmp.Compare(a.start, b.start) })
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// bmffChildren calls visit with each whole box in b: its type, its start,
// the length of its header and its end. It reports false when a box does
// not fit.
func bmffChildren(b []byte, visit func(typ string, start, hdr, end int)) bool {
	for i := 0; i < len(b); {
		if len(b)-i < 8 {
			return false
		}
		size, hdr := uint64(binary.BigEndian.Uint32(b[i:])), 8
		switch size {
		case 1:
			if len(b)-i < 16 {
				return false
			}
			size, hdr = binary.BigEndian.Uint64(b[i+8:]), 16
		case 0:
			size = uint64(len(b) - i)
		}
		if size < uint64(hdr) || size > uint64(len(b)-i) {
			return false
		}
		visit(string(b[i+4:i+8]), i, hdr, i+int(size))
		i += int(size)
	}
	return true
}

// metaChildren is the payload of a meta box without its version and
// flags; QuickTime's meta box has none.
func metaChildren(payload []byte) []byte {
	if len(payload) >= 8 && string(payload[4:8]) == "hdlr" {
		return payload
	}
	if len(payload) < 4 {
		return nil
	}
	return payload[4:]
}

// bmffHandler is the handler type of a meta box's payload.
func bmffHandler(payload []byte) string {
	kids := metaChildren(payload)
	handler := ""
	bmffChildren(kids, func(typ string, start, hdr, end int) {
		if typ == "hdlr" && handler == "" && end-start >= hdr+12 {
			handler = string(kids[start+hdr+8 : start+hdr+12])
		}
	})
	return handler
}

// errBMFFUnparsed: a picture's item boxes do not parse.
var errBMFFUnparsed = errors.New("the item boxes do not parse")

// bmffMetadataItems lists the file ranges of a picture's metadata items:
// Exif, mime (XMP and any other typed text) and uri items. box is the
// meta box, hdr the length of its header, at its file offset. The error
// is errBMFFUnparsed when iinf or iloc does not parse; errBMFFUnstrippable
// when an item's data lies where one pass cannot zero it alone: before the
// box, in another item, or over the box's own structure (inside it, item
// data belongs in idat).
func bmffMetadataItems(box []byte, hdr int, at int64) ([]bmffSpan, error) {
	spans, idat, err := bmffItemData(box[hdr:], at+int64(hdr))
	if err != nil {
		return nil, err
	}
	end := at + int64(len(box))
	for _, sp := range spans {
		switch {
		case sp.start < at:
			return nil, errBMFFUnstrippable("an Exif or XMP item lies before the meta box")
		case sp.start < end && (sp.start < idat.start || min(sp.end, end) > idat.end):
			return nil, errBMFFUnstrippable("an Exif or XMP item overlaps the meta box's structure")
		}
	}
	return spans, nil
}

// bmffItemData reads a meta box's payload, at file offset at: the ranges
// of its metadata items, and where its idat box's payload lies.
func bmffItemData(payload []byte, at int64) ([]bmffSpan, bmffSpan, error) {
	kids := metaChildren(payload)
	at += int64(len(payload) - len(kids))
	var iinf, iloc []byte
	idat := bmffSpan{-1, -1}
	if !bmffChildren(kids, func(typ string, start, hdr, end int) {
		switch typ {
		case "iinf":
			iinf = kids[start+hdr : end]
		case "iloc":
			iloc = kids[start+hdr : end]
		case "idat":
			idat = bmffSpan{at + int64(start+hdr), at + int64(end)}
		}
	}) {
		return nil, idat, errBMFFUnparsed
	}
	if iinf == nil {
		return nil, idat, nil
	}
	meta, ok := bmffMetadataIDs(iinf)
	if !ok {
		return nil, idat, errBMFFUnparsed
	}
	if len(meta) == 0 {
		return nil, idat, nil
	}
	spans, err := bmffItemSpans(iloc, meta, idat)
	return spans, idat, err
}

// bmffMetadataIDs reads an iinf box's payload: the ids of its metadata items.
func bmffMetadataIDs(iinf []byte) (map[uint32]bool, bool) {
	r := &byteReader{b: iinf}
	if r.u8() == 0 {
		r.n(3)
		r.u16()
	} else {
		r.n(3)
		r.u32()
	}
	if r.bad {
		return nil, false
	}
	ids := map[uint32]bool{}
	ok := bmffChildren(r.b, func(typ string, start, hdr, end int) {
		if typ != "infe" {
			return
		}
		e := &byteReader{b: r.b[start+hdr : end]}
		v := e.u8()
		e.n(3)
		var id uint32
		if v == 3 {
			id = e.u32()
		} else {
			id = uint32(e.u16())
		}
		e.u16() // protection index
		itemType := "mime"
		if v >= 2 {
			itemType = string(e.n(4))
		}
		e.str() // name
		contentType := ""
		if itemType == "mime" {
			contentType = e.str()
		}
		if e.bad {
			return
		}
		if itemType == "Exif" || itemType == "uri " || itemType == "mime" && (v >= 2 || isXMPType(contentType)) {
			ids[id] = true
		}
	})
	return ids, ok
}

func isXMPType(t string) bool {
	t = strings.ToLower(strings.TrimSpace(t))
	return t == "application/rdf+xml" || t == "application/xmp+xml"
}

// bmffItemSpans reads an iloc box's payload: the file ranges of the items
// in ids. Data in another file (a data reference) is not in this one.
func bmffItemSpans(iloc []byte, ids map[uint32]bool, idat bmffSpan) ([]bmffSpan, error) {
	r := &byteReader{b: iloc}
	v := r.u8()
	r.n(3)
	sizes := r.u8()
	offsetSize, lengthSize := int(sizes>>4), int(sizes&15)
	sizes = r.u8()
	baseSize, indexSize := int(sizes>>4), int(sizes&15)
	if v > 2 || r.bad {
		return nil, errBMFFUnparsed
	}
	if v == 0 {
		indexSize = 0
	}
	for _, n := range []int{offsetSize, lengthSize, baseSize, indexSize} {
		if n != 0 && n != 4 && n != 8 {
			return nil, errBMFFUnparsed
		}
	}
	var count uint32
	if v == 2 {
		count = r.u32()
	} else {
		count = uint32(r.u16())
	}
	var spans []bmffSpan
	for range min(count, uint32(len(iloc))) {
		var id uint32
		if v == 2 {
			id = r.u32()
		} else {
			id = uint32(r.u16())
		}
		method := 0
		if v > 0 {
			method = int(r.u16() & 15)
		}
		ref := r.u16()
		base := r.uint(baseSize)
		extents := r.u16()
		for range extents {
			r.uint(indexSize)
			off, length := r.uint(offsetSize), r.uint(lengthSize)
			if r.bad {
				return nil, errBMFFUnparsed
			}
			if !ids[id] || ref != 0 {
				continue
			}
			if base > math.MaxInt64/4 || off > math.MaxInt64/4 {
				return nil, errBMFFUnparsed
			}
			start, end := int64(0), int64(math.MaxInt64)
			switch method {
			case 0:
				start = int64(base + off)
			case 1:
				if idat.start < 0 {
					return nil, errBMFFUnparsed
				}
				start, end = idat.start+int64(base+off), idat.end
			default:
				return nil, errBMFFUnstrippable("an Exif or XMP item's data lies in another item")
			}
			if length != 0 && length < uint64(end-start) {
				end = start + int64(length)
			}
			if start < end {
				spans = append(spans, bmffSpan{start, end})
			}
		}
		if r.bad {
			return nil, errBMFFUnparsed
		}
	}
	return spans, nil
}

// byteReader reads big-endian fields; past the end it yields zeros and
// sets bad.
type byteReader struct {
	b   []byte
	bad bool
}

func (r *byteReader) n(n int) []byte {
	if n > len(r.b) {
		r.bad, r.b = true, nil
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *byteReader) u8() byte    { return r.n(1)[0] }
func (r *byteReader) u16() uint16 { return binary.BigEndian.Uint16(r.n(2)) }
func (r *byteReader) u32() uint32 { return binary.BigEndian.Uint32(r.n(4)) }
func (r *byteReader) str() string {
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		r.bad = true
		return ""
	}
	s := string(r.b[:i])
	r.b = r.b[i+1:]
	return s
}

// uint reads an unsigned field of 0, 4 or 8 bytes.
func (r *byteReader) uint(size int) uint64 {
	switch size {
	case 4:
		return uint64(r.u32())
	case 8:
		return binary.BigEndian.Uint64(r.n(8))
	}
	return 0
}
