package templates

import (
	"bytes"
	"os"
	"path/filepath"
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
