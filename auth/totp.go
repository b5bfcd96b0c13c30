package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"net/url"
	"strconv"
	"strings"
	"time"

	"folio/auth/qr"
)

// Time-based one-time passwords as authenticator apps make them: RFC 6238
// with SHA-1, 6 digits and a 30-second step (docs/api.md#identity).
const (
	totpDigits = 6
	totpPeriod = 30 // seconds
	totpSkew   = 1  // steps accepted either side of the current one
	// totpSecretLen is 160 bits, the HMAC-SHA-1 block-friendly length
	// RFC 4226 recommends.
	totpSecretLen = 20
)

// totpEncoding is how secrets are shown and stored: base32 without padding,
// what authenticator apps accept.
var totpEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// hotp is RFC 4226's HOTP value of secret at counter, digits long.
func hotp(secret []byte, counter uint64, digits int) string {
	m := hmac.New(sha1.New, secret)
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	s := strconv.FormatUint(uint64(v%mod), 10)
	return strings.Repeat("0", digits-len(s)) + s
}

// totpStep is the RFC 6238 time step of t.
func totpStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// TOTPCode is the 6-digit code of secret at time t.
func TOTPCode(secret []byte, t time.Time) string {
	return hotp(secret, uint64(totpStep(t)), totpDigits)
}

// newTOTPSecret returns a fresh random secret in its base32 text form.
func newTOTPSecret() string {
	b := make([]byte, totpSecretLen)
	_, _ = rand.Read(b)
	return totpEncoding.EncodeToString(b)
}

// decodeTOTPSecret reads a stored base32 secret.
func decodeTOTPSecret(s string) ([]byte, bool) {
	b, err := totpEncoding.DecodeString(s)
	return b, err == nil && len(b) > 0
}

// OTPAuthURI is the Key URI an authenticator app reads from a QR code:
// otpauth://totp/Issuer:account?secret=…&issuer=Issuer&algorithm=SHA1&digits=6&period=30.
func OTPAuthURI(issuer, account string, secret []byte) string {
	return "otpauth://totp/" + url.PathEscape(issuer) + ":" + url.PathEscape(account) +
		"?secret=" + totpEncoding.EncodeToString(secret) +
		"&issuer=" + queryEscape(issuer) +
		"&algorithm=SHA1&digits=" + strconv.Itoa(totpDigits) + "&period=" + strconv.Itoa(totpPeriod)
}

// QRSVG draws data, an OTPAuthURI, as the QR code in SVG that the
// enrolment page shows (package auth/qr).
func QRSVG(data []byte) (string, error) { return qr.SVG(data) }

// queryEscape escapes a query value with %20 for spaces: some
// authenticator apps show a "+" literally.
func queryEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// normalizeOTP strips the spaces people type into codes ("123 456").
func normalizeOTP(code string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, strings.TrimSpace(code))
}

// isTOTPCode reports whether code has the shape of a TOTP code.
func isTOTPCode(code string) bool {
	if len(code) != totpDigits {
		return false
	}
	for i := range len(code) {
		if code[i] < '0' || code[i] > '9' {
			return false
		}
	}
	return true
}

// verifyTOTP checks code against the steps around now and returns the step
// it matched. A step not after lastStep is refused: a code seen once (on
// the wire, over a shoulder) cannot be played again, nor can an older one
// after it. Every candidate step is compared, so the time taken does not
// tell which one matched.
func verifyTOTP(secret []byte, code string, now time.Time, lastStep int64) (int64, bool) {
	if !isTOTPCode(code) {
		return 0, false
	}
	cur := totpStep(now)
	matched := int64(-1)
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		step := cur + d
		want := hotp(secret, uint64(step), totpDigits)
		ok := subtle.ConstantTimeCompare([]byte(want), []byte(code))
		if ok == 1 && step > lastStep && matched < 0 {
			matched = step
		}
	}
	return matched, matched >= 0
}
