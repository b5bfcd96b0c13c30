package blog

import (
	"strings"
	"testing"
)

func TestTermInputValidation(t *testing.T) {
	for _, tt := range []struct {
		name       string
		in         termInput
		field, msg string
	}{
		{"name only", termInput{Name: " Go "}, "", ""},
		{"name and slug", termInput{Name: "Go", Slug: "golang"}, "", ""},
		{"blank name", termInput{Name: "  "}, "name", "must not be empty"},
		{"long name", termInput{Name: strings.Repeat("n", 101)}, "name", "must be at most 100 characters"},
		{"bad slug", termInput{Name: "Go", Slug: "Go Lang"}, "slug", "must be 1-100 characters of a-z, 0-9 and -"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, tt.in.validate(), tt.field, tt.msg) })
	}
}
