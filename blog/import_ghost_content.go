package blog

import (
	"maps"
	"slices"
	"strings"

	"folio/blog/ghostdoc"
	"folio/blog/htmltomd"
)

// ghostBody is what a Ghost post's content becomes.
type ghostBody struct {
	Markdown string
	// Teaser is the Markdown before Ghost's paywall mark: the public
	// preview of a post for members.
	Teaser string
	Losses []htmltomd.Loss
	// MembersOnly counts the parts of the content Ghost shows on the web
	// to members only (a card's visibility).
	MembersOnly int
}

// Marks Ghost writes into a post's HTML.
const (
	// ghostPaywall is the paywall card: the public preview ends there.
	ghostPaywall = "<!--members-only-->"
	// ghostGatedForMembers starts a card shown on the web to members only
	// (not to visitors who are not signed in).
	ghostGatedForMembers = "<!--kg-gated-block:begin nonMember:false"
)

// ghostContent is a post's Markdown, from the first of the forms its
// version of Ghost stores that Folio can read as the author wrote it
// (docs/export-import.md#ghost):
//
//   - the Markdown of a post of Ghost 0.x, as it is;
//   - a Mobiledoc made only of Markdown cards (Ghost's Markdown editor, or
//     a post moved from 0.x), that Markdown as it is;
//   - the HTML Ghost renders of any document, converted;
//   - without HTML, the Mobiledoc or Lexical document itself, read by
//     blog/ghostdoc and its HTML parts converted;
//   - else the plain text, escaped.
//
// Each source goes through ghostURL first.
func ghostContent(p ghostPost) ghostBody {
	src := func(s *string) string {
		if s == nil {
			return ""
		}
		return ghostURL(*s)
	}
	if md := src(p.Markdown); strings.TrimSpace(md) != "" {
		return ghostBody{Markdown: ghostMarkdown(md)}
	}
	var losses []htmltomd.Loss
	var docs []*ghostdoc.Doc
	for _, d := range []struct {
		text string
		read func([]byte) (*ghostdoc.Doc, error)
		name string
	}{{src(p.Mobiledoc), ghostdoc.Mobiledoc, "Mobiledoc"}, {src(p.Lexical), ghostdoc.Lexical, "Lexical document"}} {
		if strings.TrimSpace(d.text) == "" {
			continue
		}
		doc, err := d.read([]byte(d.text))
		if err != nil {
			losses = append(losses, htmltomd.Loss{Kind: "its Ghost " + d.name + " could not be read: " + err.Error(), Count: 1})
			continue
		}
		if doc.MarkdownOnly() {
			return ghostBlocks(doc)
		}
		docs = append(docs, doc)
	}
	if html := src(p.HTML); strings.TrimSpace(html) != "" {
		// The HTML is the truth of what readers saw, but for what the
		// documents say of who may see it.
		b := ghostHTML(html)
		for _, d := range docs {
			b.MembersOnly = max(b.MembersOnly, d.MembersOnly)
		}
		return b
	}
	for _, d := range docs {
		b := ghostBlocks(d)
		b.Losses = mergeLosses(b.Losses, losses)
		return b
	}
	if text := p.Plaintext; text != nil && strings.TrimSpace(*text) != "" {
		losses = append(losses, htmltomd.Loss{Kind: "no HTML in the Ghost export; imported its plain text", Count: 1})
		return ghostBody{Markdown: htmltomd.EscapeText(strings.TrimSpace(*text)) + "\n", Losses: mergeLosses(losses)}
	}
	if len(losses) > 0 {
		losses = append(losses, htmltomd.Loss{Kind: "no content left to import of the Ghost post", Count: 1})
	}
	return ghostBody{Losses: mergeLosses(losses)}
}

// ghostHTML converts the HTML Ghost renders of a post: the part before
// the paywall mark is also the teaser.
func ghostHTML(html string) ghostBody {
	b := ghostBody{MembersOnly: strings.Count(html, ghostGatedForMembers)}
	before, after, paywall := strings.Cut(html, ghostPaywall)
	if !paywall {
		b.Markdown, b.Losses = htmltomd.Convert(html)
		return b
	}
	teaser, l1 := htmltomd.Convert(before)
	rest, l2 := htmltomd.Convert(after)
	b.Markdown, b.Teaser, b.Losses = joinMarkdown(teaser, rest), teaser, mergeLosses(l1, l2)
	return b
}

// ghostBlocks is the Markdown of a document read by blog/ghostdoc: its
// Markdown blocks as they are, each run of HTML blocks converted as one.
func ghostBlocks(d *ghostdoc.Doc) ghostBody {
	b := ghostBody{MembersOnly: d.MembersOnly}
	var docLosses []htmltomd.Loss
	for _, k := range slices.Sorted(maps.Keys(d.Losses)) {
		docLosses = append(docLosses, htmltomd.Loss{Kind: k, Count: d.Losses[k]})
	}
	if d.Paywall > 0 {
		teaser, l1 := markdownOfBlocks(d.Blocks[:d.Paywall])
		rest, l2 := markdownOfBlocks(d.Blocks[d.Paywall:])
		b.Markdown, b.Teaser, b.Losses = joinMarkdown(teaser, rest), teaser, mergeLosses(docLosses, l1, l2)
		return b
	}
	md, l := markdownOfBlocks(d.Blocks)
	b.Markdown, b.Losses = md, mergeLosses(docLosses, l)
	return b
}

func markdownOfBlocks(blocks []ghostdoc.Block) (string, []htmltomd.Loss) {
	var parts []string
	var losses [][]htmltomd.Loss
	var html strings.Builder
	flush := func() {
		if html.Len() == 0 {
			return
		}
		md, l := htmltomd.Convert(html.String())
		parts = append(parts, md)
		losses = append(losses, l)
		html.Reset()
	}
	for _, b := range blocks {
		if b.Markdown == "" {
			html.WriteString(b.HTML)
			html.WriteByte('\n')
			continue
		}
		flush()
		parts = append(parts, b.Markdown)
	}
	flush()
	return joinMarkdown(parts...), mergeLosses(losses...)
}

// ghostMarkdown is Markdown as written, ending in one newline.
func ghostMarkdown(md string) string { return joinMarkdown(md) }

// joinMarkdown joins parts of Markdown as paragraphs, without the blank
// lines around each, and ends the whole in one newline ("" when all are
// blank).
func joinMarkdown(parts ...string) string {
	var kept []string
	for _, p := range parts {
		p = strings.TrimRight(p, " \t\r\n")
		for {
			line, rest, ok := strings.Cut(p, "\n")
			if !ok || strings.TrimSpace(line) != "" {
				break
			}
			p = rest
		}
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return strings.Join(kept, "\n\n") + "\n"
}
