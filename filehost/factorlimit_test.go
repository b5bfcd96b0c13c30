package filehost

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
)

// signInPath is one way of signing in with a password and a second
// factor, from a given client address.
type signInPath struct {
	name string
	// try signs in as login from addr and returns the last answer: the
	// API's, or the console's code step (its password step when that one
	// refuses).
	try func(e *testEnv, addr, login, password, code string) *httpxtest.Response
	// ok is the status of a sign-in that worked.
	ok int
}

var ticketField = regexp.MustCompile(`name="ticket" value="([^"]+)"`)

var signInPaths = []signInPath{
	{"api login", func(e *testEnv, addr, login, password, code string) *httpxtest.Response {
		return e.c.Clone().Do(http.MethodPost, "/api/v1/auth/login",
			map[string]string{"username": login, "password": password, "otp": code}, "X-Forwarded-For", addr)
	}, http.StatusOK},
	{"console code step", func(e *testEnv, addr, login, password, code string) *httpxtest.Response {
		b := e.c.Clone()
		b.Header.Set("X-Forwarded-For", addr)
		step := b.PostForm("/console/login", "form_token", pageToken(b, "/console/login"), "username", login, "password", password)
		m := ticketField.FindSubmatch(step.Body)
		if step.Status != http.StatusOK || m == nil {
			return step
		}
		return b.PostForm("/console/login/code", "form_token", step.FormToken(), "ticket", string(m[1]), "code", code)
	}, http.StatusSeeOther},
}

// expectLocked checks a 429 of the second-factor limit: Retry-After within
// the lock, and the path's own envelope.
func expectLocked(t *testing.T, r *httpxtest.Response) {
	t.Helper()
	r.Expect(http.StatusTooManyRequests)
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > int(auth.FactorLockTime/time.Second) {
		t.Fatalf("Retry-After %q, want 1..%d seconds", r.Header.Get("Retry-After"), int(auth.FactorLockTime/time.Second))
	}
	if r.Header.Get("Content-Security-Policy") == auth.ConsoleCSP {
		if !contains(r, "Too many wrong codes for this account") {
			t.Fatalf("console page does not say why: %.400s", r.Body)
		}
		return
	}
	acctErr(t, r, http.StatusTooManyRequests, 42900)
}

// endFactorLock moves the end of userID's second-factor lock into the
// past, as time would: the lock's end is the row's, for every process.
func (e *testEnv) endFactorLock(t *testing.T, userID string) {
	t.Helper()
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET factor_locked_until = $1 WHERE id = $2 AND factor_locked_until > 0",
		sqlstore.FromTime(time.Now().Add(-time.Second)), userID); err != nil {
		t.Fatal(err)
	}
}

func (e *testEnv) factorAudit(t *testing.T, userID, action string) []auth.AuditEntry {
	t.Helper()
	items, _, err := e.auth.ListAudit(context.Background(), auth.AuditFilter{User: userID, Action: action}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestSecondFactorLimitOnEveryPath guesses codes for one account from a new
// address each time, through each sign-in path: after the limit every code
// is refused with 429, on the other path too, while a wrong password stays
// 401; the lock and its end are in the audit log.
func TestSecondFactorLimitOnEveryPath(t *testing.T) {
	for _, p := range signInPaths {
		for _, wrong := range []struct {
			name string
			code func(key []byte) string
		}{
			{"wrong codes", func(key []byte) string { return auth.TOTPCode(key, time.Now().Add(time.Hour)) }},
			{"wrong recovery codes", func([]byte) string { return "aaaaa-bbbbb" }},
		} {
			t.Run(p.name+"/"+wrong.name, func(t *testing.T) {
				e := newTestEnv(t)
				id := e.createUser("bob", 0)
				totp := authtest.EnableTOTP(t, e.auth, id)
				key, recovery := totp.Key, totp.Recovery
				addr := 0
				next := func() string { addr++; return fmt.Sprintf("198.51.100.%d", addr) }

				for i := range auth.FactorMaxFailures {
					if r := p.try(e, next(), "bob", testPassword, wrong.code(key)); r.Status != http.StatusUnauthorized {
						t.Fatalf("wrong code %d: %d %.300s", i+1, r.Status, r.Body)
					}
				}
				right := auth.TOTPCode(key, time.Now().Add(30*time.Second))
				expectLocked(t, p.try(e, next(), "bob", testPassword, right))
				expectLocked(t, p.try(e, next(), "bob", testPassword, recovery[0]))
				for _, other := range signInPaths {
					if other.name != p.name {
						expectLocked(t, other.try(e, next(), "bob", testPassword, right))
					}
				}
				if r := p.try(e, next(), "bob", "wrong-password", right); r.Status != http.StatusUnauthorized {
					t.Fatalf("wrong password while locked: %d, want 401", r.Status)
				}
				if n, _ := e.auth.RecoveryCodesLeft(context.Background(), id); n != len(recovery) {
					t.Fatalf("a refused recovery code was spent: %d left", n)
				}
				if got := e.factorAudit(t, id, auth.AuditFactorLocked); len(got) != 1 || got[0].Username != "bob" {
					t.Fatalf("lock entries %+v, want one", got)
				}

				e.endFactorLock(t, id)
				if r := p.try(e, next(), "bob", testPassword, right); r.Status != p.ok {
					t.Fatalf("right code after the lock: %d %.300s", r.Status, r.Body)
				}
				if got := e.factorAudit(t, id, auth.AuditFactorUnlocked); len(got) != 1 {
					t.Fatalf("end entries %+v, want one", got)
				}
			})
		}
	}
}

// TestConcurrentWrongCodesFromManyAddresses sends 16 wrong codes at once
// from 16 addresses through each path: exactly the limit's number are
// checked, the rest refused.
func TestConcurrentWrongCodesFromManyAddresses(t *testing.T) {
	for _, p := range signInPaths {
		t.Run(p.name, func(t *testing.T) {
			e := newTestEnv(t)
			id := e.createUser("bob", 0)
			key := authtest.EnableTOTP(t, e.auth, id).Key
			const n = 16
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = p.try(e, fmt.Sprintf("203.0.113.%d", i+1), "bob", testPassword,
						auth.TOTPCode(key, time.Now().Add(time.Hour))).Status
				}()
			}
			wg.Wait()
			count := map[int]int{}
			for _, s := range statuses {
				count[s]++
			}
			if count[http.StatusUnauthorized] != auth.FactorMaxFailures || count[http.StatusTooManyRequests] != n-auth.FactorMaxFailures {
				t.Fatalf("answers %v: want %d checked (401), the rest 429", count, auth.FactorMaxFailures)
			}
			if got := e.factorAudit(t, id, auth.AuditFactorLocked); len(got) != 1 {
				t.Fatalf("%d lock entries, want 1", len(got))
			}
		})
	}
}
