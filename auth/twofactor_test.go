package auth_test

import (
	"context"
	"encoding/base32"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
)

// decodeSecret reads a base32 secret as BeginTOTP returns it.
func decodeSecret(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil || len(b) != 20 {
		t.Fatalf("secret %q: %d bytes, %v", s, len(b), err)
	}
	return b
}

// enrol turns TOTP on for a user at the env's clock and returns the secret
// and the recovery codes.
func (e *env) enrol(t *testing.T, userID string) ([]byte, []string) {
	t.Helper()
	ctx := context.Background()
	secret, _, err := e.svc.BeginTOTP(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	key := decodeSecret(t, secret)
	codes, err := e.svc.EnableTOTP(ctx, userID, auth.TOTPCode(key, e.clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return key, codes
}

var recoveryShape = regexp.MustCompile(`^[a-z2-7]{5}-[a-z2-7]{5}$`)

func TestTOTPEnrolment(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)

	if _, _, ok, err := e.svc.PendingTOTP(ctx, u.ID); ok || err != nil {
		t.Fatalf("pending before enrolment: %v, %v", ok, err)
	}
	first, _, err := e.svc.BeginTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	secret, uri, err := e.svc.BeginTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if secret == first {
		t.Fatal("a second BeginTOTP kept the old secret")
	}
	key := decodeSecret(t, secret)
	if want := auth.OTPAuthURI("Folio", "alice", key); uri != want {
		t.Fatalf("uri %s, want %s", uri, want)
	}
	if s, p, ok, err := e.svc.PendingTOTP(ctx, u.ID); !ok || err != nil || s != secret || p != uri {
		t.Fatalf("PendingTOTP = %q %q %v %v", s, p, ok, err)
	}
	if on, _ := e.svc.TOTPEnabled(ctx, u.ID); on {
		t.Fatal("TOTP on before a code confirmed it")
	}

	now := e.clock.Now()
	for _, tc := range []struct{ name, code string }{
		{"code of the replaced secret", auth.TOTPCode(decodeSecret(t, first), now)},
		{"code from two steps ago", auth.TOTPCode(key, now.Add(-time.Minute))},
		{"empty", ""},
		{"garbage", "not a code"},
	} {
		if _, err := e.svc.EnableTOTP(ctx, u.ID, tc.code); !errors.Is(err, auth.ErrInvalidOTP) {
			t.Errorf("%s: EnableTOTP err = %v, want ErrInvalidOTP", tc.name, err)
		}
	}
	codes, err := e.svc.EnableTOTP(ctx, u.ID, " "+auth.TOTPCode(key, now)[:3]+" "+auth.TOTPCode(key, now)[3:])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if !recoveryShape.MatchString(c) || seen[c] {
			t.Fatalf("recovery codes %v", codes)
		}
		seen[c] = true
	}
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes", len(codes))
	}
	if on, _ := e.svc.TOTPEnabled(ctx, u.ID); !on {
		t.Fatal("TOTP off after enabling")
	}
	if _, _, ok, _ := e.svc.PendingTOTP(ctx, u.ID); ok {
		t.Fatal("an enrolment is still pending after enabling")
	}
	if n, _ := e.svc.RecoveryCodesLeft(ctx, u.ID); n != 10 {
		t.Fatalf("%d codes left", n)
	}
	// Only hashes are stored.
	var stored int
	if err := e.db.QueryRow(ctx, "SELECT COUNT(*) FROM recovery_codes WHERE user_id = $1 AND (hash = $2 OR hash = $3)",
		u.ID, codes[0], strings.ReplaceAll(codes[0], "-", "")).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("a recovery code is stored in clear (%d, %v)", stored, err)
	}
	if _, _, err := e.svc.BeginTOTP(ctx, u.ID); !errors.Is(err, auth.ErrTOTPEnabled) {
		t.Fatalf("BeginTOTP while on: %v", err)
	}
	if _, err := e.svc.EnableTOTP(ctx, u.ID, auth.TOTPCode(key, now)); !errors.Is(err, auth.ErrTOTPEnabled) {
		t.Fatalf("EnableTOTP while on: %v", err)
	}
	// The code that confirmed enrolment cannot also sign in.
	if err := e.svc.CheckSecondFactor(ctx, u.ID, auth.TOTPCode(key, now)); !errors.Is(err, auth.ErrInvalidOTP) {
		t.Fatalf("enrolment code replayed: %v", err)
	}
}

func TestBeginTOTPRefusesWhoCannotEnrol(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, _, err := e.svc.BeginTOTP(ctx, e.svc.GuestID()); !errors.Is(err, auth.ErrProtectedUser) {
		t.Errorf("guest: %v", err)
	}
	for _, id := range []string{sqlstore.NewID(), "not-an-id", ""} {
		if _, _, err := e.svc.BeginTOTP(ctx, id); !errors.Is(err, sqlstore.ErrNotFound) {
			t.Errorf("BeginTOTP(%q): %v", id, err)
		}
		if _, err := e.svc.EnableTOTP(ctx, id, "123456"); !errors.Is(err, sqlstore.ErrNotFound) {
			t.Errorf("EnableTOTP(%q): %v", id, err)
		}
		if err := e.svc.CheckSecondFactor(ctx, id, "123456"); !errors.Is(err, auth.ErrInvalidOTP) {
			t.Errorf("CheckSecondFactor(%q): %v", id, err)
		}
		if err := e.svc.DisableTOTP(ctx, id, "password1"); !errors.Is(err, auth.ErrInvalidCredentials) {
			t.Errorf("DisableTOTP(%q): %v", id, err)
		}
	}
}

func TestCheckSecondFactor(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	key, codes := e.enrol(t, u.ID)
	_, otherCodes := e.enrol(t, other.ID)
	e.clock.Advance(30 * time.Second)
	now := e.clock.Now()

	steps := []struct {
		name string
		code string
		ok   bool
	}{
		{"current code", auth.TOTPCode(key, now), true},
		{"the same code again", auth.TOTPCode(key, now), false},
		{"the previous step after the current one", auth.TOTPCode(key, now.Add(-30*time.Second)), false},
		{"the next step", auth.TOTPCode(key, now.Add(30*time.Second)), true},
		{"a recovery code", codes[0], true},
		{"the same recovery code", codes[0], false},
		{"a recovery code typed loosely", " " + strings.ToUpper(strings.ReplaceAll(codes[1], "-", " ")) + " ", true},
		{"another user's recovery code", otherCodes[0], false},
		{"a made-up recovery code", "aaaaa-aaaaa", false},
		{"a code with a bad letter", "aaaaa-aaaa1", false},
		// A right code between the wrong ones keeps the account under
		// the limit of wrong codes (TestSecondFactorLimit).
		{"a recovery code without its dash", strings.ReplaceAll(codes[2], "-", ""), true},
		{"empty", "", false},
		{"far too long", strings.Repeat("7", 10000), false},
		{"non-ASCII", "ünïcödé-ab", false},
	}
	for _, st := range steps {
		err := e.svc.CheckSecondFactor(ctx, u.ID, st.code)
		if st.ok && err != nil || !st.ok && !errors.Is(err, auth.ErrInvalidOTP) {
			t.Fatalf("%s: err = %v, want ok=%v", st.name, err, st.ok)
		}
	}
	if n, _ := e.svc.RecoveryCodesLeft(ctx, u.ID); n != 7 {
		t.Fatalf("%d codes left, want 7", n)
	}
	if n, _ := e.svc.RecoveryCodesLeft(ctx, other.ID); n != 10 {
		t.Fatalf("the other user has %d codes left", n)
	}
	// An account without TOTP has no second factor to pass.
	plain := e.createUser(t, "carol", "", "password1", auth.RoleUser)
	if err := e.svc.CheckSecondFactor(ctx, plain.ID, "123456"); !errors.Is(err, auth.ErrInvalidOTP) {
		t.Fatalf("account without TOTP: %v", err)
	}
}

func TestCheckLogin(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	plain := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	key, codes := e.enrol(t, u.ID)
	next := func() string { return auth.TOTPCode(key, e.clock.Now().Add(30*time.Second)) }
	tests := []struct {
		name, login, password string
		otp                   func() string
		err                   error
	}{
		{"wrong password with a right code", "alice", "nope", next, auth.ErrInvalidCredentials},
		{"right password, no code", "alice", "password1", func() string { return "" }, auth.ErrOTPRequired},
		{"right password, blank code", "alice", "password1", func() string { return "  " }, auth.ErrOTPRequired},
		{"right password, wrong code", "alice", "password1", func() string { return "000000" }, auth.ErrInvalidOTP},
		{"right password, right code", "alice", "password1", next, nil},
		{"by email, recovery code", "Alice@Example.com", "password1", func() string { return codes[3] }, nil},
		{"account without TOTP, no code", "bob", "password1", func() string { return "" }, nil},
		{"account without TOTP, any code", "bob", "password1", func() string { return "garbage" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.clock.Advance(30 * time.Second)
			got, err := e.svc.CheckLogin(ctx, tt.login, tt.password, tt.otp())
			if !errors.Is(err, tt.err) || err == nil && got == nil {
				t.Fatalf("CheckLogin = %v, %v; want %v", got, err, tt.err)
			}
			if err == nil && got.ID != u.ID && got.ID != plain.ID {
				t.Fatalf("user %+v", got)
			}
		})
	}
	e.setStatus(t, u.ID, auth.StatusDisabled)
	if _, err := e.svc.CheckLogin(ctx, "alice", "password1", ""); !errors.Is(err, auth.ErrDisabled) {
		t.Fatalf("disabled user: %v", err)
	}
}

func TestRecoveryCodesRegenerateAndDisable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	if _, err := e.svc.RegenerateRecoveryCodes(ctx, u.ID, "password1"); !errors.Is(err, auth.ErrTOTPNotEnabled) {
		t.Fatalf("regenerate without TOTP: %v", err)
	}
	_, old := e.enrol(t, u.ID)
	if _, err := e.svc.RegenerateRecoveryCodes(ctx, u.ID, "wrong"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("regenerate with a wrong password: %v", err)
	}
	fresh, err := e.svc.RegenerateRecoveryCodes(ctx, u.ID, "password1")
	if err != nil || len(fresh) != 10 {
		t.Fatalf("regenerate: %v, %v", fresh, err)
	}
	if err := e.svc.CheckSecondFactor(ctx, u.ID, old[0]); !errors.Is(err, auth.ErrInvalidOTP) {
		t.Fatalf("an old code still works: %v", err)
	}
	if err := e.svc.CheckSecondFactor(ctx, u.ID, fresh[0]); err != nil {
		t.Fatalf("a new code fails: %v", err)
	}

	if err := e.svc.DisableTOTP(ctx, u.ID, "wrong"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("disable with a wrong password: %v", err)
	}
	if on, _ := e.svc.TOTPEnabled(ctx, u.ID); !on {
		t.Fatal("a wrong password turned TOTP off")
	}
	if err := e.svc.DisableTOTP(ctx, u.ID, "password1"); err != nil {
		t.Fatal(err)
	}
	if on, _ := e.svc.TOTPEnabled(ctx, u.ID); on {
		t.Fatal("TOTP still on")
	}
	if n, _ := e.svc.RecoveryCodesLeft(ctx, u.ID); n != 0 {
		t.Fatalf("%d recovery codes left after disabling", n)
	}
	if err := e.svc.CheckSecondFactor(ctx, u.ID, fresh[1]); !errors.Is(err, auth.ErrInvalidOTP) {
		t.Fatalf("a recovery code works after disabling: %v", err)
	}
	if got, err := e.svc.CheckLogin(ctx, "alice", "password1", ""); err != nil || got.ID != u.ID {
		t.Fatalf("login after disabling: %v", err)
	}
	// Enrolling again starts from scratch.
	key, _ := e.enrol(t, u.ID)
	e.clock.Advance(30 * time.Second)
	if err := e.svc.CheckSecondFactor(ctx, u.ID, auth.TOTPCode(key, e.clock.Now())); err != nil {
		t.Fatalf("re-enrolled code: %v", err)
	}
}

func TestRecoveryCodesGoWithTheUser(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.svc.CreateUser(ctx, auth.NewUser{Username: "alice", Email: "a@example.com", Password: "password1"})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, u.ID)
	if err := e.svc.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := e.db.QueryRow(ctx, "SELECT COUNT(*) FROM recovery_codes WHERE user_id = $1", u.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d recovery codes outlive their user (%v)", n, err)
	}
}

func TestLoginTicket(t *testing.T) {
	e := newEnv(t)
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	ticket := e.svc.NewLoginTicket(u.ID)
	if got, ok := e.svc.ParseLoginTicket(ticket); !ok || got != u.ID {
		t.Fatalf("ParseLoginTicket = %q, %v", got, ok)
	}
	access, _ := e.svc.NewAccessToken(u.ID)
	session := strings.TrimPrefix(e.sessionCookie(t, u.ID), auth.SessionCookie+"=")
	// A service with another secret signs tickets no one else accepts.
	cfg := authtest.Config(t)
	cfg.SessionSecret = "another secret"
	foreign, err := auth.New(context.Background(), e.db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, ticket string }{
		{"tampered mac", ticket[:len(ticket)-10] + tamper(ticket[len(ticket)-10:len(ticket)-9]) + ticket[len(ticket)-9:]},
		{"tampered user", strings.Replace(ticket, u.ID, sqlstore.NewID(), 1)},
		{"an access token", access},
		{"a session cookie", session},
		{"another secret's ticket", foreign.NewLoginTicket(u.ID)},
		{"empty", ""},
		{"junk", "lt1.x.y.z"},
	} {
		if got, ok := e.svc.ParseLoginTicket(tc.ticket); ok {
			t.Errorf("%s: accepted as a ticket for %q", tc.name, got)
		}
	}
	e.clock.Advance(auth.LoginTicketTTL - time.Second)
	if _, ok := e.svc.ParseLoginTicket(ticket); !ok {
		t.Fatal("ticket expired early")
	}
	e.clock.Advance(time.Second)
	if _, ok := e.svc.ParseLoginTicket(ticket); ok {
		t.Fatal("ticket outlived its five minutes")
	}
}

func TestConcurrentUsesOfOneCodeLetOneThrough(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	key, codes := e.enrol(t, u.ID)
	e.clock.Advance(30 * time.Second)
	for _, code := range []string{auth.TOTPCode(key, e.clock.Now()), codes[0]} {
		const n = 8
		errs := make(chan error, n)
		for range n {
			go func() { errs <- e.svc.CheckSecondFactor(ctx, u.ID, code) }()
		}
		wins := 0
		for range n {
			err := <-errs
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, auth.ErrInvalidOTP) && !errors.Is(err, auth.ErrFactorLocked):
				t.Fatal(err)
			}
		}
		if wins != 1 {
			t.Fatalf("code %s accepted %d times", code, wins)
		}
		// The losers may have locked the account; the next round starts
		// after any lock.
		e.clock.Advance(auth.FactorLockTime)
	}
}
