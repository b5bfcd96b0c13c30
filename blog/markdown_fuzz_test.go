package blog

import (
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"testing"

	"folio/blog/highlight"
)

// markdownSeeds are Markdown sources that reach every construct the
// renderer knows and the payloads of xss_test.go.
var markdownSeeds = []string{
	"",
	"# Title\n\nSome **bold**, *em*, `code`, ~~del~~ and a [link](https://example.org \"t\").\n",
	"| a | b | c |\n|:-|:-:|-:|\n| 1 | 2 | 3 |\n",
	"- [x] done\n- [ ] todo\n\n5. five\n6. six\n",
	"Text[^1] and more[^note].\n\n[^1]: A note.\n[^note]: # A heading in a note\n",
	"```go\nfunc main() {}\n```\n\n    indented\n\n> quote\n> > nested\n\n---\n",
	"```html\n<a href=\"javascript:x\" onclick='y'><!-- c\n```\n\n```bash\necho ${x} \"$y\" # </code>\n```\n\n```diff\n-a\n+<b>\n```\n",
	"Setext\n===\n\n## Two\n\n### Three {#custom}\n\n###### Six\n",
	"<https://example.org> www.example.org me@example.org line  \nbreak\\\nagain",
	"![img](/a.png \"t\") ![d](data:image/png;base64,iVBORw0KGgo=) ![x](data:image/svg+xml;base64,PHN2Zz4=)",
	"<script>alert(1)</script>\n\nhi <script>alert(1)</script> there",
	"<img src=x onerror=\"alert(1)\">\n\ntext <img src=x onerror=alert(1)> text <b onclick=x>",
	"[x](javascript:alert(1)) [x](JaVaScRiPt:alert(1)) [x](&#106;avascript:alert(1))",
	"[x](&#x6A;avascript&#x3A;alert(1)) [x](java&#9;script:alert(1)) [x](vbscript:msgbox(1))",
	"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) <javascript:alert(1)>",
	"[x][r] [y][r2]\n\n[r]: javascript:alert(1)\n[r2]: <java\tscript:alert(1)> \"t\"\n",
	"<iframe src=\"https://evil.example\"></iframe>\n<!-- comment -->\n<?php echo 1; ?>\n<![CDATA[x]]>",
	"[a](<javascript:alert(1)>) [b](java\\script:x) [c]( javascript:x ) [d](\x00javascript:x)",
	"[a](&#0;javascript:x) [b](&Tab;javascript:x) [c](javascript&colon;x) [d](%6Aavascript:x)",
	"[a](mailto:a@b.example) [b](tel:+1) [c](ftp://x) [d](/rel?q=1#f) [e](#frag) [f](//evil.example)",
	"* a\n  * b\n    1. c\n\n> - [x] quoted task\n\n<div onmouseover=\"x\">\n*md*\n</div>",
}

// FuzzRender renders any Markdown as the blog does and checks the HTML the
// way a browser would read it (docs/testing.md#fuzzing): every tag is one
// goldmark writes for Markdown, never one from raw HTML; every attribute
// is one of those tags' own (so no on…= handler, no style), with its value
// in double quotes, a class only the renderer's own; every href and src
// names no scheme but the ones safeURL allows; and the table of contents
// lists the headings of the HTML, in order.
func FuzzRender(f *testing.F) {
	for _, s := range markdownSeeds {
		f.Add(s)
	}
	b := &Blog{md: newMarkdown()}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := b.render(t.Context(), src)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		tags, err := checkHTML(out.HTML)
		if err != nil {
			t.Fatalf("%v in %q", err, out.HTML)
		}
		var headings []TOCEntry
		for _, tag := range tags {
			if len(tag.name) == 2 && tag.name[0] == 'h' && tag.name[1] >= '1' && tag.name[1] <= '6' && !tag.end {
				headings = append(headings, TOCEntry{Level: int(tag.name[1] - '0'), ID: tag.attrs["id"]})
			}
		}
		if len(headings) != len(out.TOC) {
			t.Fatalf("%d headings in the HTML, %d in the TOC %v: %q", len(headings), len(out.TOC), out.TOC, out.HTML)
		}
		for i, h := range headings {
			if h.Level != out.TOC[i].Level || h.ID != out.TOC[i].ID {
				t.Fatalf("heading %d is h%d id %q; the TOC says h%d id %q", i, h.Level, h.ID, out.TOC[i].Level, out.TOC[i].ID)
			}
		}
	})
}

// checkHTML reads HTML with scanHTML and holds every tag to checkTag.
func checkHTML(s string) ([]htmlTag, error) {
	tags, err := scanHTML(s)
	if err != nil {
		return nil, err
	}
	for _, tag := range tags {
		if err := checkTag(tag); err != nil {
			return nil, err
		}
	}
	return tags, nil
}

// TestCheckHTMLRefusesLiveHTML keeps FuzzRender's checker honest: HTML
// that a browser would run, or that goldmark does not write, fails it.
func TestCheckHTMLRefusesLiveHTML(t *testing.T) {
	good := `<p>a &lt;b&gt; <a href="https://x" title="t">x</a> <img src="data:image/png;base64,AA" alt="i"></p>` +
		`<td class="align-left">1</td><input checked="" disabled="" type="checkbox"><br>` +
		`<pre tabindex="0"><code class="language-go"><span class="hl-k">func</span></code></pre>`
	if _, err := checkHTML(good); err != nil {
		t.Fatalf("checkHTML(%q): %v", good, err)
	}
	for _, bad := range []string{
		"<script>alert(1)</script>", "<p onclick=\"x\">", "<img src=x onerror=alert(1)>", "<img src='x'>",
		`<a href="javascript:alert(1)">`, `<a href="java&#9;script:x">`, `<a href=" &#x4A;avascript:x">`,
		`<a href="data:image/png,x">`, `<img src="data:image/svg+xml,x">`, `<a HREF="x">`, `<iframe>`,
		"<p>a > b</p>", "<!-- x -->", `<p style="color:red">`, `<input type="text">`, `<a href="x" href="y">`,
		`<a title="<x>">`, "<p", `<a href="x>`, `<td style="text-align:left">`, `<td class="x">`,
		`<span class="evil">`, `<span style="color:red">`,
	} {
		if _, err := checkHTML(bad); err == nil {
			t.Errorf("checkHTML(%q) passes", bad)
		}
	}
}

// htmlTag is one start or end tag, its attribute values unescaped.
type htmlTag struct {
	name  string
	end   bool
	attrs map[string]string
}

// scanHTML reads the renderer's HTML strictly: text holds no "<" or ">",
// and every "<" starts a tag of lower-case letters and digits whose
// attributes are name="value" pairs (or bare names), in the form goldmark
// writes them. Anything else is an error, so raw HTML cannot slip by in a
// shape this reader does not know.
func scanHTML(s string) ([]htmlTag, error) {
	var tags []htmlTag
	for i := 0; i < len(s); {
		switch s[i] {
		case '>':
			return nil, fmt.Errorf("a bare > at %d", i)
		case '<':
		default:
			i++
			continue
		}
		start := i
		i++
		tag := htmlTag{attrs: map[string]string{}}
		if i < len(s) && s[i] == '/' {
			tag.end = true
			i++
		}
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("a < that starts no tag at %d", start)
		}
		tag.name, i = s[i:j], j
		for {
			if i >= len(s) {
				return nil, fmt.Errorf("tag at %d not closed", start)
			}
			if s[i] == '>' {
				i++
				break
			}
			if s[i] != ' ' || tag.end {
				return nil, fmt.Errorf("unexpected %q in the tag at %d", s[i], start)
			}
			i++
			j = i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '-') {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("an attribute without a name in the tag at %d", start)
			}
			name := s[i:j]
			if _, dup := tag.attrs[name]; dup {
				return nil, fmt.Errorf("attribute %s twice in the tag at %d", name, start)
			}
			i = j
			if i < len(s) && s[i] == '=' {
				if i+1 >= len(s) || s[i+1] != '"' {
					return nil, fmt.Errorf("attribute %s not in double quotes in the tag at %d", name, start)
				}
				end := strings.IndexByte(s[i+2:], '"')
				if end < 0 {
					return nil, fmt.Errorf("attribute %s not closed in the tag at %d", name, start)
				}
				raw := s[i+2 : i+2+end]
				if strings.ContainsAny(raw, "<>") {
					return nil, fmt.Errorf("attribute %s holds < or > in the tag at %d", name, start)
				}
				tag.attrs[name] = html.UnescapeString(raw)
				i += 2 + end + 1
			} else {
				tag.attrs[name] = ""
			}
		}
		tags = append(tags, tag)
	}
	return tags, nil
}

// markdownTags are the tags goldmark writes for GitHub-flavoured Markdown
// with footnotes, each with the attributes it may carry.
var markdownTags = map[string][]string{
	"p": nil, "blockquote": nil, "pre": {"tabindex"}, "code": {"class"}, "em": nil, "strong": nil, "del": nil,
	"br": nil, "hr": nil, "ul": {"class"}, "ol": {"start", "class"}, "li": {"id", "class"},
	"h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "h5": {"id"}, "h6": {"id"},
	"a": {"href", "title", "class", "role"}, "img": {"src", "alt", "title", "loading", "decoding", "width", "height"},
	"table": nil, "thead": nil, "tbody": nil, "tr": nil, "th": {"class"}, "td": {"class"},
	"input": {"checked", "disabled", "type", "aria-label"}, "sup": {"id"}, "div": {"class", "role"},
	"span": {"class"},
}

// checkTag holds one tag to markdownTags and its values to what goldmark
// writes; links and images to safe URLs.
func checkTag(tag htmlTag) error {
	allowed, ok := markdownTags[tag.name]
	if !ok {
		return fmt.Errorf("tag <%s>", tag.name)
	}
	for name, v := range tag.attrs {
		if !contains(allowed, name) {
			return fmt.Errorf("attribute %s on <%s>", name, tag.name)
		}
		switch name {
		case "class":
			// A table cell's alignment and a highlighted token's kind
			// are the classes the renderer itself gives.
			switch tag.name {
			case "th", "td":
				if v != "align-left" && v != "align-center" && v != "align-right" {
					return fmt.Errorf("class %q on <%s>", v, tag.name)
				}
			case "span":
				if !slices.Contains(highlight.Classes(), v) {
					return fmt.Errorf("class %q on <span>", v)
				}
			}
		case "type":
			if v != "checkbox" {
				return fmt.Errorf("input type %q", v)
			}
		case "tabindex":
			if v != "0" {
				return fmt.Errorf("tabindex %q", v)
			}
		case "loading", "decoding":
			if v != "lazy" && v != "async" {
				return fmt.Errorf("%s %q", name, v)
			}
		case "width", "height":
			if v == "" || strings.Trim(v, "0123456789") != "" {
				return fmt.Errorf("%s %q", name, v)
			}
		case "href", "src":
			if scheme := browserScheme(v); scheme != "" && !allowedScheme(scheme, v, name == "src") {
				return fmt.Errorf("%s=%q: scheme %q", name, v, scheme)
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// browserScheme is the scheme a browser reads from an attribute's
// (unescaped) URL, lower-cased, "" for a relative URL: leading and
// trailing C0 controls and spaces go, tabs and newlines go wherever they
// are, and a scheme is a letter, then letters, digits, "+", "-" or ".",
// then ":" (the URL Standard's scheme state).
func browserScheme(u string) string {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	u = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u)
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(u[:i])
		default:
			return ""
		}
	}
	return ""
}

// allowedScheme is safeURL's allow-list: http, https, mailto, tel and
// ftp anywhere, and for images data: URLs of PNG, GIF, JPEG or WebP.
func allowedScheme(scheme, u string, image bool) bool {
	switch scheme {
	case "http", "https", "mailto", "tel", "ftp":
		return true
	case "data":
		if !image {
			return false
		}
		var b strings.Builder
		for _, r := range strings.ToLower(u) {
			if r > ' ' && r != 0x7f {
				b.WriteRune(r)
			}
		}
		for _, t := range []string{"data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"} {
			if rest, ok := strings.CutPrefix(b.String(), t); ok && rest != "" && (rest[0] == ';' || rest[0] == ',') {
				return true
			}
		}
	}
	return false
}

// FuzzSafeURL checks safeURL alone (docs/testing.md#fuzzing): a URL it
// accepts names, as a browser reads it after resolving character
// references, either no scheme or one of the allow-list (http, https,
// mailto, tel, ftp; data:image/png|gif|jpeg|webp for images only); where
// net/url parses it, net/url finds the same; and whatever a link may
// name, an image may too.
func FuzzSafeURL(f *testing.F) {
	for _, u := range []string{
		"https://example.org/a?b#c", "HTTP://X", "/rel", "rel/a:b", "?q=a:b", "#a:b", "//evil.example",
		"mailto:a@b.example", "tel:+1", "ftp://x", "javascript:alert(1)", "JaVaScRiPt:alert(1)",
		"&#106;avascript:alert(1)", "&#x6A;avascript&#x3A;alert(1)", "java&#9;script:alert(1)",
		"java\tscript:x", " \x00javascript:x", "javascript&colon;x", "vbscript:msgbox(1)",
		"data:text/html;base64,PHNjcmlwdD4=", "data:image/png;base64,iVBORw0KGgo=", "data:image/svg+xml,<svg>",
		"DATA:IMAGE/JPEG,x", "data:image/pngx,", "%6Aavascript:x", ":x", "a+b.c-d:x", "1a:x", "\u0130:x",
		"&Tab;javascript:x", "&NewLine;javascript:x", "java\u00adscript:x", "ht&#x74;p:x",
	} {
		f.Add(u, false)
		f.Add(u, true)
	}
	f.Fuzz(func(t *testing.T, raw string, image bool) {
		ok := safeURL(raw, image)
		if !image && ok && !safeURL(raw, true) {
			t.Fatalf("%q is safe for a link but not for an image", raw)
		}
		if !ok {
			return
		}
		u := html.UnescapeString(raw)
		scheme := browserScheme(u)
		if scheme != "" && !allowedScheme(scheme, u, image) {
			t.Fatalf("safeURL(%q, %v) accepts scheme %q", raw, image, scheme)
		}
		parsed, err := url.Parse(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })))
		if err == nil && parsed.Scheme != "" && strings.ToLower(parsed.Scheme) != scheme {
			t.Fatalf("safeURL(%q, %v): net/url reads scheme %q, a browser %q", raw, image, parsed.Scheme, scheme)
		}
	})
}
