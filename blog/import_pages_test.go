package blog_test

import (
	"testing"
)

// TestNoImportedPageShowsMarkupAsText imports every export the import
// tests use, of every source, each into a fresh site, and reads every
// public page it made: none shows HTML as escaped text, nor a WordPress
// shortcode (docs/export-import.md#html-to-markdown). The sources' own
// tests check what each page says; this one holds the rule for all of
// them at once, so that a new fixture or a new shape is held to it too.
func TestNoImportedPageShowsMarkupAsText(t *testing.T) {
	exports := []struct{ name, file string }{
		{"ghost-0.5.json", "ghost/ghost-0.5.json"},
		{"ghost-0.11.json", "ghost/ghost-0.11.json"},
		{"ghost-1.x.json", "ghost/ghost-1.x.json"},
		{"ghost-4.x.json", "ghost/ghost-4.x.json"},
		{"ghost-6.x.json", "ghost/ghost-6.x.json"},
		{"ghost-5.json", "ghost-5.json"},
		{"theme-unit.xml", "wordpress/theme-unit.xml"},
		{"wxr-1.0.xml", "wordpress/wxr-1.0.xml"},
		{"broken-cdata.xml", "wordpress/broken-cdata.xml"},
		{"wordpress.xml", "wordpress.xml"},
		{"media-wordpress.xml", "media/wordpress.xml"},
		{"media-ghost.json", "media/ghost.json"},
		{"console-wordpress.xml", "console/wordpress-small.xml"},
		{"console-ghost.json", "console/ghost-small.json"},
	}
	escaped := []string{"&lt;figure", "&lt;table", "&lt;video", "&lt;audio", "&lt;iframe", "&lt;img", "&lt;div",
		"&lt;ul", "&lt;p&gt;", "&lt;br", "&lt;span", "&lt;a ", "&lt;!--", "[caption", "[/caption]", "[gallery", "[embed",
		"[video", "[audio", "[playlist", "kg-card", "wp-block-"}
	run := func(t *testing.T, e *siteEnv) {
		paths := e.publicPaths()
		if len(paths) == 0 {
			t.Fatal("nothing public was imported")
		}
		for _, path := range paths {
			siteLacks(t, path, e.html(path, 200), escaped...)
		}
	}
	for _, x := range exports {
		t.Run(x.name, func(t *testing.T) {
			e := newSiteEnv(t)
			data(t, e.admin.Upload("/api/v1/admin/import", "file", x.name, readSample(t, x.file)), 200, nil)
			run(t, e)
		})
	}
	for _, site := range []struct{ name, dir string }{{"hugo.zip", "hugo"}, {"jekyll.tar.gz", "jekyll"}} {
		t.Run(site.name, func(t *testing.T) {
			e := newSiteEnv(t)
			format := "zip"
			if site.name == "jekyll.tar.gz" {
				format = "tar.gz"
			}
			e.importSite(site.name, pack(t, format, siteFiles(t, site.dir, "")))
			run(t, e)
		})
	}
}
