package filehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// bmffExiftool returns the path of exiftool (Debian package
// libimage-exiftool-perl), the outside parser that knows HEIF and
// QuickTime. Under CI=true its absence fails the test.
func bmffExiftool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("exiftool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("exiftool is not installed (apt-get install libimage-exiftool-perl); CI needs it")
		}
		t.Skip("exiftool is not installed (apt-get install libimage-exiftool-perl): skipping the outside check")
	}
	return p
}

// exiftoolTags is every tag exiftool reads from data, embedded and unknown
// ones included, keyed "Group:Name".
func exiftoolTags(t *testing.T, tool string, name string, data []byte) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-j", "-a", "-G1", "-ee", "-u", "-n", path).Output()
	if err != nil {
		t.Fatalf("exiftool: %v", err)
	}
	var tags []map[string]any
	if err := json.Unmarshal(out, &tags); err != nil || len(tags) != 1 {
		t.Fatalf("exiftool's output %q: %v", out, err)
	}
	return tags[0]
}

// identifying lists the tags that tell where, when, on what or by whom a
// file was made; what exiftool reports of the file itself (its name, size
// and times on disk) is not among them.
func identifying(tags map[string]any) []string {
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
		for _, secret := range bmffSecrets {
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
		file bmffFile
	}{
		{"iPhone HEIC.heic", iPhoneHEIC()},
		{"AVIF with Exif in idat.avif", exifInIdatAVIF()},
		{"MP4 with moov last.mp4", phoneMovie(false)},
		{"MOV with moov first.mov", phoneMovie(true)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.file.data
			out := strip(t, bytes.NewReader(in))
			if len(out) != len(in) {
				t.Fatalf("%d bytes in, %d out: blanking keeps every offset", len(in), len(out))
			}
			if want := tt.file.want(); !bytes.Equal(out, want) {
				for i := range out {
					if out[i] != want[i] {
						t.Fatalf("first difference from the expected output at %d: %#x, want %#x", i, out[i], want[i])
					}
				}
			}
			present := 0
			for _, secret := range bmffSecrets {
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
			c := tt.file.coded
			if !bytes.Equal(out[c.start:c.end], in[c.start:c.end]) {
				t.Error("the coded picture or samples changed")
			}
			checkBoxesIntact(t, in, out)
			for name, r := range map[string]io.Reader{
				"one byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
				"half reads":         iotest.HalfReader(bytes.NewReader(in)),
				"EOF with the data":  iotest.DataErrReader(bytes.NewReader(in)),
			} {
				if got := strip(t, r); !bytes.Equal(got, out) {
					t.Errorf("%s: output differs", name)
				}
			}
			for _, size := range []int{16, 100, len(in)} {
				got, err := io.ReadAll(newStripReaderSize(bytes.NewReader(in), size))
				if err != nil || !bytes.Equal(got, out) {
					t.Errorf("a %d-byte buffer: %d bytes, %v", size, len(got), err)
				}
			}
			if again := strip(t, bytes.NewReader(out)); !bytes.Equal(again, out) {
				t.Error("stripping the stripped file changed it")
			}

			tool := bmffExiftool(t)
			if found := identifying(exiftoolTags(t, tool, tt.name, in)); len(found) < 3 {
				t.Fatalf("exiftool reads too little from the made file for the check to mean anything: %v", found)
			}
			if found := identifying(exiftoolTags(t, tool, tt.name, out)); len(found) > 0 {
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
		chunk := int(be.Uint32(out[at+12:]))
		if !bytes.Equal(in[at:at+16], out[at:at+16]) || !bytes.Equal(out[chunk:chunk+64], in[chunk:chunk+64]) {
			t.Error("the chunk offset moved or its samples changed")
		}
	}
}

func TestStrippingRefusesHEIFMetadataItCannotReach(t *testing.T) {
	before := heifFile([]string{"heic", "mif1", "heic"}, bmffBox("hvcC", make([]byte, 23)), []heifItem{
		{typ: "hvc1", data: bmffPayloadBytes(300, 1)},
		{typ: "Exif", data: heifExif()},
	}, true)
	heic := iPhoneHEIC().data
	huge := append(slices.Clone(heic[:be.Uint32(heic)]), u32(bmffMaxMeta+1)...)
	huge = append(huge, "meta\x00\x00\x00\x00"...)
	huge = append(huge, make([]byte, 1000)...)
	for _, tt := range []struct {
		name string
		in   []byte
		msg  string
	}{
		{"Exif before meta", before.data, "before the meta box"},
		{"a meta box over 16 MiB", huge, "larger than 16 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !isBMFF(tt.in) || !bytes.Contains(tt.in, []byte("meta")) {
				t.Fatal("not the file meant")
			}
			_, err := io.ReadAll(newStripReader(bytes.NewReader(tt.in)))
			var ii *invalidInput
			if !errors.As(err, &ii) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want a refusal saying %q", err, tt.msg)
			}
		})
	}
	t.Run("through the API", func(t *testing.T) {
		e := newTestEnv(t)
		_, c := e.newUser("alice", 0)
		expectUploadError(t, c.Upload("/api/v1/upload", "file", "odd.heic", before.data), http.StatusBadRequest, 40000)
		if e.count("SELECT COUNT(*) FROM files") != 0 || len(e.storedKeys()) != 0 {
			t.Fatal("a refused upload left a file or a row")
		}
		e.setUpload(func(u *UploadSettings) { u.StripMetadata = false })
		u := mustUpload(t, c, "odd.heic", before.data)
		if got := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(got, before.data) {
			t.Fatal("with strip_metadata off the file must be stored as sent")
		}
	})
}

func TestStrippingKeepsBrokenBMFFAsSentButFreesBrokenContainers(t *testing.T) {
	heic := iPhoneHEIC().data
	ftyp := int(be.Uint32(heic))
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"ftyp only", heic[:ftyp]},
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
		in := phoneMovie(true).data
		at := bytes.Index(in, []byte("\xa9mak")) - 4
		be.PutUint32(in[at:], 0x7fffffff)
		out := strip(t, bytes.NewReader(in))
		udta := bytes.LastIndex(in[:at], []byte("udta")) - 4
		end := udta + int(be.Uint32(in[udta:]))
		want := append(u32(uint32(end-at)), "free"...)
		want = append(want, make([]byte, end-at-8)...)
		if len(out) != len(in) || !bytes.Equal(out[at:end], want) || !bytes.Equal(out[end:end+4], in[end:end+4]) {
			t.Fatal("the rest of the udta box is not one free box, or more than it")
		}
	})
}

func TestHEIFAndMovieUploadsAreTypedServedAndStripped(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	heic := iPhoneHEIC().data
	for _, tt := range []struct {
		name, mimetype, ext, prefix string
		file                        bmffFile
	}{
		{"IMG_0001.HEIC", "image/heic", "heic", "/i/", iPhoneHEIC()},
		{"no-extension", "image/heic", "heic", "/i/", bmffFile{data: append(slices.Clone(heic), 0)}},
		{"pic.avif", "image/avif", "avif", "/i/", exifInIdatAVIF()},
		{"clip.mp4", "video/mp4", "mp4", "/v/", phoneMovie(false)},
		{"IMG_0002.MOV", "video/quicktime", "mov", "/v/", phoneMovie(true)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := mustUpload(t, c, tt.name, tt.file.data)
			if u.Mimetype != tt.mimetype || u.Extension != tt.ext || !strings.Contains(u.Links.URL, tt.prefix) {
				t.Errorf("%s, .%s, %s; want %s, .%s under %s", u.Mimetype, u.Extension, u.Links.URL, tt.mimetype, tt.ext, tt.prefix)
			}
			if u.Links.ThumbnailURL != "" {
				t.Errorf("thumbnail_url %q: no thumbnail can be made of it", u.Links.ThumbnailURL)
			}
			res := c.Do("GET", u.path(), nil).Expect(http.StatusOK)
			if res.Header.Get("Content-Type") != tt.mimetype || res.Header.Get("Content-Security-Policy") != "" {
				t.Errorf("served as %q with CSP %q", res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy"))
			}
			if !bytes.Equal(res.Body, strip(t, bytes.NewReader(tt.file.data))) {
				t.Error("the served bytes are not the stripped ones")
			}
			c.Do("GET", "/t/"+u.hash(), nil).Expect(http.StatusNotFound)
		})
	}
}

func TestBMFFBrandsNameTheType(t *testing.T) {
	ftyp := func(major string, compat ...string) []byte {
		return bmffBox("ftyp", []byte(major), u32(0), []byte(strings.Join(compat, "")))
	}
	for _, tt := range []struct {
		head []byte
		want string
	}{
		{ftyp("heic", "mif1", "MiHE", "miaf", "MiHB", "heic"), "image/heic"},
		{ftyp("mif1", "mif1", "heic"), "image/heic"},
		{ftyp("mif1", "mif1", "miaf"), "image/heif"},
		{ftyp("avif", "avif", "mif1", "miaf"), "image/avif"},
		{ftyp("avis", "avis", "msf1", "avif"), "image/avif"},
		{ftyp("msf1", "msf1", "hevc"), "image/heic-sequence"},
		{ftyp("qt  ", "qt  "), "video/quicktime"},
		{ftyp("3gp4", "isom", "3gp4"), "video/3gpp"},
		{ftyp("3g2a", "3g2a"), "video/3gpp2"},
		{ftyp("isom", "isom", "3gp4", "mp41"), "video/mp4"},
		{ftyp("mp42", "isom", "mp42"), "video/mp4"},
	} {
		if got := detectMIME(tt.head, ""); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.head[8:], got, tt.want)
		}
	}
}
