package templates

import (
	"html/template"
	"strings"
	"testing"
)

func TestPluralAgreesWithItsCount(t *testing.T) {
	tests := []struct {
		n        int64
		singular string
		plural   []string
		want     string
	}{
		{0, "file", nil, "0 files"},
		{1, "file", nil, "1 file"},
		{2, "file", nil, "2 files"},
		{1, "reply", []string{"replies"}, "1 reply"},
		{3, "reply", []string{"replies"}, "3 replies"},
		{1000000, "view", nil, "1000000 views"},
		{-1, "byte", nil, "-1 byte"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.singular, tt.plural...); got != tt.want {
			t.Errorf("Plural(%d, %q, %q) = %q, want %q", tt.n, tt.singular, tt.plural, got, tt.want)
		}
	}
}

func TestPluralTemplateFuncTakesAnyWholeNumber(t *testing.T) {
	tests := []struct {
		name, src string
		data      any
		want      string
	}{
		{"int, one", `{{plural . "file"}}`, 1, "1 file"},
		{"int, many", `{{plural . "file"}}`, 4, "4 files"},
		{"int64", `{{plural . "album"}}`, int64(0), "0 albums"},
		{"irregular", `{{plural . "reply" "replies"}}`, 2, "2 replies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := template.Must(template.New("t").Funcs(template.FuncMap{"plural": pluralFunc}).Parse(tt.src))
			var b strings.Builder
			if err := tmpl.Execute(&b, tt.data); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
	for _, bad := range []any{"3", 1.5, nil} {
		if _, err := pluralFunc(bad, "file"); err == nil {
			t.Errorf("pluralFunc(%#v) did not fail", bad)
		}
	}
	if _, err := pluralFunc(2, "a", "b", "c"); err == nil {
		t.Error("pluralFunc with two plural forms did not fail")
	}
}

func TestConsolePagesSayOneFileNotOneFiles(t *testing.T) {
	c, err := NewConsole()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := template.Must(template.New("t").Funcs(c.funcs()).Parse(`{{plural .N "file"}}`))
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]int{"N": 1}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "1 file" {
		t.Errorf("the console's plural says %q", b.String())
	}
}
