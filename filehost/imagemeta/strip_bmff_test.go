package imagemeta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

// identifyingTags lists the tags that tell where, when, on what or by whom a
// file was made; what exiftool reports of the file itself (its name, size
// and times on disk) is not among them.
func identifyingTags(tags map[string]any) []string {
	var found []string
	for k, v := range tags {
		group, name, _ := strings.Cut(k, ":")
		if group == "System" || group == "File" || group == "ExifTool" {
			continue
		}
		hit := strings.HasPrefix(group, "XMP") || strings.HasSuffix(name, "Date") && fmt.Sprint(v) != "0000:00:00 00:00:00"
		for _, w := range []string{"GPS", "Make", "Model", "Serial", "Software", "CreationDate", "DateTimeOriginal", "Location", "Owner", "Author", "Artist", "CreatorTool"} {
			hit = hit || strings.Contains(name, w)
		}
		s := fmt.Sprint(v)
		for _, secret := range imagemetatest.BMFFSecrets() {
			hit = hit || strings.Contains(s, secret)
		}
		if hit {
			found = append(found, fmt.Sprintf("%s=%v", k, v))
		}
	}
	slices.Sort(found)
	return found
}

func TestStrippingBlanksHEIFAndMovieMetadataInPlace(t *testing.T) {
	for _, tt := range []struct {
		name string
		file imagemetatest.BMFFFile
	}{
		{"iPhone HEIC.heic", imagemetatest.IPhoneHEIC()},
		{"AVIF with Exif in idat.avif", imagemetatest.ExifInIdatAVIF()},
		{"MP4 with moov last.mp4", imagemetatest.PhoneMovie(false)},
		{"MOV with moov first.mov", imagemetatest.PhoneMovie(true)},
		{"QuickTime movie without ftyp.mov", imagemetatest.OldQuickTime()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.file.Data
			out := strip(t, bytes.NewReader(in))
			if len(out) != len(in) {
				t.Fatalf("%d bytes in, %d out: blanking keeps every offset", len(in), len(out))
			}
			if want := tt.file.Want(); !bytes.Equal(out, want) {
				for i := range out {
					if out[i] != want[i] {
						t.Fatalf("first difference from the expected output at %d: %#x, want %#x", i, out[i], want[i])
					}
				}
			}
			present := 0
			for _, secret := range imagemetatest.BMFFSecrets() {
				if bytes.Contains(in, []byte(secret)) {
					present++
				}
				if i := bytes.Index(out, []byte(secret)); i >= 0 {
					t.Errorf("%q left at %d", secret, i)
				}
			}
			if present < 4 {
				t.Fatalf("the made file holds only %d of the secrets", present)
			}
			c := tt.file.Coded
			if !bytes.Equal(out[c.Start:c.End], in[c.Start:c.End]) {
				t.Error("the coded picture or samples changed")
			}
			checkBoxesIntact(t, in, out)
			checkStripReadsAgree(t, in, out)
			for _, size := range []int{16, 100, len(in)} {
				got, err := io.ReadAll(NewStripReaderSize(bytes.NewReader(in), size))
				if err != nil || !bytes.Equal(got, out) {
					t.Errorf("a %d-byte buffer: %d bytes, %v", size, len(got), err)
				}
			}
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Error("stripping the stripped file changed it")
			}

			if found := identifyingTags(imagemetatest.ExiftoolTags(t, tt.name, in, "-ee")); len(found) < 3 {
				t.Fatalf("exiftool reads too little from the made file for the check to mean anything: %v", found)
			}
			if found := identifyingTags(imagemetatest.ExiftoolTags(t, tt.name, out, "-ee")); len(found) > 0 {
				t.Errorf("exiftool still reads %v", found)
			}
		})
	}
}

// checkBoxesIntact walks both files' top-level boxes and a movie's chunk
// offsets: the same sizes in the same places, free boxes only where the
// input had metadata, and each chunk offset pointing at the same sample
// bytes as before.
func checkBoxesIntact(t *testing.T, in, out []byte) {
	t.Helper()
	type box struct {
		typ        string
		start, end int
	}
	walk := func(b []byte) []box {
		var boxes []box
		if !bmffChildren(b, func(typ string, start, _, end int) { boxes = append(boxes, box{typ, start, end}) }) {
			t.Fatal("the top-level boxes do not parse")
		}
		return boxes
	}
	a, b := walk(in), walk(out)
	if len(a) != len(b) {
		t.Fatalf("%d top-level boxes, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].start != b[i].start || a[i].end != b[i].end || a[i].typ != b[i].typ && b[i].typ != "free" {
			t.Errorf("box %d was %+v, is %+v", i, a[i], b[i])
		}
		if a[i].typ == "mdat" && b[i].typ == "mdat" && bytes.Contains(in, []byte("stco")) && !bytes.Equal(in[a[i].start:a[i].end], out[b[i].start:b[i].end]) {
			t.Error("a movie's mdat changed")
		}
	}
	if at := bytes.Index(out, []byte("stco")); at >= 0 {
		chunk := int(binary.BigEndian.Uint32(out[at+12:]))
		if !bytes.Equal(in[at:at+16], out[at:at+16]) || !bytes.Equal(out[chunk:chunk+64], in[chunk:chunk+64]) {
			t.Error("the chunk offset moved or its samples changed")
		}
	}
}

// A meta box may run to the end of the file (size 0), as libavif's
// pictures with everything in idat do; it is read to the end.
func TestStrippingAMetaBoxRunningToTheEnd(t *testing.T) {
	f := imagemetatest.HEIFFile([]string{"avif", "avif", "mif1", "miaf"}, imagemetatest.BMFFBox("av1C", []byte{0x81, 0x00, 0x0C, 0x00}), []imagemetatest.HEIFItem{
		{Type: "av01", Data: imagemetatest.Payload(200, 5), InIdat: true},
		{Type: "Exif", Data: imagemetatest.HEIFExif(), InIdat: true},
		{Type: "mime", ContentType: "application/rdf+xml", Data: []byte(imagemetatest.PhoneXMP), InIdat: true},
	}, false)
	cut := func(b []byte) []byte {
		b = slices.Clone(b[:len(b)-8]) // the empty mdat
		binary.BigEndian.PutUint32(b[binary.BigEndian.Uint32(b):], 0)
		return b
	}
	in, want := cut(f.Data), cut(f.Want())
	if got := strip(t, bytes.NewReader(in)); !bytes.Equal(got, want) {
		t.Fatal("the Exif and XMP in the idat of a meta box of size 0 were not zeroed, or more was")
	}
	for _, secret := range []string{"iPhone 15 Pro", "SN-SECRET"} {
		if !bytes.Contains(in, []byte(secret)) {
			t.Fatalf("the made file lacks %q", secret)
		}
	}
}

func TestStrippingRefusesHEIFMetadataItCannotReach(t *testing.T) {
	before := imagemetatest.ExifBeforeMetaHEIC()
	heic := imagemetatest.IPhoneHEIC().Data
	huge := append(slices.Clone(heic[:binary.BigEndian.Uint32(heic)]), imagemetatest.U32(bmffMaxMeta+1)...)
	huge = append(huge, "meta\x00\x00\x00\x00"...)
	huge = append(huge, make([]byte, 1000)...)
	for _, tt := range []struct {
		name string
		in   []byte
		msg  string
	}{
		{"Exif before meta", before.Data, "before the meta box"},
		{"a meta box over 16 MiB", huge, "larger than 16 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !isBMFF(tt.in) || !bytes.Contains(tt.in, []byte("meta")) {
				t.Fatal("not the file meant")
			}
			_, err := io.ReadAll(NewStripReader(bytes.NewReader(tt.in)))
			if !errors.Is(err, ErrUnstrippable) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want a refusal saying %q", err, tt.msg)
			}
		})
	}
}

func TestStrippingKeepsBrokenBMFFAsSentButFreesBrokenContainers(t *testing.T) {
	heic := imagemetatest.IPhoneHEIC().Data
	ftyp := int(binary.BigEndian.Uint32(heic))
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"ftyp only", heic[:ftyp]},
		{"text with moov where a box type would be", []byte("abcdmoov\x00\x00\x00\x10udta then more words")},
		{"cut inside meta", heic[:ftyp+40]},
		{"top-level box larger than the file, then garbage", append(append(slices.Clone(heic[:ftyp]), "\x7f\x00\x00\x00mdat"...), bytes.Repeat([]byte{7}, 50)...)},
		{"iloc that does not parse", bytes.Replace(slices.Clone(heic), []byte("iloc\x01"), []byte("iloc\x07"), 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := strip(t, bytes.NewReader(tt.in)); !bytes.Equal(got, tt.in) {
				t.Fatalf("stored %d bytes differing from the %d sent", len(got), len(tt.in))
			}
		})
	}
	t.Run("a box in udta overrunning it", func(t *testing.T) {
		in := imagemetatest.PhoneMovie(true).Data
		at := bytes.Index(in, []byte("\xa9mak")) - 4
		binary.BigEndian.PutUint32(in[at:], 0x7fffffff)
		out := strip(t, bytes.NewReader(in))
		udta := bytes.LastIndex(in[:at], []byte("udta")) - 4
		end := udta + int(binary.BigEndian.Uint32(in[udta:]))
		want := append(imagemetatest.U32(uint32(end-at)), "free"...)
		want = append(want, make([]byte, end-at-8)...)
		if len(out) != len(in) || !bytes.Equal(out[at:end], want) || !bytes.Equal(out[end:end+4], in[end:end+4]) {
			t.Fatal("the rest of the udta box is not one free box, or more than it")
		}
	})
}

// ilocItem is one item of a made iloc box.
type ilocItem struct {
	id, method, ref uint32
	base            uint64
	extents         [][3]uint64 // index, offset, length
}

// ilocPayload is an iloc box's payload of the given version and field sizes.
func ilocPayload(version byte, offsetSize, lengthSize, baseSize, indexSize int, items []ilocItem) []byte {
	field := func(b []byte, size int, v uint64) []byte {
		switch size {
		case 4:
			return binary.BigEndian.AppendUint32(b, uint32(v))
		case 8:
			return binary.BigEndian.AppendUint64(b, v)
		}
		return b
	}
	b := []byte{version, 0, 0, 0, byte(offsetSize<<4 | lengthSize), byte(baseSize<<4 | indexSize)}
	if version == 2 {
		b = binary.BigEndian.AppendUint32(b, uint32(len(items)))
	} else {
		b = binary.BigEndian.AppendUint16(b, uint16(len(items)))
	}
	for _, it := range items {
		if version == 2 {
			b = binary.BigEndian.AppendUint32(b, it.id)
		} else {
			b = binary.BigEndian.AppendUint16(b, uint16(it.id))
		}
		if version > 0 {
			b = binary.BigEndian.AppendUint16(b, uint16(it.method))
		}
		b = binary.BigEndian.AppendUint16(b, uint16(it.ref))
		b = field(b, baseSize, it.base)
		b = binary.BigEndian.AppendUint16(b, uint16(len(it.extents)))
		for _, e := range it.extents {
			if version > 0 {
				b = field(b, indexSize, e[0])
			}
			b = field(field(b, offsetSize, e[1]), lengthSize, e[2])
		}
	}
	return b
}

func TestILocVersionsAndFieldSizesLocateTheMetadataItems(t *testing.T) {
	idat := bmffSpan{1000, 1100}
	meta := map[uint32]bool{7: true, 9: true}
	for _, tt := range []struct {
		name  string
		iloc  []byte
		want  []bmffSpan
		fails bool
	}{
		{"version 0, 4-byte fields", ilocPayload(0, 4, 4, 0, 0, []ilocItem{
			{id: 1, extents: [][3]uint64{{0, 5000, 900}}},
			{id: 7, extents: [][3]uint64{{0, 6000, 300}}},
		}), []bmffSpan{{6000, 6300}}, false},
		{"version 1, a base offset and two extents", ilocPayload(1, 4, 4, 4, 0, []ilocItem{
			{id: 7, base: 4000, extents: [][3]uint64{{0, 0, 10}, {0, 100, 20}}},
		}), []bmffSpan{{4000, 4010}, {4100, 4120}}, false},
		{"version 1, 8-byte base, no offset field, index field", ilocPayload(1, 0, 4, 8, 4, []ilocItem{
			{id: 9, base: 1 << 33, extents: [][3]uint64{{1, 0, 50}}},
		}), []bmffSpan{{1 << 33, 1<<33 + 50}}, false},
		{"version 2, 32-bit item ids", ilocPayload(2, 4, 4, 0, 0, []ilocItem{
			{id: 1<<20 + 7, extents: [][3]uint64{{0, 10, 10}}},
			{id: 7, extents: [][3]uint64{{0, 20, 5}}},
		}), []bmffSpan{{20, 25}}, false},
		{"in idat, and a length 0 to its end", ilocPayload(1, 4, 4, 0, 0, []ilocItem{
			{id: 7, method: 1, extents: [][3]uint64{{0, 10, 20}}},
			{id: 9, method: 1, extents: [][3]uint64{{0, 60, 0}}},
		}), []bmffSpan{{1010, 1030}, {1060, 1100}}, false},
		{"length 0 in the file: to its end", ilocPayload(1, 4, 0, 0, 0, []ilocItem{
			{id: 7, extents: [][3]uint64{{0, 8000, 0}}},
		}), []bmffSpan{{8000, math.MaxInt64}}, false},
		{"in another file: not here", ilocPayload(1, 4, 4, 0, 0, []ilocItem{
			{id: 7, ref: 1, extents: [][3]uint64{{0, 10, 20}}},
		}), nil, false},
		{"in another item: refused", ilocPayload(1, 4, 4, 0, 0, []ilocItem{
			{id: 7, method: 2, extents: [][3]uint64{{0, 10, 20}}},
		}), nil, true},
		{"cut short", ilocPayload(1, 4, 4, 0, 0, []ilocItem{{id: 7, extents: [][3]uint64{{0, 10, 20}}}})[:12], nil, true},
		{"a field size of 2", ilocPayload(1, 2, 4, 0, 0, nil), nil, true},
		{"version 3", ilocPayload(3, 4, 4, 0, 0, nil), nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bmffItemSpans(tt.iloc, meta, idat)
			if (err != nil) != tt.fails || !slices.Equal(got, tt.want) {
				t.Fatalf("%v, %v; want %v (an error: %v)", got, err, tt.want, tt.fails)
			}
		})
	}
}

func TestItemInfoNamesTheMetadataItems(t *testing.T) {
	infe := func(version byte, id uint32, typ string, rest ...string) []byte {
		var b []byte
		if version == 3 {
			b = imagemetatest.U32(id)
		} else {
			b = imagemetatest.U16(uint16(id))
		}
		b = append(b, imagemetatest.U16(0)...)
		if version >= 2 {
			b = append(b, typ...)
		}
		for _, s := range rest {
			b = append(b, imagemetatest.CString(s)...)
		}
		return imagemetatest.BMFFFullBox("infe", version, 0, b)
	}
	iinf := func(version byte, entries ...[]byte) []byte {
		b := []byte{version, 0, 0, 0}
		if version == 0 {
			b = append(b, imagemetatest.U16(uint16(len(entries)))...)
		} else {
			b = append(b, imagemetatest.U32(uint32(len(entries)))...)
		}
		for _, e := range entries {
			b = append(b, e...)
		}
		return b
	}
	got, ok := bmffMetadataIDs(iinf(1,
		infe(0, 1, "", "picture", "image/jpeg"),
		infe(1, 2, "", "xmp", "application/rdf+xml", ""),
		infe(2, 3, "hvc1", ""),
		infe(2, 4, "Exif", ""),
		infe(2, 5, "mime", "", "application/octet-stream"),
		infe(2, 6, "uri ", "", "urn:example"),
		infe(3, 1<<20, "Exif", ""),
		infe(3, 8, "grid", ""),
		infe(2, 9, "tmap", ""),
	))
	want := map[uint32]bool{2: true, 4: true, 5: true, 6: true, 1 << 20: true}
	if !ok || !maps.Equal(got, want) {
		t.Fatalf("%v, %v; want %v", got, ok, want)
	}
	if _, ok := bmffMetadataIDs(iinf(0, infe(2, 4, "Exif", ""))[:5]); ok {
		t.Error("an iinf cut inside its count parsed")
	}
}

// An MP4 audio file keeps its tags (title, artist, cover): they are the
// record's, not where or on what it was made, and it is neither a picture
// nor a movie; the same boxes in a movie are blanked.
func TestStrippingLeavesMP4AudioAsSent(t *testing.T) {
	tags := imagemetatest.BMFFBox("udta", imagemetatest.BMFFBox("meta", imagemetatest.U32(0), imagemetatest.BMFFBox("ilst", imagemetatest.BMFFBox("\xa9nam", imagemetatest.BMFFBox("data", imagemetatest.U32(1), imagemetatest.U32(0), []byte("A Song"))))))
	moov := imagemetatest.BMFFBox("moov", imagemetatest.BMFFBox("mvhd", make([]byte, 100)), tags)
	for _, tt := range []struct {
		major string
		same  bool
	}{
		{"M4A ", true},
		{"M4B ", true},
		{"mp42", false},
	} {
		in := slices.Concat(imagemetatest.BMFFBox("ftyp", []byte(tt.major), imagemetatest.U32(0), []byte(tt.major+"isom")), moov, imagemetatest.BMFFBox("mdat", imagemetatest.Payload(64, 1)))
		out := strip(t, bytes.NewReader(in))
		if got := bytes.Equal(out, in); got != tt.same {
			t.Errorf("%q: stored as sent = %v, want %v", tt.major, got, tt.same)
		}
		if len(out) != len(in) {
			t.Errorf("%q: %d bytes stored of %d", tt.major, len(out), len(in))
		}
	}
}
