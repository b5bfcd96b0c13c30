package blog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ghostItem is one item of a table of a Ghost export with its fields still
// raw JSON. Each field is read as the type the import expects, and Ghost's
// versions disagree on some (ids are numbers before 1.0, texts since;
// times are milliseconds in early exports, texts later; page is true or
// 1), so each reader takes every form a version wrote. A field of any
// other type is an error naming the item and the field in plain words
// (docs/export-import.md#ghost); the first one is kept in err, and the
// readers return zero values after it. Fields the import does not read are
// never looked at.
type ghostItem struct {
	table  string
	n      int // its position in the table, from 1
	fields map[string]json.RawMessage
	err    error
}

// readGhostItem reads the next item of a table.
func readGhostItem(dec *json.Decoder, table string, n int) (*ghostItem, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok || errors.Is(err, io.ErrUnexpectedEOF) {
			// The first reading of the file finds broken JSON, with its
			// place; this is the file changed since.
			return nil, inputErrorf("not a valid Ghost export: %s item %d is not valid JSON", table, n)
		}
		return nil, err
	}
	it := &ghostItem{table: table, n: n}
	if k := jsonKind(raw); k != "an object" {
		return nil, inputErrorf("not a valid Ghost export: %s item %d is %s, expected an object", table, n, k)
	}
	if err := json.Unmarshal(raw, &it.fields); err != nil {
		return nil, inputErrorf("not a valid Ghost export: %s item %d cannot be read", table, n)
	}
	return it, nil
}

// String names the item: its table, position and slug (or title, or name).
func (it *ghostItem) String() string {
	for _, k := range []string{"slug", "title", "name"} {
		var s string
		if json.Unmarshal(it.fields[k], &s) == nil && strings.TrimSpace(s) != "" {
			return fmt.Sprintf("%s item %d (%q)", it.table, it.n, shorten(s, 60))
		}
	}
	return fmt.Sprintf("%s item %d", it.table, it.n)
}

// wrong records that field holds what it should not.
func (it *ghostItem) wrong(field, is, want string) {
	if it.err == nil {
		it.err = inputErrorf("not a valid Ghost export: %s: field %q is %s, expected %s", it, field, is, want)
	}
}

// raw is the field's JSON, nil when it is absent or null.
func (it *ghostItem) raw(field string) json.RawMessage {
	v := bytes.TrimSpace(it.fields[field])
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// text reads a text field; nil when absent or null.
func (it *ghostItem) text(field string) *string {
	v := it.raw(field)
	if v == nil {
		return nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		it.wrong(field, jsonKind(v), "a text")
		return nil
	}
	return &s
}

// str reads a text field; "" when absent or null.
func (it *ghostItem) str(field string) string {
	if s := it.text(field); s != nil {
		return *s
	}
	return ""
}

// id reads an id: a text (since Ghost 1.0) or a whole number (before).
func (it *ghostItem) id(field string) string {
	v := it.raw(field)
	switch {
	case v == nil:
		return ""
	case v[0] == '"':
		return it.str(field)
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	it.wrong(field, jsonKind(v), "an id (a text or a whole number)")
	return ""
}

// flag reads true or false, or 1 or 0 as exports before Ghost 1.0 wrote.
func (it *ghostItem) flag(field string) bool {
	v := it.raw(field)
	switch {
	case v == nil:
		return false
	case string(v) == "true", string(v) == "1":
		return true
	case string(v) == "false", string(v) == "0":
		return false
	}
	it.wrong(field, jsonKind(v), "true or false")
	return false
}

// integer reads a whole number; 0 when absent or null.
func (it *ghostItem) integer(field string) int {
	v := it.raw(field)
	if v == nil {
		return 0
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		it.wrong(field, jsonKind(v), "a whole number")
	}
	return n
}

// date reads a time: a text (RFC 3339, or "2006-01-02 15:04:05" in UTC as
// Ghost's SQLite exports write it), or milliseconds since 1970 as exports
// of Ghost 0.x wrote it; nil when absent, null or empty.
func (it *ghostItem) date(field string) *time.Time {
	v := it.raw(field)
	if v == nil {
		return nil
	}
	if v[0] != '"' {
		ms, err := strconv.ParseInt(string(v), 10, 64)
		// Milliseconds from 1970 to 9999: beyond, it is no time Ghost wrote.
		if err != nil || ms < 0 || ms > 253402300799999 {
			it.wrong(field, jsonKind(v), "a date")
			return nil
		}
		t := time.UnixMilli(ms).UTC()
		return &t
	}
	s := strings.TrimSpace(it.str(field))
	if s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.000", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	it.wrong(field, strconv.Quote(shorten(s, 40)), "a date such as 2024-11-20T12:00:00.000Z")
	return nil
}

// doc reads an editor's document: the JSON text Ghost stores it as (or the
// JSON object itself, as some tools write it); nil when absent or null.
func (it *ghostItem) doc(field string) *string {
	v := it.raw(field)
	if v != nil && v[0] == '{' {
		s := string(v)
		return &s
	}
	return it.text(field)
}

// jsonKind names the type of a JSON value in plain words.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a text"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return "a number"
}

// shorten bounds a text of the export shown in a message.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// brokenJSON says where the export's JSON breaks. The decoder's own
// messages are not for people, and the offsets of its errors are not
// always of the file, so the file is read again token by token up to the
// first error: the decoder's offset is then the place of the fault, whose
// line and column are counted.
func (g *ghostExport) brokenJSON() error {
	dec := json.NewDecoder(g.reader())
	depth := 0
	var err error
	for err == nil {
		var tok json.Token
		tok, err = dec.Token()
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	off := dec.InputOffset()
	line, col, ch := g.position(off)
	switch {
	case errors.Is(err, io.EOF) && depth > 0, errors.Is(err, io.ErrUnexpectedEOF):
		return inputErrorf("not a valid Ghost export: the file ends at line %d before its JSON does (is it cut short?)", line)
	case errors.Is(err, io.EOF):
		return inputErrorf("not a valid Ghost export: the file holds no JSON")
	}
	if ch == '"' {
		// The decoder stops at the start of a text whose inside is at
		// fault: the fault itself is the place to show.
		if at, bad, ok := g.brokenText(off); ok {
			line, col, ch = g.position(at)
			if bad {
				return inputErrorf("not a valid Ghost export: the JSON is broken at line %d, column %d: a backslash starts no escape JSON knows", line, col)
			}
		}
	}
	what := "the end of the file"
	switch {
	case ch == '\n' || ch == '\r':
		what = "a line break inside a text"
	case ch >= 0 && ch < ' ':
		what = "a control character inside a text"
	case ch == utf8.RuneError:
		what = "a byte that is not UTF-8"
	case ch >= 0:
		what = strconv.QuoteRune(ch)
	}
	return inputErrorf("not a valid Ghost export: the JSON is broken at line %d, column %d: %s is not expected there", line, col, what)
}

// brokenText reads the JSON text (string) starting at off for what makes
// it invalid: a control character (at its offset), or a backslash
// starting no escape (bad). ok is false when the text is sound (the fault
// is then the text being where it is).
func (g *ghostExport) brokenText(off int64) (at int64, bad, ok bool) {
	r := bufio.NewReader(io.NewSectionReader(g.r, g.start+off+1, g.size-g.start-off-1))
	for i := off + 1; ; i++ {
		c, err := r.ReadByte()
		switch {
		case err != nil, c == '"':
			return 0, false, false
		case c < ' ':
			return i, false, true
		case c == '\\':
			e, err := r.ReadByte()
			if err != nil || !strings.ContainsRune(`"\\/bfnrtu`, rune(e)) {
				return i, true, true
			}
			i++
		}
	}
}

// position is the line and column (in characters, from 1) of a byte
// offset of the export, and the character there (-1 at the end).
func (g *ghostExport) position(off int64) (line, col int, ch rune) {
	r := g.reader()
	line, col = 1, 1
	buf := make([]byte, 32<<10)
	var read int64
	for read < off {
		n, err := r.Read(buf[:min(int64(len(buf)), off-read)])
		for _, c := range buf[:n] {
			switch {
			case c == '\n':
				line, col = line+1, 1
			case utf8.RuneStart(c):
				col++
			}
		}
		read += int64(n)
		if err != nil {
			break
		}
	}
	var at [utf8.UTFMax]byte
	n, _ := r.Read(at[:])
	if n == 0 {
		return line, col, -1
	}
	ch, _ = utf8.DecodeRune(at[:n])
	return line, col, ch
}
