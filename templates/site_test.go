package templates

import (
	"strings"
	"testing"
)

// TestEveryPageHasOneSearchLandmark: the header's search form is the
// landmark everywhere but on the search page, whose own form replaces it.
func TestEveryPageHasOneSearchLandmark(t *testing.T) {
	e := newEngine(t, "")
	for _, kind := range []string{KindHome, KindPost, KindCategory, KindTag, KindSearch, KindNotFound} {
		body, err := e.Render(kind, sampleView())
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(body), `role="search"`); n != 1 {
			t.Errorf("%s page: %d search landmarks, want 1", kind, n)
		}
		wantHeader := kind != KindSearch
		if got := strings.Contains(string(body), `<form class="search" role="search"`); got != wantHeader {
			t.Errorf("%s page: header search form shown %v, want %v", kind, got, wantHeader)
		}
	}
}

// TestCoverLinkIsNamedAndHiddenBesideTheTitleLink: the cover image's link
// repeats the title link, so a screen reader skips it and Tab passes it;
// it still has a name (the image's alt is the title).
func TestCoverLinkIsNamedAndHiddenBesideTheTitleLink(t *testing.T) {
	e := newEngine(t, "")
	v := sampleView()
	v.Posts[0].Title = "Spring walk"
	for _, kind := range []string{KindHome, KindCategory, KindTag, KindSearch} {
		v.Query = "walk"
		body, err := e.Render(kind, v)
		if err != nil {
			t.Fatal(err)
		}
		want := `<a class="cover" href="/posts/hello" tabindex="-1" aria-hidden="true"><img src="/cover.png" alt="Spring walk" loading="lazy" decoding="async"></a>`
		if !strings.Contains(string(body), want) {
			t.Errorf("%s page lacks %s", kind, want)
		}
	}
}

func TestStyleSheetHidesTaskBulletsAndFollowsTheColourScheme(t *testing.T) {
	css := string(e0(t))
	for _, want := range []string{"ul.task-list { list-style: none;", "li.task-list-item { list-style: none; }",
		"pre:focus-visible", "@media (prefers-color-scheme: dark)"} {
		if !strings.Contains(css, want) {
			t.Errorf("style.css lacks %q", want)
		}
	}
}

// e0 is the embedded style sheet.
func e0(t *testing.T) []byte {
	t.Helper()
	b, err := builtin.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
