package auth

import "time"

// SetClock replaces the service's clock, for expiry tests.
func SetClock(s *Service, now func() time.Time) { s.now = now }

// HOTP and VerifyTOTP expose the TOTP primitives to the RFC vector tests.
var (
	HOTP       = hotp
	VerifyTOTP = verifyTOTP
)
