package httpsig

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Signer signs outgoing requests as one actor's key.
type Signer struct {
	KeyID string // the key's IRI, e.g. https://blog.example/ap/actor#main-key
	Key   *rsa.PrivateKey
	Now   func() time.Time // nil: time.Now
}

// The headers Folio signs: a POST's body is covered through its Digest.
var (
	postHeaders = []string{"(request-target)", "host", "date", "digest"}
	getHeaders  = []string{"(request-target)", "host", "date"}
)

// Sign sets Date (UTC, http.TimeFormat), Digest when body is not nil, and
// the Signature header, covering "(request-target) host date digest" (or
// "(request-target) host date" when body is nil, a signed GET). The host
// signed is r.URL.Host, and r.Host is set to it so that what is sent is
// what was signed. The caller sends body as the request's body.
func (s Signer) Sign(r *http.Request, body []byte) error {
	if s.Key == nil {
		return errors.New("httpsig: no key to sign with")
	}
	if s.KeyID == "" || strings.ContainsAny(s.KeyID, "\"\\\r\n") {
		return errors.New("httpsig: the key id is empty or cannot be quoted")
	}
	if r.URL == nil || r.URL.Host == "" {
		return errors.New("httpsig: the request has no host")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Host = r.URL.Host
	r.Header.Set("Date", now().UTC().Format(http.TimeFormat))
	headers := getHeaders
	if body != nil {
		r.Header.Set("Digest", Digest(body))
		headers = postHeaders
	}
	sig := &Signature{KeyID: s.KeyID, Algorithm: "rsa-sha256", Headers: headers}
	text, err := sig.SigningString(r)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(text))
	raw, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, sum[:])
	if err != nil {
		return err
	}
	sig.Signature = raw
	r.Header.Set("Signature", sig.String())
	return nil
}

// String writes the signature as a Signature header's value:
// keyId, algorithm (when set), created and expires (when set), headers and
// signature, each value quoted.
func (s *Signature) String() string {
	var b strings.Builder
	b.WriteString(`keyId="` + quote(s.KeyID) + `"`)
	if s.Algorithm != "" {
		b.WriteString(`,algorithm="` + quote(s.Algorithm) + `"`)
	}
	if s.Created != 0 {
		b.WriteString(",created=" + strconv.FormatInt(s.Created, 10))
	}
	if s.Expires != 0 {
		b.WriteString(",expires=" + strconv.FormatInt(s.Expires, 10))
	}
	if len(s.Headers) > 0 {
		b.WriteString(`,headers="` + quote(strings.Join(s.Headers, " ")) + `"`)
	}
	b.WriteString(`,signature="` + base64.StdEncoding.EncodeToString(s.Signature) + `"`)
	return b.String()
}

// quote escapes a value for a quoted string of the header.
func quote(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return s
	}
	var b strings.Builder
	// Byte by byte, so that text that is not UTF-8 is kept as it is.
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
