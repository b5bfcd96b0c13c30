package filehost

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/image/webp"
)

// Camera-shaped JPEGs, made here segment by segment as a GoPro, an old
// Canon PowerShot and a phone's Ultra HDR photo write them, and read back
// with exiftool, a parser that knows these structures independently of
// Folio (docs/filehost.md#metadata-stripping).

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
	thumb := jpegBytes(t, 16, 12)
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

// goProJPEG is shaped as a GoPro HERO9's photo: Exif with the camera and
// its serial, then an APP6 "GoPro" segment of GPMF data holding the
// serial and model again.
func goProJPEG(t testing.TB) []byte {
	body := photo(t, 48, 32, false)
	devc := gpmf("DVID", 'L', 4, []byte{0, 0, 0, 1})
	devc = append(devc, gpmf("DVNM", 'c', 1, []byte("Global Settings"))...)
	devc = append(devc, gpmf("CASN", 'c', 1, []byte("SECRET-C3441325012345"))...)
	devc = append(devc, gpmf("MINF", 'c', 1, []byte("HERO9 Black"))...)
	out := slices.Clone(body[:2])
	out = append(out, jpegSeg(jpegAPP1, exifID+string(cameraExif(t, "GoPro", "HERO9 Black", 1)))...)
	out = append(out, jpegSeg(0xE6, "GoPro\x00"+string(gpmf("DEVC", 0, 1, devc)))...)
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
	stream := append(make([]byte, 0x1c), jpegBytes(t, 20, 15)...)
	list := []byte("FPXR\x00\x00\x01\x00\x01")
	list = binary.BigEndian.AppendUint32(list, uint32(len(stream)))
	list = append(append(append(list, 0), utf16...), 0, 0)
	data := binary.BigEndian.AppendUint32([]byte("FPXR\x00\x00\x02\x00\x00"), 0)
	return [][]byte{jpegSeg(jpegAPP2, string(list)), jpegSeg(jpegAPP2, string(append(data, stream...)))}
}

// canonJPEG is shaped as an old Canon PowerShot's photo: JFIF with an RGB
// thumbnail, a JFXX JPEG thumbnail, the CIFF heap, Exif turned sideways,
// a FlashPix preview and a comment.
func canonJPEG(t testing.TB) []byte {
	body := photo(t, 40, 24, false)
	jfif := "JFIF\x00\x01\x01\x01\x00\xb4\x00\xb4\x02\x02" + strings.Repeat("\xff\x00\x00", 4)
	out := slices.Clone(body[:2])
	out = append(out, jpegSeg(jpegAPP0, jfif)...)
	out = append(out, jpegSeg(jpegAPP0, "JFXX\x00\x10"+string(jpegBytes(t, 8, 6)))...)
	out = append(out, jpegSeg(jpegAPP0, string(ciffHeap()))...)
	out = append(out, jpegSeg(jpegAPP1, exifID+string(cameraExif(t, "Canon", "Canon PowerShot S30", 8)))...)
	for _, seg := range fpxrPreview(t) {
		out = append(out, seg...)
	}
	out = append(out, jpegSeg(jpegCOM, "SECRET-COMMENT")...)
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

const isoGainMapVersion = "urn:iso:std:iso:ts:21496:-1\x00\x00\x00\x00\x00"

// ultraHDR is shaped as a phone's Ultra HDR photo: a primary picture with
// Exif (GPS, sideways), XMP holding the gain-map version and the container
// directory among other properties, the ISO 21496-1 version, MPF and an
// ICC profile; then the gain map, a JPEG with its own Exif and XMP of
// gain-map parameters and the ISO 21496-1 parameters; then a motion
// photo's video. It returns the file and the gain map as encoded.
func ultraHDR(t testing.TB) (file, gainMap []byte) {
	return multiPicture(t, 0)
}

// multiPicture is ultraHDR with the second picture's MPF attributes attr
// and the segments extra after the MPF segment.
func multiPicture(t testing.TB, attr uint32, extra ...[]byte) (file, gainMap []byte) {
	gainMap = photo(t, 24, 16, true)
	gmXMP := `<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.2"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
		`<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ` +
		`hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2.3" hdrgm:Gamma="1" hdrgm:OffsetSDR="0" hdrgm:OffsetHDR="0" ` +
		`hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2.3" hdrgm:BaseRenditionIsHDR="False" xmp:CreatorTool="SECRET-TOOL"/></rdf:RDF></x:xmpmeta>`
	second := slices.Clone(gainMap[:2])
	second = append(second, jpegSeg(jpegAPP1, exifID+string(cameraExif(t, "Google", "Pixel 8 Pro", 1)))...)
	second = append(second, jpegSeg(jpegAPP1, xmpID+gmXMP)...)
	second = append(second, jpegSeg(jpegAPP2, isoGMID+"\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00")...)
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
	primary = append(primary, jpegSeg(jpegAPP1, exifID+string(cameraExif(t, "Google", "Pixel 8 Pro", 6)))...)
	primary = append(primary, jpegSeg(jpegAPP1, xmpID+primaryXMP)...)
	primary = append(primary, jpegSeg(jpegAPP2, isoGainMapVersion)...)
	mpfAt := len(primary) + 4
	primary = append(primary, jpegSeg(jpegAPP2, string(mpf))...)
	primary = append(primary, jpegSeg(jpegAPP2, iccID+"\x01\x01"+string(iccProfile()))...)
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

// keptGroups are the exiftool groups a stripped JPEG may show: exiftool's
// and the file's own, the colour profile, the JFIF header, the MPF index,
// the gain-map XMP, and IFD0 for the orientation alone.
var keptGroups = regexp.MustCompile(`^(ExifTool|System|File|Composite|JFIF|IFD0|ICC_Profile|ICC-header|ICC-meas|ICC-view|MPF0|MPImage\d+|XMP-x|XMP-hdrgm|XMP-GContainer|XMP-Container|XMP-Item|APP2):`)

// identifying are tag names that must be gone whatever group shows them.
var identifying = regexp.MustCompile(`(?i)^make$|model|serial|^gps|date|owner|filename|thumbnail|preview|screennail|gopro|ciff|jfxx|flashpix|fpxr|comment|creator|^city$|motion`)

// checkNothingIdentifying fails when exiftool finds anything in b beyond
// what docs/filehost.md#metadata-stripping keeps.
func checkNothingIdentifying(t *testing.T, b []byte) map[string]any {
	t.Helper()
	tags := exiftoolTags(t, "photo.jpg", b)
	for k, v := range tags {
		group, name, _ := strings.Cut(k, ":")
		switch {
		case group == "System" || group == "ExifTool" || k == "SourceFile":
		case strings.HasPrefix(group, "ICC"): // the colour profile, kept as it is
		case k == "File:Comment" && v == "": // a segment left out of a later picture, blanked
		case !keptGroups.MatchString(k):
			t.Errorf("exiftool finds %s = %v", k, v)
		case group == "IFD0" && name != "Orientation":
			t.Errorf("exiftool finds %s = %v in the Exif", k, v)
		case identifying.MatchString(name):
			t.Errorf("exiftool finds %s = %v", k, v)
		}
	}
	if i := bytes.Index(b, []byte("SECRET")); i >= 0 {
		t.Errorf("a secret is left at %d: %q", i, b[i:min(len(b), i+24)])
	}
	return tags
}

// iccOf is the ICC profile exiftool extracts from b.
func iccOf(t *testing.T, b []byte) []byte {
	t.Helper()
	return exiftoolRun(t, "photo.jpg", b, "-b", "-ICC_Profile")
}

func TestUploadedCameraPhotosKeepNothingIdentifying(t *testing.T) {
	exiftoolPath(t)
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	hdr, gainMap := ultraHDR(t)
	for _, tt := range []struct {
		name        string
		in          []byte
		before      []string // tags exiftool finds in the file as sent
		orientation int
		check       func(t *testing.T, out []byte, tags map[string]any)
	}{
		{"gopro.jpg", goProJPEG(t), []string{"IFD0:Make", "ExifIFD:SerialNumber", "GoPro:CameraSerialNumber", "GPS:GPSLatitude", "IFD1:ThumbnailImage"}, 1, nil},
		{"canon.jpg", canonJPEG(t), []string{"CIFF:OwnerName", "CIFF:OriginalFileName", "CIFF:Make", "JFXX:ThumbnailImage", "FlashPix:PreviewImage", "JFIF:ThumbnailTIFF", "File:Comment"}, 8, nil},
		{"ultrahdr.jpg", hdr, []string{"IFD0:Model", "GPS:GPSLatitude", "XMP-photoshop:City", "MPF0:NumberOfImages", "XMP-Container:DirectoryItemSemantic"}, 6,
			func(t *testing.T, out []byte, tags map[string]any) {
				if !bytes.Equal(iccOf(t, out), iccOf(t, hdr)) {
					t.Errorf("the ICC profile changed")
				}
				if !bytes.Contains(out, []byte(isoGainMapVersion)) {
					t.Errorf("the primary's ISO 21496-1 segment is gone")
				}
				if tags["XMP-hdrgm:Version"] == nil || tags["MPF0:NumberOfImages"] != 2.0 {
					t.Errorf("hdrgm:Version %v, MPF images %v", tags["XMP-hdrgm:Version"], tags["MPF0:NumberOfImages"])
				}
				// The gain map, where the output's MPF index says and as
				// exiftool extracts it, is the gain map as encoded
				// (its pixels) with its parameters and nothing else.
				start, _ := tags["MPImage2:MPImageStart"].(float64)
				length, _ := tags["MPImage2:MPImageLength"].(float64)
				if start <= 0 || int(start+length) != len(out) {
					t.Fatalf("MP image 2 at %v, %v bytes; the file has %d", start, length, len(out))
				}
				gm := out[int(start):]
				if extracted := exiftoolRun(t, "photo.jpg", out, "-b", "-MPImage2"); !bytes.Equal(extracted, gm) {
					t.Fatalf("exiftool extracts %d bytes as the gain map, the MPF index gives %d", len(extracted), len(gm))
				}
				samePixels(t, jpeg.Decode, gainMap, gm)
				gmTags := checkNothingIdentifying(t, gm)
				if gmTags["XMP-hdrgm:GainMapMax"] != 2.3 || gmTags["XMP-hdrgm:Version"] == nil {
					t.Errorf("the gain map's parameters: %v", gmTags)
				}
				if !bytes.Contains(gm, []byte(isoGMID+"\x00\x00\x00\x00\x00\x00\x00\x02")) {
					t.Errorf("the gain map's ISO 21496-1 parameters are gone")
				}
				var lengths []float64
				switch l := tags["XMP-Container:DirectoryItemLength"].(type) {
				case float64:
					lengths = []float64{l}
				case []any:
					for _, x := range l {
						f, _ := x.(float64)
						lengths = append(lengths, f)
					}
				}
				if !slices.Equal(lengths, []float64{float64(len(gm))}) {
					t.Errorf("the container directory's item lengths %v, want the gain map's %d", lengths, len(gm))
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := exiftoolTags(t, "photo.jpg", tt.in)
			for _, k := range tt.before {
				if before[k] == nil {
					t.Fatalf("exiftool finds no %s in the file as sent: not shaped as the camera's", k)
				}
			}
			u := mustUpload(t, c, tt.name, tt.in)
			out := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body
			tags := checkNothingIdentifying(t, out)
			samePixels(t, jpeg.Decode, tt.in, out)
			if o := tags["IFD0:Orientation"]; tt.orientation != 1 && o != float64(tt.orientation) || tt.orientation == 1 && o != nil {
				t.Errorf("orientation %v, want %d", o, tt.orientation)
			}
			if tt.check != nil {
				tt.check(t, out, tags)
			}
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Errorf("stripping the stored file again changed it")
			}
		})
	}
}

// The MPF offsets and the gain map's size must hold in the output however
// the primary's header shrinks, and the gain map keeps its size.
func TestStrippingAnUltraHDRPhotoKeepsTheGainMapWhereTheMPFSays(t *testing.T) {
	in, gainMap := ultraHDR(t)
	out := strip(t, bytes.NewReader(in))
	if len(out) >= len(in) {
		t.Fatalf("%d bytes in, %d out: nothing was left out", len(in), len(out))
	}
	var mpf []byte
	jpegSegments(out, func(at int, marker byte, seg []byte) bool {
		if marker == jpegAPP2 && bytes.HasPrefix(seg[4:], []byte(mpfID)) {
			mpf = seg[4+len(mpfID):]
			mpfBase := at + 4 + len(mpfID)
			entries, ok := parseMPF(mpf)
			if !ok || len(entries) != 2 {
				t.Fatalf("the output's MPF does not parse: %v", entries)
			}
			gm := out[mpfBase+int(entries[1].offset):]
			if int(entries[1].size) != len(gm) || int(entries[0].size) != mpfBase+int(entries[1].offset) {
				t.Fatalf("MPF sizes %d and %d, offset %d; the primary has %d bytes and the gain map %d",
					entries[0].size, entries[1].size, entries[1].offset, mpfBase+int(entries[1].offset), len(gm))
			}
			samePixels(t, jpeg.Decode, gainMap, gm)
		}
		return true
	})
	if mpf == nil {
		t.Fatal("the MPF segment is gone")
	}
	for name, r := range map[string]io.Reader{
		"one byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
		"sized to the file":  newStripReaderSize(bytes.NewReader(in), bufferSize(int64(len(in)), stripBufferSize)),
	} {
		if name == "one byte at a time" {
			r = newStripReader(r)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, out) {
			t.Errorf("%s: %d bytes (%v), want %d", name, len(got), err, len(out))
		}
	}
}

func TestStrippingKeepsOnlyWhatTheAllowlistNames(t *testing.T) {
	hdr, _ := ultraHDR(t)
	preview, _ := multiPicture(t, 0x00010001) // an MPF large thumbnail
	second := canonJPEG(t)
	for _, tt := range []struct {
		name  string
		in    []byte
		check func(t *testing.T, in, out []byte)
	}{
		{"png: orientation-only eXIf, colour and HDR chunks stay; others and the trailer go", func() []byte {
			src := pngBytes(t, 6, 5)
			out := slices.Clone(src[:33])
			out = append(out, pngChunkOf("cICP", []byte{1, 13, 0, 1})...)
			out = append(out, pngChunkOf("eXIf", gpsTIFF(6))...)
			out = append(out, pngChunkOf("caBX", []byte("SECRET-C2PA"))...)
			out = append(out, pngChunkOf("prVt", []byte("SECRET-PRIVATE"))...)
			out = append(out, src[33:]...)
			return append(out, "SECRET-TRAILER"...)
		}(), func(t *testing.T, in, out []byte) {
			if got, want := pngChunkTypes(t, out), []string{"IHDR", "cICP", "eXIf", "IDAT", "IEND"}; !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if !bytes.Contains(out, pngChunkOf("eXIf", orientationTIFF(6))) {
				t.Errorf("the orientation-only eXIf is not there")
			}
			samePixels(t, png.Decode, in, out)
		}},
		{"webp: unknown chunks become padding, the trailer goes", append(func() []byte {
			w := metaWebP(t)
			w = append(w, riffChunk("XYZW", []byte("SECRET-UNKNOWN"))...)
			binary.LittleEndian.PutUint32(w[4:], uint32(len(w)-8))
			return w
		}(), "SECRET-TRAILER"...), func(t *testing.T, in, out []byte) {
			if got, want := webpChunkTypes(t, out), []string{"VP8X", "VP8L", "JUNK", "JUNK", "JUNK"}; !slices.Equal(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if len(out) != len(in)-len("SECRET-TRAILER") {
				t.Errorf("%d bytes, want the RIFF chunk's %d", len(out), len(in)-len("SECRET-TRAILER"))
			}
			samePixels(t, webp.Decode, in, out)
		}},
		{"gif: the ICC profile and loop count stay; plain text, other extensions and the trailer go", func() []byte {
			src := gifBytes(t, 6, 4)
			start := 13 + int(gifColourTable(src[10]))
			out := slices.Clone(src[:start])
			out = append(out, "\x21\xFF\x0BICCRGBG1012"...)
			out = append(out, gifSubBlocksOf("profile bytes")...)
			out = append(out, "\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"...)
			out = append(out, "\x21\xFF\x0BMAGPIE01.00"...)
			out = append(out, gifSubBlocksOf("SECRET-APP")...)
			out = append(out, "\x21\x01\x0c\x00\x00\x00\x00\x04\x00\x04\x00\x01\x01\x00\x01"...)
			out = append(out, gifSubBlocksOf("SECRET-TEXT")...)
			out = append(out, "\x21\x77"...)
			out = append(out, gifSubBlocksOf("SECRET-UNKNOWN")...)
			out = append(out, src[start:]...)
			return append(out, "SECRET-TRAILER"...)
		}(), func(t *testing.T, in, out []byte) {
			if !bytes.Contains(out, []byte("ICCRGBG1012\x0dprofile bytes")) || !bytes.Contains(out, []byte("NETSCAPE2.0")) {
				t.Errorf("the ICC profile or the loop count is gone")
			}
			if out[len(out)-1] != 0x3B {
				t.Errorf("the file does not end with its trailer")
			}
			samePixels(t, gif.Decode, gifBytes(t, 6, 4), out) // Go's decoder refuses in's unknown extension
		}},
		{"jpeg: a picture appended without MPF is stripped and keeps its size", append(slices.Clone(second), second...), func(t *testing.T, in, out []byte) {
			first := strip(t, bytes.NewReader(second))
			if !bytes.HasPrefix(out, first) {
				t.Fatalf("the first picture is not stripped as alone")
			}
			rest := out[len(first):]
			if len(rest) != len(second) {
				t.Errorf("the second picture has %d bytes, want its %d", len(rest), len(second))
			}
			if what := metadataLeft(out); what != "" {
				t.Errorf("%s left", what)
			}
			samePixels(t, jpeg.Decode, second, rest)
		}},
		{"jpeg: an MPF preview goes with the MPF segment", preview, func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) {
				t.Errorf("the MPF segment is still there")
			}
			if bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 || !bytes.HasSuffix(out, []byte{0xFF, 0xD9}) {
				t.Errorf("a picture after the first is still there")
			}
			samePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: an MPF index that does not parse goes with the pictures after the first", func() []byte {
			b := slices.Clone(hdr)
			i := bytes.Index(b, []byte(mpfID+"MM"))
			b[i+len(mpfID)+8+2+12+11] = 3 // NumberOfImages 3, with two entries
			return b
		}(), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) || bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 {
				t.Errorf("the MPF segment or the gain map is still there")
			}
			samePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: a header held past its limit goes out without the MPF index and the pictures after the first", func() []byte {
			var icc [][]byte
			for range jpegHoldLimit/60000 + 1 {
				icc = append(icc, jpegSeg(jpegAPP2, iccID+"\x02\x02"+strings.Repeat("p", 60000)))
			}
			b, _ := multiPicture(t, 0, icc...)
			return b
		}(), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(mpfID+"MM")) || bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 1 {
				t.Errorf("the MPF segment or the gain map is still there")
			}
			if n := bytes.Count(out, []byte(iccID)); n != jpegHoldLimit/60000+2 {
				t.Errorf("%d ICC segments, want all %d", n, jpegHoldLimit/60000+2)
			}
			samePixels(t, jpeg.Decode, in, out)
		}},
		{"jpeg: XMP without gain-map properties goes whole", metaJPEG(t), func(t *testing.T, in, out []byte) {
			if bytes.Contains(out, []byte(xmpID)) {
				t.Errorf("the XMP segment is still there")
			}
		}},
		{"jpeg: an Ultra HDR photo keeps its gain map and nothing after it", hdr, func(t *testing.T, in, out []byte) {
			if bytes.Count(out, []byte{0xFF, 0xD8, 0xFF}) != 2 || !bytes.HasSuffix(out, []byte{0xFF, 0xD9}) {
				t.Errorf("want the primary picture and the gain map, ending with its EOI")
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := strip(t, bytes.NewReader(tt.in))
			if i := bytes.Index(out, []byte("SECRET")); i >= 0 {
				t.Errorf("metadata left at %d: %q", i, out[i:min(len(out), i+20)])
			}
			if what := metadataLeft(out); what != "" {
				t.Errorf("%s left", what)
			}
			tt.check(t, tt.in, out)
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Errorf("stripping the output again changed it")
			}
		})
	}
}
