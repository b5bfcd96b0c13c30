package filehost

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"folio/filehost/imagemeta"
	"folio/httpx/httpxtest"
)

func TestThumbnailsFitIn400KeepingAspect(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		tests := []struct {
			name     string
			file     string
			content  []byte
			wantType string
			w, h     int
		}{
			{"wide png", "a.png", pngBytes(t, 1000, 500), "image/png", 400, 200},
			{"tall jpeg", "b.jpg", jpegBytes(t, 300, 600), "image/jpeg", 200, 400},
			{"small gif is not enlarged", "c.gif", gifBytes(t, 50, 40), "image/png", 50, 40},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				u := mustUpload(t, c, tc.file, tc.content)
				if !strings.HasSuffix(u.Links.ThumbnailURL, "/t/"+u.hash()) {
					t.Fatalf("thumbnail_url %q", u.Links.ThumbnailURL)
				}
				for i := 0; i < 2; i++ { // made once, then served from the cache
					r := e.c.Do("GET", "/t/"+u.hash(), nil).Expect(200)
					if r.Header.Get("Content-Type") != tc.wantType {
						t.Fatalf("type %q", r.Header.Get("Content-Type"))
					}
					var cfg image.Config
					var err error
					if tc.wantType == "image/png" {
						cfg, err = png.DecodeConfig(bytes.NewReader(r.Body))
					} else {
						cfg, err = jpeg.DecodeConfig(bytes.NewReader(r.Body))
					}
					if err != nil || cfg.Width != tc.w || cfg.Height != tc.h {
						t.Fatalf("thumbnail %dx%d (%v), want %dx%d", cfg.Width, cfg.Height, err, tc.w, tc.h)
					}
				}
			})
		}
		thumbs := e.storedThumbs()
		if thumbs != 3 {
			t.Fatalf("%d cached thumbnails, want 3", thumbs)
		}
	})
}

func TestNoThumbnailForOtherTypes(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	for _, f := range []struct {
		name    string
		content []byte
	}{{"a.pdf", pdfBytes}, {"a.svg", svgBytes}, {"a.mp4", mp4Bytes}} {
		u := mustUpload(t, c, f.name, f.content)
		if u.Links.ThumbnailURL != "" {
			t.Fatalf("%s: thumbnail_url %q", f.name, u.Links.ThumbnailURL)
		}
		e.c.Do("GET", "/t/"+u.hash(), nil).Expect(http.StatusNotFound)
	}
	// A corrupt PNG: no thumbnail, no 500.
	bad := append(pngBytes(t, 10, 10)[:40], 0, 1, 2, 3)
	u := mustUpload(t, c, "bad.png", bad)
	e.c.Do("GET", "/t/"+u.hash(), nil).Expect(http.StatusNotFound)

	// An image over the pixel limit offers no thumbnail_url at all.
	huge := pngBytes(t, 10, 10)
	binary.BigEndian.PutUint32(huge[16:], 8000)
	binary.BigEndian.PutUint32(huge[20:], 7000)
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	u = mustUpload(t, c, "huge.png", huge)
	if u.Links.ThumbnailURL != "" {
		t.Fatalf("56-megapixel PNG: thumbnail_url %q", u.Links.ThumbnailURL)
	}
	e.c.Do("GET", "/t/"+u.hash(), nil).Expect(http.StatusNotFound)
	var detail struct {
		Data struct {
			Links struct {
				ThumbnailURL *string `json:"thumbnail_url"`
			} `json:"links"`
		} `json:"data"`
	}
	if err := json.Unmarshal(c.Do("GET", "/api/v1/files/"+u.ID, nil).Expect(200).Body, &detail); err != nil ||
		detail.Data.Links.ThumbnailURL == nil || *detail.Data.Links.ThumbnailURL != "" {
		t.Fatalf("file detail thumbnail_url: %v (%v)", detail.Data.Links.ThumbnailURL, err)
	}
}

// exifJPEG puts an APP1 Exif segment with an orientation into a JPEG.
func exifJPEG(t *testing.T, orientation uint16, w, h int) []byte {
	t.Helper()
	src := jpegBytes(t, w, h)
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08")
	tiff = append(tiff, 0, 1) // one entry
	entry := make([]byte, 12)
	binary.BigEndian.PutUint16(entry[0:], 0x0112)
	binary.BigEndian.PutUint16(entry[2:], 3)
	binary.BigEndian.PutUint32(entry[4:], 1)
	binary.BigEndian.PutUint16(entry[8:], orientation)
	tiff = append(append(tiff, entry...), 0, 0, 0, 0)
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(seg)+2))
	out := append([]byte{}, src[:2]...)
	out = append(append(out, app1...), seg...)
	return append(out, src[2:]...)
}

func TestJPEGThumbnailHonoursEXIFOrientation(t *testing.T) {
	if got := imagemeta.JPEGOrientation(exifJPEG(t, 6, 8, 8)); got != 6 {
		t.Fatalf("orientation %d, want 6", got)
	}
	if got := imagemeta.JPEGOrientation(jpegBytes(t, 8, 8)); got != 1 {
		t.Fatalf("orientation without EXIF %d, want 1", got)
	}
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "rotated.jpg", exifJPEG(t, 6, 600, 300))
	r := e.c.Do("GET", "/t/"+u.hash(), nil).Expect(200)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
	if err != nil || cfg.Width != 200 || cfg.Height != 400 {
		t.Fatalf("rotated thumbnail %dx%d (%v), want 200x400", cfg.Width, cfg.Height, err)
	}
}

func TestOnlySoundRasterImagesGetThumbnails(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mimetype string
		w, h     int
		want     bool
	}{
		{"jpeg", "image/jpeg", 800, 600, true},
		{"png", "image/png", 1, 1, true},
		{"gif", "image/gif", 10, 10, true},
		{"webp", "image/webp", 10, 10, true},
		{"svg", "image/svg+xml", 10, 10, false},
		{"unknown size", "image/png", 0, 0, false},
		{"at the pixel limit", "image/png", 10_000, 5_000, true},
		{"above the pixel limit", "image/png", 10_000, 5_001, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := canThumbnail(tt.mimetype, tt.w, tt.h); got != tt.want {
				t.Fatalf("canThumbnail(%q, %d, %d) = %v, want %v", tt.mimetype, tt.w, tt.h, got, tt.want)
			}
		})
	}
}

func TestScaleToFitKeepsTheAspectAndNeverEnlarges(t *testing.T) {
	for _, tt := range []struct {
		name         string
		w, h         int
		wantW, wantH int
	}{
		{"landscape", 800, 600, 400, 300},
		{"portrait", 600, 1200, 200, 400},
		{"small stays", 120, 80, 120, 80},
		{"thin line keeps a pixel", 4000, 2, 400, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := scaleToFit(image.NewRGBA(image.Rect(0, 0, tt.w, tt.h)), thumbMax).Bounds()
			if b.Dx() != tt.wantW || b.Dy() != tt.wantH {
				t.Fatalf("%dx%d scaled to %dx%d, want %dx%d", tt.w, tt.h, b.Dx(), b.Dy(), tt.wantW, tt.wantH)
			}
		})
	}
}

func TestThumbnailKeyFollowsTheObjectAndFormat(t *testing.T) {
	for _, tt := range []struct {
		mimetype string
		want     string
	}{
		{"image/jpeg", "thumbs/obj.jpg"},
		{"image/webp", "thumbs/obj.jpg"},
		{"image/png", "thumbs/obj.png"},
		{"image/gif", "thumbs/obj.png"},
	} {
		t.Run(tt.mimetype, func(t *testing.T) {
			if got := thumbKey("obj", thumbJPEG(tt.mimetype)); got != tt.want {
				t.Fatalf("thumbKey for %s = %q, want %q", tt.mimetype, got, tt.want)
			}
		})
	}
}

func TestConcurrentFirstRequestsForAThumbnailAllGetIt(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		u := mustUpload(t, c, "big.png", pngBytes(t, 1600, 1200))
		const requests = 16
		answers := make([]*httpxtest.Response, requests)
		done := make(chan int)
		for i := range requests {
			go func() {
				answers[i] = e.c.Do("GET", "/t/"+u.hash(), nil)
				done <- i
			}()
		}
		for range requests {
			<-done
		}
		bodies := make([][]byte, requests)
		for i, a := range answers {
			bodies[i] = a.Expect(200).Body
		}
		for i, b := range bodies {
			if !bytes.Equal(b, bodies[0]) || len(b) == 0 {
				t.Fatalf("request %d got %d bytes, request 0 %d: one thumbnail, the same for all", i, len(b), len(bodies[0]))
			}
		}
		thumbs := e.storedThumbs()
		if thumbs != 1 {
			t.Fatalf("%d thumbnails stored, want 1", thumbs)
		}
	})
}

// storedThumbs counts the thumbnails in the store.
func (e *testEnv) storedThumbs() int {
	n := 0
	for _, f := range e.storedFiles() {
		if strings.HasPrefix(f, "thumbs/") {
			n++
		}
	}
	return n
}
