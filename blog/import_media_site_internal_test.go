package blog

import (
	"net/url"
	"testing"
)

// fakeSiteFiles is a listing of a site's files; nothing is read.
type fakeSiteFiles struct {
	siteFiles
	list []string
}

func (f fakeSiteFiles) names() []string { return f.list }

func TestSiteMediaStaysInTheSite(t *testing.T) {
	hugo, err := newSite(fakeSiteFiles{list: []string{
		"secret.png", // above the site's root: the archive's, not the site's
		"mysite/hugo.toml",
		"mysite/content/posts/trip/index.md", "mysite/content/posts/trip/cover.jpg", "mysite/content/posts/trip/my pic.png",
		"mysite/content/posts/trip/sub/x.png", "mysite/content/posts/plain.md",
		"mysite/static/images/a.png", "mysite/static/etc/passwd", "mysite/content/images/b.png", "mysite/static/.git/x.png",
		"mysite/node_modules/pkg/logo.png", "mysite/assets/images/c.png",
	}})
	if err != nil {
		t.Fatal(err)
	}
	hugo.plan.root = "mysite/" // as an archive holding both gives it
	hugo.plan.served = []string{"mysite/static/", "mysite/content/"}
	jekyll, err := newSite(fakeSiteFiles{list: []string{"_config.yml", "_posts/2020-01-02-walk.md", "about.md",
		"assets/img/b.jpg", "_site/assets/img/old.jpg"}})
	if err != nil {
		t.Fatal(err)
	}
	const trip, walk = "mysite/content/posts/trip/index.md", "_posts/2020-01-02-walk.md"
	origin := &url.URL{Scheme: "https", Host: "old.example", Path: "/blog"}
	plan := func(s *markdownSite) *mediaPlan {
		return &mediaPlan{site: s, paths: map[string]bool{}, base: origin, join: true, hosts: []string{"old.example"}}
	}
	tests := []struct {
		name  string
		site  *markdownSite
		from  string
		dest  string
		image bool
		want  string // the ref's src; "" when it is not brought home
	}{
		{"a page bundle's file", hugo, trip, "cover.jpg", true, "site:mysite/content/posts/trip/cover.jpg"},
		{"a bundle's file in a folder, by ./", hugo, trip, "./sub/x.png", true, "site:mysite/content/posts/trip/sub/x.png"},
		{"an escaped name", hugo, trip, "my%20pic.png?v=2#top", true, "site:mysite/content/posts/trip/my pic.png"},
		{"Hugo's static folder", hugo, trip, "/images/a.png", true, "site:mysite/static/images/a.png"},
		{"Hugo's content folder", hugo, trip, "/images/b.png", true, "site:mysite/content/images/b.png"},
		{"Hugo's assets are not served", hugo, trip, "/images/c.png", true, "https://old.example/blog/images/c.png"},
		{"the old site's address", hugo, trip, "https://www.old.example/blog/images/a.png", true, "site:mysite/static/images/a.png"},
		{"the old site outside its folder", hugo, trip, "https://old.example/images/a.png", true, "https://old.example/images/a.png"},
		{"another host", hugo, trip, "https://cdn.example/images/a.png", true, "https://cdn.example/images/a.png"},
		{"a relative path the site has not", hugo, trip, "gone.png", true, "missing:mysite/content/posts/trip/gone.png"},
		{"a relative path out of the site's root", hugo, trip, "../../../../secret.png", true, "missing:secret.png"},
		{"a relative path out of the archive", hugo, trip, "../../../../../../etc/passwd", true, "missing:../../etc/passwd"},
		{"a rooted path climbs no higher than the root", hugo, trip, "/../../etc/passwd", true, "site:mysite/static/etc/passwd"},
		{"an absolute file path", hugo, trip, "/etc/shadow", true, "https://old.example/blog/etc/shadow"},
		{"a file URL", hugo, trip, "file:///etc/passwd", true, ""},
		{"a Windows path", hugo, trip, `C:\secret.png`, true, ""},
		// Markdown reads a backslash before punctuation as an escape.
		{"backslashes are no folders", hugo, trip, `..\..\..\..\secret.png`, true, `missing:mysite/content/posts/trip/........\secret.png`},
		{"a hidden folder", hugo, trip, "/.git/x.png", true, "https://old.example/blog/.git/x.png"},
		{"dependencies", hugo, trip, "../../../node_modules/pkg/logo.png", true, "missing:mysite/node_modules/pkg/logo.png"},
		{"a page's link", hugo, trip, "../plain/", false, ""},
		{"a relative page", hugo, trip, "other.html", false, ""},
		{"a relative file", hugo, trip, "sub/x.png", false, "site:mysite/content/posts/trip/sub/x.png"},
		{"Jekyll's root", jekyll, walk, "/assets/img/b.jpg", true, "site:assets/img/b.jpg"},
		{"Jekyll's post, relative to its folder", jekyll, walk, "../assets/img/b.jpg", true, "site:assets/img/b.jpg"},
		{"Jekyll's built site", jekyll, walk, "/_site/assets/img/old.jpg", true, "https://old.example/blog/_site/assets/img/old.jpg"},
		{"Jekyll's page", jekyll, "about.md", "assets/img/b.jpg", true, "site:assets/img/b.jpg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, ok := plan(tt.site).locate(tt.dest, tt.image, tt.from)
			got := ""
			if ok {
				got = ref.src
			}
			if got != tt.want {
				t.Errorf("locate(%q) = %q, want %q", tt.dest, got, tt.want)
			}
		})
	}
	// A file of the site is named by its path in the site, whichever
	// archive or folder holds it.
	ref, _ := plan(hugo).locate("cover.jpg", true, trip)
	if ref.path != "content/posts/trip/cover.jpg" || siteMediaKey(ref.path, []byte{1, 2}) != "site:content/posts/trip/cover.jpg#sha256=0102" {
		t.Errorf("path %q", ref.path)
	}
}
