package auth_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/qr"
)

// rfcSecret is the SHA-1 secret of RFC 4226 Appendix D and RFC 6238
// Appendix B.
var rfcSecret = []byte("12345678901234567890")

func TestHOTPMatchesRFC4226(t *testing.T) {
	want := []string{"755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"}
	for counter, code := range want {
		if got := auth.HOTP(rfcSecret, uint64(counter), 6); got != code {
			t.Errorf("HOTP(%d) = %s, want %s", counter, got, code)
		}
	}
}

func TestTOTPMatchesRFC6238(t *testing.T) {
	tests := []struct {
		unix int64
		code string // 8 digits, SHA-1
	}{
		{59, "94287082"},
		{1111111109, "07081804"},
		{1111111111, "14050471"},
		{1234567890, "89005924"},
		{2000000000, "69279037"},
		{20000000000, "65353130"},
	}
	for _, tt := range tests {
		if got := auth.HOTP(rfcSecret, uint64(tt.unix/30), 8); got != tt.code {
			t.Errorf("T=%d: %s, want %s", tt.unix, got, tt.code)
		}
		// Six digits are the same value modulo 10^6: the last six.
		if got := auth.TOTPCode(rfcSecret, time.Unix(tt.unix, 0)); got != tt.code[2:] {
			t.Errorf("TOTPCode at %d = %s, want %s", tt.unix, got, tt.code[2:])
		}
	}
}

func TestVerifyTOTP(t *testing.T) {
	now := time.Unix(1111111111, 0)
	step := now.Unix() / 30
	code := func(d int64) string { return auth.TOTPCode(rfcSecret, now.Add(time.Duration(d)*30*time.Second)) }
	tests := []struct {
		name     string
		code     string
		lastStep int64
		ok       bool
		step     int64
	}{
		{"current step", code(0), 0, true, step},
		{"one step back", code(-1), 0, true, step - 1},
		{"one step ahead", code(1), 0, true, step + 1},
		{"two steps back", code(-2), 0, false, 0},
		{"two steps ahead", code(2), 0, false, 0},
		{"current step already used", code(0), step, false, 0},
		{"older step after a newer one", code(-1), step, false, 0},
		{"newer step after an older one", code(1), step, true, step + 1},
		{"five digits", code(0)[:5], 0, false, 0},
		{"seven digits", code(0) + "0", 0, false, 0},
		{"letters", "abcdef", 0, false, 0},
		{"empty", "", 0, false, 0},
		{"non-ASCII digits", "１２３４５６", 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := auth.VerifyTOTP(rfcSecret, tt.code, now, tt.lastStep)
			if ok != tt.ok || ok && got != tt.step {
				t.Fatalf("VerifyTOTP = %d, %v; want %d, %v", got, ok, tt.step, tt.ok)
			}
		})
	}
}

// The enrolment page's picture is the URI's QR code as package qr draws it.
func TestQRSVGDrawsTheURI(t *testing.T) {
	uri := []byte(auth.OTPAuthURI("Folio", "alice", rfcSecret))
	got, err := auth.QRSVG(uri)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := qr.SVG(uri); got != want || !strings.HasPrefix(got, "<svg") {
		t.Errorf("QRSVG = %.80q…, want qr.SVG's %.80q…", got, want)
	}
}

func TestOTPAuthURI(t *testing.T) {
	got := auth.OTPAuthURI("Folio", "alice", rfcSecret)
	want := "otpauth://totp/Folio:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Folio&algorithm=SHA1&digits=6&period=30"
	if got != want {
		t.Fatalf("URI\n%s\nwant\n%s", got, want)
	}
	// Awkward names survive a parse.
	raw := auth.OTPAuthURI("My Folio & Co", "bob smith/?#", rfcSecret)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Scheme != "otpauth" || u.Host != "totp" || u.Path != "/My Folio & Co:bob smith/?#" ||
		q.Get("issuer") != "My Folio & Co" || q.Get("secret") != "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" ||
		q.Get("algorithm") != "SHA1" || q.Get("digits") != "6" || q.Get("period") != "30" || len(q) != 5 {
		t.Fatalf("%s parsed as %q %q %q %v", raw, u.Scheme, u.Host, u.Path, q)
	}
}
