package filehost

import (
	"strings"
	"time"
	"unicode/utf8"
)

type tokenRequest struct {
	Name      string  `json:"name"`
	ExpiresAt *string `json:"expires_at"`
}

// parse validates the request: a name of 1-100 characters and, when given,
// an RFC 3339 expiry in the future.
func (t tokenRequest) parse(now time.Time) (string, *time.Time, error) {
	name := strings.TrimSpace(t.Name)
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return "", nil, invalid("name must be 1-100 characters")
	}
	if t.ExpiresAt == nil || strings.TrimSpace(*t.ExpiresAt) == "" {
		return name, nil, nil
	}
	exp, err := time.Parse(time.RFC3339, strings.TrimSpace(*t.ExpiresAt))
	if err != nil {
		return "", nil, invalid("expires_at must be an RFC 3339 time")
	}
	if !exp.After(now) {
		return "", nil, invalid("expires_at must be in the future")
	}
	exp = exp.UTC().Truncate(time.Microsecond)
	return name, &exp, nil
}
