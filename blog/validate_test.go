package blog

import (
	"strings"
	"testing"
)

// wantField checks that err is the fieldError "field: msg", or nil when
// field is empty.
func wantField(t *testing.T, err error, field, msg string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	fe, ok := err.(*fieldError)
	if !ok {
		t.Fatalf("err = %v (%T), want %s: %s", err, err, field, msg)
	}
	if fe.Field != field || (msg != "" && fe.Msg != msg) {
		t.Fatalf("err = %q, want %s: %s", fe.Error(), field, msg)
	}
}

func TestValidSlugAcceptsOnlyLowerCaseLettersDigitsAndHyphens(t *testing.T) {
	for _, tt := range []struct {
		slug string
		want bool
	}{
		{"hello-world-2", true},
		{"a", true},
		{strings.Repeat("a", 100), true},
		{"", false},
		{strings.Repeat("a", 101), false},
		{"Hello", false},
		{"under_score", false},
		{"space here", false},
		{"ünï", false},
	} {
		if got := validSlug(tt.slug); got != tt.want {
			t.Errorf("validSlug(%q) = %v, want %v", tt.slug, got, tt.want)
		}
	}
}

func TestSlugifyKeepsASCIILettersAndDigits(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{"Hello, World!", "hello-world"},
		{"  Go 1.26 -- released  ", "go-1-26-released"},
		{"Ünïcödé only", "n-c-d-only"},
		{"日本語", ""},
		{"---", ""},
		{strings.Repeat("ab ", 60), strings.Repeat("ab-", 33) + "a"}, // cut at 100
	} {
		got := slugify(tt.title)
		if got != tt.want {
			t.Errorf("slugify(%q) = %q, want %q", tt.title, got, tt.want)
		}
		if got != "" && !validSlug(got) {
			t.Errorf("slugify(%q) = %q, not a valid slug", tt.title, got)
		}
	}
}

func TestSlugCandidatesNumberThenRandomise(t *testing.T) {
	for _, tt := range []struct {
		name, title string
		first       string
	}{
		{"derived", "My Post", "my-post"},
		{"long title", strings.Repeat("word ", 40), slugify(strings.Repeat("word ", 40))},
		{"nothing usable", "日本語", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := slugCandidates(tt.title)
			for _, s := range got {
				if !validSlug(s) {
					t.Fatalf("candidate %q is not a valid slug (all: %q)", s, got)
				}
			}
			if tt.first == "" {
				if len(got) != 2 {
					t.Fatalf("candidates = %q, want two random slugs", got)
				}
				return
			}
			if len(got) != 6 || got[0] != tt.first || !strings.HasSuffix(got[1], "-2") || !strings.HasSuffix(got[4], "-5") {
				t.Fatalf("candidates = %q, want %q, -2 ... -5 and a random one", got, tt.first)
			}
		})
	}
}

func TestCheckTextBoundsLengthAndContent(t *testing.T) {
	for _, tt := range []struct {
		name     string
		s        string
		required bool
		max      int
		msg      string
	}{
		{"optional empty", "", false, 5, ""},
		{"required blank", "  ", true, 5, "must not be empty"},
		{"at the limit in characters", "ääääą", true, 5, ""},
		{"over the limit", "abcdef", false, 5, "must be at most 5 characters"},
		{"invalid UTF-8", "a\xffb", false, 5, "must be valid UTF-8"},
		{"NUL", "a\x00b", false, 5, "must not contain NUL characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			field := "f"
			if tt.msg == "" {
				field = ""
			}
			wantField(t, checkText("f", tt.s, tt.required, tt.max), field, tt.msg)
		})
	}
}

func TestCheckURLAllowsOnlyHTTPAndSitePaths(t *testing.T) {
	const bad = "must be an http(s) URL or a path"
	for _, tt := range []struct {
		name     string
		s        string
		required bool
		msg      string
	}{
		{"optional empty", "", false, ""},
		{"required empty", "", true, "must not be empty"},
		{"https", "https://example.com/a.png", false, ""},
		{"site path", "/uploads/a.png", false, ""},
		{"protocol-relative", "//evil.example/a.png", false, bad},
		{"path with a space", "/a b.png", false, bad},
		{"javascript", "javascript:alert(1)", false, bad},
		{"no host", "http:///a", false, bad},
		{"too long", "https://example.com/" + strings.Repeat("a", 2048), false, "must be at most 2048 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			field := "u"
			if tt.msg == "" {
				field = ""
			}
			wantField(t, checkURL("u", tt.s, tt.required), field, tt.msg)
		})
	}
}

func TestCheckEmailWantsABareAddressWithADomain(t *testing.T) {
	for _, tt := range []struct {
		s   string
		msg string
	}{
		{"a@b.example", ""},
		{"", "must not be empty"},
		{"a@localhost", "must be a valid email address"},
		{"A <a@b.example>", "must be a valid email address"},
		{"not an address", "must be a valid email address"},
	} {
		field := "email"
		if tt.msg == "" {
			field = ""
		}
		t.Run(tt.s, func(t *testing.T) { wantField(t, checkEmail("email", tt.s), field, tt.msg) })
	}
}
