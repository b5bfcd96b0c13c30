package blog

import (
	"strings"
	"testing"
)

func TestLinkInputValidation(t *testing.T) {
	for _, tt := range []struct {
		name       string
		in         linkInput
		field, msg string
	}{
		{"good", linkInput{Name: "Ann", URL: "https://ann.example"}, "", ""},
		{"blank name", linkInput{Name: " ", URL: "https://ann.example"}, "name", "must not be empty"},
		{"no url", linkInput{Name: "Ann"}, "url", "must not be empty"},
		{"site path", linkInput{Name: "Ann", URL: "/about"}, "url", "must be an absolute http(s) URL"},
		{"script url", linkInput{Name: "Ann", URL: "javascript:alert(1)"}, "url", "must be an http(s) URL or a path"},
		{"long description", linkInput{Name: "Ann", URL: "https://ann.example", Description: strings.Repeat("d", 501)}, "description", "must be at most 500 characters"},
		{"script logo", linkInput{Name: "Ann", URL: "https://ann.example", Logo: "data:x"}, "logo", "must be an http(s) URL or a path"},
		{"unknown status", linkInput{Name: "Ann", URL: "https://ann.example", Status: "gone"}, "status", "must be active, pending or down"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, tt.in.validate(), tt.field, tt.msg) })
	}
}

func TestLinkStatusFollowsStatusThenIsActive(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name     string
		isActive *bool
		status   string
		want     string
	}{
		{"neither", nil, "", LinkActive},
		{"is_active true", &yes, "", LinkActive},
		{"is_active false", &no, "", LinkPending},
		{"status wins", &yes, LinkDown, LinkDown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := linkInput{Name: "Ann", URL: " https://ann.example ", IsActive: tt.isActive, Status: tt.status}
			if err := in.validate(); err != nil {
				t.Fatal(err)
			}
			if in.Status != tt.want || in.URL != "https://ann.example" {
				t.Fatalf("status = %q, url = %q; want %q", in.Status, in.URL, tt.want)
			}
		})
	}
}
