package blog_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

func TestLoginMeLogout(t *testing.T) {
	e := newEnv(t)
	var me struct {
		LoggedIn bool   `json:"logged_in"`
		Username string `json:"username"`
		Role     string `json:"role"`
		Profile  struct {
			DisplayName string  `json:"display_name"`
			Email       string  `json:"email"`
			Bio         *string `json:"bio"`
			Avatar      *string `json:"avatar"`
			Website     *string `json:"website"`
			Location    *string `json:"location"`
		} `json:"profile"`
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/auth/me", nil), 200, &me)
	if !me.LoggedIn || me.Username != authtest.AdminUsername || me.Role != "admin" || me.Profile.DisplayName != "Test Admin" ||
		me.Profile.Email != "admin@example.com" || me.Profile.Bio == nil || me.Profile.Location == nil {
		t.Fatalf("me = %+v", me)
	}

	// Capture the cookie before logging out, to replay it.
	c := e.anon.Clone()
	resp := c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "admin", "password": authtest.AdminPassword})
	resp.Expect(200)
	var cookie string
	for _, sc := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(sc, "folio_session=") {
			cookie = strings.SplitN(sc, ";", 2)[0]
			if !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Lax") {
				t.Errorf("cookie attributes: %s", sc)
			}
		}
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}
	data(t, c.Do("POST", "/api/v1/admin/auth/logout", nil), 200, nil)
	expectError(t, c.Do("GET", "/api/v1/admin/auth/me", nil), 401, "")
	replay := e.anon.Clone()
	expectError(t, replay.Do("GET", "/api/v1/admin/auth/me", nil, "Cookie", cookie), 401, "")
	expectError(t, replay.Do("GET", "/api/v1/admin/posts", nil, "Cookie", cookie), 401, "")
	// The other session is untouched.
	data(t, e.admin.Do("GET", "/api/v1/admin/auth/me", nil), 200, nil)
}

func TestLoginRejects(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"wrong password", map[string]string{"username": "admin", "password": "nope"}, 401},
		{"unknown user", map[string]string{"username": "ghost", "password": "x"}, 401},
		{"empty", map[string]string{}, 401},
		{"malformed JSON", `{"username":`, 400},
		{"wrong type", `{"username": 5}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.anon.Clone().Do("POST", "/api/v1/admin/auth/login", tt.body)
			expectError(t, r, tt.status, "")
			if strings.Contains(r.Header.Get("Set-Cookie"), "folio_session=") {
				t.Error("a failed login set a session cookie")
			}
		})
	}
}

func TestLoginRefusesNonAdminUser(t *testing.T) {
	e := newEnv(t)
	hash, err := e.auth.HashPassword("user password 1")
	if err != nil {
		t.Fatal(err)
	}
	e.exec(`INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ('0190a000-0000-7000-8000-000000000001', 'bob', 'bob@example.com', $1, 'user', 'active', 0, 1, 1)`, hash)
	expectError(t, e.anon.Clone().Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "bob", "password": "user password 1"}), 401, "")
}

func TestLoginRateLimit(t *testing.T) {
	e := newEnv(t) // newEnv logged in once already
	c := e.anon.Clone()
	var last int
	n := 0
	for n = 1; n <= 30; n++ {
		r := c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "admin", "password": "bad"})
		last = r.Status
		if r.Status == http.StatusTooManyRequests {
			expectError(t, r, 429, "")
			if r.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			break
		}
	}
	if last != 429 || n != 20 {
		t.Fatalf("got %d on attempt %d, want 429 on the 20th (the 21st of this IP)", last, n)
	}
}

func TestAdminRoutesNeedAdmin(t *testing.T) {
	e := newEnv(t)
	tok := e.userToken()
	adminTok, _ := e.auth.NewAccessToken(e.auth.AdminID())
	routes := []struct{ method, path string }{
		{"GET", "/api/v1/admin/auth/me"},
		{"POST", "/api/v1/admin/auth/logout"},
		{"GET", "/api/v1/admin/posts"},
		{"POST", "/api/v1/admin/posts"},
		{"GET", "/api/v1/admin/pages"},
		{"GET", "/api/v1/admin/categories"},
		{"POST", "/api/v1/admin/tags"},
		{"GET", "/api/v1/admin/comments"},
		{"GET", "/api/v1/admin/comments/stats"},
		{"GET", "/api/v1/admin/friend-links"},
		{"GET", "/api/v1/admin/settings"},
		{"PUT", "/api/v1/admin/settings"},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			expectError(t, e.anon.Do(rt.method, rt.path, "{}"), 401, "")
			expectError(t, e.anon.Do(rt.method, rt.path, "{}", "Authorization", "Bearer "+tok), 403, "")
			expectError(t, e.anon.Do(rt.method, rt.path, "{}", "Authorization", "Bearer garbage"), 401, "")
		})
	}
	// An admin Bearer token works without a cookie.
	data(t, e.anon.Do("GET", "/api/v1/admin/posts", nil, "Authorization", "Bearer "+adminTok), 200, nil)
	// A cookie-authenticated write from another origin is refused.
	expectError(t, e.admin.Do("POST", "/api/v1/admin/tags", map[string]string{"name": "x"}, "Origin", "https://evil.example"), 403, "")
}

func TestLoginWithTwoFactor(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	admin := e.auth.AdminID()
	totp := authtest.EnableTOTP(t, e.auth, admin)
	key, recovery, enrolCode := totp.Key, totp.Recovery, totp.Spent
	pw := authtest.AdminPassword
	for i, tc := range []struct {
		name string
		body map[string]string
		msg  string
	}{
		{"no code", map[string]string{"username": "admin", "password": pw}, "two-factor code required"},
		{"spent code", map[string]string{"username": "admin", "password": pw, "otp": enrolCode}, "invalid two-factor code"},
		{"garbage code", map[string]string{"username": "admin", "password": pw, "otp": "<script>"}, "invalid two-factor code"},
		{"wrong password, good code", map[string]string{"username": "admin", "password": "nope", "otp": recovery[0]}, "invalid username or password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each from its own address: failed logins are rate limited per IP.
			r := e.visitor(fmt.Sprintf("198.51.100.%d", i+1)).Do("POST", "/api/v1/admin/auth/login", tc.body)
			expectError(t, r, 401, tc.msg)
			if strings.Contains(r.Header.Get("Set-Cookie"), "folio_session=") {
				t.Error("a failed login set a session cookie")
			}
		})
	}
	for i, otp := range []string{auth.TOTPCode(key, time.Now().Add(30*time.Second)), strings.ToUpper(recovery[1])} {
		c := e.visitor(fmt.Sprintf("203.0.113.%d", i+1))
		c.Header.Set("User-Agent", "TwoFactorTest/1.0")
		data(t, c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "admin", "password": pw, "otp": otp}), 200, nil)
		data(t, c.Do("GET", "/api/v1/admin/auth/me", nil), 200, nil)
	}
	// The sessions remember where they were opened.
	list, err := e.auth.ListSessions(ctx, admin, "")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range list {
		if s.UserAgent == "TwoFactorTest/1.0" && strings.HasPrefix(s.IP, "203.0.113.") {
			found++
		}
	}
	if found != 2 {
		t.Fatalf("sessions %+v", list)
	}
}

// TestSecondFactorLimitOnAdminLogin guesses the administrator's code from a
// new address each time: after the account's limit even the right code is
// 429 with Retry-After, a wrong password stays 401, and the lock is in the
// audit log.
func TestSecondFactorLimitOnAdminLogin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wrong func(key []byte) string
	}{
		{"wrong codes", func(key []byte) string { return auth.TOTPCode(key, time.Now().Add(time.Hour)) }},
		{"wrong recovery codes", func([]byte) string { return "aaaaa-bbbbb" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			admin := e.auth.AdminID()
			totp := authtest.EnableTOTP(t, e.auth, admin)
			key, recovery := totp.Key, totp.Recovery
			addr := 0
			login := func(password, otp string) *httpxtest.Response {
				addr++
				return e.visitor(fmt.Sprintf("198.51.100.%d", addr)).Do("POST", "/api/v1/admin/auth/login",
					map[string]string{"username": authtest.AdminUsername, "password": password, "otp": otp})
			}
			for range auth.FactorMaxFailures {
				expectError(t, login(authtest.AdminPassword, tc.wrong(key)), 401, "invalid two-factor code")
			}
			for _, otp := range []string{auth.TOTPCode(key, time.Now().Add(30*time.Second)), recovery[0]} {
				r := login(authtest.AdminPassword, otp)
				expectError(t, r, 429, auth.ErrFactorLocked.Error())
				if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > int(auth.FactorLockTime/time.Second) {
					t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
				}
				if strings.Contains(r.Header.Get("Set-Cookie"), "folio_session=") {
					t.Fatal("a refused login set a session cookie")
				}
			}
			expectError(t, login("wrong password", recovery[1]), 401, "invalid username or password")
			items, _, err := e.auth.ListAudit(ctx, auth.AuditFilter{User: admin, Action: auth.AuditFactorLocked}, 10, 0)
			if err != nil || len(items) != 1 {
				t.Fatalf("lock entries %+v (%v), want one", items, err)
			}
		})
	}
}
