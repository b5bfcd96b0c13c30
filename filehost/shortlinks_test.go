package filehost

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestShortLinkPrefixMustFitTheType(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	img := mustUpload(t, c, "a.png", pngBytes(t, 5, 5)).hash()
	pdf := mustUpload(t, c, "a.pdf", pdfBytes).hash()
	vid := mustUpload(t, c, "a.mp4", mp4Bytes).hash()
	aud := mustUpload(t, c, "a.mp3", mp3Bytes).hash()
	tests := []struct {
		path   string
		status int
	}{
		{"/i/" + img, 200}, {"/i/" + img + ".png", 200}, {"/f/" + img, 200},
		{"/v/" + img, 404}, {"/a/" + img, 404},
		{"/i/" + pdf, 404}, {"/f/" + pdf, 200}, {"/f/" + pdf + ".pdf", 200},
		{"/v/" + vid, 200}, {"/i/" + vid, 404}, {"/f/" + vid, 200},
		{"/a/" + aud, 200}, {"/v/" + aud, 404},
		{"/i/00000000", 404}, {"/i/short", 404}, {"/i/not-hex-at-all", 404},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := e.c.Do("GET", tc.path, nil).Expect(tc.status)
			if r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatal("missing nosniff")
			}
			if tc.status != 200 {
				return
			}
			attach := strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment")
			if attach != strings.HasPrefix(tc.path, "/f/") {
				t.Fatalf("Content-Disposition %q", r.Header.Get("Content-Disposition"))
			}
			if r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
				t.Fatalf("Cache-Control %q", r.Header.Get("Cache-Control"))
			}
		})
	}
}

func TestShortLinkValidatorsRangesAndHead(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		content := pngBytes(t, 40, 40)
		u := mustUpload(t, c, "a.png", content)

		r := e.c.Do("GET", u.path(), nil).Expect(200)
		if !bytes.Equal(r.Body, content) || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("body or type wrong: %s", r.Header.Get("Content-Type"))
		}
		etag := r.Header.Get("ETag")
		if etag != `"`+u.MD5+`"` || r.Header.Get("Last-Modified") == "" {
			t.Fatalf("ETag %q Last-Modified %q", etag, r.Header.Get("Last-Modified"))
		}
		if r.Header.Get("Content-Security-Policy") != "" {
			t.Fatal("a PNG should not be sandboxed")
		}
		e.c.Do("GET", u.path(), nil, "If-None-Match", etag).Expect(http.StatusNotModified)
		e.c.Do("GET", u.path(), nil, "If-Modified-Since", r.Header.Get("Last-Modified")).Expect(http.StatusNotModified)

		r = e.c.Do("GET", u.path(), nil, "Range", "bytes=10-19").Expect(http.StatusPartialContent)
		if !bytes.Equal(r.Body, content[10:20]) || r.Header.Get("Content-Range") == "" {
			t.Fatalf("range body %q, Content-Range %q", r.Body, r.Header.Get("Content-Range"))
		}
		r = e.c.Do("HEAD", u.path(), nil).Expect(200)
		if len(r.Body) != 0 || r.Header.Get("Content-Length") != itoa(len(content)) {
			t.Fatalf("HEAD: body %d bytes, Content-Length %q", len(r.Body), r.Header.Get("Content-Length"))
		}
	})
}

func TestScriptableContentIsSandboxed(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, c := e.newUser("alice", 0)
		svg := mustUpload(t, c, "evil.svg", svgBytes)
		html := mustUpload(t, c, "evil.txt", []byte("<!DOCTYPE html><script>alert(1)</script>"))
		for _, path := range []string{svg.path(), "/f/" + svg.hash(), "/f/" + html.hash()} {
			r := e.c.Do("GET", path, nil).Expect(200)
			if r.Header.Get("Content-Security-Policy") != "sandbox" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("%s: CSP %q nosniff %q", path, r.Header.Get("Content-Security-Policy"), r.Header.Get("X-Content-Type-Options"))
			}
		}
		if r := e.c.Do("GET", svg.path(), nil); r.Header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("svg served as %q", r.Header.Get("Content-Type"))
		}
		e.c.Do("GET", "/i/"+html.hash(), nil).Expect(404)
	})
}

func TestLinkHashAcceptsHexWithAnOptionalExtension(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"abcd1234", "abcd1234", true},
		{"ABCD1234", "abcd1234", true},
		{"AbCd12eF.JPG", "abcd12ef", true},
		{"abcd123\u212a", "", false}, // the Kelvin sign: lower case, a "k"
		{"abcd 1234", "", false},
		{"abcd1234.png", "abcd1234", true},
		{"abcd1234.tar.gz", "abcd1234", true},
		{strings.Repeat("f", 64), strings.Repeat("f", 64), true},
		{"abcd123", "", false},
		{strings.Repeat("f", 65), "", false},
		{"abcd123g", "", false},
		{".png", "", false},
		{"", "", false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := linkHash(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("linkHash(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestOnlyPassiveMediaIsServedInline(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"image/png", true},
		{"image/jpeg", true},
		{"video/mp4", true},
		{"audio/mpeg", true},
		{"image/svg+xml", false},
		{"text/html", false},
		{"application/pdf", false},
		{"text/plain", false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := inlineSafe(tt.in); got != tt.want {
				t.Fatalf("inlineSafe(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestImageSizesAnswerLiveImagesByTheirLinkKey(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	img := mustUpload(t, c, "a.png", pngBytes(t, 7, 5))
	gone := mustUpload(t, c, "b.png", pngBytes(t, 9, 3))
	pdf := mustUpload(t, c, "a.pdf", pdfBytes).hash()
	wide, _, _ := strings.Cut(mustUpload(t, c, "w.jpg", jpegBytes(t, 700, 10)).hash(), ".")
	exact, _, _ := strings.Cut(mustUpload(t, c, "e.png", pngBytes(t, 480, 4)).hash(), ".")
	anim, _, _ := strings.Cut(mustUpload(t, c, "g.gif", gifBytes(t, 900, 6)).hash(), ".")
	// A phone's portrait photo, stored 700×500 and shown 500×700.
	side, _, _ := strings.Cut(mustUpload(t, c, "s.jpg", sidewaysPhoto(t, 700, 500)).hash(), ".")
	c.Do("DELETE", "/api/v1/files/"+gone.ID, nil).Expect(http.StatusOK)
	h, _, _ := strings.Cut(img.hash(), ".")
	keys := []string{h, strings.ToUpper(h), h + ".png", gone.hash(), pdf, "not-a-key", "0000000000000000", wide, exact, anim, side}
	got, err := e.svc.ImageSizes(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	small := ImageSize{Width: 7, Height: 5}
	want := map[string]ImageSize{h: small, strings.ToUpper(h): small, h + ".png": small,
		// The narrower widths the file host serves; a GIF is served whole.
		wide:  {Width: 700, Height: 10, Widths: []int{160, 320, 480, 640}},
		exact: {Width: 480, Height: 4, Widths: []int{160, 320}},
		anim:  {Width: 900, Height: 6},
		side:  {Width: 500, Height: 700, Widths: []int{160, 320, 480}}}
	if len(got) != len(want) {
		t.Fatalf("ImageSizes(%v) = %v, want %v", keys, got, want)
	}
	for k, size := range want {
		if !reflect.DeepEqual(got[k], size) {
			t.Errorf("ImageSizes[%q] = %v, want %v", k, got[k], size)
		}
	}
	if got, err := e.svc.ImageSizes(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("ImageSizes(nil) = %v, %v", got, err)
	}
}
