package auth

import "time"

// SetClock replaces the service's clock, for expiry tests.
func SetClock(s *Service, now func() time.Time) { s.now = now }

// HOTP and VerifyTOTP expose the TOTP primitives to the RFC vector tests.
var (
	HOTP       = hotp
	VerifyTOTP = verifyTOTP
)

// Kinds of "<payload>.<expiry>.<mac>" value, for the tests of the one
// parser (signed.go).
const (
	KindSession = iota
	KindAccess
	KindTicket
	KindValue // Seal and Open with TestPurpose
	NumKinds
)

// TestPurpose is the Seal purpose of KindValue.
const TestPurpose = "folio test v1"

func signerOf(s *Service, kind int) signer {
	switch kind {
	case KindSession:
		return s.sessionSigner()
	case KindAccess:
		return s.accessSigner()
	case KindTicket:
		return s.ticketSigner()
	default:
		return s.valueSigner(TestPurpose)
	}
}

// OpenKind is what the parser reads from value as kind, the clock aside.
func OpenKind(s *Service, kind int, value string) (payload string, exp int64, ok bool) {
	return signerOf(s, kind).open(value)
}

// SealKind is what the signer of kind writes for payload until exp.
func SealKind(s *Service, kind int, payload string, exp int64) string {
	return signerOf(s, kind).seal(payload, exp)
}

// SignMsg is msg with the MAC the signer of kind puts after it, whatever
// msg holds.
func SignMsg(s *Service, kind int, msg string) string {
	return msg + "." + b64.EncodeToString(signerOf(s, kind).mac(msg))
}

// ParseKind is what the service's own entry point for kind accepts now:
// the session id, the user id of an access token or ticket, the payload of
// a sealed value.
func ParseKind(s *Service, kind int, value string) (string, bool) {
	switch kind {
	case KindSession:
		return s.parseSession(value)
	case KindAccess:
		id, _, ok := s.parseAccessToken(value)
		return id, ok
	case KindTicket:
		return s.ParseLoginTicket(value)
	default:
		return s.Open(TestPurpose, value)
	}
}

// RouteOf and TrimField expose the audit log's pure helpers.
var (
	RouteOf   = routeOf
	TrimField = trimField
)
