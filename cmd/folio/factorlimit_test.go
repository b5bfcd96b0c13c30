package main

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

// TestSecondFactorLockHoldsAcrossDomains locks the administrator's second
// factor through the blog's login and finds it locked on the file host's
// API login and the console too; the audit log names the lock, its end and
// the request that made it.
func TestSecondFactorLockHoldsAcrossDomains(t *testing.T) {
	a, c := newTestApp(t)
	ctx := context.Background()
	admin := a.auth.AdminID()
	key := authtest.EnableTOTP(t, a.auth, admin).Key
	from := func(ip string) *httpxtest.Client {
		v := c.Clone()
		v.Header.Set("X-Forwarded-For", ip) // the test client is a trusted proxy
		return v
	}
	creds := func(otp string) map[string]string {
		return map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword, "otp": otp}
	}
	start := time.Now()
	lastIP := ""
	for i := range auth.FactorMaxFailures {
		lastIP = fmt.Sprintf("198.51.100.%d", i+1)
		from(lastIP).Do("POST", "/api/v1/admin/auth/login", creds(auth.TOTPCode(key, time.Now().Add(time.Hour)))).Expect(401)
	}
	right := auth.TOTPCode(key, time.Now().Add(30*time.Second))
	locked := []*httpxtest.Response{
		from("203.0.113.1").Do("POST", "/api/v1/admin/auth/login", creds(right)),
		from("203.0.113.2").Do("POST", "/api/v1/auth/login", creds(right)),
	}
	b := from("203.0.113.3")
	tok := b.Do("GET", "/console/login", nil).Expect(200).FormToken()
	locked = append(locked, b.PostForm("/console/login", "form_token", tok, "username", authtest.AdminUsername, "password", authtest.AdminPassword))
	for i, r := range locked {
		r.Expect(429)
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > int(auth.FactorLockTime/time.Second) {
			t.Errorf("path %d: Retry-After %q", i, r.Header.Get("Retry-After"))
		}
	}
	if code := locked[1].A().Code; code != 42900 {
		t.Errorf("file host API: code %d, want 42900", code)
	}

	api, err := a.auth.CreateAPIToken(ctx, admin, "audit", nil)
	if err != nil {
		t.Fatal(err)
	}
	reader := c.Clone()
	reader.Header.Set("Authorization", "Bearer "+api.Token)
	entries := auditLog(t, reader, "?action=factor_locked").Items
	if len(entries) != 1 {
		t.Fatalf("lock entries %+v, want one", entries)
	}
	e := entries[0]
	end, err := time.Parse(time.RFC3339, e.ResourceID)
	if err != nil || end.Before(start.Add(auth.FactorLockTime-time.Second)) || end.After(time.Now().Add(auth.FactorLockTime)) {
		t.Errorf("lock end %q (%v), want about %v from now", e.ResourceID, err, auth.FactorLockTime)
	}
	if e.UserID != admin || e.Username != authtest.AdminUsername || e.Route != "/api/v1/admin/auth/login" || e.Method != "POST" ||
		e.Status != 401 || e.ClientIP != lastIP || e.Via != "password" {
		t.Errorf("lock entry %+v", e)
	}
	// The action filter knows the limit's actions.
	auditLog(t, reader, "?action=factor_unlocked")
	reader.Do("GET", "/api/v1/admin/audit-log?action=factor_lock", nil).Expect(400)
}
