package filehost

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
)

// Stripping end to end: what an upload with strip_metadata on stores,
// serves and describes (docs/filehost.md#metadata-stripping), for the files
// imagemetatest makes; the stripper alone is tested in filehost/imagemeta.

// strip is what the stripper yields for r, read whole.
func strip(t testing.TB, r io.Reader) []byte {
	t.Helper()
	return imagemetatest.ReadAll(t, imagemeta.NewStripReader(r))
}

func TestStrippedUploadsDescribeTheStoredBytes(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	for _, tt := range []struct {
		name string
		file []byte
	}{
		{"photo.jpg", imagemetatest.MetaJPEG(t)},
		{"shot.png", imagemetatest.MetaPNG(t)},
		{"pic.webp", imagemetatest.MetaWebP(t)},
		{"anim.gif", imagemetatest.MetaGIF(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := mustUpload(t, c, tt.name, tt.file)
			res := c.Do("GET", u.path(), nil).Expect(http.StatusOK)
			want := strip(t, bytes.NewReader(tt.file))
			if !bytes.Equal(res.Body, want) {
				t.Fatalf("served %d bytes, want the %d stripped bytes", len(res.Body), len(want))
			}
			sum := md5.Sum(res.Body)
			if u.MD5 != hex.EncodeToString(sum[:]) || res.Header.Get("ETag") != `"`+u.MD5+`"` {
				t.Errorf("md5 %s, ETag %s; the served bytes' md5 is %x", u.MD5, res.Header.Get("ETag"), sum)
			}
			if u.Size != int64(len(res.Body)) {
				t.Errorf("size %d, served %d", u.Size, len(res.Body))
			}
			// The stripped bytes are the same content: dedup shares them.
			if again := mustUpload(t, c, "again-"+tt.name, res.Body); again.Links.URL != u.Links.URL {
				t.Errorf("the stripped file uploaded again got %s, want %s", again.Links.URL, u.Links.URL)
			}
		})
	}

	t.Run("off", func(t *testing.T) {
		e.setUpload(func(u *UploadSettings) { u.StripMetadata = false })
		in := imagemetatest.MetaJPEG(t)
		in[len(in)-3] ^= 0x01 // other content than above
		u := mustUpload(t, c, "kept.jpg", in)
		if got := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(got, in) {
			t.Fatal("with strip_metadata off the file must be stored as sent")
		}
	})
}

// An upload's stripper buffer is sized to its body (bufferSize): at least
// as large as the file, it must strip exactly as the full buffer does,
// also for files cut short.
func TestStrippingWithABufferSizedToTheFile(t *testing.T) {
	files := map[string][]byte{"jpeg": imagemetatest.MetaJPEG(t), "png": imagemetatest.MetaPNG(t), "webp": imagemetatest.MetaWebP(t), "gif": imagemetatest.MetaGIF(t)}
	for name, full := range files {
		for _, n := range []int{len(full), len(full) / 2, 20, 3} {
			data := full[:n]
			t.Run(fmt.Sprintf("%s of %d bytes", name, n), func(t *testing.T) {
				want := strip(t, bytes.NewReader(data))
				got, err := io.ReadAll(imagemeta.NewStripReaderSize(bytes.NewReader(data), bufferSize(int64(len(data)), imagemeta.StripBufferSize)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%d bytes with a sized buffer, %d with the full one", len(got), len(want))
				}
			})
		}
	}
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
	tags := imagemetatest.ExiftoolTags(t, "photo.jpg", b)
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
	return imagemetatest.ExiftoolRun(t, "photo.jpg", b, "-b", "-ICC_Profile")
}

func TestUploadedCameraPhotosKeepNothingIdentifying(t *testing.T) {
	imagemetatest.ExiftoolPath(t)
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	hdr, gainMap := imagemetatest.UltraHDR(t)
	for _, tt := range []struct {
		name        string
		in          []byte
		before      []string // tags exiftool finds in the file as sent
		orientation int
		check       func(t *testing.T, out []byte, tags map[string]any)
	}{
		{"gopro.jpg", imagemetatest.GoProJPEG(t), []string{"IFD0:Make", "ExifIFD:SerialNumber", "GoPro:CameraSerialNumber", "GPS:GPSLatitude", "IFD1:ThumbnailImage"}, 1, nil},
		{"canon.jpg", imagemetatest.CanonJPEG(t), []string{"CIFF:OwnerName", "CIFF:OriginalFileName", "CIFF:Make", "JFXX:ThumbnailImage", "FlashPix:PreviewImage", "JFIF:ThumbnailTIFF", "File:Comment"}, 8, nil},
		{"ultrahdr.jpg", hdr, []string{"IFD0:Model", "GPS:GPSLatitude", "XMP-photoshop:City", "MPF0:NumberOfImages", "XMP-Container:DirectoryItemSemantic"}, 6,
			func(t *testing.T, out []byte, tags map[string]any) {
				if !bytes.Equal(iccOf(t, out), iccOf(t, hdr)) {
					t.Errorf("the ICC profile changed")
				}
				if !bytes.Contains(out, []byte(imagemetatest.ISOGainMapVersion)) {
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
				if extracted := imagemetatest.ExiftoolRun(t, "photo.jpg", out, "-b", "-MPImage2"); !bytes.Equal(extracted, gm) {
					t.Fatalf("exiftool extracts %d bytes as the gain map, the MPF index gives %d", len(extracted), len(gm))
				}
				imagemetatest.SamePixels(t, jpeg.Decode, gainMap, gm)
				gmTags := checkNothingIdentifying(t, gm)
				if gmTags["XMP-hdrgm:GainMapMax"] != 2.3 || gmTags["XMP-hdrgm:Version"] == nil {
					t.Errorf("the gain map's parameters: %v", gmTags)
				}
				if !bytes.Contains(gm, []byte(imagemetatest.ISOGainMapID+"\x00\x00\x00\x00\x00\x00\x00\x02")) {
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
			before := imagemetatest.ExiftoolTags(t, "photo.jpg", tt.in)
			for _, k := range tt.before {
				if before[k] == nil {
					t.Fatalf("exiftool finds no %s in the file as sent: not shaped as the camera's", k)
				}
			}
			u := mustUpload(t, c, tt.name, tt.in)
			out := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body
			tags := checkNothingIdentifying(t, out)
			imagemetatest.SamePixels(t, jpeg.Decode, tt.in, out)
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

// A picture whose metadata the one pass cannot blank is refused whole
// through the API, and stored as sent with strip_metadata off.
func TestUploadsRefuseHEIFMetadataTheStripperCannotReach(t *testing.T) {
	before := imagemetatest.ExifBeforeMetaHEIC()
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	expectUploadError(t, c.Upload("/api/v1/upload", "file", "odd.heic", before.Data), http.StatusBadRequest, 40000)
	if e.count("SELECT COUNT(*) FROM files") != 0 || len(e.storedKeys()) != 0 {
		t.Fatal("a refused upload left a file or a row")
	}
	e.setUpload(func(u *UploadSettings) { u.StripMetadata = false })
	u := mustUpload(t, c, "odd.heic", before.Data)
	if got := c.Do("GET", u.path(), nil).Expect(http.StatusOK).Body; !bytes.Equal(got, before.Data) {
		t.Fatal("with strip_metadata off the file must be stored as sent")
	}
}

func TestHEIFAndMovieUploadsAreTypedServedAndStripped(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	heic := imagemetatest.IPhoneHEIC().Data
	for _, tt := range []struct {
		name, mimetype, ext, prefix string
		file                        imagemetatest.BMFFFile
	}{
		{"IMG_0001.HEIC", "image/heic", "heic", "/i/", imagemetatest.IPhoneHEIC()},
		{"no-extension", "image/heic", "heic", "/i/", imagemetatest.BMFFFile{Data: append(slices.Clone(heic), 0)}},
		{"pic.avif", "image/avif", "avif", "/i/", imagemetatest.ExifInIdatAVIF()},
		{"clip.mp4", "video/mp4", "mp4", "/v/", imagemetatest.PhoneMovie(false)},
		{"IMG_0002.MOV", "video/quicktime", "mov", "/v/", imagemetatest.PhoneMovie(true)},
		{"old-quicktime", "video/quicktime", "mov", "/v/", imagemetatest.OldQuickTime()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := mustUpload(t, c, tt.name, tt.file.Data)
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
			if !bytes.Equal(res.Body, strip(t, bytes.NewReader(tt.file.Data))) {
				t.Error("the served bytes are not the stripped ones")
			}
			c.Do("GET", "/t/"+u.hash(), nil).Expect(http.StatusNotFound)
		})
	}
}

func TestBMFFBrandsNameTheType(t *testing.T) {
	ftyp := func(major string, compat ...string) []byte {
		return imagemetatest.BMFFBox("ftyp", []byte(major), imagemetatest.U32(0), []byte(strings.Join(compat, "")))
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
		{imagemetatest.OldQuickTime().Data[:16], "video/quicktime"},
		{[]byte("\x00\x00\x00\x08wide\x00\x00\x10\x00mdat"), "video/quicktime"},
		{[]byte("abcdmoov is a word in this text"), "text/plain"},
		{[]byte("\x00\x00\x00\x04moov\x00\x00\x00\x00"), "application/octet-stream"},
	} {
		if got := detectMIME(tt.head, ""); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.head[8:], got, tt.want)
		}
	}
}
