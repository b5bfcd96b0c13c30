package main

import (
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

// TestPostImagesOfOwnUploadsGetTheirSize: the blog asks the real file host
// for the size of an uploaded PNG that a post shows, by a relative short
// link and by the absolute one the upload answered; the stored HTML has
// width and height, and the classic post page shows them.
func TestPostImagesOfOwnUploadsGetTheirSize(t *testing.T) {
	_, c := newTestApp(t)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	var up struct {
		Links struct {
			URL string `json:"url"`
		} `json:"links"`
	}
	httpxtest.Into(t, c.Upload("/api/v1/upload", "file", "a.png", testPNG(t)).Expect(200).U().Data, &up)
	rel := pathOf(t, up.Links.URL)
	if !strings.HasPrefix(rel, "/i/") || !strings.HasPrefix(up.Links.URL, "http") {
		t.Fatalf("upload link %q", up.Links.URL)
	}
	md := "![relative](" + rel + ")\n\n![absolute](" + up.Links.URL + ")\n\n![elsewhere](https://elsewhere.example" + rel + ")\n"
	var p struct {
		Slug        string `json:"slug"`
		ContentHTML string `json:"content_html"`
	}
	httpxtest.Into(t, c.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Sized", "status": "published",
		"content_markdown": md}).Expect(201).B().Data, &p)
	for _, want := range []string{
		`alt="relative" loading="lazy" decoding="async" width="40" height="30">`,
		`alt="absolute" loading="lazy" decoding="async" width="40" height="30">`,
		`alt="elsewhere" loading="lazy" decoding="async">`,
	} {
		if !strings.Contains(p.ContentHTML, want) {
			t.Errorf("content_html lacks %s:\n%s", want, p.ContentHTML)
		}
	}
	page := string(c.Do("GET", "/posts/"+p.Slug, nil).Expect(200).Body)
	if !strings.Contains(page, `alt="relative" loading="lazy" decoding="async" width="40" height="30">`) {
		t.Errorf("the post page lacks the image's size")
	}
}
