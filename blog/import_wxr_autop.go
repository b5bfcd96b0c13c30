package blog

import (
	"regexp"
	"strconv"
	"strings"
)

// autop does to content written in WordPress's classic editor what
// WordPress does when it shows it (its wpautop): the export keeps the text
// as typed, where a blank line separates paragraphs and a single newline
// is a line break; blocks of HTML stand on their own, and <pre> keeps its
// text as it is. It follows WordPress's steps, so that a post reads as it
// did there. Content of the block editor, which writes its own
// paragraphs, is not given to it (wxrBody).
func autop(text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	text += "\n"
	// <pre> is left alone: set aside, and put back at the end.
	var pres []string
	if strings.Contains(text, "<pre") {
		parts := strings.Split(text, "</pre>")
		last := parts[len(parts)-1]
		var b strings.Builder
		for _, part := range parts[:len(parts)-1] {
			start := strings.Index(part, "<pre")
			if start < 0 {
				b.WriteString(part)
				continue
			}
			b.WriteString(part[:start] + preHolder(len(pres)))
			pres = append(pres, part[start:]+"</pre>")
		}
		text = b.String() + last
	}
	// Two line breaks in a row make a paragraph break.
	text = autopDoubleBR.ReplaceAllString(text, "\n\n")
	// Blocks stand apart from the text around them.
	text = apartBlocks(text)
	text = autopHR.ReplaceAllString(text, "$1\n\n")
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	// Newlines inside tags and comments are no text: kept aside.
	text = inTags(text, func(tag string) string { return strings.ReplaceAll(tag, "\n", " <!-- wpnl --> ") })
	if strings.Contains(text, "<option") {
		text = autopOptionOpen.ReplaceAllString(text, "<option")
		text = autopOptionClose.ReplaceAllString(text, "</option>")
	}
	if strings.Contains(text, "</object>") {
		text = autopObjectOpen.ReplaceAllString(text, "$1")
		text = autopObjectClose.ReplaceAllString(text, "</object>")
		text = autopObjectParam.ReplaceAllString(text, "$1")
	}
	if strings.Contains(text, "<source") || strings.Contains(text, "<track") {
		text = autopMediaOpen.ReplaceAllString(text, "$1")
		text = autopMediaClose.ReplaceAllString(text, "$1")
		text = autopMediaSource.ReplaceAllString(text, "$1")
	}
	if strings.Contains(text, "<figcaption") {
		text = trimBefore(text, "<figcaption")
		text = autopFigcaptionClose.ReplaceAllString(text, "</figcaption>")
	}
	text = autopManyBreaks.ReplaceAllString(text, "\n\n")
	// Every stretch between blank lines is a paragraph…
	var b strings.Builder
	for _, p := range autopParagraphs.Split(text, -1) {
		if p == "" {
			continue
		}
		b.WriteString("<p>" + strings.Trim(p, "\n") + "</p>\n")
	}
	text = b.String()
	// …unless it is a block, or holds nothing.
	text = autopEmptyP.ReplaceAllString(text, "")
	text = closeParagraphs(text)
	text = unwrapBlocks(text, "<p>", "</p>")
	text = autopLiInP.ReplaceAllString(text, "$1")
	text = autopQuoteOpen.ReplaceAllString(text, "<blockquote$1><p>")
	text = strings.ReplaceAll(text, "</blockquote></p>", "</p></blockquote>")
	text = unwrapBlocks(text, "<p>", "")
	text = unwrapBlocks(text, "", "</p>")
	// A newline left inside a paragraph is a line break, except in
	// elements whose newlines mean nothing to the reader.
	text = preserveNewlines(text)
	text = strings.NewReplacer("<br>", "<br />", "<br/>", "<br />").Replace(text)
	text = lineBreaks(text)
	text = strings.ReplaceAll(text, "<WPPreserveNewline />", "\n")
	text = unwrapBlocks(text, "", "<br />")
	text = autopBRBeforeBlock.ReplaceAllString(text, "$1")
	if strings.HasSuffix(text, "\n</p>") {
		text = strings.TrimSuffix(text, "\n</p>") + "</p>"
	}
	if len(pres) > 0 {
		// The holders are in order: one pass puts them all back.
		var b strings.Builder
		from := 0
		for i, pre := range pres {
			at := strings.Index(text[from:], preHolder(i))
			if at < 0 {
				continue
			}
			b.WriteString(text[from : from+at])
			b.WriteString(pre)
			from += at + len(preHolder(i))
		}
		text = b.String() + text[from:]
	}
	if strings.Contains(text, "<!-- wpnl -->") {
		text = strings.NewReplacer(" <!-- wpnl --> ", "\n", "<!-- wpnl -->", "\n").Replace(text)
	}
	return text
}

func preHolder(i int) string { return "<pre wp-pre-tag-" + strconv.Itoa(i) + "></pre>" }

// autopBlocks are the elements WordPress's autop takes for blocks.
var autopBlocks = []string{"table", "thead", "tfoot", "caption", "col", "colgroup", "tbody", "tr", "td", "th", "div", "dl", "dd",
	"dt", "ul", "ol", "li", "pre", "form", "map", "area", "blockquote", "address", "math", "style", "p", "h1", "h2", "h3", "h4",
	"h5", "h6", "hr", "fieldset", "legend", "section", "article", "aside", "hgroup", "header", "footer", "nav", "figure",
	"figcaption", "details", "menu", "summary"}

// The steps of autop that look for block tags are written out rather than
// as regular expressions: Go's, which cannot skip ahead to a tag name
// that is one of many, read each byte with every alternative, and made
// autop read a megabyte a second.

// blockAt: s begins with the name of a block element, the way WordPress's
// pattern </?(?:table|…)[^>]*> matches one: as a prefix, so that <pre>
// and <param> match p too.
func blockAt(s string) bool {
	for _, b := range autopBlocks {
		if strings.HasPrefix(s, b) {
			return true
		}
	}
	return false
}

// blockIs: s begins with a block element's whole name, then end.
func blockIs(s string, end func(byte) bool) (n int, ok bool) {
	for _, b := range autopBlocks {
		if strings.HasPrefix(s, b) && len(s) > len(b) && end(s[len(b)]) {
			return len(b), true
		}
	}
	return 0, false
}

// apartBlocks puts a blank line before every block's start tag and after
// every block's end tag: (<blocks[\s/>]) and (</blocks>).
func apartBlocks(text string) string {
	var b strings.Builder
	from := 0
	for i := strings.IndexByte(text, '<'); i >= 0; {
		rest := text[i+1:]
		if n, ok := blockIs(rest, func(c byte) bool { return isSpace(c) || c == '/' || c == '>' }); ok && n > 0 {
			b.WriteString(text[from:i] + "\n\n")
			from = i
		} else if strings.HasPrefix(rest, "/") {
			if n, ok := blockIs(rest[1:], func(c byte) bool { return c == '>' }); ok {
				end := i + 1 + 1 + n + 1
				b.WriteString(text[from:end] + "\n\n")
				from = end
			}
		}
		next := strings.IndexByte(text[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if from == 0 {
		return text
	}
	return b.String() + text[from:]
}

// unwrapBlocks removes before (and white space) in front of a block's tag
// and (white space and) after behind it: where both are given, only
// around a tag that has both; where one is "", around tags that have the
// other. WordPress's <p>\s*(</?blocks[^>]*>)\s*</p>, <p>\s*(…) and
// (…)\s*</p>.
func unwrapBlocks(text, before, after string) string {
	var b strings.Builder
	from, i := 0, 0
	for {
		var start, tag int
		if before != "" {
			at := strings.Index(text[i:], before)
			if at < 0 {
				break
			}
			start = i + at
			tag = start + len(before)
			for tag < len(text) && isSpace(text[tag]) {
				tag++
			}
			if tag == len(text) || text[tag] != '<' {
				i = start + 1
				continue
			}
		} else {
			at := strings.IndexByte(text[i:], '<')
			if at < 0 {
				break
			}
			start = i + at
			tag = start
		}
		name := tag + 1
		if name < len(text) && text[name] == '/' {
			name++
		}
		gt := -1
		if blockAt(text[name:]) {
			gt = strings.IndexByte(text[name:], '>')
		}
		if gt < 0 {
			i = start + 1
			continue
		}
		tagEnd := name + gt + 1
		end := tagEnd
		if after != "" {
			for end < len(text) && isSpace(text[end]) {
				end++
			}
			if !strings.HasPrefix(text[end:], after) {
				i = start + 1
				continue
			}
			end += len(after)
		}
		b.WriteString(text[from:start])
		b.WriteString(text[tag:tagEnd])
		from, i = end, end
	}
	if from == 0 {
		return text
	}
	return b.String() + text[from:]
}

var (
	autopDoubleBR        = regexp.MustCompile(`<br\s*/?>\s*<br\s*/?>`)
	autopHR              = regexp.MustCompile(`(<hr\s*?/?>)`)
	autopOptionOpen      = regexp.MustCompile(`\s*<option`)
	autopOptionClose     = regexp.MustCompile(`</option>\s*`)
	autopObjectOpen      = regexp.MustCompile(`(<object[^>]*>)\s*`)
	autopObjectClose     = regexp.MustCompile(`\s*</object>`)
	autopObjectParam     = regexp.MustCompile(`\s*(</?(?:param|embed)[^>]*>)\s*`)
	autopMediaOpen       = regexp.MustCompile(`([<\[](?:audio|video)[^>\]]*[>\]])\s*`)
	autopMediaClose      = regexp.MustCompile(`\s*([<\[]/(?:audio|video)[>\]])`)
	autopMediaSource     = regexp.MustCompile(`\s*(<(?:source|track)[^>]*>)\s*`)
	autopFigcaptionClose = regexp.MustCompile(`</figcaption>\s*`)
	autopManyBreaks      = regexp.MustCompile(`\n\n+`)
	autopParagraphs      = regexp.MustCompile(`\n\s*\n`)
	autopEmptyP          = regexp.MustCompile(`<p>\s*</p>`)
	autopLiInP           = regexp.MustCompile(`<p>(<li.+?)</p>`)
	autopQuoteOpen       = regexp.MustCompile(`<p><(?i:blockquote)([^>]*)>`)
	autopBRBeforeBlock   = regexp.MustCompile(`<br />(\s*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`)
)

// trimBefore removes the white space before every occurrence of tag:
// WordPress's \s*(<figcaption[^>]*>).
func trimBefore(text, tag string) string {
	var b strings.Builder
	from := 0
	for {
		at := strings.Index(text[from:], tag)
		if at < 0 {
			break
		}
		at += from
		b.WriteString(strings.TrimRightFunc(text[from:at], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }))
		b.WriteString(tag)
		from = at + len(tag)
	}
	return b.String() + text[from:]
}

// closeParagraphs closes a paragraph that a div, address or form closes
// instead: WordPress's <p>([^<]+)</(div|address|form)>.
func closeParagraphs(text string) string {
	var b strings.Builder
	from, i := 0, 0
	for {
		at := strings.Index(text[i:], "<p>")
		if at < 0 {
			break
		}
		start := i + at + len("<p>")
		lt := strings.IndexByte(text[start:], '<')
		if lt <= 0 {
			i = start
			continue
		}
		end := start + lt
		for _, closer := range []string{"</div>", "</address>", "</form>"} {
			if strings.HasPrefix(text[end:], closer) {
				b.WriteString(text[from:end] + "</p>")
				from = end
				break
			}
		}
		i = end
	}
	if from == 0 {
		return text
	}
	return b.String() + text[from:]
}

// inTags rewrites every tag and comment of text with f, its text left as
// it is. A tag runs from '<' to the next '>', a comment to its "-->", as
// WordPress splits HTML for autop.
func inTags(text string, f func(string) string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '<')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		text = text[i:]
		end := len(text)
		if strings.HasPrefix(text, "<!--") {
			if e := strings.Index(text[4:], "-->"); e >= 0 {
				end = 4 + e + 3
			}
		} else if e := strings.IndexByte(text, '>'); e >= 0 {
			end = e + 1
		}
		b.WriteString(f(text[:end]))
		text = text[end:]
	}
}

// preserveNewlines keeps the newlines of script, style, svg and math
// elements out of the line breaks. Each name's next start is searched for
// once, not again from every element.
func preserveNewlines(text string) string {
	names := []string{"<script", "<style", "<svg", "<math"}
	next := make([]int, len(names))
	for k, n := range names {
		next[k] = strings.Index(text, n)
	}
	var b strings.Builder
	from := 0
	for {
		k := -1
		for i, at := range next {
			if at >= 0 && (k < 0 || at < next[k]) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		start := next[k]
		closer := "</" + names[k][1:] + ">"
		end := strings.Index(text[start:], closer)
		if end < 0 {
			break
		}
		end += start + len(closer)
		b.WriteString(text[from:start])
		b.WriteString(strings.ReplaceAll(text[start:end], "\n", "<WPPreserveNewline />"))
		from = end
		for i, at := range next {
			if at >= 0 && at < from {
				if next[i] = strings.Index(text[from:], names[i]); next[i] >= 0 {
					next[i] += from
				}
			}
		}
	}
	if from == 0 {
		return text
	}
	b.WriteString(text[from:])
	return b.String()
}

// lineBreaks writes "<br />" for every newline (with the white space
// before it) that does not already follow one: WordPress's
// (?<!<br />)\s*\n, which Go's regular expressions cannot say.
func lineBreaks(text string) string {
	var b strings.Builder
	i := 0
	for i < len(text) {
		if !isSpace(text[i]) {
			b.WriteByte(text[i])
			i++
			continue
		}
		// The white space from i: the match runs to its last newline, if
		// it has one and i does not follow a "<br />".
		j := i
		lastNL := -1
		for j < len(text) && isSpace(text[j]) {
			if text[j] == '\n' {
				lastNL = j
			}
			j++
		}
		switch {
		case lastNL < 0:
			b.WriteString(text[i:j])
			i = j
		case !strings.HasSuffix(text[:i], "<br />"):
			b.WriteString("<br />\n")
			i = lastNL + 1
		case lastNL > i:
			// After a "<br />" the match begins one further on.
			b.WriteByte(text[i])
			b.WriteString("<br />\n")
			i = lastNL + 1
		default:
			b.WriteByte(text[i])
			i++
		}
	}
	return b.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
