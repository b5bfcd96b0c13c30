package imagemetatest

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// ISO BMFF files with metadata, made here box by box in the shapes phones
// write: an iPhone's HEIC (ftyp, meta, then mdat holding the coded image,
// the Exif and the XMP), an AVIF keeping its Exif in idat, an MP4 with its
// moov after mdat and a MOV with it before. Every identifying value is
// one of BMFFSecrets, so a search for them proves them gone.

// BMFFSecrets are the identifying values the made files hold.
func BMFFSecrets() []string {
	return []string{"37.7749", "122.4194", "iPhone 15 Pro", "Apple", "SN-SECRET", "OWNER-SECRET", "2026:05:04"}
}

// BMFFBox is a box: its size, its type and the parts of its payload.
func BMFFBox(typ string, parts ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = append(b, typ...)
	for _, p := range parts {
		b = append(b, p...)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	return b
}

// BMFFFullBox is a full box: a box whose payload starts with a version and
// flags.
func BMFFFullBox(typ string, version byte, flags uint32, parts ...[]byte) []byte {
	vf := binary.BigEndian.AppendUint32(nil, flags)
	vf[0] = version
	return BMFFBox(typ, append([][]byte{vf}, parts...)...)
}

// U16 is a 16-bit field of a box, big-endian.
func U16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

// U32 is a 32-bit field of a box, big-endian.
func U32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// CString is a string field of a box, ended by a zero byte.
func CString(s string) []byte { return append([]byte(s), 0) }

// Payload stands for coded pictures or samples: no zero byte, so
// a zeroed range in them shows.
func Payload(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)*7 + seed | 1
	}
	return b
}

// phoneTIFF is the Exif a phone writes: make, model and software in IFD0,
// the time and the body's serial number in the Exif IFD, and a GPS IFD
// (laid out by tiffBytes, which the camera-shaped JPEGs use too).
func phoneTIFF() []byte {
	return tiffBytes([]tiffEntry{
		tiffASCII(0x010F, "Apple"),
		tiffASCII(0x0110, "iPhone 15 Pro"),
		tiffShort(0x0112, 6),
		tiffASCII(0x0131, "Apple 17.1"),
		{tag: 0x8769, typ: 4, count: 1, sub: []tiffEntry{
			tiffASCII(0x9003, "2026:05:04 10:11:12"),
			tiffASCII(0xA431, "SN-SECRET-0042"),
		}},
		{tag: 0x8825, typ: 4, count: 1, sub: []tiffEntry{
			tiffASCII(0x0001, "N"),
			tiffRationals(0x0002, 37, 1, 46, 1, 2964, 100), // 37.7749
			tiffASCII(0x0003, "W"),
			tiffRationals(0x0004, 122, 1, 25, 1, 984, 100), // 122.4194
		}},
	}, nil)
}

// HEIFExif is an Exif item's data: the offset of the TIFF header after
// the "Exif\0\0" that Apple writes before it.
func HEIFExif() []byte {
	return append(append(U32(6), "Exif\x00\x00"...), phoneTIFF()...)
}

// PhoneXMP is the XMP a phone writes: where, on what and when.
const PhoneXMP = `<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>` +
	`<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>` +
	`<rdf:Description rdf:about='' xmlns:exif='http://ns.adobe.com/exif/1.0/' xmlns:tiff='http://ns.adobe.com/tiff/1.0/'` +
	` xmlns:xmp='http://ns.adobe.com/xap/1.0/' exif:GPSLatitude='37,46.494N' exif:GPSLongitude='122,25.164W'` +
	` tiff:Make='Apple' tiff:Model='iPhone 15 Pro' xmp:CreatorTool='Apple 17.1' xmp:CreateDate='2026:05:04'/>` +
	`</rdf:RDF></x:xmpmeta><?xpacket end='w'?>`

// BMFFFile is a made file and what stripping must do to it: the ranges
// that become zeros, and the boxes (by offset) that become free boxes.
type BMFFFile struct {
	Data   []byte
	Zeroed []Span
	Freed  []int
	Coded  Span // the coded picture or the samples, which must stay
}

// Span is a range of file offsets, end exclusive.
type Span struct{ Start, End int64 }

// Want is the file as the stripper must yield it.
func (f BMFFFile) Want() []byte {
	out := slices.Clone(f.Data)
	for _, at := range f.Freed {
		size := int(binary.BigEndian.Uint32(out[at:]))
		copy(out[at+4:], "free")
		clear(out[at+8 : at+size])
	}
	for _, sp := range f.Zeroed {
		clear(out[sp.Start:sp.End])
	}
	return out
}

// HEIFItem is one item of a made HEIF picture: its type, its data, and
// whether the data goes in idat rather than mdat.
type HEIFItem struct {
	Type, ContentType string
	Data              []byte
	InIdat            bool
}

// HEIFFile lays out ftyp, meta (hdlr, pitm, iinf, iref, iprp, iloc and
// idat when an item uses it), then mdat, with item 1 the coded picture
// and the others its metadata. Among the properties are a user
// description (udes) and a creation time (crtt).
func HEIFFile(brands []string, config []byte, items []HEIFItem, withMdatFirst bool) BMFFFile {
	ftyp := []byte{}
	ftyp = append(ftyp, brands[0]...)
	ftyp = append(ftyp, 0, 0, 0, 0)
	for _, b := range brands[1:] {
		ftyp = append(ftyp, b...)
	}
	ftypBox := BMFFBox("ftyp", ftyp)

	var infes, idat, mdat []byte
	type loc struct {
		method     uint16
		off, size  uint32
		inIdat     bool
		isMetadata bool
	}
	var locs []loc
	for i, it := range items {
		var infe []byte
		name := CString("")
		if it.Type == "mime" {
			infe = BMFFFullBox("infe", 2, 0, U16(uint16(i+1)), U16(0), []byte(it.Type), name, CString(it.ContentType))
		} else {
			infe = BMFFFullBox("infe", 2, 0, U16(uint16(i+1)), U16(0), []byte(it.Type), name)
		}
		infes = append(infes, infe...)
		if it.InIdat {
			locs = append(locs, loc{1, uint32(len(idat)), uint32(len(it.Data)), true, i > 0})
			idat = append(idat, it.Data...)
		} else {
			locs = append(locs, loc{0, uint32(len(mdat)), uint32(len(it.Data)), false, i > 0})
			mdat = append(mdat, it.Data...)
		}
	}
	meta := func(mdatAt uint32) []byte {
		iloc := append([]byte{0x44, 0x00}, U16(uint16(len(locs)))...)
		for i, l := range locs {
			off := l.off
			if !l.inIdat {
				off += mdatAt
			}
			iloc = append(iloc, U16(uint16(i+1))...)
			iloc = append(iloc, U16(l.method)...)
			iloc = append(iloc, U16(0)...)
			iloc = append(iloc, U16(1)...)
			iloc = append(append(iloc, U32(off)...), U32(l.size)...)
		}
		var cdsc []byte
		for i := 2; i <= len(items); i++ {
			cdsc = append(cdsc, BMFFBox("cdsc", U16(uint16(i)), U16(1), U16(1))...)
		}
		ipco := BMFFBox("ipco",
			config,
			BMFFFullBox("ispe", 0, 0, U32(4032), U32(3024)),
			BMFFBox("colr", []byte("nclx"), U16(1), U16(13), U16(1), []byte{0x80}),
			BMFFBox("irot", []byte{1}),
			BMFFFullBox("udes", 0, 0, CString("en"), CString("OWNER-SECRET"), CString("at home"), CString("family")),
			BMFFFullBox("crtt", 0, 0, U32(0), U32(0xEB3F1A2C)),
		)
		parts := [][]byte{
			BMFFFullBox("hdlr", 0, 0, U32(0), []byte("pict"), make([]byte, 12), CString("")),
			BMFFFullBox("pitm", 0, 0, U16(1)),
			BMFFFullBox("iinf", 0, 0, U16(uint16(len(items))), infes),
			BMFFFullBox("iref", 0, 0, cdsc),
			BMFFBox("iprp", ipco, BMFFFullBox("ipma", 0, 0, U32(1), U16(1), []byte{4, 0x81, 0x02, 0x03, 0x84})),
			BMFFFullBox("iloc", 1, 0, iloc),
		}
		if idat != nil {
			parts = append(parts, BMFFBox("idat", idat))
		}
		return BMFFFullBox("meta", 0, 0, parts...)
	}
	mdatBox := BMFFBox("mdat", mdat)
	f := BMFFFile{}
	var mdatAt uint32
	if withMdatFirst {
		mdatAt = uint32(len(ftypBox)) + 8
		f.Data = slices.Concat(ftypBox, mdatBox, meta(mdatAt))
	} else {
		mdatAt = uint32(len(ftypBox)+len(meta(0))) + 8
		f.Data = slices.Concat(ftypBox, meta(mdatAt), mdatBox)
	}
	for _, typ := range []string{"udes", "crtt"} {
		f.Freed = append(f.Freed, bytes.Index(f.Data, []byte(typ))-4)
	}
	idatAt := int64(bytes.Index(f.Data, []byte("idat"))) + 4
	for _, l := range locs {
		at := int64(mdatAt) + int64(l.off)
		if l.inIdat {
			at = idatAt + int64(l.off)
		}
		sp := Span{at, at + int64(l.size)}
		if l.isMetadata {
			f.Zeroed = append(f.Zeroed, sp)
		} else {
			f.Coded = sp
		}
	}
	return f
}

// IPhoneHEIC is a HEIC as an iPhone saves it: Exif and XMP items after the
// coded picture in mdat.
func IPhoneHEIC() BMFFFile {
	return HEIFFile([]string{"heic", "mif1", "MiHE", "miaf", "MiHB", "heic"},
		BMFFBox("hvcC", []byte{1, 1, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 0x5A, 0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0}),
		[]HEIFItem{
			{Type: "hvc1", Data: Payload(600, 3)},
			{Type: "Exif", Data: HEIFExif()},
			{Type: "mime", ContentType: "application/rdf+xml", Data: []byte(PhoneXMP)},
		}, false)
}

// ExifBeforeMetaHEIC is a HEIC whose mdat, holding its Exif item, comes
// before meta: by the time iloc says where the Exif is, a stream has gone
// past it.
func ExifBeforeMetaHEIC() BMFFFile {
	return HEIFFile([]string{"heic", "mif1", "heic"}, BMFFBox("hvcC", make([]byte, 23)), []HEIFItem{
		{Type: "hvc1", Data: Payload(300, 1)},
		{Type: "Exif", Data: HEIFExif()},
	}, true)
}

// ExifInIdatAVIF is an AVIF whose Exif item lies in idat, inside meta.
func ExifInIdatAVIF() BMFFFile {
	return HEIFFile([]string{"avif", "avif", "mif1", "miaf", "MA1B"},
		BMFFBox("av1C", []byte{0x81, 0x00, 0x0C, 0x00}),
		[]HEIFItem{
			{Type: "av01", Data: Payload(500, 5)},
			{Type: "Exif", Data: HEIFExif(), InIdat: true},
			{Type: "mime", ContentType: "application/rdf+xml", Data: []byte(PhoneXMP)},
		}, false)
}

// qtString is a QuickTime user-data text: length, language, text.
func qtString(s string) []byte { return append(append(U16(uint16(len(s))), U16(0x15C7)...), s...) }

// PhoneMovie lays out an MP4 (moov last) or a MOV (moov first): one video
// track of one sample, and the metadata phones and cameras write in
// moov/udta (QuickTime ©xyz, ©mak, ©mod, ©swr, 3GPP loci, auth, XMP_),
// moov/meta (Apple's keys and ilst) and a top-level XMP uuid box, and
// the time of the recording in the movie, track and media headers.
func PhoneMovie(mov bool) BMFFFile {
	if mov {
		return movieFile(BMFFBox("ftyp", []byte("qt  "), U32(0), []byte("qt  ")), true)
	}
	return movieFile(BMFFBox("ftyp", []byte("isom"), U32(0x200), []byte("isomiso2avc1mp41")), false)
}

// OldQuickTime is a movie as QuickTime wrote them before ftyp: moov first.
func OldQuickTime() BMFFFile { return movieFile(nil, true) }

func movieFile(ftyp []byte, moovFirst bool) BMFFFile {
	samples := Payload(900, 9)
	const recorded = 0xEB3F1A2C // 2029, in seconds since 1904
	matrix := slices.Concat(U32(0x10000), U32(0), U32(0), U32(0), U32(0x10000), U32(0), U32(0), U32(0), U32(0x40000000))
	sampleEntry := BMFFBox("avc1", make([]byte, 6), U16(1), make([]byte, 16), U16(64), U16(48),
		U32(0x480000), U32(0x480000), U32(0), U16(1), make([]byte, 32), U16(24), U16(0xFFFF))
	moov := func(chunkAt uint32) []byte {
		stbl := BMFFBox("stbl",
			BMFFFullBox("stsd", 0, 0, U32(1), sampleEntry),
			BMFFFullBox("stts", 0, 0, U32(1), U32(1), U32(1000)),
			BMFFFullBox("stsc", 0, 0, U32(1), U32(1), U32(1), U32(1)),
			BMFFFullBox("stsz", 0, 0, U32(0), U32(1), U32(uint32(len(samples)))),
			BMFFFullBox("stco", 0, 0, U32(1), U32(chunkAt)),
		)
		trak := BMFFBox("trak",
			BMFFFullBox("tkhd", 0, 3, U32(recorded), U32(recorded), U32(1), U32(0), U32(1000), make([]byte, 8), U16(0), U16(0), U16(0), U16(0), matrix, U32(64<<16), U32(48<<16)),
			BMFFBox("mdia",
				BMFFFullBox("mdhd", 0, 0, U32(recorded), U32(recorded), U32(1000), U32(1000), U16(0x55C4), U16(0)),
				BMFFFullBox("hdlr", 0, 0, U32(0), []byte("vide"), make([]byte, 12), CString("VideoHandler")),
				BMFFBox("minf",
					BMFFFullBox("vmhd", 0, 1, make([]byte, 8)),
					BMFFBox("dinf", BMFFFullBox("dref", 0, 0, U32(1), BMFFFullBox("url ", 0, 1))),
					stbl,
				),
			),
			BMFFBox("udta", BMFFBox("\xa9xyz", qtString("+37.7749-122.4194/"))),
		)
		keys := []string{"com.apple.quicktime.location.ISO6709", "com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.creationdate"}
		values := []string{"+37.7749-122.4194+012.000/", "Apple", "iPhone 15 Pro", "2026-05-04T10:11:12+0200"}
		var keyBoxes, ilst []byte
		for i, k := range keys {
			keyBoxes = append(keyBoxes, BMFFBox("mdta", []byte(k))...)
			item := BMFFBox("data", U32(1), U32(0), []byte(values[i]))
			ilst = append(ilst, BMFFBox(string(U32(uint32(i+1))), item)...)
		}
		loci := BMFFFullBox("loci", 0, 0, U16(0x15C7), CString("OWNER-SECRET home"), []byte{0},
			U32(uint32(0x100000000-8022878)), U32(2475619), U32(0), CString("earth"), CString(""))
		return BMFFBox("moov",
			BMFFFullBox("mvhd", 0, 0, U32(recorded), U32(recorded), U32(1000), U32(1000), U32(0x10000), U16(0x100), make([]byte, 10), matrix, make([]byte, 24), U32(2)),
			trak,
			BMFFBox("udta",
				BMFFBox("\xa9xyz", qtString("+37.7749-122.4194/")),
				BMFFBox("\xa9mak", qtString("Apple")),
				BMFFBox("\xa9mod", qtString("iPhone 15 Pro")),
				BMFFBox("\xa9swr", qtString("Apple 17.1")),
				loci,
				BMFFFullBox("auth", 0, 0, U16(0x15C7), CString("OWNER-SECRET")),
				BMFFBox("XMP_", []byte(PhoneXMP)),
				U32(0), // QuickTime's terminator of a user-data list
			),
			BMFFBox("meta",
				BMFFFullBox("hdlr", 0, 0, U32(0), []byte("mdta"), make([]byte, 12), CString("")),
				BMFFFullBox("keys", 0, 0, U32(uint32(len(keys))), keyBoxes),
				BMFFBox("ilst", ilst),
			),
		)
	}
	xmpUUID := []byte{0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC}
	uuid := BMFFBox("uuid", xmpUUID, []byte(PhoneXMP))
	mdat := BMFFBox("mdat", samples)
	f := BMFFFile{}
	if moovFirst {
		m := moov(0)
		at := uint32(len(ftyp) + len(m) + 8)
		f.Data = slices.Concat(ftyp, moov(at), mdat, uuid)
		f.Coded = Span{int64(at), int64(at) + int64(len(samples))}
	} else {
		at := uint32(len(ftyp) + len(uuid) + 8)
		f.Data = slices.Concat(ftyp, uuid, mdat, moov(at))
		f.Coded = Span{int64(at), int64(at) + int64(len(samples))}
	}
	for _, typ := range []string{"uuid", "\xa9xyz", "\xa9mak", "\xa9mod", "\xa9swr", "loci", "auth", "XMP_"} {
		for i := 0; ; {
			j := bytes.Index(f.Data[i:], []byte(typ))
			if j < 0 {
				break
			}
			f.Freed = append(f.Freed, i+j-4)
			i += j + 4
		}
	}
	for _, typ := range []string{"mvhd", "tkhd", "mdhd"} {
		at := int64(bytes.Index(f.Data, []byte(typ))) + 8
		f.Zeroed = append(f.Zeroed, Span{at, at + 8})
	}
	moovAt := bytes.Index(f.Data, []byte("moov")) - 4
	metaAt := moovAt + bytes.Index(f.Data[moovAt:], []byte("meta\x00\x00\x00")) - 4
	f.Freed = append(f.Freed, metaAt)
	return f
}
