package blog

import (
	"encoding/xml"
	"io"
	"strings"
)

// oldSite is the address of the site a WordPress export comes from, as
// the channel's head says it, best first: wp:base_site_url, where
// WordPress keeps its uploads, then wp:base_blog_url and the channel's
// link. Paths in the content are of that site, and links to files on it
// are brought home with the images (docs/export-import.md#bringing-images-home).
// Reading stops at the first item; a file that cannot be read so far
// gives what was read.
func (w *wxrExport) oldSite() []string {
	dec := newWXRDecoder(io.NewSectionReader(w.r, 0, w.size))
	found := map[string]string{}
	depth := 0 // rss is 1, channel 2, the channel's own fields 3
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if _, ok := tok.(xml.EndElement); ok {
			depth--
			continue
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		depth++
		if se.Name.Local == "item" && se.Name.Space == "" {
			break
		}
		field := se.Name.Local
		if depth != 3 || !(isWXR(se.Name) && (field == "base_site_url" || field == "base_blog_url") || se.Name.Space == "" && field == "link") {
			continue
		}
		var v string
		if err := dec.DecodeElement(&v, &se); err != nil {
			break
		}
		depth--
		if _, dup := found[field]; !dup {
			found[field] = strings.TrimSpace(v)
		}
	}
	var out []string
	for _, f := range []string{"base_site_url", "base_blog_url", "link"} {
		if v := found[f]; v != "" {
			out = append(out, v)
		}
	}
	return out
}
