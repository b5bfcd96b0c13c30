package frontmatter

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// show writes a value compactly: s:text, b:true, n:12, t:… (date, local),
// [a, b], {} for a nested one, null.
func show(v Value) string {
	switch v.Kind {
	case Null:
		return "null"
	case String:
		return "s:" + v.Text
	case Bool:
		if v.Bool {
			return "b:true"
		}
		return "b:false"
	case Number:
		return "n:" + v.Text
	case Time:
		s := "t:" + v.Time.Format(time.RFC3339Nano)
		if v.DateOnly {
			s += " date"
		}
		if v.Local {
			s += " local"
		}
		return s
	case List:
		parts := make([]string, len(v.Items))
		for i, it := range v.Items {
			parts[i] = show(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Nested:
		return "{}"
	}
	return "?"
}

func fields(d Document) map[string]string {
	out := map[string]string{}
	for k, v := range d.Fields {
		out[k] = show(v)
	}
	return out
}

func TestParseReadsYAMLAsHugoAndJekyllWriteIt(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want map[string]string
		body string
	}{
		{"Jekyll's post", "---\nlayout: post\ntitle:  \"Welcome to Jekyll!\"\ndate:   2015-11-17 16:16:01 -0600\ncategories: jekyll update\n---\nYou'll find this post.\n",
			map[string]string{"layout": "s:post", "title": "s:Welcome to Jekyll!", "date": "t:2015-11-17T22:16:01Z", "categories": "s:jekyll update"},
			"You'll find this post.\n"},
		{"scalars of every type", "---\na: plain text: with a colon\nb: 'it''s'\nc: \"tab\\there \\u00e9\\x41\\\\\"\nd: true\ne: no\nf: 42\ng: -3.5\nh: ~\ni:\nj: 2019-03-04\nk: 2019-03-04T10:00:00+09:00\nl: 2019-03-04 10:00\nm: 0x1F\nn: 12:30\n---\n",
			map[string]string{"a": "s:plain text: with a colon", "b": "s:it's", "c": "s:tab\there éA\\", "d": "b:true", "e": "b:false",
				"f": "n:42", "g": "n:-3.5", "h": "null", "i": "null", "j": "t:2019-03-04T00:00:00Z date local",
				"k": "t:2019-03-04T01:00:00Z", "l": "t:2019-03-04T10:00:00Z local", "m": "n:0x1F", "n": "s:12:30"}, ""},
		{"comments", "---\n# a comment\ntitle: Hello # not part of it\nurl: http://x.example/#anchor\n   # indented comment\n---\nbody",
			map[string]string{"title": "s:Hello", "url": "s:http://x.example/#anchor"}, "body"},
		{"lists", "---\ntags: [go, \"a, b\", 'c']\ncategories:\n- one\n-   two  # comment\n\n- \"three\"\naliases:\n  - /old/\n  - /older/\nempty: []\nmulti: [\n  a,\n  b,\n]\nnested: [[1, 2], {a: b}, x]\n---\n",
			map[string]string{"tags": "[s:go, s:a, b, s:c]", "categories": "[s:one, s:two, s:three]", "aliases": "[s:/old/, s:/older/]",
				"empty": "[]", "multi": "[s:a, s:b]", "nested": "[[n:1, n:2], {}, s:x]"}, ""},
		{"nested mappings are skipped", "---\ntitle: T\nauthor:\n  name: Ann\n  links:\n    - a\nparams: {a: 1, b: [2]}\nresources:\n- src: a.jpg\n  title: A\n- name: b\ncover:\n    image: x.png\n\n    alt: y\nafter: yes\n---\n",
			map[string]string{"title": "s:T", "author": "{}", "params": "{}", "resources": "[{}, {}]", "cover": "{}", "after": "b:true"}, ""},
		{"block scalars", "---\ndescription: |\n  Line one\n  line two\n\n  after a blank\nfolded: >\n  a\n  b\n\n  c\n    more\n  d\nstrip: |-\n  x\n\nkeep: |+\n  x\n\n\nafter: 1\n---\n",
			map[string]string{"description": "s:Line one\nline two\n\nafter a blank\n", "folded": "s:a b\nc\n  more\nd\n",
				"strip": "s:x", "keep": "s:x\n\n\n", "after": "n:1"}, ""},
		{"multi-line scalars", "---\ntitle: a long\n  title here\n\n  with a break\nquoted: \"one\n  two\\\n  three\"\nsingle: 'a\n\n  b'\n---\n",
			map[string]string{"title": "s:a long title here\nwith a break", "quoted": "s:one twothree", "single": "s:a\nb"}, ""},
		{"CRLF and a byte order mark", "\ufeff---\r\ntitle: Hi\r\ntags:\r\n  - a\r\n---\r\nBody\r\n",
			map[string]string{"title": "s:Hi", "tags": "[s:a]"}, "Body\r\n"},
		{"the end-of-document marker closes", "---\ntitle: x\n...\nbody", map[string]string{"title": "s:x"}, "body"},
		{"an empty front matter", "---\n---\nbody", map[string]string{}, "body"},
		{"a quoted key", "---\n\"my key\": 1\n'other': x\n---\n", map[string]string{"my key": "n:1", "other": "s:x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != YAML {
				t.Fatalf("format %q", d.Format)
			}
			if got := fields(d); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("fields\n got %q\nwant %q", got, tt.want)
			}
			if string(d.Body) != tt.body {
				t.Fatalf("body %q, want %q", d.Body, tt.body)
			}
		})
	}
}

func TestParseReadsTOMLAsHugoWritesIt(t *testing.T) {
	src := `+++
title = "Math \"typesetting\" \u00e9"
date = 2019-03-11T10:00:00-05:00
lastmod = 2019-03-12 08:00:00Z
local = 2019-03-12T08:00:00
day = 2019-03-12
clock = 07:32:00
draft = false
weight = 1_000
ratio = 6.5e-1
tags = ["hugo", 'literal\n',
  "multi", # a comment
]
lit = 'C:\path'
ml = """
Roses are red
Violets are \
    blue"""
mll = '''
raw \n text'''
empty = ""
inline = { a = 1, b = [2, 3] }
dotted.key = 1
"quoted key" = true
[params]
title = "not top-level"
[[resources]]
src = "x.jpg"
+++
Body
`
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"title": `s:Math "typesetting" é`, "date": "t:2019-03-11T15:00:00Z", "lastmod": "t:2019-03-12T08:00:00Z",
		"local": "t:2019-03-12T08:00:00Z local", "day": "t:2019-03-12T00:00:00Z date local", "clock": "s:07:32:00",
		"draft": "b:false", "weight": "n:1_000", "ratio": "n:6.5e-1", "tags": `[s:hugo, s:literal\n, s:multi]`,
		"lit": `s:C:\path`, "ml": "s:Roses are red\nViolets are blue", "mll": `s:raw \n text`, "empty": "s:",
		"inline": "{}", "quoted key": "b:true"}
	if d.Format != TOML {
		t.Fatalf("format %q", d.Format)
	}
	if got := fields(d); !reflect.DeepEqual(got, want) {
		t.Fatalf("fields\n got %q\nwant %q", got, want)
	}
	if string(d.Body) != "Body\n" {
		t.Fatalf("body %q", d.Body)
	}
	if d.Fields["tags"].Line != 11 || d.Fields["title"].Line != 2 {
		t.Fatalf("lines: tags %d, title %d", d.Fields["tags"].Line, d.Fields["title"].Line)
	}
}

func TestParseReadsJSONFrontMatter(t *testing.T) {
	src := "{\n  \"title\": \"JSON post\",\n  \"date\": \"2019-03-04\",\n  \"draft\": false,\n  \"weight\": 5,\n" +
		"  \"tags\": [\"a\", \"b\"],\n  \"params\": {\"x\": [1]},\n  \"none\": null\n}\n\nBody {{< x >}}\n"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"title": "s:JSON post", "date": "s:2019-03-04", "draft": "b:false", "weight": "n:5",
		"tags": "[s:a, s:b]", "params": "{}", "none": "null"}
	if got := fields(d); d.Format != JSON || !reflect.DeepEqual(got, want) {
		t.Fatalf("format %q fields\n got %q\nwant %q", d.Format, got, want)
	}
	if string(d.Body) != "\nBody {{< x >}}\n" || d.Fields["tags"].Line != 6 {
		t.Fatalf("body %q, tags on line %d", d.Body, d.Fields["tags"].Line)
	}
}

func TestParseLeavesAFileWithoutFrontMatterWhole(t *testing.T) {
	for _, src := range []string{"# Title\n\nText", "{{< youtube abc >}}\n", "{ not json", "", "--- \nno close"[:0], "+++not a fence\n"} {
		d, err := Parse([]byte(src))
		if err != nil || d.Format != "" || string(d.Body) != src || len(d.Fields) != 0 {
			t.Errorf("%q: %+v %v", src, d, err)
		}
	}
}

func TestParseNamesTheLineOfWhatIsWrong(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"YAML without a closing fence", "---\ntitle: x\n", 1, "the front matter has no closing --- line"},
		{"TOML without a closing fence", "+++\ntitle = 'x'\n", 1, "the front matter has no closing +++ line"},
		{"a line that is no key", "---\ntitle: x\njust text\n---\n", 3, "want key: value"},
		{"a key given twice", "---\ntitle: a\n\ntitle: b\n---\n", 4, "title is given twice (first on line 2)"},
		{"an unclosed quote", "---\ntitle: \"abc\ndate: x\n---\n", 2, "the quoted value that starts here is not closed"},
		{"an unknown escape", "---\na: 1\ntitle: \"a\\qb\"\n---\n", 3, `unknown escape \q in a double-quoted value`},
		{"text after a quoted value", "---\ntitle: \"a\" b\n---\n", 2, "unexpected text after the value: b"},
		{"an unclosed flow list", "---\ntags: [a, b\nother: c\n---\n", 3, "want , or ] to close the [ of line 2, not : c"},
		{"a flow list with junk", "---\ntags: [a b] c\n---\n", 2, "unexpected text after the value: c"},
		{"a flow list missing a comma", "---\ntags: [\"a\" b]\n---\n", 2, "want , or ] in the list, not b]"},
		{"an alias", "---\ntitle: *x\n---\n", 2, "anchors, aliases and tags (*) are not read; write the value itself"},
		{"a tab indent", "---\ntags:\n\t- a\n---\n", 3, "a tab indents this line; YAML indents with spaces"},
		{"a stray indented line", "---\ntitle: \"x\"\n  more\n---\n", 3, "this line is indented, but it does not continue a value above"},
		{"a value starting with @", "---\nauthor: @me\n---\n", 2, "a value cannot start with @; put it in quotes"},
		{"a less indented block line", "---\nd: |\n    a\n  b\n---\n", 4, "this line is indented less than the block's first line"},
		{"TOML without quotes", "+++\ntitle = Hello world\n+++\n", 2, "Hello is not a TOML value (strings are written in quotes)"},
		{"TOML without =", "+++\n\ntitle \"x\"\n+++\n", 3, "want key = value"},
		{"TOML unclosed string", "+++\ntitle = \"abc\n+++\n", 2, "the string that starts here is not closed on its line"},
		{"TOML unclosed array", "+++\ntags = [\"a\",\n  \"b\"\n+++\n", 2, "the [ that starts here is not closed"},
		{"TOML key twice", "+++\ndraft = true\ndraft = false\n+++\n", 3, "draft is given twice (first on line 2)"},
		{"TOML text after a value", "+++\ndraft = true false\n+++\n", 2, "unexpected text after the value: false"},
		{"TOML bad escape", "+++\nt = \"\\q\"\n+++\n", 2, `unknown escape \q in a string`},
		{"JSON missing comma", "{\n\"title\": \"a\"\n\"date\": 1\n}\n", 3, "not valid JSON here"},
		{"JSON not closed", "{\n\"title\": \"a\",\n", 3, "the JSON front matter is not closed"},
		{"JSON key twice", "{\"a\": 1,\n \"a\": 2}\n", 2, "a is given twice (first on line 1)"},
		{"too deep", "---\nt: " + strings.Repeat("[", 100) + "\n---\n", 2, "lists nest more than 64 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			e, ok := errors.AsType[*Error](err)
			if !ok || e.Line != tt.line || e.Msg != tt.msg {
				t.Fatalf("error %v, want line %d: %s", err, tt.line, tt.msg)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"2019-03-04", "t:2019-03-04T00:00:00Z date local", true},
		{"2019-3-4", "t:2019-03-04T00:00:00Z date local", true},
		{"2019-03-04 10:00:00 +0900", "t:2019-03-04T01:00:00Z", true},
		{"2019-03-04T10:00:00.123456Z", "t:2019-03-04T10:00:00.123456Z", true},
		{"2019-03-04t10:00:00-07:30", "t:2019-03-04T17:30:00Z", true},
		{"2019-03-04 10:00", "t:2019-03-04T10:00:00Z local", true},
		{"2019-03-04 10:00:00 +09", "t:2019-03-04T01:00:00Z", true},
		{"2019-02-29", "", false},
		{"2019-13-01", "", false},
		{"2019-03-04 25:00", "", false},
		{"2019-03-04 10:00 PST", "", false},
		{"March 4, 2019", "", false},
		{"20190304", "", false},
	}
	for _, tt := range tests {
		v, ok := ParseTime(tt.in)
		if ok != tt.ok || ok && show(v) != tt.want {
			t.Errorf("%q: %s %v, want %s %v", tt.in, show(v), ok, tt.want, tt.ok)
		}
	}
}

// TestParseTakesTimeInProportionToTheFile parses front matters of some
// hundred kilobytes in the shapes that could cost time per line or per
// value, each over 20,000 lines: work per line that grew with the lines
// before it would take minutes; each parse must take less than 5 s of CPU
// time (cpuTime, which a busy machine does not stretch), even under the
// race detector.
func TestParseTakesTimeInProportionToTheFile(t *testing.T) {
	const n = 20_000
	var yamlKeys, yamlList, tomlKeys, jsonList, flow strings.Builder
	for i := range n {
		fmt.Fprintf(&yamlKeys, "k%d: \"v\"\n", i)
		fmt.Fprintf(&yamlList, "  - item %d\n", i)
		fmt.Fprintf(&tomlKeys, "k%d = [1, 'a']\n", i)
		fmt.Fprintf(&jsonList, "\"x%d\",\n", i)
		fmt.Fprintf(&flow, "a%d,\n", i)
	}
	for name, src := range map[string]string{
		"YAML keys":       "---\n" + yamlKeys.String() + "---\n",
		"a YAML list":     "---\ntags:\n" + yamlList.String() + "---\n",
		"a YAML flow":     "---\ntags: [" + flow.String() + "]\n---\n",
		"a YAML text":     "---\nt: \"" + strings.Repeat("word\n", n) + "\"\n---\n",
		"a YAML block":    "---\nt: |\n" + yamlList.String() + "---\n",
		"TOML keys":       "+++\n" + tomlKeys.String() + "+++\n",
		"a JSON list":     "{\"tags\": [" + jsonList.String() + "\"end\"]}\n",
		"a long TOML ml":  "+++\nt = \"\"\"" + strings.Repeat("line\\\n", n) + "\"\"\"\n+++\n",
		"an unclosed one": "---\nt: [" + flow.String() + "\n---\n",
	} {
		start := cpuTime()
		_, err := Parse([]byte(src))
		if d := cpuTime() - start; d > 5*time.Second {
			t.Errorf("%s: %v (%v)", name, d, err)
		}
	}
}
