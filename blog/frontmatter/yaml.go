package frontmatter

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The YAML subset: a mapping of keys at the start of their lines to
// values: plain, single- and double-quoted scalars (over several lines
// too), literal (|) and folded (>) block scalars, block (- a) and flow
// ([a, b]) sequences; a nested mapping, or a list item that is one, is
// skipped. Anchors, aliases and tags are refused.

type yamlParser struct {
	text   string // the front matter, lines joined by "\n"
	starts []int  // the offset of each line in text
}

// fileLine is the line of the file of front-matter line i: the opening
// fence is line 1.
func fileLine(i int) int { return i + 2 }

func parseYAML(lines []string, out map[string]Value) error {
	p := &yamlParser{text: strings.Join(lines, "\n"), starts: make([]int, len(lines))}
	off := 0
	for i, l := range lines {
		p.starts[i] = off
		off += len(l) + 1
	}
	for i := 0; i < len(lines); {
		if p.blank(i) {
			i++
			continue
		}
		ind, err := p.indent(i)
		if err != nil {
			return err
		}
		if ind > 0 {
			return errorf(fileLine(i), "this line is indented, but it does not continue a value above")
		}
		line := p.line(i)
		if isDashItem(line) {
			return errorf(fileLine(i), "a list item where a key is wanted (key: value)")
		}
		key, col, err := p.key(i)
		if err != nil {
			return err
		}
		v, next, err := p.value(i, col, 0, true)
		if err != nil {
			return err
		}
		if prev, dup := out[key]; dup {
			return errorf(fileLine(i), "%s is given twice (first on line %d)", key, prev.Line)
		}
		v.Line = fileLine(i)
		out[key] = v
		i = next
	}
	return nil
}

func (p *yamlParser) line(i int) string {
	end := len(p.text)
	if i+1 < len(p.starts) {
		end = p.starts[i+1] - 1
	}
	return p.text[p.starts[i]:end]
}

// blank: the line holds only white space or a comment.
func (p *yamlParser) blank(i int) bool {
	t := strings.TrimLeft(p.line(i), " \t")
	return t == "" || t[0] == '#'
}

// indent counts the spaces that start line i; a tab there is an error, as
// YAML indents with spaces only.
func (p *yamlParser) indent(i int) (int, error) {
	l := p.line(i)
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	if n < len(l) && l[n] == '\t' && strings.TrimSpace(l) != "" {
		return 0, errorf(fileLine(i), "a tab indents this line; YAML indents with spaces")
	}
	return n, nil
}

// spaces counts the spaces that start line i (tabs are not counted).
func (p *yamlParser) spaces(i int) int {
	l := p.line(i)
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

func isDashItem(s string) bool {
	t := strings.TrimLeft(s, " ")
	return t == "-" || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "-\t")
}

// key reads the key of line i (at its start) and returns it with the
// column of what follows its colon.
func (p *yamlParser) key(i int) (string, int, error) {
	l := p.line(i)
	want := errorf(fileLine(i), "want key: value")
	if l == "" {
		return "", 0, want
	}
	switch l[0] {
	case '"', '\'':
		start := p.starts[i]
		s, end, err := p.quoted(start)
		if err != nil {
			return "", 0, err
		}
		if end > start+len(l) {
			return "", 0, errorf(fileLine(i), "a key must fit on one line")
		}
		rest := strings.TrimLeft(p.text[end:start+len(l)], " \t")
		if !strings.HasPrefix(rest, ":") {
			return "", 0, want
		}
		return s, len(l) - len(rest) + 1, nil
	case '?':
		return "", 0, errorf(fileLine(i), "complex keys (?) are not read; write key: value")
	case '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', ',', '#':
		return "", 0, want
	}
	for j := 0; j < len(l); j++ {
		if l[j] == ':' && (j+1 == len(l) || l[j+1] == ' ' || l[j+1] == '\t') {
			key := strings.TrimRight(l[:j], " \t")
			if key == "" || strings.Contains(key, " #") {
				return "", 0, want
			}
			return key, j + 1, nil
		}
	}
	return "", 0, want
}

// value reads the value that starts at column col of line i, under a key
// or list item indented by parent. sameIndentList: a block list at the
// parent's indent belongs to it (a key's list may start at the key's
// column). It returns the index of the first line after the value.
func (p *yamlParser) value(i, col, parent int, sameIndentList bool) (Value, int, error) {
	l := p.line(i)
	rest := strings.TrimLeft(l[col:], " \t")
	col = len(l) - len(rest)
	line := fileLine(i)
	if rest == "" || rest[0] == '#' {
		return p.block(i, parent, sameIndentList)
	}
	switch rest[0] {
	case '|', '>':
		return p.blockScalar(i, col, parent)
	case '"', '\'':
		s, end, err := p.quoted(p.starts[i] + col)
		if err != nil {
			return Value{}, 0, err
		}
		next, err := p.after(end)
		return Value{Kind: String, Text: s, Line: line}, next, err
	case '[', '{':
		v, end, err := p.flow(p.starts[i]+col, 0)
		if err != nil {
			return Value{}, 0, err
		}
		next, err := p.after(end)
		v.Line = line
		return v, next, err
	case '&', '*', '!':
		return Value{}, 0, errorf(line, "anchors, aliases and tags (%c) are not read; write the value itself", rest[0])
	case '@', '`', '%', ',', ']', '}':
		return Value{}, 0, errorf(line, "a value cannot start with %c; put it in quotes", rest[0])
	}
	if isDashItem(rest) {
		return Value{}, 0, errorf(line, "a list item cannot follow a key on its line; start it on the next line")
	}
	return p.plain(i, col, parent)
}

// after checks that only a comment follows offset end on its line, and
// returns the index of the next line.
func (p *yamlParser) after(end int) (int, error) {
	i := p.lineOf(end)
	lineEnd := len(p.text)
	if i+1 < len(p.starts) {
		lineEnd = p.starts[i+1] - 1
	}
	rest := p.text[end:lineEnd]
	t := strings.TrimLeft(rest, " \t")
	if t != "" && (t[0] != '#' || len(t) == len(rest)) {
		return 0, errorf(fileLine(i), "unexpected text after the value: %s", clip(t))
	}
	return i + 1, nil
}

// lineOf is the index of the line holding offset off.
func (p *yamlParser) lineOf(off int) int {
	return sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
}

// block reads what follows a key or list item that has nothing after it on
// its line: a block list, a nested mapping (skipped), or nothing (null).
func (p *yamlParser) block(i, parent int, sameIndentList bool) (Value, int, error) {
	j := i + 1
	for j < len(p.starts) && p.blank(j) {
		j++
	}
	if j == len(p.starts) {
		return Value{Kind: Null}, j, nil
	}
	ind, err := p.indent(j)
	if err != nil {
		return Value{}, 0, err
	}
	switch {
	case isDashItem(p.line(j)) && (ind > parent || ind == parent && sameIndentList):
		return p.list(j, ind)
	case ind > parent:
		return Value{Kind: Nested}, p.skip(j, parent), nil
	}
	return Value{Kind: Null}, i + 1, nil
}

// skip passes the lines from j on that are indented deeper than parent,
// and the blank lines among them.
func (p *yamlParser) skip(j, parent int) int {
	end := j
	for ; j < len(p.starts); j++ {
		if p.blank(j) {
			continue
		}
		if p.spaces(j) <= parent && !strings.HasPrefix(p.line(j)[p.spaces(j):], "\t") {
			break
		}
		end = j + 1
	}
	return end
}

// list reads a block list whose items start at column ind, from line j.
func (p *yamlParser) list(j, ind int) (Value, int, error) {
	v := Value{Kind: List}
	for j < len(p.starts) {
		k := j
		for k < len(p.starts) && p.blank(k) {
			k++
		}
		if k == len(p.starts) {
			return v, k, nil
		}
		n, err := p.indent(k)
		if err != nil {
			return Value{}, 0, err
		}
		if n < ind || !isDashItem(p.line(k)) {
			if n > ind {
				return Value{}, 0, errorf(fileLine(k), "this line is indented, but it does not continue a value above")
			}
			return v, k, nil
		}
		if n > ind {
			return Value{}, 0, errorf(fileLine(k), "this list item is indented deeper than the one before it")
		}
		l := p.line(k)
		content := strings.TrimLeft(l[n+1:], " \t")
		col := len(l) - len(content)
		var item Value
		var next int
		switch {
		case content == "" || content[0] == '#':
			item, next, err = p.block(k, ind, false)
		case isDashItem(content) || isMappingEntry(content):
			item, next = Value{Kind: Nested}, p.skip(k+1, ind)
		default:
			item, next, err = p.value(k, col, ind, false)
		}
		if err != nil {
			return Value{}, 0, err
		}
		item.Line = fileLine(k)
		v.Items = append(v.Items, item)
		j = next
	}
	return v, j, nil
}

// isMappingEntry: s starts with "key:" followed by a space or the end, as a
// list item that is a mapping does.
func isMappingEntry(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '"' || s[0] == '\'' {
		q := s[0]
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' && q == '"' {
				i++
				continue
			}
			if s[i] == q {
				if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				rest := strings.TrimLeft(s[i+1:], " \t")
				return strings.HasPrefix(rest, ":")
			}
		}
		return false
	}
	if strings.ContainsRune("[{&*!|>%@`#", rune(s[0])) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
			return false
		}
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			return true
		}
	}
	return false
}

// plain reads a plain scalar from column col of line i, continued on the
// lines below that are indented deeper than parent.
func (p *yamlParser) plain(i, col, parent int) (Value, int, error) {
	first := cutComment(p.line(i)[col:])
	parts := []string{strings.TrimSpace(first)}
	next := i + 1
	blanks := 0
	for j := i + 1; j < len(p.starts); j++ {
		l := p.line(j)
		t := strings.TrimSpace(l)
		if t == "" {
			blanks++
			continue
		}
		if t[0] == '#' || p.spaces(j) <= parent {
			break
		}
		if strings.Contains(first, " #") || strings.Contains(first, "\t#") {
			break // a comment ends a plain scalar
		}
		for ; blanks > 0; blanks-- {
			parts = append(parts, "")
		}
		t = cutComment(t)
		parts = append(parts, strings.TrimSpace(t))
		next = j + 1
		if len(t) != len(strings.TrimSpace(p.line(j))) {
			break
		}
	}
	line := fileLine(i)
	if len(parts) == 1 {
		v := resolvePlain(parts[0])
		v.Line = line
		return v, next, nil
	}
	return Value{Kind: String, Text: fold(parts), Line: line}, next, nil
}

// cutComment removes a comment (" #…") from the end of a plain scalar.
func cutComment(s string) string {
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i]
		}
	}
	return s
}

// fold joins the lines of a multi-line scalar: a line break is a space,
// each empty line a newline.
func fold(parts []string) string {
	var b strings.Builder
	for i, s := range parts {
		switch {
		case i == 0:
		case s == "":
			b.WriteByte('\n')
			continue
		case parts[i-1] != "":
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// resolvePlain gives a one-line plain scalar its type, as YAML's core
// schema does, with YAML 1.1's yes/no/on/off booleans (which Jekyll's
// reader takes) and timestamps.
func resolvePlain(s string) Value {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return Value{Kind: Null, Text: s}
	case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON":
		return Value{Kind: Bool, Bool: true, Text: s}
	case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF":
		return Value{Kind: Bool, Text: s}
	}
	if isNumber(s) {
		return Value{Kind: Number, Text: s}
	}
	if t, ok := ParseTime(s); ok {
		t.Text = s
		return t
	}
	return Value{Kind: String, Text: s}
}

// isNumber: s is an integer or a float as YAML writes them.
func isNumber(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf", ".nan":
		return true
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil && !strings.Contains(s, "_") {
		return true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "_xXpP") &&
		!strings.Contains(strings.ToLower(s), "inf") && !strings.Contains(strings.ToLower(s), "nan") {
		return true
	}
	return false
}

// blockScalar reads a literal (|) or folded (>) block scalar whose header
// is at column col of line i.
func (p *yamlParser) blockScalar(i, col, parent int) (Value, int, error) {
	line := fileLine(i)
	header := cutComment(p.line(i)[col:])
	header = strings.TrimSpace(header)
	folded := header[0] == '>'
	chomp, explicit := byte('c'), 0
	for _, c := range []byte(header[1:]) {
		switch {
		case (c == '-' || c == '+') && chomp == 'c':
			chomp = c
		case c >= '1' && c <= '9' && explicit == 0:
			explicit = int(c - '0')
		default:
			return Value{}, 0, errorf(line, "a block scalar's header is | or > with an optional - or + and a digit")
		}
	}
	indent := parent + explicit
	j := i + 1
	var lines []string
	for ; j < len(p.starts); j++ {
		l := p.line(j)
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			continue
		}
		n := p.spaces(j)
		if n <= parent {
			break
		}
		if explicit == 0 && indent == parent {
			indent = n
		}
		if n < indent {
			return Value{}, 0, errorf(fileLine(j), "this line is indented less than the block's first line")
		}
		lines = append(lines, l[indent:])
	}
	// Trailing empty lines count only for chomping (+ keeps them).
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	next := j - trailing
	// Between two lines a literal scalar keeps the line break; a folded
	// one makes it a space, or drops it before empty lines, unless a
	// line next to it is more indented. Each empty line is a newline.
	var b strings.Builder
	prev, empty := "", 0
	for _, l := range lines {
		if l == "" {
			empty++
			continue
		}
		switch {
		case prev == "":
			b.WriteString(strings.Repeat("\n", empty))
		case !folded || moreIndented(l) || moreIndented(prev):
			b.WriteString(strings.Repeat("\n", empty+1))
		case empty == 0:
			b.WriteByte(' ')
		default:
			b.WriteString(strings.Repeat("\n", empty))
		}
		b.WriteString(l)
		prev, empty = l, 0
	}
	text := b.String()
	switch {
	case len(lines) == 0:
		if chomp == '+' {
			text = strings.Repeat("\n", trailing)
		}
	case chomp == 'c':
		text += "\n"
	case chomp == '+':
		text += "\n" + strings.Repeat("\n", trailing)
	}
	return Value{Kind: String, Text: text, Line: line}, next, nil
}

func moreIndented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// quoted reads the single- or double-quoted scalar that starts at offset
// start, over several lines if it does, and returns it with the offset
// after its closing quote.
func (p *yamlParser) quoted(start int) (string, int, error) {
	q := p.text[start]
	var b []byte
	hard := 0 // b[:hard] is never trimmed (escapes)
	for i := start + 1; ; {
		if i >= len(p.text) {
			return "", 0, errorf(fileLine(p.lineOf(start)), "the quoted value that starts here is not closed")
		}
		c := p.text[i]
		switch {
		case c == q && q == '\'' && i+1 < len(p.text) && p.text[i+1] == '\'':
			b = append(b, '\'')
			i += 2
			hard = len(b)
		case c == q:
			return string(b), i + 1, nil
		case c == '\\' && q == '"':
			if i+1 < len(p.text) && p.text[i+1] == '\n' {
				i = skipBlanks(p.text, i+2)
				hard = len(b)
				continue
			}
			r, n, err := p.escape(i)
			if err != nil {
				return "", 0, err
			}
			b = utf8.AppendRune(b, r)
			i += n
			hard = len(b)
		case c == '\n':
			for len(b) > hard && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
				b = b[:len(b)-1]
			}
			i = skipBlanks(p.text, i+1)
			empty := 0
			for i < len(p.text) && p.text[i] == '\n' {
				empty++
				i = skipBlanks(p.text, i+1)
			}
			if empty == 0 {
				b = append(b, ' ')
			}
			for ; empty > 0; empty-- {
				b = append(b, '\n')
			}
			hard = len(b)
		default:
			b = append(b, c)
			i++
		}
	}
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// escape reads the escape sequence at offset i (a backslash) of a
// double-quoted scalar: the rune and how many bytes it took.
func (p *yamlParser) escape(i int) (rune, int, error) {
	bad := func() (rune, int, error) {
		end := min(i+2, len(p.text))
		return 0, 0, errorf(fileLine(p.lineOf(i)), "unknown escape %s in a double-quoted value", p.text[i:end])
	}
	if i+1 >= len(p.text) {
		return bad()
	}
	simple := map[byte]rune{'0': 0, 'a': 7, 'b': 8, 't': 9, '\t': 9, 'n': 10, 'v': 11, 'f': 12, 'r': 13, 'e': 27,
		' ': ' ', '"': '"', '/': '/', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029}
	e := p.text[i+1]
	if r, ok := simple[e]; ok {
		return r, 2, nil
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
	if n == 0 || i+2+n > len(p.text) {
		return bad()
	}
	v, err := strconv.ParseUint(p.text[i+2:i+2+n], 16, 32)
	if err != nil || v > utf8.MaxRune || v >= 0xd800 && v <= 0xdfff {
		return bad()
	}
	return rune(v), 2 + n, nil
}

// flow reads a flow sequence ([a, b]) or mapping ({a: b}, skipped) from
// offset start, over several lines if it does.
func (p *yamlParser) flow(start, depth int) (Value, int, error) {
	line := fileLine(p.lineOf(start))
	if depth > maxDepth {
		return Value{}, 0, errorf(line, "lists nest more than %d deep", maxDepth)
	}
	open := p.text[start]
	close := byte(']')
	v := Value{Kind: List}
	if open == '{' {
		close, v.Kind = '}', Nested
	}
	i := start + 1
	for {
		i = p.flowSpace(i)
		if i >= len(p.text) {
			return Value{}, 0, errorf(line, "the %c that starts here is not closed", open)
		}
		if p.text[i] == close {
			return v, i + 1, nil
		}
		item, end, err := p.flowItem(i, depth, open == '{')
		if err != nil {
			return Value{}, 0, err
		}
		if open == '{' {
			end = p.flowSpace(end)
			if end < len(p.text) && p.text[end] == ':' {
				if _, end, err = p.flowItem(p.flowSpace(end+1), depth, false); err != nil {
					return Value{}, 0, err
				}
			}
		} else {
			v.Items = append(v.Items, item)
		}
		i = p.flowSpace(end)
		if i < len(p.text) && p.text[i] == ',' {
			i++
			continue
		}
		if i < len(p.text) && p.text[i] == close {
			return v, i + 1, nil
		}
		if i >= len(p.text) {
			return Value{}, 0, errorf(line, "the %c that starts here is not closed", open)
		}
		if at := fileLine(p.lineOf(i)); at != line {
			return Value{}, 0, errorf(at, "want , or %c to close the %c of line %d, not %s", close, open, line, clip(p.text[i:]))
		}
		return Value{}, 0, errorf(line, "want , or %c in the list, not %s", close, clip(p.text[i:]))
	}
}

// flowSpace passes white space, line breaks and comments inside a flow
// collection.
func (p *yamlParser) flowSpace(i int) int {
	for i < len(p.text) {
		switch c := p.text[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '#' && (i == 0 || strings.ContainsRune(" \t\n", rune(p.text[i-1]))):
			for i < len(p.text) && p.text[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// flowItem reads one item of a flow collection: a nested collection, a
// quoted scalar or a plain one (ending at , ] } or ": "); key says it is a
// mapping's key, so that an empty one is an error.
func (p *yamlParser) flowItem(i, depth int, key bool) (Value, int, error) {
	line := fileLine(p.lineOf(i))
	if i >= len(p.text) {
		return Value{}, 0, errorf(line, "a list is not closed")
	}
	switch c := p.text[i]; c {
	case '[', '{':
		v, end, err := p.flow(i, depth+1)
		v.Line = line
		return v, end, err
	case '"', '\'':
		s, end, err := p.quoted(i)
		return Value{Kind: String, Text: s, Line: line}, end, err
	case '&', '*', '!':
		return Value{}, 0, errorf(line, "anchors, aliases and tags (%c) are not read; write the value itself", c)
	case ',', ']', '}', ':':
		if !key && (c == ',' || c == ']' || c == '}') {
			return Value{Kind: Null, Line: line}, i, nil
		}
		return Value{}, 0, errorf(line, "want a value in the list, not %c", c)
	}
	var parts []string
	j := i
	start := i
	for j < len(p.text) {
		c := p.text[j]
		if c == ',' || c == ']' || c == '}' || c == '[' || c == '{' ||
			c == ':' && (j+1 == len(p.text) || strings.ContainsRune(" \t\n,]}", rune(p.text[j+1]))) ||
			c == '#' && j > 0 && strings.ContainsRune(" \t\n", rune(p.text[j-1])) {
			break
		}
		if c == '\n' {
			parts = append(parts, strings.TrimSpace(p.text[start:j]))
			start = j + 1
		}
		j++
	}
	parts = append(parts, strings.TrimSpace(p.text[start:j]))
	if len(parts) == 1 {
		v := resolvePlain(parts[0])
		v.Line = line
		return v, j, nil
	}
	return Value{Kind: String, Text: fold(parts), Line: line}, j, nil
}

// clip shortens s for an error message: its first line, at most 20 bytes.
func clip(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 20 {
		i := 20
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}
