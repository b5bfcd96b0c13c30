package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"folio/auth"
)

// wrongCode is a well-formed TOTP code of key that is not good now: the
// code of a step an hour away.
func wrongCode(key []byte, now time.Time) string {
	return auth.TOTPCode(key, now.Add(time.Hour))
}

// auditOf lists the audit entries of one action about userID.
func (e *env) auditOf(t *testing.T, userID, action string) []auth.AuditEntry {
	t.Helper()
	items, _, err := e.svc.ListAudit(context.Background(), auth.AuditFilter{User: userID, Action: action}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestSecondFactorLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wrong func(key []byte, now time.Time) string
	}{
		{"wrong TOTP codes", wrongCode},
		{"wrong recovery codes", func([]byte, time.Time) string { return "aaaaa-aaaaa" }},
		{"malformed codes", func([]byte, time.Time) string { return "12" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
			bystander := e.createUser(t, "bob", "", "password1", auth.RoleUser)
			key, codes := e.enrol(t, u.ID)
			bkey, _ := e.enrol(t, bystander.ID)
			e.clock.Advance(30 * time.Second)

			for i := range auth.FactorMaxFailures {
				if err := e.svc.CheckSecondFactor(ctx, u.ID, tc.wrong(key, e.clock.Now())); !errors.Is(err, auth.ErrInvalidOTP) {
					t.Fatalf("wrong code %d: %v, want ErrInvalidOTP", i+1, err)
				}
			}
			lockedAt := e.clock.Now()
			wantUntil := lockedAt.Add(auth.FactorLockTime)

			// Locked: neither a right code nor a recovery code is checked,
			// and the recovery code is not spent.
			for _, code := range []string{auth.TOTPCode(key, e.clock.Now()), codes[0]} {
				err := e.svc.CheckSecondFactor(ctx, u.ID, code)
				var le *auth.FactorLockedError
				if !errors.As(err, &le) || !errors.Is(err, auth.ErrFactorLocked) {
					t.Fatalf("right code while locked: %v, want a FactorLockedError", err)
				}
				if !le.Until.Equal(wantUntil) || le.Wait != auth.FactorLockTime || le.RetryAfter() != int(auth.FactorLockTime/time.Second) {
					t.Fatalf("lock until %v, wait %v (Retry-After %d); want %v, %v", le.Until, le.Wait, le.RetryAfter(), wantUntil, auth.FactorLockTime)
				}
			}
			if n, _ := e.svc.RecoveryCodesLeft(ctx, u.ID); n != 10 {
				t.Fatalf("%d recovery codes left after a refused one, want 10", n)
			}
			// The password still comes first: a wrong one says nothing of
			// the lock.
			if _, err := e.svc.CheckLogin(ctx, "alice", "wrong password", auth.TOTPCode(key, e.clock.Now())); !errors.Is(err, auth.ErrInvalidCredentials) {
				t.Fatalf("wrong password while locked: %v", err)
			}
			if _, err := e.svc.CheckLogin(ctx, "alice", "password1", auth.TOTPCode(key, e.clock.Now())); !errors.Is(err, auth.ErrFactorLocked) {
				t.Fatalf("right password and code while locked: %v", err)
			}
			if err := e.svc.FactorLocked(ctx, u.ID); !errors.Is(err, auth.ErrFactorLocked) {
				t.Fatalf("FactorLocked while locked: %v", err)
			}
			// Another account is untouched.
			if err := e.svc.CheckSecondFactor(ctx, bystander.ID, auth.TOTPCode(bkey, e.clock.Now())); err != nil {
				t.Fatalf("another account: %v", err)
			}

			locked := e.auditOf(t, u.ID, auth.AuditFactorLocked)
			if len(locked) != 1 || locked[0].ResourceID != wantUntil.UTC().Format(time.RFC3339) || locked[0].Username != "alice" {
				t.Fatalf("lock entries %+v, want one ending %s", locked, wantUntil.UTC().Format(time.RFC3339))
			}

			e.clock.Advance(auth.FactorLockTime - time.Second)
			err := e.svc.CheckSecondFactor(ctx, u.ID, auth.TOTPCode(key, e.clock.Now()))
			var le *auth.FactorLockedError
			if !errors.As(err, &le) || le.RetryAfter() != 1 {
				t.Fatalf("a second before the end: %v", err)
			}
			if got := e.auditOf(t, u.ID, auth.AuditFactorUnlocked); len(got) != 0 {
				t.Fatalf("lock ended early in the audit log: %+v", got)
			}
			e.clock.Advance(time.Second)
			if err := e.svc.FactorLocked(ctx, u.ID); err != nil {
				t.Fatalf("FactorLocked after the end: %v", err)
			}
			if err := e.svc.CheckSecondFactor(ctx, u.ID, auth.TOTPCode(key, e.clock.Now())); err != nil {
				t.Fatalf("right code after the lock: %v", err)
			}
			ended := e.auditOf(t, u.ID, auth.AuditFactorUnlocked)
			if len(ended) != 1 || ended[0].ResourceID != locked[0].ResourceID {
				t.Fatalf("end entries %+v, want one naming %s", ended, locked[0].ResourceID)
			}
		})
	}
}

func TestSecondFactorCountStartsOver(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between func(e *env, key []byte, userID string) error
	}{
		{"after a right code", func(e *env, key []byte, userID string) error {
			e.clock.Advance(30 * time.Second)
			return e.svc.CheckSecondFactor(context.Background(), userID, auth.TOTPCode(key, e.clock.Now()))
		}},
		{"after the window", func(e *env, _ []byte, _ string) error {
			e.clock.Advance(auth.FactorWindow)
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
			key, _ := e.enrol(t, u.ID)
			wrongs := func() {
				for range auth.FactorMaxFailures - 1 {
					if err := e.svc.CheckSecondFactor(ctx, u.ID, wrongCode(key, e.clock.Now())); !errors.Is(err, auth.ErrInvalidOTP) {
						t.Fatalf("wrong code: %v", err)
					}
				}
			}
			wrongs()
			if err := tc.between(e, key, u.ID); err != nil {
				t.Fatal(err)
			}
			wrongs()
			if err := e.svc.FactorLocked(ctx, u.ID); err != nil {
				t.Fatalf("locked after %d and %d wrong codes with the count started over: %v",
					auth.FactorMaxFailures-1, auth.FactorMaxFailures-1, err)
			}
			e.clock.Advance(30 * time.Second)
			if err := e.svc.CheckSecondFactor(ctx, u.ID, auth.TOTPCode(key, e.clock.Now())); err != nil {
				t.Fatalf("right code: %v", err)
			}
		})
	}
}

// TestConcurrentWrongCodesStayWithinTheLimit sends many wrong codes at
// once: the count is taken before each check, in the database, so no more
// than the limit are ever checked.
func TestConcurrentWrongCodesStayWithinTheLimit(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	key, _ := e.enrol(t, u.ID)
	const n = 16
	errs := make(chan error, n)
	for range n {
		go func() { errs <- e.svc.CheckSecondFactor(ctx, u.ID, wrongCode(key, e.clock.Now())) }()
	}
	checked, refused := 0, 0
	for range n {
		switch err := <-errs; {
		case errors.Is(err, auth.ErrInvalidOTP):
			checked++
		case errors.Is(err, auth.ErrFactorLocked):
			refused++
		default:
			t.Fatalf("unexpected answer: %v", err)
		}
	}
	if checked != auth.FactorMaxFailures || refused != n-auth.FactorMaxFailures {
		t.Fatalf("%d checked, %d refused; want %d checked", checked, refused, auth.FactorMaxFailures)
	}
	if got := e.auditOf(t, u.ID, auth.AuditFactorLocked); len(got) != 1 {
		t.Fatalf("%d lock entries, want 1", len(got))
	}
}
