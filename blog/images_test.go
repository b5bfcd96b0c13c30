package blog_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"folio/blog"
	"folio/httpx"
	"folio/templates"
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
	const sizes = `sizes="(max-width: 46rem) calc((100vw - 2rem) * 0.92), 40.48rem"`
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

// newSizedSiteEnv is a blog with its classic site whose own images sizer
// knows.
func newSizedSiteEnv(t *testing.T, sizer *fakeSizer) *env {
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.Images = sizer },
		handler: func(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler {
			eng, err := templates.New(templates.Options{Pages: templates.FS})
			if err != nil {
				t.Fatal(err)
			}
			site, err := blog.NewSite(b, eng)
			if err != nil {
				t.Fatal(err)
			}
			site.Routes(routes)
			return httpx.Chain(routes, httpx.Proxies{}.Middleware)
		}})
	return e
}

func TestOwnCoversGetTheirSizeAndSrcset(t *testing.T) {
	sizer := &fakeSizer{sizes: map[string]blog.ImageSize{
		"0123456789abcdef": {Width: 700, Height: 350, Widths: []int{160, 320, 480, 640}},
		"fedcba9876543210": {Width: 90, Height: 60},
	}}
	e := newSizedSiteEnv(t, sizer)
	e.publish("Own", "slug", "own", "cover_image", "/i/0123456789abcdef.jpg")
	e.publish("Small", "slug", "small", "cover_image", e.anon.Base+"/i/fedcba9876543210")
	e.publish("Elsewhere", "slug", "elsewhere", "cover_image", "https://elsewhere.example/i/0123456789abcdef")
	const set = `/i/0123456789abcdef.jpg?w=160 160w, /i/0123456789abcdef.jpg?w=320 320w, ` +
		`/i/0123456789abcdef.jpg?w=480 480w, /i/0123456789abcdef.jpg?w=640 640w, /i/0123456789abcdef.jpg 700w`
	const sizes = `(max-width: 46rem) calc((100vw - 2rem) * 0.92), 40.48rem`
	own := `<img src="/i/0123456789abcdef.jpg" width="700" height="350" srcset="` + set + `" sizes="` + sizes + `"`
	for path, want := range map[string][]string{
		"/": {own + ` alt="Own" loading="lazy"`,
			`<img src="` + e.anon.Base + `/i/fedcba9876543210" width="90" height="60" alt="Small"`,
			`<img src="https://elsewhere.example/i/0123456789abcdef" alt="Elsewhere"`},
		"/posts/own":       {`<figure class="post-cover">` + own + ` alt=""></figure>`},
		"/posts/elsewhere": {`<figure class="post-cover"><img src="https://elsewhere.example/i/0123456789abcdef" alt=""></figure>`},
	} {
		body := string(e.anon.Do("GET", path, nil).Expect(200).Body)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %s:\n%s", path, w, body)
			}
		}
	}

	var list page[struct {
		Slug      string          `json:"slug"`
		CoverSize *blog.CoverSize `json:"cover_size"`
	}]
	data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, &list)
	got := map[string]*blog.CoverSize{}
	for _, it := range list.Items {
		got[it.Slug] = it.CoverSize
	}
	want := map[string]*blog.CoverSize{
		"own":       {Width: 700, Height: 350, Srcset: set, Sizes: sizes},
		"small":     {Width: 90, Height: 60},
		"elsewhere": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cover_size in the list = %v, want %v", got, want)
	}
	var one struct {
		CoverSize *blog.CoverSize `json:"cover_size"`
	}
	data(t, e.anon.Do("GET", "/api/v1/posts/slug/own", nil), 200, &one)
	if !reflect.DeepEqual(one.CoverSize, want["own"]) {
		t.Errorf("cover_size of the post = %v, want %v", one.CoverSize, want["own"])
	}
}

func TestPostsSavedBeforeSrcsetGetItWhenTheBlogStarts(t *testing.T) {
	sizer := &fakeSizer{sizes: map[string]blog.ImageSize{
		"0123456789abcdef": {Width: 700, Height: 350, Widths: []int{160, 320, 480, 640}},
	}}
	e, _ := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.Images = sizer }})
	md := "# Title\n\n![a](/i/0123456789abcdef)\n"
	p := e.createPost(map[string]any{"title": "Old", "content_markdown": md})
	var pg struct {
		ID string `json:"id"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Old page", "content_markdown": md}), 201, &pg)
	const old = `<p><img src="/i/0123456789abcdef" alt="a"></p>`
	e.exec(`UPDATE posts SET content_html = $1, toc = '[]', render_version = 0`, old)
	e.exec(`UPDATE pages SET content_html = $1, render_version = 0`, old)

	e.startAgain(t, sizer)
	var got post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil), 200, &got)
	const want = `width="700" height="350" srcset="/i/0123456789abcdef?w=160 160w,`
	if !strings.Contains(*got.ContentHTML, want) || !strings.Contains(*got.ContentHTML, `<h1 id="title">`) {
		t.Errorf("post rendered again = %s, want %s", *got.ContentHTML, want)
	}
	var gotPage struct {
		ContentHTML string `json:"content_html"`
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+pg.ID, nil), 200, &gotPage)
	if !strings.Contains(gotPage.ContentHTML, want) {
		t.Errorf("page rendered again = %s, want %s", gotPage.ContentHTML, want)
	}
}
