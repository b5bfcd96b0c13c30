package templates

import (
	"encoding/xml"
	"strings"
	"testing"
)

func sampleFeed() Feed {
	return Feed{
		Title: "Site " + evil, Description: "Desc " + evil,
		SiteURL: "http://example.test", FeedURL: "http://example.test/feed.xml", Updated: when,
		Entries: []FeedEntry{{
			Title: evil, URL: "http://example.test/posts/hello", Summary: "Sum " + evil,
			ContentHTML: "<p>Body &amp; more</p>", Published: when, Updated: when,
			Categories: []string{"go " + evil},
		}},
	}
}

func TestRSSParsesBackWithTitlesAsText(t *testing.T) {
	raw, err := RSS(sampleFeed())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "<script") {
		t.Errorf("raw <script in RSS:\n%s", raw)
	}
	var doc struct {
		Version string `xml:"version,attr"`
		Channel struct {
			Title string `xml:"title"`
			Link  string `xml:"link"`
			Items []struct {
				Title       string   `xml:"title"`
				Link        string   `xml:"link"`
				GUID        string   `xml:"guid"`
				PubDate     string   `xml:"pubDate"`
				Description string   `xml:"description"`
				Categories  []string `xml:"category"`
			} `xml:"item"`
		} `xml:"channel"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("RSS is not XML: %v\n%s", err, raw)
	}
	if doc.Version != "2.0" || doc.Channel.Title != "Site "+evil || len(doc.Channel.Items) != 1 {
		t.Fatalf("RSS parsed back as %+v", doc)
	}
	it := doc.Channel.Items[0]
	if it.Title != evil || it.GUID != it.Link || it.PubDate != "Mon, 06 May 2024 07:08:09 +0000" ||
		it.Description != "<p>Body &amp; more</p>" || it.Categories[0] != "go "+evil {
		t.Errorf("RSS item parsed back as %+v", it)
	}
}

func TestAtomParsesBack(t *testing.T) {
	raw, err := Atom(sampleFeed())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "<script") {
		t.Errorf("raw <script in Atom:\n%s", raw)
	}
	var doc struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Title   string   `xml:"title"`
		Updated string   `xml:"updated"`
		Links   []struct {
			Href string `xml:"href,attr"`
			Rel  string `xml:"rel,attr"`
		} `xml:"link"`
		Entries []struct {
			Title   string `xml:"title"`
			ID      string `xml:"id"`
			Content struct {
				Type  string `xml:"type,attr"`
				Value string `xml:",chardata"`
			} `xml:"content"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("Atom is not XML: %v\n%s", err, raw)
	}
	if doc.Title != "Site "+evil || doc.Updated != "2024-05-06T07:08:09Z" || len(doc.Entries) != 1 || doc.Links[0].Rel != "self" {
		t.Fatalf("Atom parsed back as %+v", doc)
	}
	if e := doc.Entries[0]; e.Title != evil || e.Content.Type != "html" || e.Content.Value != "<p>Body &amp; more</p>" {
		t.Errorf("Atom entry parsed back as %+v", e)
	}
}

func TestSitemapParsesBack(t *testing.T) {
	raw, err := Sitemap([]SitemapURL{{Loc: "http://example.test/"}, {Loc: "http://example.test/posts/a?x=1&y=2", LastMod: when}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		URLs    []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("sitemap is not XML: %v\n%s", err, raw)
	}
	if len(doc.URLs) != 2 || doc.URLs[1].Loc != "http://example.test/posts/a?x=1&y=2" || doc.URLs[1].LastMod != "2024-05-06T07:08:09Z" || doc.URLs[0].LastMod != "" {
		t.Errorf("sitemap parsed back as %+v", doc)
	}
}

func TestRobotsNamesTheSitemap(t *testing.T) {
	got := string(Robots("https://blog.test"))
	if !strings.Contains(got, "Sitemap: https://blog.test/sitemap.xml\n") || !strings.Contains(got, "User-agent: *") {
		t.Errorf("robots.txt:\n%s", got)
	}
}
