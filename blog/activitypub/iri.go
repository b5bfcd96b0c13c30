package activitypub

import (
	"net/url"
	"strings"
)

// Host returns the lowercased host of an absolute http or https IRI, with
// its port if it names one, and "" for anything else.
func Host(iri string) string {
	u, err := url.Parse(iri)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return strings.ToLower(u.Host)
	}
	return ""
}

// SameHost reports whether two IRIs are absolute http(s) IRIs of the same
// scheme, host and port, a port that is the scheme's default being the
// same as none: an activity whose id is on another server than its actor
// is not that actor's to send.
func SameHost(a, b string) bool {
	ha, hb := Host(a), Host(b)
	if ha == "" || hb == "" {
		return false
	}
	sa, sb := scheme(a), scheme(b)
	return sa == sb && withoutDefaultPort(ha, sa) == withoutDefaultPort(hb, sb)
}

func scheme(iri string) string {
	s, _, _ := strings.Cut(iri, ":")
	return strings.ToLower(s)
}

func withoutDefaultPort(host, scheme string) string {
	if scheme == "https" {
		return strings.TrimSuffix(host, ":443")
	}
	return strings.TrimSuffix(host, ":80")
}
