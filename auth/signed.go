package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"folio/sqlstore"
)

// Signed values are what Folio hands to a client and reads back without
// storing it: the folio_session cookie, access tokens, login tickets,
// console form tokens, and the values of Seal (a share link's password
// cookie and view tickets). One parser reads them all, and it accepts only
// the exact text the signer writes (docs/design.md#identity): the MAC in
// canonical unpadded base64url of exactly 32 bytes, the expiry in plain
// decimal, the payload in its kind's grammar. Go's base64 decoder is
// lenient (it skips '\r' and '\n' and ignores the unused low bits of the
// last character), so a check that only decodes would take values that
// are not the signer's output.

// b64 is the encoding of every signed value's MAC and of random tokens.
var b64 = base64.RawURLEncoding

const (
	// macBytes is the length of an HMAC-SHA256; 43 characters in base64url.
	macBytes = sha256.Size
	// maxSignedLen bounds a signed value before any work is done on it;
	// the longest Seal makes is under 330 bytes.
	maxSignedLen = 512
	// maxSealPayload bounds a Seal payload.
	maxSealPayload = 256
)

// decodeBase64URL returns the n bytes s encodes when s is exactly what the
// encoder writes for them: unpadded base64url, no other byte, the unused
// low bits zero. Re-encoding is the test: any text the lenient decoder
// forgives encodes differently.
func decodeBase64URL(s string, n int) ([]byte, bool) {
	if len(s) != b64.EncodedLen(n) {
		return nil, false
	}
	b, err := b64.Strict().DecodeString(s)
	if err != nil || len(b) != n || b64.EncodeToString(b) != s {
		return nil, false
	}
	return b, true
}

// CanonicalBase64URL reports whether s is exactly the unpadded base64url
// encoding of n bytes, as a random token is written (a share link's, the
// folio_form cookie): another shape is refused before any lookup.
func CanonicalBase64URL(s string, n int) bool {
	_, ok := decodeBase64URL(s, n)
	return ok
}

// macOK reports, in constant time, whether mac is the base64url text of
// want as the signer writes it.
func macOK(mac string, want []byte) bool {
	got, ok := decodeBase64URL(mac, macBytes)
	return ok && hmac.Equal(got, want)
}

// signer makes and reads one kind of signed value,
// "<payload>.<expiry unix seconds>.<mac>". The MAC is HMAC-SHA256 under key
// of domain followed by "<payload>.<expiry>"; domain is a purpose and a NUL
// for the values of Seal, which share one key, and empty for kinds with a
// key of their own.
type signer struct {
	key     []byte
	domain  string
	payload func(string) bool // the kind's payload grammar
}

func (g signer) mac(msg string) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(g.domain))
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// seal writes the value of payload until exp.
func (g signer) seal(payload string, exp int64) string {
	msg := payload + "." + strconv.FormatInt(exp, 10)
	return msg + "." + b64.EncodeToString(g.mac(msg))
}

// open returns the payload and expiry of value when value is, byte for
// byte, what seal writes for them under this signer. It does not look at
// the clock.
func (g signer) open(value string) (payload string, exp int64, ok bool) {
	if len(value) > maxSignedLen {
		return "", 0, false
	}
	msg, mac, found := cutLast(value, '.')
	if !found {
		return "", 0, false
	}
	payload, expText, found := cutLast(msg, '.')
	if !found || !g.payload(payload) {
		return "", 0, false
	}
	exp, ok = parseExpiry(expText)
	if !ok || !macOK(mac, g.mac(msg)) {
		return "", 0, false
	}
	return payload, exp, true
}

// openAt is open, refusing a value whose expiry is not after now.
func (g signer) openAt(value string, now time.Time) (string, bool) {
	payload, exp, ok := g.open(value)
	if !ok || now.Unix() >= exp {
		return "", false
	}
	return payload, true
}

// parseExpiry reads an expiry as strconv.FormatInt writes a positive one:
// digits only, no sign, no leading zero.
func parseExpiry(s string) (int64, bool) {
	if s == "" || len(s) > 19 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// Prefixes of the payloads of access tokens and login tickets: a version,
// then the user id.
const (
	accessPrefix = "fa1."
	ticketPrefix = "lt1."
)

// validSessionID: the 16 random bytes of NewSession in lower-case hex.
func validSessionID(p string) bool {
	if len(p) != 32 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func validAccessPayload(p string) bool {
	id, ok := strings.CutPrefix(p, accessPrefix)
	return ok && sqlstore.ValidID(id)
}

func validTicketPayload(p string) bool {
	id, ok := strings.CutPrefix(p, ticketPrefix)
	return ok && sqlstore.ValidID(id)
}

// validSealPayload: 1 to 256 characters of the base64url alphabet (an id,
// a random token), which pass unchanged through cookies and query strings.
func validSealPayload(p string) bool {
	if p == "" || len(p) > maxSealPayload {
		return false
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validPurpose: a purpose names a use and its version ("folio share
// ticket v1"); a NUL would blur where it ends.
func validPurpose(p string) bool { return p != "" && !strings.ContainsRune(p, 0) }

// The signers of each kind. Sessions, access tokens and login tickets have
// keys of their own, so no other signed value can pass for one of them.
func (s *Service) sessionSigner() signer {
	return signer{key: s.sessionKey, payload: validSessionID}
}

func (s *Service) accessSigner() signer {
	return signer{key: s.accessKey, payload: validAccessPayload}
}

func (s *Service) ticketSigner() signer {
	return signer{key: s.ticketKey, payload: validTicketPayload}
}

func (s *Service) valueSigner(purpose string) signer {
	return signer{key: s.valueKey, domain: purpose + "\x00", payload: validSealPayload}
}

// Seal signs payload for purpose until exp: "<payload>.<expiry unix>.<mac>",
// for a short-lived fact a domain hands to a browser and reads back with
// Open without storing it (a share link's password cookie, its view
// tickets). The MAC covers the purpose, so a value made for one use is
// refused for any other; name purposes with a version ("folio share
// ticket v1"). The payload is 1 to 256 characters of A-Z a-z 0-9 - _ (an
// id or a random token). Outside that grammar, for an empty purpose or for
// an expiry not after 1970, Seal returns "", which Open refuses.
func (s *Service) Seal(purpose, payload string, exp time.Time) string {
	if !validPurpose(purpose) || !validSealPayload(payload) || exp.Unix() <= 0 {
		return ""
	}
	return s.valueSigner(purpose).seal(payload, exp.Unix())
}

// Open returns the payload of a value Seal made for purpose; ok is false
// for a value that is not exactly what Seal wrote (tampered, re-encoded,
// padded, with whitespace), expired, or made for another purpose.
func (s *Service) Open(purpose, value string) (payload string, ok bool) {
	if !validPurpose(purpose) {
		return "", false
	}
	return s.valueSigner(purpose).openAt(value, s.now())
}

// OpenAny is Open without the clock: it returns the payload and expiry of a
// value Seal made for purpose, expired or not, so that a caller can tell a
// link that has run out (worth a "this link has expired" page) from one
// that was never valid. ok is false for a value that is not exactly what
// Seal wrote, or that was made for another purpose; the caller must check
// exp itself before trusting the payload for anything but that message.
func (s *Service) OpenAny(purpose, value string) (payload string, exp time.Time, ok bool) {
	if !validPurpose(purpose) {
		return "", time.Time{}, false
	}
	payload, unix, ok := s.valueSigner(purpose).open(value)
	if !ok {
		return "", time.Time{}, false
	}
	return payload, time.Unix(unix, 0), true
}
