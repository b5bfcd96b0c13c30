package main

import (
	"strings"
	"testing"

	"folio/auth/authtest"
)

// TestBlogDashboardShowsTheFileHostsStorage checks the wiring of the blog's
// dashboard to the file host's totals (server.go), which neither package
// can test alone.
func TestBlogDashboardShowsTheFileHostsStorage(t *testing.T) {
	_, c := newTestApp(t)
	api := c.Clone()
	api.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	img := testPNG(t)
	api.Upload("/api/v1/upload", "file", "a.png", img).Expect(200)

	b := consoleAdmin(t, c)
	res := b.Do("GET", "/console/blog", nil).Expect(200)
	body := string(res.Body)
	for _, want := range []string{`id="storage-usage"`, "<dt>Files</dt><dd>1</dd>", "<title>Blog · "} {
		if !strings.Contains(body, want) {
			t.Fatalf("dashboard lacks %q: %s", want, body)
		}
	}
}
