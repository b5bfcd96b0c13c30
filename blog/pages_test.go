package blog

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestValidatePageChecksTemplateAndConfig(t *testing.T) {
	b := &Blog{templates: fstest.MapFS{
		"pages/default.html": {Data: []byte("x")},
		"pages/links.html":   {Data: []byte("x")},
		"pages/links.json":   {Data: []byte(`{"keys": [{"name": "heading", "required": true}, {"name": "note"}]}`)},
		"pages/broken.html":  {Data: []byte("x")},
		"pages/broken.json":  {Data: []byte(`{`)},
	}}
	for _, tt := range []struct {
		name       string
		in         pageInput
		field, msg string
	}{
		{"defaults", pageInput{Title: "About"}, "", ""},
		{"blank title", pageInput{Title: " "}, "title", "must not be empty"},
		{"bad slug", pageInput{Title: "x", Slug: "A"}, "slug", "must be 1-100 characters of a-z, 0-9 and -"},
		{"unknown status", pageInput{Title: "x", Status: "gone"}, "status", "must be draft, published or archived"},
		{"template name with a path", pageInput{Title: "x", Template: "../x"}, "template", "no such page template"},
		{"missing template", pageInput{Title: "x", Template: "gallery"}, "template", "no such page template"},
		{"config not an object", pageInput{Title: "x", Config: "[1]"}, "config", "must be a JSON object"},
		{"config null", pageInput{Title: "x", Config: "null"}, "config", "must be a JSON object"},
		{"required key missing", pageInput{Title: "x", Template: "links", Config: `{"note": "n"}`}, "config",
			`missing required key "heading" of template "links"`},
		{"required key blank", pageInput{Title: "x", Template: "links", Config: `{"heading": " "}`}, "config", ""},
		{"required key given", pageInput{Title: "x", Template: "links", Config: `{"heading": "Friends"}`}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, b.validatePage(&tt.in), tt.field, tt.msg) })
	}

	// A broken manifest is the theme's fault, not the client's.
	in := pageInput{Title: "x", Template: "broken"}
	if err := b.validatePage(&in); err == nil || strings.Contains(err.Error(), "config:") {
		t.Fatalf("broken manifest: err = %v, want an internal error", err)
	}
}

func TestValidatePageFillsDefaults(t *testing.T) {
	b := &Blog{templates: fstest.MapFS{"pages/default.html": {Data: []byte("x")}}}
	in := pageInput{Title: "  About  ", Config: "  "}
	if err := b.validatePage(&in); err != nil {
		t.Fatal(err)
	}
	if in.Title != "About" || in.Status != StatusDraft || in.Template != "default" || in.Config != "{}" {
		t.Fatalf("normalised = %+v", in)
	}
}

func TestValidTemplateNameAllowsOnlyPlainNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"default", true},
		{"two_words-2", true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"Upper", false},
		{"a/b", false},
		{"a.html", false},
	} {
		if got := validTemplateName(tt.name); got != tt.want {
			t.Errorf("validTemplateName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPageConfigMapReadsTheStoredObject(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   int
	}{
		{`{"a": 1, "b": "x"}`, 2},
		{`{}`, 0},
		{`not json`, 0},
	} {
		if got := (&Page{Config: tt.config}).ConfigMap(); len(got) != tt.want {
			t.Errorf("ConfigMap(%s) = %v, want %d keys", tt.config, got, tt.want)
		}
	}
}
