package templates

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"time"
)

// Feed is a site's feed, built into RSS 2.0 or Atom. Every text field is
// plain text; encoding/xml escapes it.
type Feed struct {
	Title       string
	Description string
	SiteURL     string // absolute home page URL
	FeedURL     string // absolute URL of the feed document itself
	Updated     time.Time
	Entries     []FeedEntry
}

// FeedEntry is one post in a feed.
type FeedEntry struct {
	Title       string
	URL         string // absolute
	Summary     string // plain text
	ContentHTML string // the post's HTML, carried as escaped text
	Published   time.Time
	Updated     time.Time
	Author      string
	Categories  []string
}

type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	AtomNS  string     `xml:"xmlns:atom,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	Description   string    `xml:"description"`
	Self          atomLink  `xml:"atom:link"`
	LastBuildDate string    `xml:"lastBuildDate,omitempty"`
	Generator     string    `xml:"generator"`
	Items         []rssItem `xml:"item"`
}

type rssItem struct {
	Title       string   `xml:"title"`
	Link        string   `xml:"link"`
	GUID        rssGUID  `xml:"guid"`
	PubDate     string   `xml:"pubDate,omitempty"`
	Description string   `xml:"description"`
	Categories  []string `xml:"category"`
}

type rssGUID struct {
	IsPermaLink string `xml:"isPermaLink,attr"`
	Value       string `xml:",chardata"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
}

// RSS builds an RSS 2.0 document. Item descriptions carry the full HTML when
// there is some, else the summary.
func RSS(f Feed) ([]byte, error) {
	doc := rssDoc{
		Version: "2.0",
		AtomNS:  "http://www.w3.org/2005/Atom",
		Channel: rssChannel{
			Title:       f.Title,
			Link:        f.SiteURL,
			Description: f.Description,
			Self:        atomLink{Href: f.FeedURL, Rel: "self", Type: "application/rss+xml"},
			Generator:   "Folio",
		},
	}
	if !f.Updated.IsZero() {
		doc.Channel.LastBuildDate = f.Updated.UTC().Format(time.RFC1123Z)
	}
	for _, e := range f.Entries {
		it := rssItem{
			Title:       e.Title,
			Link:        e.URL,
			GUID:        rssGUID{IsPermaLink: "true", Value: e.URL},
			Description: e.ContentHTML,
			Categories:  e.Categories,
		}
		if it.Description == "" {
			it.Description = e.Summary
		}
		if !e.Published.IsZero() {
			it.PubDate = e.Published.UTC().Format(time.RFC1123Z)
		}
		doc.Channel.Items = append(doc.Channel.Items, it)
	}
	return marshalXML(doc)
}

type atomDoc struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title    atomText    `xml:"title"`
	Subtitle *atomText   `xml:"subtitle,omitempty"`
	ID       string      `xml:"id"`
	Updated  string      `xml:"updated"`
	Links    []atomLink  `xml:"link"`
	Author   atomPerson  `xml:"author"`
	Gen      string      `xml:"generator"`
	Entries  []atomEntry `xml:"entry"`
}

type atomText struct {
	Type  string `xml:"type,attr"`
	Value string `xml:",chardata"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomEntry struct {
	Title      atomText       `xml:"title"`
	ID         string         `xml:"id"`
	Link       atomLink       `xml:"link"`
	Published  string         `xml:"published,omitempty"`
	Updated    string         `xml:"updated"`
	Author     *atomPerson    `xml:"author,omitempty"`
	Summary    *atomText      `xml:"summary,omitempty"`
	Content    *atomText      `xml:"content,omitempty"`
	Categories []atomCategory `xml:"category"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

// Atom builds an Atom 1.0 document. Titles and summaries are type "text"
// (a "<" in a title is a character, not markup); content is type "html".
func Atom(f Feed) ([]byte, error) {
	updated := f.Updated
	if updated.IsZero() {
		updated = time.Unix(0, 0)
	}
	doc := atomDoc{
		Title:   atomText{Type: "text", Value: f.Title},
		ID:      f.SiteURL + "/",
		Updated: updated.UTC().Format(time.RFC3339),
		Links: []atomLink{
			{Href: f.FeedURL, Rel: "self", Type: "application/atom+xml"},
			{Href: f.SiteURL + "/", Rel: "alternate", Type: "text/html"},
		},
		Author: atomPerson{Name: f.Title},
		Gen:    "Folio",
	}
	if f.Description != "" {
		doc.Subtitle = &atomText{Type: "text", Value: f.Description}
	}
	for _, e := range f.Entries {
		up := e.Updated
		if up.IsZero() {
			up = e.Published
		}
		ent := atomEntry{
			Title:   atomText{Type: "text", Value: e.Title},
			ID:      e.URL,
			Link:    atomLink{Href: e.URL, Rel: "alternate", Type: "text/html"},
			Updated: up.UTC().Format(time.RFC3339),
		}
		if !e.Published.IsZero() {
			ent.Published = e.Published.UTC().Format(time.RFC3339)
		}
		if e.Author != "" {
			ent.Author = &atomPerson{Name: e.Author}
		}
		if e.Summary != "" {
			ent.Summary = &atomText{Type: "text", Value: e.Summary}
		}
		if e.ContentHTML != "" {
			ent.Content = &atomText{Type: "html", Value: e.ContentHTML}
		}
		for _, c := range e.Categories {
			ent.Categories = append(ent.Categories, atomCategory{Term: c})
		}
		doc.Entries = append(doc.Entries, ent)
	}
	return marshalXML(doc)
}

// SitemapURL is one <url> of a sitemap.
type SitemapURL struct {
	Loc     string // absolute
	LastMod time.Time
}

type sitemapDoc struct {
	XMLName xml.Name     `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []sitemapURL `xml:"url"`
}

type sitemapURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

// MaxSitemapURLs is the sitemap protocol's limit for one file.
const MaxSitemapURLs = 50000

// Sitemap builds a sitemap of at most MaxSitemapURLs URLs.
func Sitemap(urls []SitemapURL) ([]byte, error) {
	if len(urls) > MaxSitemapURLs {
		urls = urls[:MaxSitemapURLs]
	}
	var doc sitemapDoc
	for _, u := range urls {
		su := sitemapURL{Loc: u.Loc}
		if !u.LastMod.IsZero() {
			su.LastMod = u.LastMod.UTC().Format(time.RFC3339)
		}
		doc.URLs = append(doc.URLs, su)
	}
	return marshalXML(doc)
}

// Robots is robots.txt: everything but the API and search results may be
// crawled, and the sitemap is named.
func Robots(baseURL string) []byte {
	return []byte("User-agent: *\nDisallow: /api/\nDisallow: /search\nAllow: /\n\nSitemap: " + baseURL + "/sitemap.xml\n")
}

func marshalXML(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("templates: encode xml: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
