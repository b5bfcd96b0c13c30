package templates

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// held counts the parsed sets of m that are kept now.
func held(m map[string]*parsed) int {
	n := 0
	for _, p := range m {
		if p.t.Load() != nil {
			n++
		}
	}
	return n
}

func TestSiteTemplatesAreParsedOnUseAndDroppedByRelease(t *testing.T) {
	e := newEngine(t, "")
	if n := held(e.views) + held(e.pages); n != 0 {
		t.Fatalf("%d parsed sets kept after start-up, want none", n)
	}
	first, err := e.Render(KindPost, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	if held(e.views) != 1 || e.views[KindPost].t.Load() == nil {
		t.Fatalf("after one render %d sets are kept, want the post page's", held(e.views))
	}
	page, err := e.RenderPage("default", sampleView())
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if n := held(e.views) + held(e.pages); n != 0 {
		t.Fatalf("%d parsed sets kept after Release", n)
	}
	again, err := e.Render(KindPost, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Error("the post page renders differently once parsed again")
	}
	if pageAgain, err := e.RenderPage("default", sampleView()); err != nil || !bytes.Equal(page, pageAgain) {
		t.Errorf("the page template renders differently once parsed again: %v", err)
	}
}

// A theme is read once, at start-up: a file changed (or broken) on disk
// afterwards must not reach a page parsed again after a release.
func TestThemeParsedAgainIsTheOneReadAtStart(t *testing.T) {
	dir := writeTheme(t, map[string]string{"404.html": `{{define "content"}}<p class="themed-404">gone</p>{{end}}`})
	e := newEngine(t, dir)
	first, err := e.Render(KindNotFound, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "404.html"), []byte(`{{define "content"}}{{broken`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Release()
	again, err := e.Render(KindNotFound, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("the 404 page changed with the theme file on disk:\n%s", again)
	}
}

func TestConsolePagesAreParsedOnUseAndDroppedByRelease(t *testing.T) {
	c, err := NewConsole()
	if err != nil {
		t.Fatal(err)
	}
	if n := held(c.pages); n != 0 {
		t.Fatalf("%d console pages kept parsed after start-up, want none", n)
	}
	v := &ConsoleView{Title: "Sign in", SiteName: "Site"}
	first, err := c.Render("login", v)
	if err != nil {
		t.Fatal(err)
	}
	if n := held(c.pages); n != 1 {
		t.Fatalf("%d console pages kept after one render, want 1", n)
	}
	c.Release()
	if n := held(c.pages); n != 0 {
		t.Fatalf("%d console pages kept after Release", n)
	}
	again, err := c.Render("login", v)
	if err != nil || !bytes.Equal(first, again) {
		t.Errorf("the sign-in page renders differently once parsed again: %v", err)
	}
}

// Renders and releases at once: every render gets a whole page (run with
// -race).
func TestRenderDuringReleaseRendersWholePages(t *testing.T) {
	e := newEngine(t, "")
	want, err := e.Render(KindHome, sampleView())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				got, err := e.Render(KindHome, sampleView())
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("render during a release: %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			e.Release()
		}
	})
	wg.Wait()
}

// Embedded static files are served from the program's own data, not from
// a copy on the heap, and answer as the bytes they are: whole, in ranges,
// and with their sizes reported.
func TestEmbeddedAssetsAreServedWithoutACopy(t *testing.T) {
	e := newEngine(t, "")
	c, err := NewConsole()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		assets map[string]asset
		url    string
		fsys   fs.FS
		file   string
		serve  func(http.ResponseWriter, *http.Request, string) bool
	}{
		{"site style.css", e.assets, e.urls["style.css"], builtin, "static/style.css", e.ServeAsset},
		{"console editor.js", c.assets, c.urls["editor.js"], consoleFS, "console/static/editor.js", c.ServeAsset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := fs.ReadFile(tc.fsys, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			served := tc.url[strings.LastIndex(tc.url, "/")+1:]
			a, ok := tc.assets[served]
			if !ok || a.body != nil || a.size != len(want) {
				t.Fatalf("asset %s: found %v, copied %d bytes, size %d (want none copied, size %d)", served, ok, len(a.body), a.size, len(want))
			}
			rec := httptest.NewRecorder()
			if !tc.serve(rec, httptest.NewRequest("GET", tc.url, nil), served) || rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), want) {
				t.Fatalf("whole file: status %d, %d bytes, want 200 and %d bytes", rec.Code, rec.Body.Len(), len(want))
			}
			req := httptest.NewRequest("GET", tc.url, nil)
			req.Header.Set("Range", "bytes=10-19")
			rec = httptest.NewRecorder()
			tc.serve(rec, req, served)
			if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), want[10:20]) {
				t.Fatalf("range: status %d, body %q, want 206 and %q", rec.Code, rec.Body.Bytes(), want[10:20])
			}
		})
	}
	if got := c.Assets()["editor.js"]; got == 0 {
		t.Error("the size report lost editor.js's size")
	}
}
