package httpsig

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// MaxHeaderLen bounds the Signature header read: a 4096-bit key's
// signature and a long list of headers take well under 2 KiB.
const MaxHeaderLen = 8 << 10

// Signature is a parsed Signature header.
type Signature struct {
	KeyID     string
	Algorithm string   // as given, lowercased; "" when absent
	Headers   []string // lowercased; ["date"] when absent, as the draft says
	Signature []byte
	Created   int64 // 0 when absent
	Expires   int64 // 0 when absent
}

// FormatError says what is wrong with a Signature header. It wraps
// ErrMalformed.
type FormatError struct {
	Reason string
}

func (e *FormatError) Error() string { return "httpsig: malformed signature header: " + e.Reason }

// Unwrap makes errors.Is(err, ErrMalformed) hold.
func (e *FormatError) Unwrap() error { return ErrMalformed }

func malformed(format string, args ...any) error {
	return &FormatError{Reason: fmt.Sprintf(format, args...)}
}

// Parse reads the Signature header, or else an Authorization header of
// the Signature scheme. It returns ErrNoSignature when neither is there,
// and a *FormatError for one it cannot read: a parameter without a value,
// an unterminated quoted string, a parameter given twice, no keyId or
// signature, a signature that is not base64, created or expires that are
// not numbers, an empty headers list, or a header longer than
// MaxHeaderLen. Unknown parameters are ignored, as the draft says.
func Parse(h http.Header) (*Signature, error) {
	value := h.Get("Signature")
	if value == "" {
		auth := h.Get("Authorization")
		scheme, rest, _ := strings.Cut(strings.TrimSpace(auth), " ")
		if !strings.EqualFold(scheme, "Signature") {
			return nil, ErrNoSignature
		}
		value = rest
	}
	if len(value) > MaxHeaderLen {
		return nil, malformed("longer than %d bytes", MaxHeaderLen)
	}
	params, err := parseParams(value)
	if err != nil {
		return nil, err
	}
	s := &Signature{
		KeyID:     params["keyid"],
		Algorithm: lowerASCII(params["algorithm"]),
		Headers:   []string{"date"},
	}
	if s.KeyID == "" {
		return nil, malformed("no keyId")
	}
	sig, ok := params["signature"]
	if !ok || sig == "" {
		return nil, malformed("no signature")
	}
	// The decoder skips line breaks, so a signature of "\r\n" is empty.
	if s.Signature, err = base64.StdEncoding.DecodeString(sig); err != nil || len(s.Signature) == 0 {
		return nil, malformed("the signature is not base64")
	}
	if hs, ok := params["headers"]; ok {
		s.Headers = strings.Fields(lowerASCII(hs))
		if len(s.Headers) == 0 {
			return nil, malformed("an empty headers list")
		}
	}
	for _, p := range []struct {
		name string
		to   *int64
	}{{"created", &s.Created}, {"expires", &s.Expires}} {
		name, to := p.name, p.to
		v, ok := params[name]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, malformed("%s is not a positive number", name)
		}
		*to = n
	}
	return s, nil
}

// parseParams reads `name="value", name=token, ...` into a map of
// lowercased names. A quoted value may hold any character, a backslash
// escaping the next one.
func parseParams(s string) (map[string]string, error) {
	params := map[string]string{}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			break
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		name := lowerASCII(s[start:i])
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) || s[i] != '=' {
			return nil, malformed("parameter %.40q has no value", name)
		}
		i++
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var value string
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				i++
				if c == '\\' && i < len(s) {
					b.WriteByte(s[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				b.WriteByte(c)
			}
			if !closed {
				return nil, malformed("the value of %.40q is not closed", name)
			}
			value = b.String()
		} else {
			start := i
			for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
				i++
			}
			value = s[start:i]
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] != ',' {
			return nil, malformed("no comma after %.40q", name)
		}
		if _, dup := params[name]; dup {
			return nil, malformed("parameter %.40q given twice", name)
		}
		params[name] = value
	}
	return params, nil
}

// lowerASCII lowercases ASCII letters only: header names are ASCII, and
// other bytes are kept as they are rather than turned into U+FFFD.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
