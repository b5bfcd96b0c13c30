package blog

import (
	"fmt"
	"slices"
	"strings"

	"folio/blog/htmltomd"
)

// The body of a Hugo or Jekyll post is Markdown, kept as it is, except for
// the template syntax each generator runs over it and Folio cannot: Hugo's
// shortcodes ({{< name >}}, {{% name %}}) and Jekyll's Liquid tags
// ({% tag %}, {{ variable }}). Those with a Markdown form are converted;
// the others stay as the text they are, each kind counted as a loss
// (docs/export-import.md#hugo-and-jekyll).

// siteLink resolves a link of the site's own syntax (Hugo's ref and relref,
// Jekyll's post_url and link) to the address the post or page it names
// gets in Folio; ok is false when the export has no such item.
type siteLink func(kind, target string) (addr string, ok bool)

// siteBody converts the template syntax of a post's or page's body, in
// time that grows with the body: the tags it could not read may have
// examined budget bytes in all (past that the rest is text), and a search
// for a closing tag that found none is not made again.
type siteBody struct {
	src    string
	out    strings.Builder
	link   siteLink
	losses map[string]int
	budget int
	noEnd  map[string]bool
	// The last "%}" and "}}" of the body: a Liquid tag that starts after
	// them is not closed.
	lastTagClose, lastOutClose int
}

// convertSiteBody converts body: Liquid for a Jekyll file, shortcodes for
// a Hugo one.
func convertSiteBody(body string, liquid bool, link siteLink) (string, []htmltomd.Loss) {
	c := &siteBody{src: body, link: link, losses: map[string]int{}, budget: 4*len(body) + 64<<10, noEnd: map[string]bool{},
		lastTagClose: strings.LastIndex(body, "%}"), lastOutClose: strings.LastIndex(body, "}}")}
	if liquid {
		c.liquid()
	} else {
		c.shortcodes()
	}
	var losses []htmltomd.Loss
	for k, n := range c.losses {
		losses = append(losses, htmltomd.Loss{Kind: k, Count: n})
	}
	slices.SortFunc(losses, func(a, b htmltomd.Loss) int { return strings.Compare(a.Kind, b.Kind) })
	return c.out.String(), losses
}

// hugoTag is one shortcode tag: {{< name args >}}, {{< /name >}}, or the
// escaped form {{</* … */>}} that Hugo shows as written.
type hugoTag struct {
	start, end  int
	name        string
	closing     bool
	selfClosing bool
	positional  []string
	named       map[string]string
	escaped     string // the text of an escaped tag, as Hugo shows it
}

// arg is a named argument, else the positional one at i.
func (t hugoTag) arg(name string, i int) string {
	if v, ok := t.named[name]; ok {
		return v
	}
	if i >= 0 && i < len(t.positional) {
		return t.positional[i]
	}
	return ""
}

// maxShortcodeTag bounds a shortcode tag: Hugo's are a line or a few.
const maxShortcodeTag = 16 << 10

// parseHugoTag reads the shortcode tag that starts at s[i:] ("{{<" or
// "{{%"); ok is false when it is not one, and end then where the reading
// stopped.
func parseHugoTag(s string, i int) (t hugoTag, ok bool) {
	defer func() {
		if !ok {
			t.end = max(t.end, i+3)
		}
	}()
	t = hugoTag{start: i, named: map[string]string{}}
	open, end := s[i+2:i+3], ">}}"
	if open == "%" {
		end = "%}}"
	}
	j := skipSpace(s, i+3)
	if strings.HasPrefix(s[j:], "/*") {
		k := strings.Index(s[j+2:], "*/")
		if k < 0 {
			t.end = len(s)
			return t, false
		}
		inner := s[j+2 : j+2+k]
		after := skipSpace(s, j+2+k+2)
		if !strings.HasPrefix(s[after:], end) {
			t.end = after
			return t, false
		}
		t.end = after + len(end)
		t.escaped = "{{" + open + inner + end
		return t, true
	}
	if j < len(s) && s[j] == '/' {
		t.closing = true
		j = skipSpace(s, j+1)
	}
	n := j
	for n < len(s) && isHugoShortcodeNameByte(s[n]) {
		n++
	}
	if n == j {
		return t, false
	}
	t.name = s[j:n]
	for j = n; ; {
		j = skipSpace(s, j)
		t.end = j
		switch {
		case j >= len(s) || j-i > maxShortcodeTag:
			return t, false
		case strings.HasPrefix(s[j:], end):
			t.end = j + len(end)
			return t, true
		case strings.HasPrefix(s[j:], "/"+end):
			t.end, t.selfClosing = j+1+len(end), true
			return t, true
		}
		var key, val string
		var ok bool
		if k := j; s[k] != '"' && s[k] != '`' {
			for k < len(s) && isKeyByte(s[k]) {
				k++
			}
			if k > j && k < len(s) && s[k] == '=' {
				key, j = s[j:k], k+1
			}
		}
		if val, j, ok = shortcodeValue(s, j, end); !ok {
			t.end = len(s) // an unclosed quote
			return t, false
		}
		if key != "" {
			t.named[key] = val
		} else {
			t.positional = append(t.positional, val)
		}
	}
}

// isKeyByte: c may be part of a named argument's key.
func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// isHugoShortcodeNameByte: c may be part of a shortcode's name, which names a
// template file, in a folder or not (gallery/image).
func isHugoShortcodeNameByte(c byte) bool { return isKeyByte(c) || c == '/' || c == '.' }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// shortcodeValue reads an argument's value at s[j:]: "quoted" (with
// backslash escapes), `raw`, or a bare word.
func shortcodeValue(s string, j int, end string) (string, int, bool) {
	if j >= len(s) {
		return "", j, false
	}
	switch s[j] {
	case '"':
		var b strings.Builder
		for k := j + 1; k < len(s); k++ {
			switch s[k] {
			case '\\':
				if k+1 < len(s) {
					k++
					b.WriteByte(s[k])
				}
			case '"':
				return b.String(), k + 1, true
			default:
				b.WriteByte(s[k])
			}
		}
		return "", j, false
	case '`':
		k := strings.IndexByte(s[j+1:], '`')
		if k < 0 {
			return "", j, false
		}
		return s[j+1 : j+1+k], j + k + 2, true
	}
	k := j
	for k < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[k])) && !strings.HasPrefix(s[k:], end) &&
		!strings.HasPrefix(s[k:], "/"+end) {
		k++
	}
	return s[j:k], k, k > j
}

// shortcodes converts the Hugo shortcodes of the body.
func (c *siteBody) shortcodes() {
	s := c.src
	i := 0
	for {
		k := nextShortcode(s, i)
		if k < 0 {
			c.out.WriteString(s[i:])
			return
		}
		t, ok := c.hugoTagAt(k)
		if c.budget <= 0 {
			c.out.WriteString(s[i:])
			return
		}
		if !ok {
			c.out.WriteString(s[i : k+3])
			i = k + 3
			continue
		}
		c.out.WriteString(s[i:k])
		i = t.end
		if t.escaped != "" {
			c.out.WriteString(t.escaped)
			continue
		}
		if t.closing {
			// The end of a shortcode kept as text: its opening tag
			// was counted.
			c.out.WriteString(s[t.start:t.end])
			continue
		}
		if t.name == "highlight" && !t.selfClosing {
			if close, ok := c.closingShortcode(t.end, "highlight"); ok {
				c.fence(s[t.end:close.start], t.arg("", 0))
				i = close.end
				continue
			}
		}
		if md, ok := c.shortcode(t); ok {
			c.out.WriteString(md)
			continue
		}
		c.out.WriteString(s[t.start:t.end])
	}
}

// nextShortcode is the offset of the next "{{<" or "{{%" from i; -1 when
// there is none.
func nextShortcode(s string, i int) int {
	for {
		k := strings.Index(s[i:], "{{")
		if k < 0 || i+k+2 >= len(s) {
			return -1
		}
		if c := s[i+k+2]; c == '<' || c == '%' {
			return i + k
		}
		i += k + 1
	}
}

// hugoTagAt reads the tag at offset k, charging a failed reading to the
// budget.
func (c *siteBody) hugoTagAt(k int) (hugoTag, bool) {
	if c.budget <= 0 {
		return hugoTag{}, false
	}
	t, ok := parseHugoTag(c.src, k)
	if !ok {
		c.budget -= t.end - k
	}
	return t, ok
}

// closingShortcode finds the tag that closes name after offset from.
func (c *siteBody) closingShortcode(from int, name string) (hugoTag, bool) {
	if c.noEnd[name] {
		return hugoTag{}, false
	}
	for i := from; c.budget > 0; {
		k := nextShortcode(c.src, i)
		if k < 0 {
			break
		}
		if t, ok := c.hugoTagAt(k); ok && t.closing && t.name == name {
			return t, true
		}
		i = k + 3
	}
	c.noEnd[name] = true
	return hugoTag{}, false
}

// shortcode converts one of Hugo's own shortcodes to Markdown; ok is false
// (the loss counted) for any other, or one without what it needs.
func (c *siteBody) shortcode(t hugoTag) (string, bool) {
	keep := func() (string, bool) {
		c.losses[fmt.Sprintf("Hugo shortcode %q kept as text", t.name)]++
		return "", false
	}
	switch t.name {
	case "figure":
		src := t.arg("src", -1)
		if src == "" {
			return keep()
		}
		img := "![" + mdText(t.arg("alt", -1)) + "](" + mdLinkDest(src) + ")"
		if link := t.arg("link", -1); link != "" {
			img = "[" + img + "](" + mdLinkDest(link) + ")"
		}
		var caption []string
		for _, k := range []string{"title", "caption"} {
			if v := strings.TrimSpace(t.arg(k, -1)); v != "" {
				caption = append(caption, v)
			}
		}
		if len(caption) > 0 {
			// In italics, with the delimiter the caption's own
			// emphasis does not use.
			text, em := strings.Join(caption, ": "), "*"
			if strings.Contains(text, "*") && !strings.Contains(text, "_") {
				em = "_"
			}
			img += "\n\n" + em + text + em
		}
		return img, true
	case "youtube", "vimeo", "gist", "tweet", "x", "instagram":
		href, label := embedLink(t)
		if href == "" {
			return keep()
		}
		if title := t.arg("title", -1); title != "" {
			label = title
		}
		return "[" + mdText(label) + "](" + href + ")", true
	case "ref", "relref":
		target := t.arg("path", 0)
		if target == "" {
			return keep()
		}
		if addr, ok := c.link("ref", target); ok {
			return addr, true
		}
		c.losses["Hugo ref to a page not in the export kept as text"]++
		return "", false
	}
	return keep()
}

// embedLink is the address of the video, gist or post an embedding
// shortcode shows, and the text of a link to it.
func embedLink(t hugoTag) (href, label string) {
	id := t.arg("id", 0)
	if id == "" || strings.ContainsAny(id, " \t\n()<>\"") {
		return "", ""
	}
	switch t.name {
	case "youtube":
		return "https://www.youtube.com/watch?v=" + id, "YouTube video"
	case "vimeo":
		return "https://vimeo.com/" + id, "Vimeo video"
	case "instagram":
		return "https://www.instagram.com/p/" + id + "/", "Instagram post"
	case "gist":
		user, gist := t.arg("user", 0), t.arg("id", 1)
		if user == "" || gist == "" || strings.ContainsAny(user+gist, " \t\n()<>\"/") {
			return "", ""
		}
		return "https://gist.github.com/" + user + "/" + gist, "Gist " + user + "/" + gist
	}
	// tweet and x: user and id named (Hugo 0.112 and later), or the id
	// alone (before).
	user := t.named["user"]
	if user == "" || strings.ContainsAny(user, " \t\n()<>\"/") {
		user = "i"
	}
	if t.name == "x" {
		return "https://x.com/" + user + "/status/" + id, "Post on X"
	}
	return "https://twitter.com/" + user + "/status/" + id, "Tweet"
}

// fence writes code as a fenced code block in language lang, on lines of
// its own, with a fence longer than any run of backticks in it.
func (c *siteBody) fence(code, lang string) {
	code = strings.TrimPrefix(strings.TrimPrefix(code, "\r"), "\n")
	code = strings.TrimRight(code, " \t\r\n")
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	if lang = strings.TrimSpace(lang); strings.ContainsAny(lang, "`") {
		lang = ""
	}
	if out := c.out.String(); out != "" && !strings.HasSuffix(out, "\n") {
		c.out.WriteByte('\n')
	}
	c.out.WriteString(fence + lang + "\n" + code + "\n" + fence)
}

// mdText escapes the characters that would end a link's text.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "\n", " ").Replace(s)
}

// mdLinkDest writes a link's destination, in angle brackets when it holds a
// space or parenthesis.
func mdLinkDest(s string) string {
	if strings.ContainsAny(s, " ()<>\n") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E", "\n", "").Replace(s) + ">"
	}
	return s
}

// liquidTag is one Liquid tag ({% name args %}) or output ({{ expr }}).
type liquidTag struct {
	start, end int
	output     bool
	name, args string // a tag's name and the rest; an output's expression
}

// liquidAt reads the tag or output that starts at offset i; ok is false
// when it is not closed.
func (c *siteBody) liquidAt(i int) (liquidTag, bool) {
	s := c.src
	t := liquidTag{start: i, output: s[i+1] == '{'}
	close, last := "%}", c.lastTagClose
	if t.output {
		close, last = "}}", c.lastOutClose
	}
	if last < i+2 {
		return t, false
	}
	k := strings.Index(s[i+2:], close)
	if k < 0 {
		return t, false
	}
	t.end = i + 2 + k + 2
	inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s[i+2:i+2+k], "-"), "-"))
	if t.output {
		t.args = inner
		return t, true
	}
	t.name, t.args, _ = strings.Cut(inner, " ")
	t.args = strings.TrimSpace(t.args)
	return t, true
}

// nextLiquid is the offset of the next "{%" or "{{" from i; -1 when there
// is none.
func nextLiquid(s string, i int) int {
	for {
		k := strings.IndexByte(s[i:], '{')
		if k < 0 || i+k+1 >= len(s) {
			return -1
		}
		if c := s[i+k+1]; c == '%' || c == '{' {
			return i + k
		}
		i += k + 1
	}
}

// endTag finds the tag {% name %} after offset from.
func (c *siteBody) endTag(from int, name string) (liquidTag, bool) {
	if c.noEnd[name] {
		return liquidTag{}, false
	}
	for i := from; ; {
		k := nextLiquid(c.src, i)
		if k < 0 {
			break
		}
		t, ok := c.liquidAt(k)
		if ok && !t.output && t.name == name {
			return t, true
		}
		i = k + 2
		if ok {
			i = t.end
		}
	}
	c.noEnd[name] = true
	return liquidTag{}, false
}

// liquid converts the Liquid of the body.
func (c *siteBody) liquid() {
	s := c.src
	i := 0
	for {
		k := nextLiquid(s, i)
		if k < 0 {
			c.out.WriteString(s[i:])
			return
		}
		t, ok := c.liquidAt(k)
		if !ok {
			c.out.WriteString(s[i : k+2])
			i = k + 2
			continue
		}
		c.out.WriteString(s[i:k])
		i = t.end
		if t.output {
			if md, ok := liquidOutput(t.args); ok {
				c.out.WriteString(md)
				continue
			}
			c.losses["Liquid {{ … }} kept as text"]++
			c.out.WriteString(s[t.start:t.end])
			continue
		}
		switch t.name {
		case "raw", "comment", "highlight":
			end, ok := c.endTag(t.end, "end"+t.name)
			if !ok {
				break
			}
			switch t.name {
			case "raw": // its content as it is, never read as Liquid
				c.out.WriteString(s[t.end:end.start])
			case "highlight":
				lang, _, _ := strings.Cut(t.args, " ")
				c.fence(s[t.end:end.start], lang)
			}
			i = end.end
			continue
		case "post_url", "link":
			if addr, ok := c.link(t.name, t.args); ok && t.args != "" {
				c.out.WriteString(addr)
				continue
			}
			c.losses[fmt.Sprintf("Liquid %s to a file not in the export kept as text", t.name)]++
			c.out.WriteString(s[t.start:t.end])
			continue
		}
		c.losses[fmt.Sprintf("Liquid tag %q kept as text", t.name)]++
		c.out.WriteString(s[t.start:t.end])
	}
}

// liquidOutput converts the {{ … }} that have a plain form: the site's
// own address, which is the blog's own now, and a path through
// relative_url or absolute_url.
func liquidOutput(expr string) (string, bool) {
	switch strings.Join(strings.Fields(expr), " ") {
	case "site.baseurl", "site.url", "site.url | append: site.baseurl", "site.baseurl | prepend: site.url":
		return "", true
	}
	value, filter, ok := strings.Cut(expr, "|")
	value = strings.TrimSpace(value)
	filter = strings.TrimSpace(filter)
	if ok && (filter == "relative_url" || filter == "absolute_url") && len(value) >= 2 &&
		(value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		return value[1 : len(value)-1], true
	}
	return "", false
}
