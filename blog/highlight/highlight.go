// Package highlight colours the code of a fenced block: a small lexer per
// common language writes the code HTML-escaped, its tokens wrapped in
// <span class="hl-…"> elements that the site's theme and the console's
// preview colour (docs/console.md#syntax-highlighting). It is a leaf: it
// knows nothing of Folio.
//
// The lexers are deliberately shallow: they know comments, strings,
// numbers, keywords and types, not grammar, so a construct they miss
// leaves text uncoloured, never broken. Every lexer reads its input once,
// left to right, each step consuming at least one byte, so the time is
// linear in the code's length whatever it holds; spans never nest and
// always close, and the text of the output, tags removed and references
// resolved, is the input byte for byte.
package highlight

import (
	"slices"
	"strings"
)

// The classes of the spans, named for theme authors in docs/console.md.
const (
	Keyword     = "hl-k"
	String      = "hl-s"
	Comment     = "hl-c"
	Number      = "hl-n"
	Type        = "hl-t"
	Function    = "hl-f"
	Added       = "hl-add"
	Deleted     = "hl-del"
	classPrefix = "hl-"
)

// Classes lists every class a span may carry.
func Classes() []string {
	return []string{Keyword, String, Comment, Number, Type, Function, Added, Deleted}
}

// Known reports whether lang (a fenced block's info word, any case) names
// a language this package colours.
func Known(lang string) bool {
	_, ok := lookup(lang)
	return ok
}

// Languages lists the names and aliases Known accepts, sorted.
func Languages() []string {
	out := make([]string, 0, len(aliases))
	for name := range aliases {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// HTML is code highlighted as lang: escaped text with spans, or escaped
// text alone for a language it does not know.
func HTML(lang, code string) string {
	return string(Append(nil, lang, []byte(code)))
}

// Append appends code highlighted as lang to dst.
func Append(dst []byte, lang string, code []byte) []byte {
	l, ok := lookup(lang)
	if !ok {
		return escape(dst, code)
	}
	o := &out{buf: dst}
	switch l.kind {
	case kindMarkup:
		lexMarkup(o, code)
	case kindDiff:
		lexDiff(o, code)
	default:
		lexGeneric(o, l, code)
	}
	return o.buf
}

func lookup(lang string) (*language, bool) {
	name, ok := aliases[strings.ToLower(strings.TrimSpace(lang))]
	if !ok {
		return nil, false
	}
	l, ok := languages[name]
	return l, ok
}

// out collects the HTML.
type out struct{ buf []byte }

// text writes plain code.
func (o *out) text(b []byte) { o.buf = escape(o.buf, b) }

// span writes code as one token of class; empty code writes nothing, so
// no empty span appears.
func (o *out) span(class string, b []byte) {
	if len(b) == 0 {
		return
	}
	o.buf = append(o.buf, `<span class="`...)
	o.buf = append(o.buf, class...)
	o.buf = append(o.buf, `">`...)
	o.buf = escape(o.buf, b)
	o.buf = append(o.buf, `</span>`...)
}

// escape appends b with the characters HTML gives meaning escaped, as the
// Markdown renderer escapes the code it does not colour.
func escape(dst, b []byte) []byte {
	start := 0
	for i, c := range b {
		var rep string
		switch c {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&quot;"
		default:
			continue
		}
		dst = append(dst, b[start:i]...)
		dst = append(dst, rep...)
		start = i + 1
	}
	return append(dst, b[start:]...)
}
