package httpx

import (
	"net/http/httptest"
	"testing"
)

func TestPrefersHTMLOnlyForBrowsers(t *testing.T) {
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true},
		{"text/html", true},
		{"application/xhtml+xml", true},
		{"TEXT/HTML; charset=utf-8", true},
		{"", false},
		{"*/*", false},
		{"application/json", false},
		{"text/html;q=0", false},
		{"application/json, text/html;q=0.5", false},
		{"text/html;q=0.5, application/json;q=0.9", false},
		{"text/html, application/json", true},
		{"application/json, text/html", false},
		{"text/html;q=0.9, */*;q=1", false},
		{"image/png,image/*;q=0.8", false},
		{"text/html;q=abc", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if got := PrefersHTML(r); got != tt.want {
			t.Errorf("Accept %q: PrefersHTML = %v, want %v", tt.accept, got, tt.want)
		}
	}
}
