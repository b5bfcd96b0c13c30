package blog

import (
	"slices"
	"testing"
)

func TestBlockedDomainsCoverParentDomains(t *testing.T) {
	for _, c := range []struct {
		host string
		want []string
	}{
		{"social.example.com", []string{"social.example.com", "example.com", "com"}},
		{"a.b.example.org:8443", []string{"a.b.example.org:8443", "a.b.example.org", "b.example.org", "example.org", "org"}},
		{"Mixed.Example.COM", []string{"mixed.example.com", "example.com", "com"}},
		{"127.0.0.1:8080", []string{"127.0.0.1:8080", "127.0.0.1"}},
		{"[::1]:8080", []string{"[::1]:8080", "::1"}},
		{"", nil},
	} {
		if got := blockedDomains(c.host); !slices.Equal(got, c.want) {
			t.Errorf("blockedDomains(%q) = %q, want %q", c.host, got, c.want)
		}
	}
}
