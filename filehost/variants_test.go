package filehost

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
	"folio/sqlstore/sqlstoretest"
	"folio/storage/storagetest"
)

// variantSource is an upload a variant is made of, with the size it is
// shown at (upright) and what its variants must be.
type variantSource struct {
	name, file string
	content    []byte
	w, h       int    // upright
	wantType   string // of its variants
	icc        bool   // its variants carry its profile
	animated   bool   // its variants are the original
}

// sidewaysPhoto is a w×h JPEG (as stored; shown h×w) whose Exif says
// orientation 6 and which carries an ICC profile: its top-left quarter
// is red, the rest blue, so that a turn shows where the red went.
func sidewaysPhoto(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{20, 40, 220, 255}
			if x < w/2 && y < h/2 {
				c = color.RGBA{220, 30, 20, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	icc, _ := testICC(t)
	b := imagemeta.JPEGWithICC(buf.Bytes(), icc)
	exif := imagemetatest.JPEGSegment(0xE1, "Exif\x00\x00"+string(imagemetatest.GPSTIFF(6)))
	return append(append(append([]byte{}, b[:2]...), exif...), b[2:]...)
}

// alphaPNG is a w×h PNG fading from opaque to transparent, with a profile.
func alphaPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), 120, uint8(y), uint8(255 * x / w)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	icc, _ := testICC(t)
	return imagemeta.PNGWithICC(buf.Bytes(), icc)
}

// animatedGIF is a w×h GIF of two frames.
func animatedGIF(t testing.TB, w, h int) []byte {
	g := &gif.GIF{}
	for i := range 2 {
		f := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		for j := range f.Pix {
			f.Pix[j] = uint8(i*40 + j%7)
		}
		g.Image = append(g.Image, f)
		g.Delay = append(g.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func variantSources(t testing.TB) []variantSource {
	icc, _ := testICC(t)
	return []variantSource{
		// Wider than the widest size once turned upright, and a strip like
		// the others: each of the ten sizes decodes and scales it again,
		// which under the race detector took some 30 s of CPU at 2592×1728
		// (docs/testing.md#keeping-ci-fast).
		{"JPEG, sideways, with a profile", "photo.jpg", sidewaysPhoto(t, 432, 2592), 2592, 432, "image/jpeg", true, false},
		{"PNG with alpha and a profile", "fade.png", alphaPNG(t, 2600, 60), 2600, 60, "image/png", true, false},
		{"GIF of one frame", "still.gif", gifBytes(t, 2600, 40), 2600, 40, "image/png", false, false},
		{"animated GIF", "moving.gif", animatedGIF(t, 400, 300), 400, 300, "", false, true},
		{"WebP with a profile", "flat.webp", imagemetatest.WebP(2600, 50, icc), 2600, 50, "image/jpeg", true, false},
	}
}

// identifyPath is ImageMagick's identify; without it the test skips,
// except in CI, where .ci/run installs it.
func identifyPath(t *testing.T) string {
	p, err := exec.LookPath("identify")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("identify (ImageMagick) is missing")
		}
		t.Skip("identify (ImageMagick) is not installed")
	}
	return p
}

// identify reports a file's width, height, orientation and the profiles
// it holds, as ImageMagick reads them: "160 120 Undefined [icc]".
func identify(t *testing.T, tool string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-verbose", path).CombinedOutput()
	if err != nil {
		t.Fatalf("identify: %v: %s", err, out)
	}
	var geometry, orientation string
	var profiles []string
	for line := range strings.Lines(string(out)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		v = strings.TrimSpace(v)
		switch {
		case k == "Geometry":
			geometry = strings.Replace(strings.TrimSuffix(v, "+0+0"), "x", " ", 1)
		case k == "Orientation":
			orientation = v
		case strings.HasPrefix(k, "Profile-"):
			profiles = append(profiles, strings.TrimPrefix(k, "Profile-"))
		case strings.Contains(line, "warning"):
			t.Fatalf("identify warns: %s", line)
		}
	}
	return geometry + " " + orientation + " [" + strings.Join(profiles, ",") + "]"
}

// testICC is a real colour profile when the system has one (libpng
// refuses the small one imagemetatest makes), else that one.
func testICC(t testing.TB) ([]byte, bool) {
	if b, err := os.ReadFile("/usr/share/color/icc/ghostscript/srgb.icc"); err == nil {
		return b, true
	}
	return imagemetatest.ICC(), false
}

func TestVariantsOfEachSourceAtEveryWidth(t *testing.T) {
	tool := identifyPath(t)
	icc, realICC := testICC(t)
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		for _, src := range variantSources(t) {
			t.Run(src.name, func(t *testing.T) {
				u := mustUpload(t, c, src.file, src.content)
				original := e.c.Do("GET", "/i/"+u.hash(), nil).Expect(200).Body
				for _, n := range variantWidths {
					r := e.c.Do("GET", "/i/"+u.hash()+"?w="+strconv.Itoa(n), nil).Expect(200)
					if src.animated || n >= src.w {
						if !bytes.Equal(r.Body, original) || r.Header.Get("ETag") != `"`+u.MD5+`"` {
							t.Fatalf("w=%d: not the original (%d bytes, ETag %s)", n, len(r.Body), r.Header.Get("ETag"))
						}
						continue
					}
					if got := r.Header.Get("Content-Type"); got != src.wantType {
						t.Fatalf("w=%d: type %q, want %q", n, got, src.wantType)
					}
					wantH := variantHeight(src.w, src.h, n)
					profiles := ""
					if src.icc && realICC {
						profiles = "icc"
					}
					got := identify(t, tool, r.Body)
					fields := strings.Fields(got)
					if len(fields) != 4 || fields[0] != strconv.Itoa(n) || fields[1] != strconv.Itoa(wantH) ||
						(fields[2] != "Undefined" && fields[2] != "TopLeft") || fields[3] != "["+profiles+"]" {
						t.Fatalf("w=%d: identify says %q, want %d %d upright [%s]", n, got, n, wantH, profiles)
					}
					if src.icc && !bytes.Equal(imagemeta.ICCProfile(r.Body), icc) {
						t.Fatalf("w=%d: the profile changed", n)
					}
					if src.file == "photo.jpg" {
						checkTurned(t, r.Body)
					}
				}
			})
		}
	})
}

// checkTurned checks a variant of sidewaysPhoto is turned upright: the
// red quarter, top-left as stored, is shown top-right.
func checkTurned(t *testing.T, b []byte) {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	red := func(x, y int) bool {
		r, _, bl, _ := img.At(x, y).RGBA()
		return r > bl
	}
	if !red(bd.Dx()*3/4, bd.Dy()/4) || red(bd.Dx()/4, bd.Dy()/4) || red(bd.Dx()*3/4, bd.Dy()*3/4) {
		t.Fatalf("the %dx%d variant is not turned by orientation 6", bd.Dx(), bd.Dy())
	}
}

func TestVariantWidthsOtherThanTheListedOnesAreRefused(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.png", pngBytes(t, 900, 600))
	for _, q := range []string{"w=", "w=abc", "w=0", "w=-320", "w=641", "w=320&w=640", "w=0320", "w=+320", "w=%20320"} {
		t.Run(q, func(t *testing.T) {
			r := e.c.Do("GET", "/i/"+u.hash()+"?"+q, nil).Expect(http.StatusBadRequest)
			if a := r.A(); !strings.Contains(a.Message, "160, 320") {
				t.Fatalf("message %q", a.Message)
			}
			page := e.c.Do("GET", "/i/"+u.hash()+"?"+q, nil, "Accept", "text/html").Expect(http.StatusBadRequest)
			if !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page.Body), "160, 320") {
				t.Fatalf("HTML answer %q: %.200s", page.Header.Get("Content-Type"), page.Body)
			}
		})
	}
	// Other parameters are ignored; a bad width on a missing link is a miss;
	// the other prefixes have no sizes.
	e.c.Do("GET", "/i/"+u.hash()+"?v=3&w=320", nil).Expect(200)
	e.c.Do("GET", "/i/"+u.hash()+".png?w=320", nil).Expect(200)
	e.c.Do("GET", "/i/0123456789abcdef?w=abc", nil).Expect(http.StatusNotFound)
	e.c.Do("GET", "/f/"+u.hash()+"?w=abc", nil).Expect(200)
}

func TestConcurrentFirstRequestsForAVariantDecodeOnce(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.jpg", jpegBytes(t, 1600, 1200))
	before := e.svc.thumbs.decodes.Load()
	const n = 12
	bodies := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			bodies[i] = e.c.Clone().Do("GET", "/i/"+u.hash()+"?w=640", nil).Expect(200).Body
		})
	}
	wg.Wait()
	if d := e.svc.thumbs.decodes.Load() - before; d != 1 {
		t.Fatalf("%d concurrent first requests decoded the source %d times, want once", n, d)
	}
	for _, b := range bodies[1:] {
		if !bytes.Equal(b, bodies[0]) {
			t.Fatal("the requests got different variants")
		}
	}
}

func TestVariantHeadersValidatorsAndRanges(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.jpg", jpegBytes(t, 1000, 500))
	path := "/i/" + u.hash() + "?w=320"
	r := e.c.Do("GET", path, nil).Expect(200)
	etag := `"w320-` + u.MD5 + `"`
	h := r.Header
	if h.Get("ETag") != etag || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Last-Modified") == "" ||
		h.Get("Cache-Control") != "public, max-age=31536000, immutable" || h.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("headers %v", h)
	}
	e.c.Do("GET", path, nil, "If-None-Match", etag).Expect(http.StatusNotModified)
	e.c.Do("GET", "/i/"+u.hash(), nil, "If-None-Match", etag).Expect(200) // the original's ETag differs
	part := e.c.Do("GET", path, nil, "Range", "bytes=0-9").Expect(http.StatusPartialContent)
	if !bytes.Equal(part.Body, r.Body[:10]) {
		t.Fatal("the range is not the variant's first bytes")
	}
	head := e.c.Do("HEAD", path, nil).Expect(200)
	if len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(r.Body)) {
		t.Fatalf("HEAD: %d bytes, Content-Length %s", len(head.Body), head.Header.Get("Content-Length"))
	}
}

func TestARestrictedFilesVariantIsAMissToOthers(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "secret.png", pngBytes(t, 900, 600), "visibility", "restricted")
	path := "/i/" + u.hash() + "?w=320"
	e.c.Do("GET", path, nil).Expect(http.StatusNotFound)
	e.c.Do("GET", "/i/"+u.hash()+"?w=abc", nil).Expect(http.StatusNotFound)
	r := alice.Do("GET", path, nil).Expect(200)
	if r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
}

func TestVariantsAreCountedCheckedAndDeletedWithTheirObject(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		u := mustUpload(t, c, "a.jpg", jpegBytes(t, 1000, 700))
		var sizes int
		for _, n := range []int{320, 640} {
			sizes += len(e.c.Do("GET", "/i/"+u.hash()+"?w="+strconv.Itoa(n), nil).Expect(200).Body)
		}
		id, _ := e.objectOf(u.ID)
		keys := []string{variantKey(id, 320, true), variantKey(id, 640, true)}
		for _, k := range keys {
			if !e.stored(k) {
				t.Fatalf("%s is not stored", k)
			}
		}
		var stats struct {
			VariantBytes int `json:"variant_bytes"`
		}
		acctOK(t, e.admin.Do("GET", "/api/v1/admin/stats", nil), 200, &stats)
		if stats.VariantBytes != sizes {
			t.Fatalf("variant_bytes %d, want %d", stats.VariantBytes, sizes)
		}
		if r := e.check(CheckOptions{}); r.Problems != 0 {
			t.Fatalf("check finds %+v", r)
		}
		var backed []string
		BackupKeys(context.Background(), e.db, func(key string, thumb bool) error {
			if thumb {
				backed = append(backed, key)
			}
			return nil
		})
		if !strings.Contains(strings.Join(backed, " "), strings.Join(keys, " ")) {
			t.Fatalf("backup's optional keys %v lack %v", backed, keys)
		}
		c.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(200)
		for _, k := range keys {
			if e.stored(k) {
				t.Fatalf("%s outlived its object", k)
			}
		}
		var rows int
		e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM image_variants").Scan(&rows)
		if rows != 0 || len(e.intents()) != 0 {
			t.Fatalf("%d variant rows, intents %v left", rows, e.intents())
		}
	})
}

func TestAnUploadGetsItsThumbnailAndFirstSizesInTheBackground(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); e.svc.RunImageJobs(ctx) }()
		t.Cleanup(func() { stop(); <-done })
		_, c := e.newUser("alice", 0)
		u := mustUpload(t, c, "a.jpg", jpegBytes(t, 1000, 700))
		other := mustUpload(t, c, "a.pdf", pdfBytes)
		id, _ := e.objectOf(u.ID)
		want := []string{thumbKey(id, true), variantKey(id, 320, true), variantKey(id, 640, true), variantKey(id, 960, true)}
		deadline := time.Now().Add(20 * time.Second)
		for _, k := range want {
			for !e.stored(k) {
				if time.Now().After(deadline) {
					t.Fatalf("%s was not made in the background; stored: %v", k, e.storedKeys())
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		if e.stored(variantKey(id, 1280, true)) {
			t.Fatal("a variant as wide as the original was made")
		}
		pdfID, _ := e.objectOf(other.ID)
		for _, k := range e.storedKeys() {
			if strings.Contains(k, pdfID) && strings.HasPrefix(k, thumbDir+"/") {
				t.Fatalf("%s made for a PDF", k)
			}
		}
	})
}

func TestRedirectModeSendsAVariantsPresignedURL(t *testing.T) {
	e := newTestEnvStore(t, sqlstoretest.Open(t), storagetest.S3(t), func(d *Deps) { d.Redirect = true })
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.jpg", jpegBytes(t, 900, 600))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(e.c.Base + "/i/" + u.hash() + "?w=640")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("%d, want a redirect", resp.StatusCode)
	}
	got, err := http.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	cfg, err := jpeg.DecodeConfig(got.Body)
	if err != nil || cfg.Width != 640 || cfg.Height != 427 {
		t.Fatalf("presigned GET: %dx%d (%v), want 640x427", cfg.Width, cfg.Height, err)
	}
}

func TestASidewaysPhotoIsAsWideAsItIsShown(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "a.jpg", sidewaysPhoto(t, 1000, 600)) // shown 600×1000
	original := e.c.Do("GET", "/i/"+u.hash(), nil).Expect(200).Body
	before := e.svc.thumbs.decodes.Load()
	if b := e.c.Do("GET", "/i/"+u.hash()+"?w=800", nil).Expect(200).Body; !bytes.Equal(b, original) {
		t.Fatal("w=800 of a photo shown 600 wide is not the original")
	}
	if d := e.svc.thumbs.decodes.Load() - before; d != 0 {
		t.Fatalf("answering with the original decoded the photo %d times", d)
	}
	r := e.c.Do("GET", "/i/"+u.hash()+"?w=480", nil).Expect(200)
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body)); err != nil || cfg.Width != 480 || cfg.Height != 800 {
		t.Fatalf("w=480: %dx%d (%v), want 480x800", cfg.Width, cfg.Height, err)
	}
	checkTurned(t, r.Body)
}
