package imagemetatest

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Camera-shaped JPEGs, made here segment by segment as a GoPro, an old
// Canon PowerShot and a phone's Ultra HDR photo write them, and read back
// with exiftool, a parser that knows these structures independently of
// Folio (docs/filehost.md#metadata-stripping).

// The JPEG markers and segment identifiers they are made of.
const (
	app0, app1, app2, com = 0xE0, 0xE1, 0xE2, 0xFE

	exifID = "Exif\x00\x00"
	xmpID  = "http://ns.adobe.com/xap/1.0/\x00"
	iccID  = "ICC_PROFILE\x00"
	mpfID  = "MPF\x00"
)

// tiffEntry is one IFD entry for tiffBytes: a value (inline when it fits),
// or a sub-IFD (sub) or a block of data (at) whose offset is the value.
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	val      []byte
	sub      []tiffEntry
	at       []byte
}

func tiffASCII(tag uint16, s string) tiffEntry {
	return tiffEntry{tag: tag, typ: 2, count: uint32(len(s) + 1), val: []byte(s + "\x00")}
}

func tiffShort(tag, v uint16) tiffEntry {
	return tiffEntry{tag: tag, typ: 3, count: 1, val: binary.BigEndian.AppendUint16(nil, v)}
}

func tiffLong(tag uint16, v uint32) tiffEntry {
	return tiffEntry{tag: tag, typ: 4, count: 1, val: binary.BigEndian.AppendUint32(nil, v)}
}

func tiffRationals(tag uint16, v ...uint32) tiffEntry {
	var b []byte
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, x)
	}
	return tiffEntry{tag: tag, typ: 5, count: uint32(len(v) / 2), val: b}
}

// tiffBytes lays out a big-endian TIFF structure: IFD0, and IFD1 after it
// when ifd1 is not empty.
func tiffBytes(ifd0, ifd1 []tiffEntry) []byte {
	be := binary.BigEndian
	t := []byte("MM\x00\x2a\x00\x00\x00\x08")
	var write func(entries []tiffEntry) int
	write = func(entries []tiffEntry) int {
		off := len(t)
		t = append(t, make([]byte, 2+12*len(entries)+4)...)
		be.PutUint16(t[off:], uint16(len(entries)))
		for k, e := range entries {
			at := off + 2 + 12*k
			be.PutUint16(t[at:], e.tag)
			be.PutUint16(t[at+2:], e.typ)
			be.PutUint32(t[at+4:], e.count)
			switch {
			case e.sub != nil:
				sub := write(e.sub) // t grows: write before taking t[at:]
				be.PutUint32(t[at+8:], uint32(sub))
			case e.at != nil:
				be.PutUint32(t[at+8:], uint32(len(t)))
				t = append(t, e.at...)
			case len(e.val) <= 4:
				copy(t[at+8:], e.val)
			default:
				be.PutUint32(t[at+8:], uint32(len(t)))
				t = append(t, e.val...)
			}
			if len(t)%2 == 1 {
				t = append(t, 0)
			}
		}
		return off
	}
	write(ifd0)
	if len(ifd1) > 0 {
		next := write(ifd1)
		be.PutUint32(t[8+2+12*len(ifd0):], uint32(next))
	}
	return t
}

// cameraExif is an Exif TIFF as cameras write it: make, model, dates,
// serial and owner, GPS, and a JPEG thumbnail in IFD1.
func cameraExif(t testing.TB, make_, model string, orientation uint16) []byte {
	thumb := JPEG(t, 16, 12)
	return tiffBytes([]tiffEntry{
		tiffASCII(0x010F, make_),
		tiffASCII(0x0110, model),
		tiffShort(0x0112, orientation),
		tiffASCII(0x0132, "2026:05:01 10:00:00"),
		{tag: 0x8769, typ: 4, count: 1, sub: []tiffEntry{
			tiffASCII(0x9003, "2026:05:01 10:00:00"),
			tiffASCII(0xA430, "SECRET Owner"),
			tiffASCII(0xA431, "SECRET-C3441325012345"),
		}},
		{tag: 0x8825, typ: 4, count: 1, sub: []tiffEntry{
			tiffASCII(0x0001, "N"),
			tiffRationals(0x0002, 48, 1, 51, 1, 2976, 100),
			tiffASCII(0x0003, "E"),
			tiffRationals(0x0004, 2, 1, 21, 1, 1234, 100),
		}},
	}, []tiffEntry{
		tiffShort(0x0103, 6),
		{tag: 0x0201, typ: 4, count: 1, at: thumb},
		tiffLong(0x0202, uint32(len(thumb))),
	})
}

// photo is a JPEG with structure in its pixels, so that a changed byte of
// its scan shows.
func photo(t testing.TB, w, h int, gray bool) []byte {
	t.Helper()
	var img image.Image
	if gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i := range g.Pix {
			g.Pix[i] = uint8(i * 7)
		}
		img = g
	} else {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				c.Set(x, y, color.RGBA{uint8(x * 5), uint8(y * 9), uint8(x * y), 255})
			}
		}
		img = c
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gpmf is a GoPro KLV item: key, type, size and repeat, data padded to 4.
func gpmf(key string, typ byte, size int, data []byte) []byte {
	out := append([]byte(key), typ, byte(size))
	out = binary.BigEndian.AppendUint16(out, uint16(len(data)/size))
	out = append(out, data...)
	for len(out)%4 != 0 {
		out = append(out, 0)
	}
	return out
}

// GoProJPEG is shaped as a GoPro HERO9's photo: Exif with the camera and
// its serial, then an APP6 "GoPro" segment of GPMF data holding the
// serial and model again.
func GoProJPEG(t testing.TB) []byte {
	body := photo(t, 48, 32, false)
	devc := gpmf("DVID", 'L', 4, []byte{0, 0, 0, 1})
	devc = append(devc, gpmf("DVNM", 'c', 1, []byte("Global Settings"))...)
	devc = append(devc, gpmf("CASN", 'c', 1, []byte("SECRET-C3441325012345"))...)
	devc = append(devc, gpmf("MINF", 'c', 1, []byte("HERO9 Black"))...)
	out := slices.Clone(body[:2])
	out = append(out, JPEGSegment(app1, exifID+string(cameraExif(t, "GoPro", "HERO9 Black", 1)))...)
	out = append(out, JPEGSegment(0xE6, "GoPro\x00"+string(gpmf("DEVC", 0, 1, devc)))...)
	return append(out, body[2:]...)
}

// ciffHeap is the CIFF structure an old Canon PowerShot put in an APP0
// segment: a heap of owner, original file name, make and model and the
// time, with its directory at the end.
func ciffHeap() []byte {
	le := binary.LittleEndian
	head := []byte("II\x1a\x00\x00\x00HEAPJPGM\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	var heap, dir []byte
	add := func(tag uint16, data []byte) {
		dir = le.AppendUint16(dir, tag)
		dir = le.AppendUint32(dir, uint32(len(data)))
		dir = le.AppendUint32(dir, uint32(len(heap)))
		heap = append(heap, data...)
	}
	add(0x0810, []byte("SECRET Owner\x00"))
	add(0x0816, []byte("IMG_0042.JPG\x00"))
	add(0x080a, []byte("Canon\x00Canon PowerShot S30\x00"))
	add(0x180e, le.AppendUint32(make([]byte, 0, 12), 1019714400))
	heap = append(heap, 0, 0, 0, 0, 0, 0, 0, 0)[:len(heap)+8]
	at := len(heap)
	heap = le.AppendUint16(heap, uint16(len(dir)/10))
	heap = append(heap, dir...)
	heap = le.AppendUint32(heap, uint32(at))
	return append(head, heap...)
}

// fpxrPreview is the pair of APP2 FlashPix segments some cameras wrote: a
// contents list naming a screen-nail stream, and the stream, a preview
// JPEG behind a 28-byte stream header.
func fpxrPreview(t testing.TB) [][]byte {
	name := "/\x05Screen Nail_bd0100609719a180"
	var utf16 []byte
	for _, c := range []byte(name) {
		utf16 = append(utf16, c, 0)
	}
	stream := append(make([]byte, 0x1c), JPEG(t, 20, 15)...)
	list := []byte("FPXR\x00\x00\x01\x00\x01")
	list = binary.BigEndian.AppendUint32(list, uint32(len(stream)))
	list = append(append(append(list, 0), utf16...), 0, 0)
	data := binary.BigEndian.AppendUint32([]byte("FPXR\x00\x00\x02\x00\x00"), 0)
	return [][]byte{JPEGSegment(app2, string(list)), JPEGSegment(app2, string(append(data, stream...)))}
}

// CanonJPEG is shaped as an old Canon PowerShot's photo: JFIF with an RGB
// thumbnail, a JFXX JPEG thumbnail, the CIFF heap, Exif turned sideways,
// a FlashPix preview and a comment.
func CanonJPEG(t testing.TB) []byte {
	body := photo(t, 40, 24, false)
	jfif := "JFIF\x00\x01\x01\x01\x00\xb4\x00\xb4\x02\x02" + strings.Repeat("\xff\x00\x00", 4)
	out := slices.Clone(body[:2])
	out = append(out, JPEGSegment(app0, jfif)...)
	out = append(out, JPEGSegment(app0, "JFXX\x00\x10"+string(JPEG(t, 8, 6)))...)
	out = append(out, JPEGSegment(app0, string(ciffHeap()))...)
	out = append(out, JPEGSegment(app1, exifID+string(cameraExif(t, "Canon", "Canon PowerShot S30", 8)))...)
	for _, seg := range fpxrPreview(t) {
		out = append(out, seg...)
	}
	out = append(out, JPEGSegment(com, "SECRET-COMMENT")...)
	return append(out, body[2:]...)
}

// iccProfile is a small ICC profile: its header and a tag table with a
// description.
func iccProfile() []byte {
	p := make([]byte, 128)
	copy(p[4:], "lcms")
	binary.BigEndian.PutUint32(p[8:], 0x04300000)
	copy(p[12:], "mntrRGB XYZ ")
	copy(p[36:], "acsp")
	p = binary.BigEndian.AppendUint32(p, 1)
	p = append(p, "desc"...)
	p = binary.BigEndian.AppendUint32(p, 128+4+12)
	desc := []byte("desc\x00\x00\x00\x00\x00\x00\x00\x0cDisplay P3\x00\x00")
	p = binary.BigEndian.AppendUint32(p, uint32(len(desc)))
	p = append(p, desc...)
	binary.BigEndian.PutUint32(p, uint32(len(p)))
	return p
}

// ISOGainMapID starts an ISO 21496-1 gain-map segment (APP2), which holds
// the gain map's parameters in the gain map and ISOGainMapVersion, the
// version alone, in the primary picture.
const (
	ISOGainMapID      = "urn:iso:std:iso:ts:21496:-1\x00"
	ISOGainMapVersion = "urn:iso:std:iso:ts:21496:-1\x00\x00\x00\x00\x00"
)

// UltraHDR is shaped as a phone's Ultra HDR photo: a primary picture with
// Exif (GPS, sideways), XMP holding the gain-map version and the container
// directory among other properties, the ISO 21496-1 version, MPF and an
// ICC profile; then the gain map, a JPEG with its own Exif and XMP of
// gain-map parameters and the ISO 21496-1 parameters; then a motion
// photo's video. It returns the file and the gain map as encoded.
func UltraHDR(t testing.TB) (file, gainMap []byte) {
	return MultiPicture(t, 0)
}

// MultiPicture is UltraHDR with the second picture's MPF attributes attr
// and the segments extra after the MPF segment.
func MultiPicture(t testing.TB, attr uint32, extra ...[]byte) (file, gainMap []byte) {
	gainMap = photo(t, 24, 16, true)
	gmXMP := `<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.2"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
		`<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ` +
		`hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2.3" hdrgm:Gamma="1" hdrgm:OffsetSDR="0" hdrgm:OffsetHDR="0" ` +
		`hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2.3" hdrgm:BaseRenditionIsHDR="False" xmp:CreatorTool="SECRET-TOOL"/></rdf:RDF></x:xmpmeta>`
	second := slices.Clone(gainMap[:2])
	second = append(second, JPEGSegment(app1, exifID+string(cameraExif(t, "Google", "Pixel 8 Pro", 1)))...)
	second = append(second, JPEGSegment(app1, xmpID+gmXMP)...)
	second = append(second, JPEGSegment(app2, ISOGainMapID+"\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00")...)
	second = append(second, gainMap[2:]...)

	video := []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isomSECRET-VIDEO")
	primaryXMP := `<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.2"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
		`<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" ` +
		`xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" ` +
		`xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" hdrgm:Version="1.0" GCamera:MotionPhoto="1" photoshop:City="SECRET-CITY">` +
		`<Container:Directory><rdf:Seq>` +
		`<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>` +
		`<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="` + strconv.Itoa(len(second)) + `"/></rdf:li>` +
		`<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="MotionPhoto" Item:Mime="video/mp4" Item:Length="` + strconv.Itoa(len(video)) + `"/></rdf:li>` +
		`</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>`

	body := photo(t, 64, 48, false)
	mpf := []byte(mpfID + "MM\x00*\x00\x00\x00\x08\x00\x03")
	mpf = append(mpf, "\xb0\x00\x00\x07\x00\x00\x00\x040100"...)
	mpf = append(mpf, "\xb0\x01\x00\x04\x00\x00\x00\x01\x00\x00\x00\x02"...)
	mpf = append(mpf, "\xb0\x02\x00\x07\x00\x00\x00\x20\x00\x00\x00\x32\x00\x00\x00\x00"...)
	entries := len(mpf)
	mpf = append(mpf, make([]byte, 32)...)
	primary := slices.Clone(body[:2])
	primary = append(primary, JPEGSegment(app1, exifID+string(cameraExif(t, "Google", "Pixel 8 Pro", 6)))...)
	primary = append(primary, JPEGSegment(app1, xmpID+primaryXMP)...)
	primary = append(primary, JPEGSegment(app2, ISOGainMapVersion)...)
	mpfAt := len(primary) + 4
	primary = append(primary, JPEGSegment(app2, string(mpf))...)
	primary = append(primary, JPEGSegment(app2, iccID+"\x01\x01"+string(iccProfile()))...)
	for _, seg := range extra {
		primary = append(primary, seg...)
	}
	primary = append(primary, body[2:]...)
	e := primary[mpfAt+entries:]
	binary.BigEndian.PutUint32(e, 0x20030000)
	binary.BigEndian.PutUint32(e[4:], uint32(len(primary)))
	binary.BigEndian.PutUint32(e[16:], attr)
	binary.BigEndian.PutUint32(e[20:], uint32(len(second)))
	binary.BigEndian.PutUint32(e[24:], uint32(len(primary)-(mpfAt+len(mpfID))))
	file = append(append(primary, second...), video...)
	return file, gainMap
}

// ICC is a small valid ICC profile, named Display P3.
func ICC() []byte { return iccProfile() }
