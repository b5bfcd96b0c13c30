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
	sizes map[string][2]int
	asked [][]string
	fail  bool
}

func (f *fakeSizer) ImageSizes(_ context.Context, keys []string) (map[string][2]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, slices.Clone(keys))
	if f.fail {
		return nil, errors.New("lookup failed")
	}
	out := map[string][2]int{}
	for _, k := range keys {
		if wh, ok := f.sizes[k]; ok {
			out[k] = wh
		}
	}
	return out, nil
}

func TestOwnImagesGetTheirSizesWhenSaved(t *testing.T) {
	sizer := &fakeSizer{sizes: map[string][2]int{"0123456789abcdef": {640, 480}, "fedcba9876543210": {20, 10}}}
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
