package blog

import (
	"net/url"
	"strings"
	"testing"
)

func TestRewriteDestinationsChangesOnlyDestinations(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	old := "http://old.example/a.jpg"
	tests := []struct {
		name, md, want string
	}{
		{"an image", "![A](" + old + ")\n", "![A](NEW)\n"},
		{"an image with a title", "![A](" + old + ` "The A")` + "\n", "![A](NEW \"The A\")\n"},
		{"an image in angle brackets", "![A](<" + old + ">)\n", "![A](<NEW>)\n"},
		{"a link", "[the a](" + old + ")\n", "[the a](NEW)\n"},
		{"an image in a link", "[![A](" + old + ")](" + old + ")\n", "[![A](NEW)](NEW)\n"},
		{"a reference definition used twice", "![A][a] and [this][a]\n\n[a]: " + old + "\n", "![A][a] and [this][a]\n\n[a]: NEW\n"},
		{"a list, a quote and a table", "- ![A](" + old + ")\n\n> [x](" + old + ")\n\n| h |\n|---|\n| ![t](" + old + ") |\n",
			"- ![A](NEW)\n\n> [x](NEW)\n\n| h |\n|---|\n| ![t](NEW) |\n"},
		{"the address as text", "See " + old + " and <" + old + ">.\n", "See " + old + " and <" + old + ">.\n"},
		{"code", "`![A](" + old + ")`\n\n```\n![A](" + old + ")\n```\n\n    [x](" + old + ")\n", "`![A](" + old + ")`\n\n```\n![A](" + old + ")\n```\n\n    [x](" + old + ")\n"},
		{"escaped brackets", `\[x\](` + old + ")\n", `\[x\](` + old + ")\n"},
		{"raw HTML", `<img src="` + old + `">` + "\n", `<img src="` + old + `">` + "\n"},
		{"another address", "![B](http://old.example/b.jpg)\n", "![B](http://old.example/b.jpg)\n"},
		{"an unused definition", "[a]: " + old + "\n", "[a]: " + old + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := b.rewriteDestinations(tt.md, func(dest string, image bool) (string, bool) {
				return "NEW", dest == old
			})
			if got != tt.want {
				t.Errorf("rewrote\n%q\nto\n%q\nwant\n%q", tt.md, got, tt.want)
			}
		})
	}
}

func TestDestinationsSayWhichAreImages(t *testing.T) {
	b := &Blog{md: newMarkdown()}
	md := "![i](/a.png) [l](/b.pdf) [both][r] ![both][r]\n\n[r]: /c.jpg\n"
	var got []string
	for _, d := range b.destinations([]byte(md)) {
		kind := "link"
		if d.image {
			kind = "image"
		}
		got = append(got, md[d.start:d.end]+" "+kind)
	}
	if want := "/a.png image|/b.pdf link|/c.jpg image"; strings.Join(got, "|") != want {
		t.Errorf("destinations %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestMediaPlanResolvesWhatIsBroughtHome(t *testing.T) {
	site := &mediaPlan{base: &url.URL{Scheme: "https", Host: "old.example"}, hosts: []string{"old.example"},
		paths: map[string]bool{}}
	ghost := &mediaPlan{base: &url.URL{Scheme: "https", Host: "old.example", Path: "/blog"}, join: true,
		hosts: []string{"old.example"}, paths: map[string]bool{}}
	unknown := &mediaPlan{paths: map[string]bool{}}
	tests := []struct {
		name  string
		plan  *mediaPlan
		dest  string
		image bool
		want  string // "" when not brought home
	}{
		{"an image of the old site", site, "https://old.example/wp-content/a.jpg", true, "https://old.example/wp-content/a.jpg"},
		{"an image of any host", site, "http://cdn.example/a.png?w=300#top", true, "http://cdn.example/a.png?w=300"},
		{"an image without an extension", site, "https://cdn.example/render/123", true, "https://cdn.example/render/123"},
		{"an image path", site, "/wp-content/a.jpg", true, "https://old.example/wp-content/a.jpg"},
		{"an image path on the www. host", site, "https://www.old.example/x.pdf", false, "https://www.old.example/x.pdf"},
		{"a scheme-relative image", site, "//cdn.example/a.png", true, "https://cdn.example/a.png"},
		{"an escaped image address", site, `https://old.example/a\_b.jpg?x=1&amp;y=2`, true, "https://old.example/a_b.jpg?x=1&y=2"},
		{"a Ghost path under the old site's folder", ghost, "/content/images/cat.jpg", true, "https://old.example/blog/content/images/cat.jpg"},
		{"a file of the old site", site, "https://old.example/files/Menu.PDF", false, "https://old.example/files/Menu.PDF"},
		{"a file path of the old site", site, "/files/menu.zip", false, "https://old.example/files/menu.zip"},
		{"a page of the old site", site, "https://old.example/about/", false, ""},
		{"a page that ends in .html", site, "https://old.example/about.html", false, ""},
		{"a file of another host", site, "https://cdn.example/notes.pdf", false, ""},
		{"a relative image", site, "images/a.jpg", true, ""},
		{"a data image", site, "data:image/png;base64,AAAA", true, ""},
		{"a mail link", site, "mailto:sam@old.example", false, ""},
		{"an address with a password", site, "https://sam:pw@old.example/a.jpg", true, ""},
		{"an ftp image", site, "ftp://old.example/a.jpg", true, ""},
		{"an image path without the old site", unknown, "/content/images/a.jpg", true, ""},
		{"an over-long address", site, "https://old.example/" + strings.Repeat("a", maxMediaURL) + ".jpg", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.plan.resolve(tt.dest, tt.image)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("resolve(%q) = %q, %v; want %q", tt.dest, got, ok, tt.want)
			}
		})
	}
	if !unknown.paths["/content/images/a.jpg"] {
		t.Error("a path that cannot be resolved is not noted for the warning")
	}
}
