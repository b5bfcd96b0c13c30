package blog

import (
	"crypto/rand"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

const maxSlug = 100

// validSlug: 1-100 of [a-z0-9-].
func validSlug(s string) bool {
	if len(s) == 0 || len(s) > maxSlug {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// slugify derives a slug from a title: ASCII letters and digits, lower-cased,
// every other run of characters becoming one hyphen. Empty when the title
// has no ASCII letter or digit.
func slugify(title string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(title) && b.Len() < maxSlug; i++ {
		c := title[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
		default:
			dash = true
		}
	}
	return strings.TrimRight(b.String()[:min(b.Len(), maxSlug)], "-")
}

// randomSlug is the fallback for titles with nothing usable.
func randomSlug() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	buf := make([]byte, 8)
	_, _ = rand.Read(buf)
	for i := range buf {
		buf[i] = alphabet[int(buf[i])%len(alphabet)]
	}
	return string(buf)
}

// slugCandidates lists the slugs to try for an empty slug: the derived one,
// then numbered variants, then a random one.
func slugCandidates(title string) []string {
	base := slugify(title)
	if base == "" {
		return []string{randomSlug(), randomSlug()}
	}
	out := []string{base}
	for i := 2; i <= 5; i++ {
		suffix := "-" + strconv.Itoa(i)
		out = append(out, strings.TrimRight(base[:min(len(base), maxSlug-len(suffix))], "-")+suffix)
	}
	return append(out, strings.TrimRight(base[:min(len(base), maxSlug-9)], "-")+"-"+randomSlug())
}

// checkText enforces a required or optional text field's length in
// characters.
func checkText(field, s string, required bool, max int) error {
	if required && strings.TrimSpace(s) == "" {
		return invalid(field, "must not be empty")
	}
	if utf8.RuneCountInString(s) > max {
		return invalid(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
	if !utf8.ValidString(s) {
		return invalid(field, "must be valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalid(field, "must not contain NUL characters")
	}
	return nil
}

// checkURL accepts an empty value (unless required), an absolute http(s)
// URL, or a site-relative path: what a cover image, logo or friend link may
// be without becoming a script vector.
func checkURL(field, s string, required bool) error {
	if s == "" {
		if required {
			return invalid(field, "must not be empty")
		}
		return nil
	}
	if len(s) > 2048 {
		return invalid(field, "must be at most 2048 characters")
	}
	if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
		if strings.ContainsAny(s, " \t\r\n\\") {
			return invalid(field, "must be an http(s) URL or a path")
		}
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(s, " \t\r\n") {
		return invalid(field, "must be an http(s) URL or a path")
	}
	return nil
}

// checkEmail accepts a bare address such as a@b.example.
func checkEmail(field, s string) error {
	if s == "" {
		return invalid(field, "must not be empty")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return invalid(field, "must be a valid email address")
	}
	return nil
}

// patchField sets *dst to *v when a PATCH body carried the field (v not nil).
func patchField[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
