package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzFrontMatter: for any file, Parse gives the same result twice, and either
// an *Error naming a line of the file, or a document whose body is the
// end of the file (all of it without front matter), whose values start on
// lines of the front matter and keep their kinds' shapes. For any text s
// and body, a front matter written with each format's own quoting (YAML
// and JSON double quotes with JSON's escapes, TOML basic strings) gives s
// back exactly as the title and as a list item, and the body byte for
// byte.
func FuzzFrontMatter(f *testing.F) {
	for _, src := range []string{
		"---\ntitle: \"Hello\"\ndate: 2019-03-04 10:00:00 +0900\ntags: [a, 'b']\ncategories:\n  - x\ndescription: |\n  one\n  two\nparams:\n  a: 1\n---\nBody\n",
		"+++\ntitle = \"T\"\ndate = 2019-03-04T10:00:00Z\ntags = [\"a\",\n  'b']\nml = \"\"\"\nx\\\n  y\"\"\"\n[params]\nx = 1\n+++\nBody",
		"{\n  \"title\": \"J\",\n  \"tags\": [\"a\"],\n  \"params\": {\"x\": [1, {\"y\": null}]}\n}\nBody",
		"---\na: >-\n  folded\n  text\n\n    more\nb: 'it''s'\nc: \"\\u00e9\\\n  d\"\n---\n",
		"---\nx: [[[]]]\n- a\n---\n",
	} {
		f.Add([]byte(src), "A \"title\": with\\ escapes\n\ttab é 𝄞", "body\n---\n")
	}
	f.Fuzz(func(t *testing.T, src []byte, s, body string) {
		d, err := Parse(src)
		d2, err2 := Parse(src)
		if !reflect.DeepEqual(d, d2) || fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
		checkDocument(t, src, d, err)

		if !utf8.ValidString(s) {
			return
		}
		for _, format := range []string{YAML, TOML, JSON} {
			file := writeDoc(format, s) + body
			d, err := Parse([]byte(file))
			if err != nil {
				t.Fatalf("%s %q: %v", format, file, err)
			}
			title, tags := d.Fields["title"], d.Fields["tags"]
			if d.Format != format || title.Kind != String || title.Text != s || len(tags.Items) != 2 ||
				tags.Items[0].Text != s || tags.Items[1].Text != "plain" || string(d.Body) != body {
				t.Fatalf("%s %q: got %+v", format, file, d)
			}
		}
	})
}

func checkDocument(t *testing.T, src []byte, d Document, err error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	lines := bytes.Count(src, []byte("\n")) + 1
	if err != nil {
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Line < 1 || e.Line > lines || e.Msg == "" {
			t.Fatalf("error %#v: want an *Error on a line of the file (1-%d)", err, lines)
		}
		return
	}
	if !bytes.HasSuffix(src, d.Body) {
		t.Fatalf("the body %q is not the end of the file", d.Body)
	}
	if d.Format == "" && (!bytes.Equal(d.Body, src) || len(d.Fields) != 0) {
		t.Fatalf("no front matter, yet fields %v and body %q", d.Fields, d.Body)
	}
	head := lines - bytes.Count(d.Body, []byte("\n"))
	for k, v := range d.Fields {
		if v.Line < 1 || v.Line > head {
			t.Fatalf("%s on line %d, outside the front matter (lines 1-%d)", k, v.Line, head)
		}
		checkValue(t, k, v, 0)
	}
}

func checkValue(t *testing.T, k string, v Value, depth int) {
	if depth > maxDepth+1 {
		t.Fatalf("%s nests deeper than the bound", k)
	}
	switch v.Kind {
	case Time:
		if v.Time.Location() != time.UTC || v.DateOnly && (v.Time.Hour() != 0 || v.Time.Minute() != 0 || !v.Local) {
			t.Fatalf("%s: time %+v", k, v)
		}
	case Bool:
		if v.Text == "" {
			t.Fatalf("%s: a boolean without its word", k)
		}
	case List:
		for _, it := range v.Items {
			checkValue(t, k, it, depth+1)
		}
		return
	case Null, String, Number, Nested:
	default:
		t.Fatalf("%s: kind %d", k, v.Kind)
	}
	if len(v.Items) != 0 {
		t.Fatalf("%s: items in a value of kind %d", k, v.Kind)
	}
}

// writeDoc writes front matter holding s as the title and as the first
// of two tags, in format.
func writeDoc(format, s string) string {
	switch format {
	case YAML:
		q := jsonQuote(s)
		return "---\ntitle: " + q + "\ntags:\n  - " + q + "\n  - plain\n---\n"
	case TOML:
		q := tomlQuote(s)
		return "+++\ntitle = " + q + "\ntags = [" + q + ", \"plain\"]\n+++\n"
	}
	q := jsonQuote(s)
	return "{\"title\": " + q + ",\n\"tags\": [" + q + ", \"plain\"]}\n"
}

func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
