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
	text = autopBlockOpen.ReplaceAllString(text, "\n\n$1")
	text = autopBlockClose.ReplaceAllString(text, "$1\n\n")
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
		text = autopFigcaptionOpen.ReplaceAllString(text, "$1")
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
	text = autopUnclosedP.ReplaceAllString(text, "<p>$1</p></$2>")
	text = autopBlockInP.ReplaceAllString(text, "$1")
	text = autopLiInP.ReplaceAllString(text, "$1")
	text = autopQuoteOpen.ReplaceAllString(text, "<blockquote$1><p>")
	text = strings.ReplaceAll(text, "</blockquote></p>", "</p></blockquote>")
	text = autopPBeforeBlock.ReplaceAllString(text, "$1")
	text = autopPAfterBlock.ReplaceAllString(text, "$1")
	// A newline left inside a paragraph is a line break, except in
	// elements whose newlines mean nothing to the reader.
	text = preserveNewlines(text)
	text = strings.NewReplacer("<br>", "<br />", "<br/>", "<br />").Replace(text)
	text = lineBreaks(text)
	text = strings.ReplaceAll(text, "<WPPreserveNewline />", "\n")
	text = autopBRAfterBlock.ReplaceAllString(text, "$1")
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
const autopBlocks = `(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)`

var (
	autopDoubleBR        = regexp.MustCompile(`(?i)<br\s*/?>\s*<br\s*/?>`)
	autopBlockOpen       = regexp.MustCompile(`(?i)(<` + autopBlocks + `[\s/>])`)
	autopBlockClose      = regexp.MustCompile(`(?i)(</` + autopBlocks + `>)`)
	autopHR              = regexp.MustCompile(`(?i)(<hr\s*?/?>)`)
	autopOptionOpen      = regexp.MustCompile(`\s*<option`)
	autopOptionClose     = regexp.MustCompile(`</option>\s*`)
	autopObjectOpen      = regexp.MustCompile(`(<object[^>]*>)\s*`)
	autopObjectClose     = regexp.MustCompile(`\s*</object>`)
	autopObjectParam     = regexp.MustCompile(`\s*(</?(?:param|embed)[^>]*>)\s*`)
	autopMediaOpen       = regexp.MustCompile(`([<\[](?:audio|video)[^>\]]*[>\]])\s*`)
	autopMediaClose      = regexp.MustCompile(`\s*([<\[]/(?:audio|video)[>\]])`)
	autopMediaSource     = regexp.MustCompile(`\s*(<(?:source|track)[^>]*>)\s*`)
	autopFigcaptionOpen  = regexp.MustCompile(`\s*(<figcaption[^>]*>)`)
	autopFigcaptionClose = regexp.MustCompile(`</figcaption>\s*`)
	autopManyBreaks      = regexp.MustCompile(`\n\n+`)
	autopParagraphs      = regexp.MustCompile(`\n\s*\n`)
	autopEmptyP          = regexp.MustCompile(`<p>\s*</p>`)
	autopUnclosedP       = regexp.MustCompile(`<p>([^<]+)</(div|address|form)>`)
	autopBlockInP        = regexp.MustCompile(`(?i)<p>\s*(</?` + autopBlocks + `[^>]*>)\s*</p>`)
	autopLiInP           = regexp.MustCompile(`<p>(<li.+?)</p>`)
	autopQuoteOpen       = regexp.MustCompile(`(?i)<p><blockquote([^>]*)>`)
	autopPBeforeBlock    = regexp.MustCompile(`(?i)<p>\s*(</?` + autopBlocks + `[^>]*>)`)
	autopPAfterBlock     = regexp.MustCompile(`(?i)(</?` + autopBlocks + `[^>]*>)\s*</p>`)
	autopBRAfterBlock    = regexp.MustCompile(`(?i)(</?` + autopBlocks + `[^>]*>)\s*<br />`)
	autopBRBeforeBlock   = regexp.MustCompile(`(?i)<br />(\s*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`)
)

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
