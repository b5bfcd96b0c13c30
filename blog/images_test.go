package blog_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"folio/blog"
)

// fakeSizer is an ImageSizer that knows a fixed set of keys and records
// what it was asked.
type fakeSizer struct {
	mu    sync.Mutex
	sizes map[string]blog.ImageSize
	asked [][]string
	fail  bool
}

func (f *fakeSizer) ImageSizes(_ context.Context, keys []string) (map[string]blog.ImageSize, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, slices.Clone(keys))
	if f.fail {
		return nil, errors.New("lookup failed")
	}
	out := map[string]blog.ImageSize{}
	for _, k := range keys {
		if wh, ok := f.sizes[k]; ok {
			out[k] = wh
		}
	}
	return out, nil
}

func TestOwnImagesGetTheirSizesWhenSaved(t *testing.T) {
	sizer := &fakeSizer{sizes: map[string]blog.ImageSize{"0123456789abcdef": {Width: 640, Height: 480}, "fedcba9876543210": {Width: 20, Height: 10}}}
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.Images = sizer }})
	md := "![relative](/i/0123456789abcdef.png)\n\n" +
		"![absolute here](" + e.admin.Base + "/i/fedcba9876543210)\n\n" +
		"![elsewhere](https://elsewhere.example/i/0123456789abcdef)\n\n" +
		"![unknown](/i/aaaaaaaaaaaaaaaa)\n\n" +
		"![not a short link](/static/0123456789abcdef.png)\n"
	p := e.createPost(map[string]any{"title": "Pictures", "content_markdown": md})
	html := *p.ContentHTML
	for _, want := range []string{
		`<img src="/i/0123456789abcdef.png" alt="relative" loading="lazy" decoding="async" width="640" height="480">`,
		`alt="absolute here" loading="lazy" decoding="async" width="20" height="10">`,
		`<img src="https://elsewhere.example/i/0123456789abcdef" alt="elsewhere" loading="lazy" decoding="async">`,
		`<img src="/i/aaaaaaaaaaaaaaaa" alt="unknown" loading="lazy" decoding="async">`,
		`<img src="/static/0123456789abcdef.png" alt="not a short link" loading="lazy" decoding="async">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("content_html lacks %s:\n%s", want, html)
		}
	}
	want := []string{"0123456789abcdef", "fedcba9876543210", "aaaaaaaaaaaaaaaa"}
	if len(sizer.asked) != 1 || !slices.Equal(sizer.asked[0], want) {
		t.Errorf("asked for %v, want one lookup of %v", sizer.asked, want)
	}

	var pg struct {
		ContentHTML string `json:"content_html"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Gallery", "content_markdown": md}), 201, &pg)
	if !strings.Contains(pg.ContentHTML, `alt="relative" loading="lazy" decoding="async" width="640" height="480">`) {
		t.Errorf("page content_html lacks the image's size:\n%s", pg.ContentHTML)
	}
}

func TestPostSavesWithoutSizesWhenTheLookupFails(t *testing.T) {
	sizer := &fakeSizer{fail: true}
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.Images = sizer }})
	p := e.createPost(map[string]any{"title": "Pictures", "content_markdown": "![a](/i/0123456789abcdef)"})
	if html := *p.ContentHTML; !strings.Contains(html, `<img src="/i/0123456789abcdef" alt="a" loading="lazy" decoding="async">`) {
		t.Errorf("content_html = %s", html)
	}
}

func TestOwnImagesGetASrcsetOfTheWidthsTheFileHostServes(t *testing.T) {
	sizer := &fakeSizer{sizes: map[string]blog.ImageSize{
		"0123456789abcdef": {Width: 700, Height: 350, Widths: []int{160, 320, 480, 640}},
		"fedcba9876543210": {Width: 900, Height: 600}, // a GIF: served whole
	}}
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.Images = sizer }})
	abs := e.admin.Base + "/i/0123456789abcdef"
	md := "![relative](/i/0123456789abcdef)\n\n" +
		"![with extension](/i/0123456789abcdef.jpg)\n\n" +
		"![absolute](" + abs + ")\n\n" +
		"![animated](/i/fedcba9876543210.gif)\n\n" +
		"![elsewhere](https://elsewhere.example/i/0123456789abcdef)\n\n" +
		"![with a query](/i/0123456789abcdef?x=1)\n"
	p := e.createPost(map[string]any{"title": "Pictures", "content_markdown": md})
	const sizes = `sizes="(max-width: 46rem) calc(100vw - 2rem), 44rem"`
	set := func(base string) string {
		return `srcset="` + base + `?w=160 160w, ` + base + `?w=320 320w, ` + base + `?w=480 480w, ` +
			base + `?w=640 640w, ` + base + ` 700w" ` + sizes + `>`
	}
	html := *p.ContentHTML
	for _, want := range []string{
		`<img src="/i/0123456789abcdef" alt="relative" loading="lazy" decoding="async" width="700" height="350" ` + set("/i/0123456789abcdef"),
		`alt="with extension" loading="lazy" decoding="async" width="700" height="350" ` + set("/i/0123456789abcdef.jpg"),
		`alt="absolute" loading="lazy" decoding="async" width="700" height="350" ` + set(abs),
		`<img src="/i/fedcba9876543210.gif" alt="animated" loading="lazy" decoding="async" width="900" height="600">`,
		`<img src="https://elsewhere.example/i/0123456789abcdef" alt="elsewhere" loading="lazy" decoding="async">`,
		`alt="with a query" loading="lazy" decoding="async" width="700" height="350">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("content_html lacks %s:\n%s", want, html)
		}
	}
	if n := strings.Count(html, "srcset="); n != 3 {
		t.Errorf("content_html has %d srcsets, want 3:\n%s", n, html)
	}

	var pg struct {
		ContentHTML string `json:"content_html"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Gallery", "content_markdown": md}), 201, &pg)
	if !strings.Contains(pg.ContentHTML, set("/i/0123456789abcdef")) {
		t.Errorf("page content_html lacks the srcset:\n%s", pg.ContentHTML)
	}
}
