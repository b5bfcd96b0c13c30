package auth_test

import (
	"encoding/base64"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
)

// The fuzz target's service signs with a fixed secret and reads a fixed
// clock, so that the values in testdata/fuzz/FuzzOpenSigned stay valid.
const (
	fuzzSecret  = "folio fuzz secret"
	fuzzNow     = 1767225600 // 2026-01-01T00:00:00Z
	fuzzExpiry  = fuzzNow + 3600
	fuzzSession = "0123456789abcdef0123456789abcdef"
	fuzzUser    = "01936b2e-7c4a-7000-8000-00000000f00d"
)

// Fuzz kinds beyond the auth.Kind* values.
const (
	fuzzFormToken = auth.NumKinds + iota // a session's form token
	fuzzRandom                           // a 24-byte random token's shape (folio_form, share links)
	fuzzKinds
)

// fuzzPayload is a valid payload of a signed kind.
func fuzzPayload(kind int) string {
	switch kind {
	case auth.KindSession:
		return fuzzSession
	case auth.KindAccess:
		return "fa1." + fuzzUser
	case auth.KindTicket:
		return "lt1." + fuzzUser
	default:
		return fuzzUser
	}
}

// FuzzOpenSigned checks the one parser of signed values (signed.go): for
// any text, a value it accepts is byte for byte what the signer writes for
// the payload and expiry it read, the service's own entry point for that
// kind agrees with it, and nothing panics. The kind byte picks the session
// cookie, access token, login ticket, sealed value, form token, or the
// shape of a random token.
func FuzzOpenSigned(f *testing.F) {
	svc := fixedService(f, fuzzSecret, fuzzNow)

	for kind := range auth.NumKinds {
		valid := auth.SealKind(svc, kind, fuzzPayload(kind), fuzzExpiry)
		f.Add(byte(kind), valid)
		f.Add(byte(kind), auth.SealKind(svc, kind, fuzzPayload(kind), fuzzNow)) // expired
		for _, v := range authtest.MACVariants(f, valid) {
			f.Add(byte(kind), v.Value)
		}
	}
	form := svc.FormToken(fuzzSession)
	f.Add(byte(fuzzFormToken), form)
	for _, v := range authtest.MACVariants(f, form) {
		f.Add(byte(fuzzFormToken), v.Value)
	}
	for _, v := range []string{"AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX=",
		"AAECAwQFBgcICQoLDA0O\nDxAREhMUFRYX", "+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/"} {
		f.Add(byte(fuzzRandom), v)
	}

	f.Fuzz(func(t *testing.T, kindByte byte, value string) {
		switch kind := int(kindByte) % fuzzKinds; kind {
		case fuzzFormToken:
			if svc.ValidFormToken(fuzzSession, value) && value != form {
				t.Fatalf("form token %q accepted; the signer writes %q", value, form)
			}
		case fuzzRandom:
			b, err := base64.RawURLEncoding.DecodeString(value)
			want := err == nil && len(b) == 24 && base64.RawURLEncoding.EncodeToString(b) == value
			if got := auth.CanonicalBase64URL(value, 24); got != want {
				t.Fatalf("CanonicalBase64URL(%q) = %v, want %v", value, got, want)
			}
		default:
			payload, exp, ok := auth.OpenKind(svc, kind, value)
			got, accepted := auth.ParseKind(svc, kind, value)
			if !ok {
				if accepted {
					t.Fatalf("kind %d: the service accepts %q, which the parser refuses", kind, value)
				}
				return
			}
			if again := auth.SealKind(svc, kind, payload, exp); again != value {
				t.Fatalf("kind %d: accepted %q; the signer writes %q", kind, value, again)
			}
			if accepted != (exp > fuzzNow) {
				t.Fatalf("kind %d: %q expiring at %d accepted=%v at %d", kind, value, exp, accepted, fuzzNow)
			}
			want := payload
			if kind == auth.KindAccess || kind == auth.KindTicket {
				want = payload[len("fa1."):] // the user id after the version
			}
			if accepted && got != want {
				t.Fatalf("kind %d: the service reads %q from payload %q", kind, got, payload)
			}
		}
	})
}
