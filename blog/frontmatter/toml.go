package frontmatter

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The TOML subset: key = value lines with bare, quoted and dotted keys;
// basic, literal and multi-line strings, integers, floats, booleans,
// offset and local dates and times, arrays (over several lines too) and
// inline tables. Keys under a [table] or [[array of tables]] header, and
// dotted keys (params.x = 1), are read but not kept: they are not
// top-level fields.

type tomlParser struct {
	s      string
	i      int
	starts []int
}

func parseTOML(text string, out map[string]Value) error {
	p := &tomlParser{s: text, starts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}
	inTable := false
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil
		}
		switch p.s[p.i] {
		case '\n':
			p.i++
			continue
		case '#':
			p.comment()
			continue
		case '[':
			p.i++
			array := p.i < len(p.s) && p.s[p.i] == '['
			if array {
				p.i++
			}
			p.space()
			if _, err := p.key(); err != nil {
				return err
			}
			p.space()
			if !p.take("]") || array && !p.take("]") {
				return p.errorf("a table header ends with %s", map[bool]string{false: "]", true: "]]"}[array])
			}
			inTable = true
		default:
			line := p.line()
			keys, err := p.key()
			if err != nil {
				return err
			}
			p.space()
			if !p.take("=") {
				return p.errorf("want key = value")
			}
			p.space()
			v, err := p.value(0)
			if err != nil {
				return err
			}
			v.Line = line
			if !inTable && len(keys) == 1 {
				if prev, dup := out[keys[0]]; dup {
					return errorf(line, "%s is given twice (first on line %d)", keys[0], prev.Line)
				}
				out[keys[0]] = v
			}
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '#' {
			p.comment()
		}
		if p.i < len(p.s) && p.s[p.i] != '\n' {
			return p.errorf("unexpected text after the value: %s", clip(p.s[p.i:]))
		}
	}
}

// line is the line of the file at the parser's offset.
func (p *tomlParser) line() int {
	return fileLine(sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > p.i }) - 1)
}

func (p *tomlParser) errorf(format string, args ...any) error {
	return errorf(p.line(), format, args...)
}

func (p *tomlParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *tomlParser) comment() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// blank passes white space, line breaks and comments (inside arrays).
func (p *tomlParser) blank() {
	for {
		p.space()
		switch {
		case p.i < len(p.s) && p.s[p.i] == '\n':
			p.i++
		case p.i < len(p.s) && p.s[p.i] == '#':
			p.comment()
		default:
			return
		}
	}
}

func (p *tomlParser) take(s string) bool {
	if strings.HasPrefix(p.s[p.i:], s) {
		p.i += len(s)
		return true
	}
	return false
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a key: its parts, more than one when dotted.
func (p *tomlParser) key() ([]string, error) {
	var parts []string
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("want a key")
		}
		switch c := p.s[p.i]; {
		case c == '"':
			s, err := p.basic()
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		case c == '\'':
			s, err := p.literal()
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		case isBare(c):
			start := p.i
			for p.i < len(p.s) && isBare(p.s[p.i]) {
				p.i++
			}
			parts = append(parts, p.s[start:p.i])
		default:
			return nil, p.errorf("want key = value")
		}
		p.space()
		if !p.take(".") {
			return parts, nil
		}
	}
}

// value reads a value at the parser's offset.
func (p *tomlParser) value(depth int) (Value, error) {
	line := p.line()
	if depth > maxDepth {
		return Value{}, p.errorf("arrays and tables nest more than %d deep", maxDepth)
	}
	if p.i >= len(p.s) {
		return Value{}, p.errorf("want a value after =")
	}
	switch c := p.s[p.i]; c {
	case '"':
		var s string
		var err error
		if strings.HasPrefix(p.s[p.i:], `"""`) {
			s, err = p.multiline('"')
		} else {
			s, err = p.basic()
		}
		return Value{Kind: String, Text: s, Line: line}, err
	case '\'':
		var s string
		var err error
		if strings.HasPrefix(p.s[p.i:], `'''`) {
			s, err = p.multiline('\'')
		} else {
			s, err = p.literal()
		}
		return Value{Kind: String, Text: s, Line: line}, err
	case '[', '{':
		return p.collection(c, depth, line)
	}
	// A bare word: a boolean, a number or a date and time.
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" \t\n,]}#", rune(p.s[p.i])) {
		p.i++
	}
	word := p.s[start:p.i]
	// A date and time may be written with a space for the T.
	if len(word) == 10 && p.i+3 < len(p.s) && p.s[p.i] == ' ' && isDigit(p.s[p.i+1]) && isDigit(p.s[p.i+2]) && p.s[p.i+3] == ':' {
		p.i++
		for p.i < len(p.s) && !strings.ContainsRune(" \t\n,]}#", rune(p.s[p.i])) {
			p.i++
		}
		word = p.s[start:p.i]
	}
	switch {
	case word == "true" || word == "false":
		return Value{Kind: Bool, Bool: word == "true", Text: word, Line: line}, nil
	case tomlNumber(word):
		return Value{Kind: Number, Text: word, Line: line}, nil
	case isLocalTime(word):
		return Value{Kind: String, Text: word, Line: line}, nil
	}
	if t, ok := ParseTime(word); ok && strings.Contains(word, "-") {
		t.Line = line
		return t, nil
	}
	p.i = start
	if word == "" {
		return Value{}, p.errorf("want a value after =")
	}
	return Value{}, p.errorf("%s is not a TOML value (strings are written in quotes)", clip(word))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isLocalTime: s is a time of day alone (07:32:00).
func isLocalTime(s string) bool {
	_, ok := ParseTime("2000-01-01T" + s)
	return ok && len(s) >= 5 && isDigit(s[0]) && !strings.ContainsAny(s, "Zz+-")
}

// tomlNumber: s is a TOML integer or float.
func tomlNumber(s string) bool {
	switch strings.TrimLeft(s, "+-") {
	case "inf", "nan":
		return true
	}
	if s == "" {
		return false
	}
	// Underscores only between digits.
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || !isHexDigit(s[i-1]) || !isHexDigit(s[i+1])) {
			return false
		}
	}
	plain := strings.ReplaceAll(s, "_", "")
	if len(plain) > 2 && plain[0] == '0' && strings.ContainsRune("xob", rune(plain[1])) {
		_, err := strconv.ParseUint(plain[2:], map[byte]int{'x': 16, 'o': 8, 'b': 2}[plain[1]], 64)
		return err == nil
	}
	if _, err := strconv.ParseInt(plain, 10, 64); err == nil {
		return true
	}
	if strings.ContainsAny(plain, "xXpPiInN") {
		return false
	}
	_, err := strconv.ParseFloat(plain, 64)
	return err == nil
}

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// collection reads an array or an inline table (kept as Nested).
func (p *tomlParser) collection(open byte, depth, line int) (Value, error) {
	close := byte(']')
	v := Value{Kind: List, Line: line}
	if open == '{' {
		close, v.Kind = '}', Nested
	}
	p.i++
	for {
		p.blank()
		if p.i >= len(p.s) {
			return Value{}, errorf(line, "the %c that starts here is not closed", open)
		}
		if p.s[p.i] == close {
			p.i++
			return v, nil
		}
		if open == '{' {
			if _, err := p.key(); err != nil {
				return Value{}, err
			}
			p.space()
			if !p.take("=") {
				return Value{}, p.errorf("want key = value in the table")
			}
			p.space()
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if open == '[' {
			v.Items = append(v.Items, item)
		}
		p.blank()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return v, nil
		}
		if p.i >= len(p.s) {
			return Value{}, errorf(line, "the %c that starts here is not closed", open)
		}
		return Value{}, p.errorf("want , or %c, not %s", close, clip(p.s[p.i:]))
	}
}

// basic reads a basic string ("…") on one line.
func (p *tomlParser) basic() (string, error) {
	line := p.line()
	var b []byte
	for p.i++; ; {
		if p.i >= len(p.s) || p.s[p.i] == '\n' {
			return "", errorf(line, "the string that starts here is not closed on its line")
		}
		switch c := p.s[p.i]; c {
		case '"':
			p.i++
			return string(b), nil
		case '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, c)
			p.i++
		}
	}
}

// literal reads a literal string ('…') on one line.
func (p *tomlParser) literal() (string, error) {
	line := p.line()
	start := p.i + 1
	end := strings.IndexAny(p.s[start:], "'\n")
	if end < 0 || p.s[start+end] == '\n' {
		return "", errorf(line, "the string that starts here is not closed on its line")
	}
	p.i = start + end + 1
	return p.s[start : start+end], nil
}

// multiline reads a multi-line string, between three double or three
// single quotes: a line break right after the opening quotes is not part
// of it; in a basic one, a backslash at the end of a line joins it to the
// next non-blank text.
func (p *tomlParser) multiline(q byte) (string, error) {
	line := p.line()
	p.i += 3
	p.take("\n") // a line break right after the quotes is dropped
	var b []byte
	for {
		if p.i >= len(p.s) {
			return "", errorf(line, "the string that starts here is not closed")
		}
		c := p.s[p.i]
		if c == q && strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
			n := 3
			for p.i+n < len(p.s) && p.s[p.i+n] == q && n < 5 {
				n++
			}
			b = append(b, strings.Repeat(string(q), n-3)...)
			p.i += n
			return string(b), nil
		}
		if c == '\\' && q == '"' {
			j := p.i + 1
			for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
				j++
			}
			if j < len(p.s) && p.s[j] == '\n' {
				p.i = j
				for p.i < len(p.s) && strings.ContainsRune(" \t\n", rune(p.s[p.i])) {
					p.i++
				}
				continue
			}
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
			continue
		}
		b = append(b, c)
		p.i++
	}
}

// escape reads the escape sequence at the parser's offset (a backslash).
func (p *tomlParser) escape() (rune, error) {
	bad := func() (rune, error) {
		end := min(p.i+2, len(p.s))
		return 0, p.errorf("unknown escape %s in a string", p.s[p.i:end])
	}
	if p.i+1 >= len(p.s) {
		return bad()
	}
	simple := map[byte]rune{'b': 8, 't': 9, 'n': 10, 'f': 12, 'r': 13, 'e': 27, '"': '"', '\\': '\\'}
	e := p.s[p.i+1]
	if r, ok := simple[e]; ok {
		p.i += 2
		return r, nil
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
	if n == 0 || p.i+2+n > len(p.s) {
		return bad()
	}
	v, err := strconv.ParseUint(p.s[p.i+2:p.i+2+n], 16, 32)
	if err != nil || v > utf8.MaxRune || v >= 0xd800 && v <= 0xdfff {
		return bad()
	}
	p.i += 2 + n
	return rune(v), nil
}
