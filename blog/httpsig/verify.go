package httpsig

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SigningString builds the text that was signed, one "name: value" line
// per name of s.Headers, joined by "\n", as the draft defines it:
// "(request-target)" is the lowercased method, a space and
// r.URL.RequestURI(); "host" is r.Host (r.URL.Host when r.Host is empty),
// since Go moves the Host header there; "(created)" and "(expires)" are
// the signature's own parameters; any other name is that header's values
// joined by ", ". A name whose value is missing gives ErrMissingHeader.
func (s *Signature) SigningString(r *http.Request) (string, error) {
	var b strings.Builder
	for i, name := range s.Headers {
		var value string
		switch name {
		case "(request-target)":
			if r.URL == nil {
				return "", fmt.Errorf("%w: %s", ErrMissingHeader, name)
			}
			value = strings.ToLower(r.Method) + " " + r.URL.RequestURI()
		case "(created)", "(expires)":
			n := s.Created
			if name == "(expires)" {
				n = s.Expires
			}
			if n == 0 {
				return "", fmt.Errorf("%w: %s", ErrMissingHeader, name)
			}
			value = strconv.FormatInt(n, 10)
		case "host":
			value = r.Host
			if value == "" && r.URL != nil {
				value = r.URL.Host
			}
			if value == "" {
				return "", fmt.Errorf("%w: host", ErrMissingHeader)
			}
		default:
			values := r.Header.Values(name)
			if len(values) == 0 {
				return "", fmt.Errorf("%w: %.60s", ErrMissingHeader, name)
			}
			trimmed := make([]string, len(values))
			for j, v := range values {
				trimmed[j] = strings.TrimSpace(v)
			}
			value = strings.Join(trimmed, ", ")
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(name + ": " + value)
	}
	return b.String(), nil
}

// Verify checks the signature of r with pub, which must be an
// *rsa.PublicKey (PKCS #1 v1.5 over SHA-256, what "rsa-sha256" names and
// what fediverse servers mean by "hs2019" with an RSA key), and that
// s.Headers covers every name in required (e.g. "(request-target)",
// "host", "date", "digest"). The algorithm must be absent, "rsa-sha256"
// or "hs2019" (ErrAlgorithm otherwise). It does not check the Date, the
// Digest or expiry: CheckDate and CheckDigest do.
func (s *Signature) Verify(r *http.Request, pub crypto.PublicKey, required []string) error {
	switch s.Algorithm {
	case "", "rsa-sha256", "hs2019":
	default:
		return fmt.Errorf("%w: %.40q", ErrAlgorithm, s.Algorithm)
	}
	for _, name := range required {
		if !slices.Contains(s.Headers, strings.ToLower(name)) {
			return fmt.Errorf("%w: %s is not signed", ErrMissingHeader, name)
		}
	}
	key, ok := pub.(*rsa.PublicKey)
	if !ok || key == nil {
		return fmt.Errorf("%w: the key is not an RSA public key", ErrAlgorithm)
	}
	text, err := s.SigningString(r)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(text))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], s.Signature); err != nil {
		return ErrBadSignature
	}
	return nil
}

// CheckDate checks that the Date header reads as an HTTP date within skew
// of now, before or after: a signed request replayed later, or dated in
// the future, is refused.
func CheckDate(h http.Header, now time.Time, skew time.Duration) error {
	v := h.Get("Date")
	if v == "" {
		return ErrNoDate
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return fmt.Errorf("%w: %.60q is not an HTTP date", ErrNoDate, v)
	}
	d := now.Sub(t)
	if d > skew || d < -skew {
		return fmt.Errorf("%w: dated %s, %s from now", ErrStale, t.UTC().Format(time.RFC3339), d.Round(time.Second))
	}
	return nil
}
