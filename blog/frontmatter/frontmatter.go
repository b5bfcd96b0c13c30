// Package frontmatter reads the front matter of a Hugo or Jekyll content
// file: YAML between "---" lines, TOML between "+++" lines, or a JSON
// object, followed by the body. It reads the subset of each language that
// such files use (docs/export-import.md#hugo-and-jekyll): scalars,
// strings in every quoting style, lists, booleans, numbers and dates;
// nested mappings and tables are recognised and skipped, not read. It
// never panics: a file it cannot read gives an *Error naming the line.
package frontmatter

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of values.
const (
	Null   Kind = iota // no value (YAML null, an empty value)
	String             // Text holds the string
	Bool               // Bool holds it; Text is the word as written
	Number             // Text is the number as written
	Time               // Time, DateOnly and Local hold it; Text is as written
	List               // Items hold the elements
	Nested             // a mapping, table or other structure that is not read
)

// Value is one value of the front matter.
type Value struct {
	Kind  Kind
	Text  string
	Bool  bool
	Time  time.Time
	Items []Value
	// DateOnly: the value is a date without a time of day (midnight UTC).
	DateOnly bool
	// Local: the value gave no offset from UTC, so Time reads it as UTC.
	Local bool
	// Line is the line of the file where the value starts (the first line
	// of the file is 1).
	Line int
}

// Formats of front matter.
const (
	YAML = "yaml"
	TOML = "toml"
	JSON = "json"
)

// Document is a content file: its front matter and its body.
type Document struct {
	// Format is YAML, TOML or JSON; "" when the file has no front matter.
	Format string
	// Fields are the top-level keys, as written, with their values. Keys
	// inside tables ([params]) and nested mappings are not among them.
	Fields map[string]Value
	// Body is everything after the front matter, byte for byte.
	Body []byte
}

// Error says what is wrong with a front matter, and on which line of the
// file.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds how deep lists and mappings may nest inside one value,
// so that no input can exhaust the stack.
const maxDepth = 64

// Parse splits src into its front matter and body, and reads the front
// matter: YAML when the first line is "---", TOML when it is "+++", JSON
// when the file starts with an object ("{" then a key or "}"). A file
// without front matter is all body. A byte order mark at the start is
// dropped.
func Parse(src []byte) (Document, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	doc := Document{Fields: map[string]Value{}, Body: src}
	first, rest, _ := bytes.Cut(src, []byte("\n"))
	switch strings.TrimRight(string(first), " \t\r") {
	case "---":
		return parseFenced(doc, rest, YAML, "---", "...")
	case "+++":
		return parseFenced(doc, rest, TOML, "+++", "")
	}
	if isJSONStart(src) {
		return parseJSON(doc, src)
	}
	return doc, nil
}

// parseFenced reads the front matter after the opening fence up to the
// first line that is close (or alt, YAML's end-of-document marker).
func parseFenced(doc Document, rest []byte, format, close, alt string) (Document, error) {
	var lines []string
	for {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		l := strings.TrimRight(string(line), " \t\r")
		if l == close || (alt != "" && l == alt) {
			doc.Format, doc.Body = format, after
			break
		}
		if !found {
			return Document{}, errorf(1, "the front matter has no closing %s line", close)
		}
		lines = append(lines, strings.TrimSuffix(string(line), "\r"))
		rest = after
	}
	var err error
	if format == YAML {
		err = parseYAML(lines, doc.Fields)
	} else {
		err = parseTOML(strings.Join(lines, "\n"), doc.Fields)
	}
	if err != nil {
		return Document{}, err
	}
	return doc, nil
}

// ParseTime reads a date or a date and time as front matter writes them:
// 2019-03-04, 2019-03-04T10:00:00Z, 2019-03-04 10:00:00 +0900, with or
// without seconds, fractions and an offset (Z, +09:00, +0900, +09). A
// date alone is midnight UTC (DateOnly); a time without an offset is read
// as UTC (Local). ok is false when s is not such a time.
func ParseTime(s string) (Value, bool) {
	p := &timeParser{s: strings.TrimSpace(s)}
	v, ok := p.parse()
	if !ok || p.i != len(p.s) {
		return Value{}, false
	}
	v.Kind, v.Text = Time, s
	return v, true
}

type timeParser struct {
	s string
	i int
}

// digits reads between min and max decimal digits.
func (p *timeParser) digits(lo, hi int) (int, bool) {
	n, start := 0, p.i
	for p.i < len(p.s) && p.i-start < hi && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		n = n*10 + int(p.s[p.i]-'0')
		p.i++
	}
	return n, p.i-start >= lo
}

func (p *timeParser) byte(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *timeParser) parse() (Value, bool) {
	year, ok := p.digits(4, 4)
	if !ok || !p.byte('-') {
		return Value{}, false
	}
	month, ok := p.digits(1, 2)
	if !ok || !p.byte('-') {
		return Value{}, false
	}
	day, ok := p.digits(1, 2)
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return Value{}, false
	}
	if p.i == len(p.s) {
		return Value{Time: time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), DateOnly: true, Local: true}, true
	}
	if !p.byte('T') && !p.byte('t') {
		if !p.byte(' ') && !p.byte('\t') {
			return Value{}, false
		}
		p.spaces()
	}
	hour, ok := p.digits(1, 2)
	if !ok || hour > 23 || !p.byte(':') {
		return Value{}, false
	}
	minute, ok := p.digits(2, 2)
	if !ok || minute > 59 {
		return Value{}, false
	}
	sec, nsec := 0, 0
	if p.byte(':') {
		if sec, ok = p.digits(2, 2); !ok || sec > 60 {
			return Value{}, false
		}
		if sec == 60 { // a leap second, as RFC 3339 allows
			sec = 59
		}
		if p.byte('.') || p.byte(',') {
			start := p.i
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				if p.i-start < 9 {
					nsec = nsec*10 + int(p.s[p.i]-'0')
				}
				p.i++
			}
			if p.i == start {
				return Value{}, false
			}
			for k := p.i - start; k < 9; k++ {
				nsec *= 10
			}
		}
	}
	p.spaces()
	loc, local := time.UTC, true
	switch {
	case p.byte('Z') || p.byte('z'):
		local = false
	case p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-'):
		sign := 1
		if p.s[p.i] == '-' {
			sign = -1
		}
		p.i++
		oh, ok := p.digits(1, 2)
		if !ok || oh > 23 {
			return Value{}, false
		}
		om := 0
		if p.byte(':') {
			if om, ok = p.digits(2, 2); !ok {
				return Value{}, false
			}
		} else if p.i < len(p.s) {
			om, _ = p.digits(2, 2)
		}
		if om > 59 {
			return Value{}, false
		}
		loc, local = time.FixedZone("", sign*(oh*3600+om*60)), false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	return Value{Time: t.UTC(), Local: local}, true
}

func (p *timeParser) spaces() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
