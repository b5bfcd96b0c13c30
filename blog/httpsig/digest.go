package httpsig

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// Digest returns "SHA-256=" + base64(sha256(body)), the Digest header of a
// signed request's body.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

// CheckDigest checks the request's Digest header against body. The header
// may list several "alg=value" pairs, comma-separated or in several
// headers: SHA-256 must be among them and match, and SHA-512, when given,
// must match too; other algorithms are ignored, since a weaker one cannot
// weaken the SHA-256 check that is always made.
func CheckDigest(h http.Header, body []byte) error {
	var sha256Seen bool
	for _, line := range h.Values("Digest") {
		for _, part := range strings.Split(line, ",") {
			alg, value, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				continue
			}
			var want []byte
			switch strings.ToUpper(strings.TrimSpace(alg)) {
			case "SHA-256":
				sum := sha256.Sum256(body)
				want = sum[:]
				sha256Seen = true
			case "SHA-512":
				sum := sha512.Sum512(body)
				want = sum[:]
			default:
				continue
			}
			got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(value))
			if err != nil {
				return fmt.Errorf("%w: %s is not base64", ErrDigestMismatch, strings.TrimSpace(alg))
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%w: %s differs", ErrDigestMismatch, strings.TrimSpace(alg))
			}
		}
	}
	if !sha256Seen {
		return ErrNoDigest
	}
	return nil
}
