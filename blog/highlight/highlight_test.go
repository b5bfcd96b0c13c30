package highlight

import (
	"strings"
	"testing"
	"time"
)

func TestEachLanguageColoursItsTokens(t *testing.T) {
	for _, tc := range []struct {
		lang, code string
		want       []string // fragments of the HTML, in any order
	}{
		{"go", "// note\nfunc main() { s := \"a\\\"b\" + `raw`; n := 0x1F + 1.5e-3; var e error = nil }",
			[]string{span(Comment, "// note"), span(Keyword, "func"), span(Function, "main"), span(String, `&quot;a\&quot;b&quot;`),
				span(String, "`raw`"), span(Number, "0x1F"), span(Number, "1.5e-3"), span(Type, "error"), span(Keyword, "nil")}},
		{"golang", "package x", []string{span(Keyword, "package")}},
		{"js", "const f = async () => { await fetch(`/a/${x}`); /* b */ return null; }",
			[]string{span(Keyword, "const"), span(Keyword, "async"), span(Keyword, "await"), span(Function, "fetch"),
				span(String, "`/a/${x}`"), span(Comment, "/* b */"), span(Keyword, "null")}},
		{"jsx", "let $el = document", []string{span(Keyword, "let"), span(Type, "document")}},
		{"ts", "interface User { name: string }\nconst u: User = {} as User;",
			[]string{span(Keyword, "interface"), span(Type, "User"), span(Type, "string"), span(Keyword, "as")}},
		{"python", "@cached\ndef f(x):\n    '''Doc \"q\".'''\n    return None  # done",
			[]string{span(Function, "@cached"), span(Keyword, "def"), span(Function, "f"), span(String, "'''Doc &quot;q&quot;.'''"),
				span(Keyword, "None"), span(Comment, "# done")}},
		{"bash", "#!/bin/sh\nif [ -n \"$HOME\" ]; then echo ${USER} a#b; fi # end",
			[]string{span(Comment, "#!/bin/sh"), span(Keyword, "if"), span(String, "&quot;$HOME&quot;"), span(Keyword, "then"),
				span(Type, "echo"), span(Type, "${USER}"), span(Keyword, "fi"), span(Comment, "# end")}},
		{"shell", "x=$1", []string{span(Type, "$1")}},
		{"json", `{"name": "Folio", "n": -1.5e3, "ok": true, "x": null}`,
			[]string{span(Type, "&quot;name&quot;"), span(String, "&quot;Folio&quot;"), span(Number, "1.5e3"),
				span(Keyword, "true"), span(Keyword, "null")}},
		{"html", `<!-- c --><a href="/x?a=1&b=2" hidden>Link</a>`,
			[]string{span(Comment, "&lt;!-- c --&gt;"), "&lt;" + span(Keyword, "a"), span(Type, "href"),
				span(String, "&quot;/x?a=1&amp;b=2&quot;"), span(Type, "hidden"), "&lt;/" + span(Keyword, "a") + "&gt;"}},
		{"xml", `<?xml version="1.0"?><feed><![CDATA[<b>]]></feed>`,
			[]string{span(Keyword, "xml"), span(Type, "version"), span(String, "&lt;![CDATA[&lt;b&gt;]]&gt;")}},
		{"css", "@media (max-width: 40rem) { .a:hover { color: #2f5d8a; margin: 0 auto; width: calc(1px + 2em) } }",
			[]string{span(Keyword, "@media"), span(Number, "40rem"), span(Type, "color"), span(Number, "#2f5d8a"),
				span(Keyword, "auto"), span(Function, "calc"), span(Number, "1px")}},
		{"sql", "SELECT id, count(*) FROM posts WHERE slug = 'it''s' -- one\nselect 1;",
			[]string{span(Keyword, "SELECT"), span(Type, "count"), span(Keyword, "FROM"), span(String, "'it'"),
				span(Comment, "-- one"), span(Keyword, "select"), span(Number, "1")}},
		{"yaml", "server:\n  port: 8080 # the port\n  tls: yes\n  name: 'folio'\n",
			[]string{span(Type, "server"), span(Type, "port"), span(Number, "8080"), span(Comment, "# the port"),
				span(Keyword, "yes"), span(String, "'folio'")}},
		{"rust", "fn longest<'a>(x: &'a str) -> Option<char> { println!(\"{}\", x); Some('c') }",
			[]string{span(Keyword, "fn"), "longest&lt;'a&gt;", span(Type, "str"), span(Type, "Option"),
				span(Function, "println"), span(Type, "Some"), span(String, "'c'")}},
		{"c", "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", sizeof(int)); }",
			[]string{span(Keyword, "#include"), span(String, "&lt;stdio.h&gt;"), span(Type, "int"), span(Function, "main"),
				span(Type, "void"), span(Function, "printf"), span(Keyword, "sizeof")}},
		{"cpp", "std::vector<int> v; auto p = nullptr;", []string{span(Type, "std"), span(Keyword, "auto"), span(Keyword, "nullptr")}},
		{"java", "@Override\npublic String toString() { return \"x\"; }",
			[]string{span(Type, "@Override"), span(Keyword, "public"), span(Type, "String"), span(Function, "toString"),
				span(Keyword, "return"), span(String, "&quot;x&quot;")}},
		{"diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old <b>\n+new & fresh\n same\n\\ No newline at end of file",
			[]string{span(Keyword, "diff --git a/x b/x"), span(Keyword, "--- a/x"), span(Keyword, "+++ b/x"),
				span(Type, "@@ -1,2 +1,2 @@"), span(Deleted, "-old &lt;b&gt;"), span(Added, "+new &amp; fresh"), "\n same\n",
				span(Comment, `\ No newline at end of file`)}},
		{"Go", "func", []string{span(Keyword, "func")}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			got := HTML(tc.lang, tc.code)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %s:\n%s", tc.lang, w, got)
				}
			}
			if err := check(tc.code, got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCodeIsEscapedInsideAndOutsideTokens(t *testing.T) {
	for _, lang := range append(Languages(), "unknown", "") {
		code := "x <b> & \"q\" 'a' // <i>&amp;\n\"<s>\" /* > */ # <c>\n<tag attr=\"&\">-<del>\n+<ins>"
		got := HTML(lang, code)
		if err := check(code, got); err != nil {
			t.Errorf("%s: %v", lang, err)
		}
		for _, raw := range []string{"<b>", "<i>", "<s>", "<tag", "<del>", "<ins>", "&amp;amp", `="&"`} {
			if raw == "&amp;amp" && !strings.Contains(got, "&amp;amp;") {
				t.Errorf("%s: the & of &amp; is not escaped: %s", lang, got)
			}
			if raw != "&amp;amp" && strings.Contains(got, raw) {
				t.Errorf("%s: %s passed unescaped: %s", lang, raw, got)
			}
		}
	}
}

func TestAnUnknownLanguageIsEscapedTextWithoutSpans(t *testing.T) {
	for _, lang := range []string{"", "brainfuck", "text", "plaintext", "go2", "language-go"} {
		got := HTML(lang, `if x < 1 { return "a&b" }`)
		if want := `if x &lt; 1 { return &quot;a&amp;b&quot; }`; got != want {
			t.Errorf("HTML(%q) = %s, want %s", lang, got, want)
		}
		if Known(lang) {
			t.Errorf("Known(%q) = true", lang)
		}
	}
}

func TestEmptyCodeGivesNothing(t *testing.T) {
	for _, lang := range append(Languages(), "") {
		if got := HTML(lang, ""); got != "" {
			t.Errorf("HTML(%q, \"\") = %q", lang, got)
		}
	}
}

func TestEveryAliasNamesALanguage(t *testing.T) {
	for alias, name := range aliases {
		if languages[name] == nil {
			t.Errorf("alias %s names %s, which is no language", alias, name)
		}
	}
	for _, name := range []string{"go", "javascript", "typescript", "python", "bash", "sh", "shell", "json", "html",
		"xml", "css", "sql", "yaml", "rust", "c", "cpp", "java", "diff", "js", "ts", "jsx", "tsx", "py", "yml"} {
		if !Known(name) {
			t.Errorf("Known(%q) = false", name)
		}
	}
}

// TestHighlightingTakesTimeInProportionToTheCode holds every lexer to
// linear time on the inputs that would make a careless one quadratic:
// unclosed comments, strings and tags, and long runs of one character.
// It counts the CPU time of the test process (cpuTime), not the time on the
// clock, so a machine busy with other work does not make it fail.
func TestHighlightingTakesTimeInProportionToTheCode(t *testing.T) {
	for _, unit := range []string{"/*", "\"", "'", "<a ", "<!--", "${", "#", "a", " ", "'''", "x:", "\\", "0x", "@"} {
		small := strings.Repeat(unit, 500)
		big := strings.Repeat(unit, 16000)
		for _, lang := range []string{"go", "js", "python", "bash", "json", "html", "css", "sql", "yaml", "rust", "c", "java", "diff"} {
			ts := timeOf(lang, small, 3)
			// One run of the big code: the bound below is eight times
			// what linear costs, and the best of three runs of the small
			// code only makes it stricter.
			tb := timeOf(lang, big, 1)
			// 32 times the code; quadratic would be about 1000 times the
			// time. The margin absorbs the collector's noise.
			if tb > 250*ts+50*time.Millisecond {
				t.Errorf("%s on %q: %v for 500 repeats, %v for 16000", lang, unit, ts, tb)
			}
		}
	}
}

// timeOf is the least CPU time of runs runs of HTML.
func timeOf(lang, code string, runs int) time.Duration {
	best := time.Duration(1 << 62)
	for range runs {
		start := cpuTime()
		_ = HTML(lang, code)
		best = min(best, cpuTime()-start)
	}
	return best
}

func span(class, text string) string { return `<span class="` + class + `">` + text + `</span>` }
