package filehost

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// ISO BMFF files with metadata, made here box by box in the shapes phones
// write: an iPhone's HEIC (ftyp, meta, then mdat holding the coded image,
// the Exif and the XMP), an AVIF keeping its Exif in idat, an MP4 with its
// moov after mdat and a MOV with it before. Every identifying value is
// one of bmffSecrets, so a search for them proves them gone.

var bmffSecrets = []string{"37.7749", "122.4194", "iPhone 15 Pro", "Apple", "SN-SECRET", "OWNER-SECRET", "2026:05:04"}

var be = binary.BigEndian

func bmffBox(typ string, parts ...[]byte) []byte {
	b := be.AppendUint32(nil, 0)
	b = append(b, typ...)
	for _, p := range parts {
		b = append(b, p...)
	}
	be.PutUint32(b, uint32(len(b)))
	return b
}

func bmffFullBox(typ string, version byte, flags uint32, parts ...[]byte) []byte {
	vf := be.AppendUint32(nil, flags)
	vf[0] = version
	return bmffBox(typ, append([][]byte{vf}, parts...)...)
}

func u16(v uint16) []byte  { return be.AppendUint16(nil, v) }
func u32(v uint32) []byte  { return be.AppendUint32(nil, v) }
func cstr(s string) []byte { return append([]byte(s), 0) }

// bmffPayloadBytes stands for coded pictures or samples: no zero byte, so
// a zeroed range in them shows.
func bmffPayloadBytes(n int, seed byte) []byte {
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

// heifExif is an Exif item's data: the offset of the TIFF header after
// the "Exif\0\0" that Apple writes before it.
func heifExif() []byte {
	return append(append(u32(6), "Exif\x00\x00"...), phoneTIFF()...)
}

const phoneXMP = `<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>` +
	`<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>` +
	`<rdf:Description rdf:about='' xmlns:exif='http://ns.adobe.com/exif/1.0/' xmlns:tiff='http://ns.adobe.com/tiff/1.0/'` +
	` xmlns:xmp='http://ns.adobe.com/xap/1.0/' exif:GPSLatitude='37,46.494N' exif:GPSLongitude='122,25.164W'` +
	` tiff:Make='Apple' tiff:Model='iPhone 15 Pro' xmp:CreatorTool='Apple 17.1' xmp:CreateDate='2026:05:04'/>` +
	`</rdf:RDF></x:xmpmeta><?xpacket end='w'?>`

// bmffFile is a made file and what stripping must do to it: the ranges
// that become zeros, and the boxes (by offset) that become free boxes.
type bmffFile struct {
	data   []byte
	zeroed []bmffSpan
	freed  []int
	coded  bmffSpan // the coded picture or the samples, which must stay
}

// want is the file as the stripper must store it.
func (f bmffFile) want() []byte {
	out := slices.Clone(f.data)
	for _, at := range f.freed {
		size := int(be.Uint32(out[at:]))
		copy(out[at+4:], "free")
		clear(out[at+8 : at+size])
	}
	for _, sp := range f.zeroed {
		clear(out[sp.start:sp.end])
	}
	return out
}

// heifItem is one item of a made HEIF picture: its type, its data, and
// whether the data goes in idat rather than mdat.
type heifItem struct {
	typ, contentType string
	data             []byte
	inIdat           bool
}

// heifFile lays out ftyp, meta (hdlr, pitm, iinf, iref, iprp, iloc and
// idat when an item uses it), then mdat, with item 1 the coded picture
// and the others its metadata. Among the properties are a user
// description (udes) and a creation time (crtt).
func heifFile(brands []string, config []byte, items []heifItem, withMdatFirst bool) bmffFile {
	ftyp := []byte{}
	ftyp = append(ftyp, brands[0]...)
	ftyp = append(ftyp, 0, 0, 0, 0)
	for _, b := range brands[1:] {
		ftyp = append(ftyp, b...)
	}
	ftypBox := bmffBox("ftyp", ftyp)

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
		name := cstr("")
		if it.typ == "mime" {
			infe = bmffFullBox("infe", 2, 0, u16(uint16(i+1)), u16(0), []byte(it.typ), name, cstr(it.contentType))
		} else {
			infe = bmffFullBox("infe", 2, 0, u16(uint16(i+1)), u16(0), []byte(it.typ), name)
		}
		infes = append(infes, infe...)
		if it.inIdat {
			locs = append(locs, loc{1, uint32(len(idat)), uint32(len(it.data)), true, i > 0})
			idat = append(idat, it.data...)
		} else {
			locs = append(locs, loc{0, uint32(len(mdat)), uint32(len(it.data)), false, i > 0})
			mdat = append(mdat, it.data...)
		}
	}
	meta := func(mdatAt uint32) []byte {
		iloc := append([]byte{0x44, 0x00}, u16(uint16(len(locs)))...)
		for i, l := range locs {
			off := l.off
			if !l.inIdat {
				off += mdatAt
			}
			iloc = append(iloc, u16(uint16(i+1))...)
			iloc = append(iloc, u16(l.method)...)
			iloc = append(iloc, u16(0)...)
			iloc = append(iloc, u16(1)...)
			iloc = append(append(iloc, u32(off)...), u32(l.size)...)
		}
		var cdsc []byte
		for i := 2; i <= len(items); i++ {
			cdsc = append(cdsc, bmffBox("cdsc", u16(uint16(i)), u16(1), u16(1))...)
		}
		ipco := bmffBox("ipco",
			config,
			bmffFullBox("ispe", 0, 0, u32(4032), u32(3024)),
			bmffBox("colr", []byte("nclx"), u16(1), u16(13), u16(1), []byte{0x80}),
			bmffBox("irot", []byte{1}),
			bmffFullBox("udes", 0, 0, cstr("en"), cstr("OWNER-SECRET"), cstr("at home"), cstr("family")),
			bmffFullBox("crtt", 0, 0, u32(0), u32(0xEB3F1A2C)),
		)
		parts := [][]byte{
			bmffFullBox("hdlr", 0, 0, u32(0), []byte("pict"), make([]byte, 12), cstr("")),
			bmffFullBox("pitm", 0, 0, u16(1)),
			bmffFullBox("iinf", 0, 0, u16(uint16(len(items))), infes),
			bmffFullBox("iref", 0, 0, cdsc),
			bmffBox("iprp", ipco, bmffFullBox("ipma", 0, 0, u32(1), u16(1), []byte{4, 0x81, 0x02, 0x03, 0x84})),
			bmffFullBox("iloc", 1, 0, iloc),
		}
		if idat != nil {
			parts = append(parts, bmffBox("idat", idat))
		}
		return bmffFullBox("meta", 0, 0, parts...)
	}
	mdatBox := bmffBox("mdat", mdat)
	f := bmffFile{}
	var mdatAt uint32
	if withMdatFirst {
		mdatAt = uint32(len(ftypBox)) + 8
		f.data = slices.Concat(ftypBox, mdatBox, meta(mdatAt))
	} else {
		mdatAt = uint32(len(ftypBox)+len(meta(0))) + 8
		f.data = slices.Concat(ftypBox, meta(mdatAt), mdatBox)
	}
	for _, typ := range []string{"udes", "crtt"} {
		f.freed = append(f.freed, bytes.Index(f.data, []byte(typ))-4)
	}
	idatAt := int64(bytes.Index(f.data, []byte("idat"))) + 4
	for _, l := range locs {
		at := int64(mdatAt) + int64(l.off)
		if l.inIdat {
			at = idatAt + int64(l.off)
		}
		sp := bmffSpan{at, at + int64(l.size)}
		if l.isMetadata {
			f.zeroed = append(f.zeroed, sp)
		} else {
			f.coded = sp
		}
	}
	return f
}

// iPhoneHEIC is a HEIC as an iPhone saves it: Exif and XMP items after the
// coded picture in mdat.
func iPhoneHEIC() bmffFile {
	return heifFile([]string{"heic", "mif1", "MiHE", "miaf", "MiHB", "heic"},
		bmffBox("hvcC", []byte{1, 1, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 0x5A, 0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0}),
		[]heifItem{
			{typ: "hvc1", data: bmffPayloadBytes(600, 3)},
			{typ: "Exif", data: heifExif()},
			{typ: "mime", contentType: "application/rdf+xml", data: []byte(phoneXMP)},
		}, false)
}

// exifInIdatAVIF is an AVIF whose Exif item lies in idat, inside meta.
func exifInIdatAVIF() bmffFile {
	return heifFile([]string{"avif", "avif", "mif1", "miaf", "MA1B"},
		bmffBox("av1C", []byte{0x81, 0x00, 0x0C, 0x00}),
		[]heifItem{
			{typ: "av01", data: bmffPayloadBytes(500, 5)},
			{typ: "Exif", data: heifExif(), inIdat: true},
			{typ: "mime", contentType: "application/rdf+xml", data: []byte(phoneXMP)},
		}, false)
}

// qtString is a QuickTime user-data text: length, language, text.
func qtString(s string) []byte { return append(append(u16(uint16(len(s))), u16(0x15C7)...), s...) }

// phoneMovie lays out an MP4 (moov last) or a MOV (moov first): one video
// track of one sample, and the metadata phones and cameras write in
// moov/udta (QuickTime ©xyz, ©mak, ©mod, ©swr, 3GPP loci, auth, XMP_),
// moov/meta (Apple's keys and ilst) and a top-level XMP uuid box, and
// the time of the recording in the movie, track and media headers.
func phoneMovie(mov bool) bmffFile {
	if mov {
		return movieFile(bmffBox("ftyp", []byte("qt  "), u32(0), []byte("qt  ")), true)
	}
	return movieFile(bmffBox("ftyp", []byte("isom"), u32(0x200), []byte("isomiso2avc1mp41")), false)
}

// oldQuickTime is a movie as QuickTime wrote them before ftyp: moov first.
func oldQuickTime() bmffFile { return movieFile(nil, true) }

func movieFile(ftyp []byte, moovFirst bool) bmffFile {
	samples := bmffPayloadBytes(900, 9)
	const recorded = 0xEB3F1A2C // 2029, in seconds since 1904
	matrix := slices.Concat(u32(0x10000), u32(0), u32(0), u32(0), u32(0x10000), u32(0), u32(0), u32(0), u32(0x40000000))
	sampleEntry := bmffBox("avc1", make([]byte, 6), u16(1), make([]byte, 16), u16(64), u16(48),
		u32(0x480000), u32(0x480000), u32(0), u16(1), make([]byte, 32), u16(24), u16(0xFFFF))
	moov := func(chunkAt uint32) []byte {
		stbl := bmffBox("stbl",
			bmffFullBox("stsd", 0, 0, u32(1), sampleEntry),
			bmffFullBox("stts", 0, 0, u32(1), u32(1), u32(1000)),
			bmffFullBox("stsc", 0, 0, u32(1), u32(1), u32(1), u32(1)),
			bmffFullBox("stsz", 0, 0, u32(0), u32(1), u32(uint32(len(samples)))),
			bmffFullBox("stco", 0, 0, u32(1), u32(chunkAt)),
		)
		trak := bmffBox("trak",
			bmffFullBox("tkhd", 0, 3, u32(recorded), u32(recorded), u32(1), u32(0), u32(1000), make([]byte, 8), u16(0), u16(0), u16(0), u16(0), matrix, u32(64<<16), u32(48<<16)),
			bmffBox("mdia",
				bmffFullBox("mdhd", 0, 0, u32(recorded), u32(recorded), u32(1000), u32(1000), u16(0x55C4), u16(0)),
				bmffFullBox("hdlr", 0, 0, u32(0), []byte("vide"), make([]byte, 12), cstr("VideoHandler")),
				bmffBox("minf",
					bmffFullBox("vmhd", 0, 1, make([]byte, 8)),
					bmffBox("dinf", bmffFullBox("dref", 0, 0, u32(1), bmffFullBox("url ", 0, 1))),
					stbl,
				),
			),
			bmffBox("udta", bmffBox("\xa9xyz", qtString("+37.7749-122.4194/"))),
		)
		keys := []string{"com.apple.quicktime.location.ISO6709", "com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.creationdate"}
		values := []string{"+37.7749-122.4194+012.000/", "Apple", "iPhone 15 Pro", "2026-05-04T10:11:12+0200"}
		var keyBoxes, ilst []byte
		for i, k := range keys {
			keyBoxes = append(keyBoxes, bmffBox("mdta", []byte(k))...)
			item := bmffBox("data", u32(1), u32(0), []byte(values[i]))
			ilst = append(ilst, bmffBox(string(u32(uint32(i+1))), item)...)
		}
		loci := bmffFullBox("loci", 0, 0, u16(0x15C7), cstr("OWNER-SECRET home"), []byte{0},
			u32(uint32(0x100000000-8022878)), u32(2475619), u32(0), cstr("earth"), cstr(""))
		return bmffBox("moov",
			bmffFullBox("mvhd", 0, 0, u32(recorded), u32(recorded), u32(1000), u32(1000), u32(0x10000), u16(0x100), make([]byte, 10), matrix, make([]byte, 24), u32(2)),
			trak,
			bmffBox("udta",
				bmffBox("\xa9xyz", qtString("+37.7749-122.4194/")),
				bmffBox("\xa9mak", qtString("Apple")),
				bmffBox("\xa9mod", qtString("iPhone 15 Pro")),
				bmffBox("\xa9swr", qtString("Apple 17.1")),
				loci,
				bmffFullBox("auth", 0, 0, u16(0x15C7), cstr("OWNER-SECRET")),
				bmffBox("XMP_", []byte(phoneXMP)),
				u32(0), // QuickTime's terminator of a user-data list
			),
			bmffBox("meta",
				bmffFullBox("hdlr", 0, 0, u32(0), []byte("mdta"), make([]byte, 12), cstr("")),
				bmffFullBox("keys", 0, 0, u32(uint32(len(keys))), keyBoxes),
				bmffBox("ilst", ilst),
			),
		)
	}
	xmpUUID := []byte{0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC}
	uuid := bmffBox("uuid", xmpUUID, []byte(phoneXMP))
	mdat := bmffBox("mdat", samples)
	f := bmffFile{}
	if moovFirst {
		m := moov(0)
		at := uint32(len(ftyp) + len(m) + 8)
		f.data = slices.Concat(ftyp, moov(at), mdat, uuid)
		f.coded = bmffSpan{int64(at), int64(at) + int64(len(samples))}
	} else {
		at := uint32(len(ftyp) + len(uuid) + 8)
		f.data = slices.Concat(ftyp, uuid, mdat, moov(at))
		f.coded = bmffSpan{int64(at), int64(at) + int64(len(samples))}
	}
	for _, typ := range []string{"uuid", "\xa9xyz", "\xa9mak", "\xa9mod", "\xa9swr", "loci", "auth", "XMP_"} {
		for i := 0; ; {
			j := bytes.Index(f.data[i:], []byte(typ))
			if j < 0 {
				break
			}
			f.freed = append(f.freed, i+j-4)
			i += j + 4
		}
	}
	for _, typ := range []string{"mvhd", "tkhd", "mdhd"} {
		at := int64(bytes.Index(f.data, []byte(typ))) + 8
		f.zeroed = append(f.zeroed, bmffSpan{at, at + 8})
	}
	moovAt := bytes.Index(f.data, []byte("moov")) - 4
	metaAt := moovAt + bytes.Index(f.data[moovAt:], []byte("meta\x00\x00\x00")) - 4
	f.freed = append(f.freed, metaAt)
	return f
}
