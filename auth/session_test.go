package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"folio/auth"
)

func TestSessionCookie(t *testing.T) {
	e := newEnv(t)
	cookie := e.sessionCookie(t, e.svc.AdminID())
	value := strings.TrimPrefix(cookie, auth.SessionCookie+"=")
	id, _, _ := strings.Cut(value, ".")
	tests := []struct {
		name, cookie string
		status       int
	}{
		{"valid", cookie, 200},
		{"tampered mac", cookie[:len(cookie)-2] + "xx", 401},
		{"tampered id", auth.SessionCookie + "=" + strings.Replace(value, id, strings.Repeat("a", len(id)), 1), 401},
		{"not signed", auth.SessionCookie + "=" + id, 401},
		{"empty value", auth.SessionCookie + "=", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", tt.cookie)
			if tt.status == 200 {
				if a := res.Expect(200).A(); !strings.Contains(string(a.Data), `"via":"session"`) {
					t.Fatalf("data %s", a.Data)
				}
				return
			}
			expectCode(t, res, tt.status, 40100)
		})
	}
	e.clock.Advance(time.Hour + time.Second) // authtest's SessionTTL is an hour
	expectCode(t, e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", cookie), 401, 40100)
}

func TestLogoutRevokesSessionOnReplay(t *testing.T) {
	e := newEnv(t)
	cookie := e.sessionCookie(t, e.svc.AdminID())
	other := e.sessionCookie(t, e.svc.AdminID())
	c := e.client.Clone()
	c.Do("GET", "/admin/ping", nil, "Cookie", cookie).Expect(200)
	c.Do("POST", "/admin/logout", nil, "Cookie", cookie).Expect(200)
	res := c.Do("GET", "/admin/ping", nil, "Cookie", cookie)
	expectCode(t, res, 401, 40100)
	res = c.Do("POST", "/admin/logout", nil, "Cookie", cookie).Expect(401)
	if b := res.B(); b.Code != 401 {
		t.Fatalf("envelope B code %d, want 401", b.Code)
	}
	c.Do("GET", "/admin/ping", nil, "Cookie", other).Expect(200)
}

func TestRequireAdmin(t *testing.T) {
	e := newEnv(t)
	user := e.createUser(t, "ursula", "", "password1", auth.RoleUser)
	userTok, _ := e.svc.NewAccessToken(user.ID)
	adminTok, _ := e.svc.NewAccessToken(e.svc.AdminID())
	cookie := e.sessionCookie(t, e.svc.AdminID())
	self := e.client.Base
	tests := []struct {
		name, method string
		headers      []string
		status, code int
	}{
		{"no credentials", "GET", nil, 401, 40100},
		{"user token", "GET", []string{"Authorization", "Bearer " + userTok}, 403, 40300},
		{"admin token", "GET", []string{"Authorization", "Bearer " + adminTok}, 200, 0},
		{"admin session", "GET", []string{"Cookie", cookie}, 200, 0},
		{"cookie, cross-origin GET", "GET", []string{"Cookie", cookie, "Origin", "https://evil.example"}, 200, 0},
		{"cookie, cross-origin POST", "POST", []string{"Cookie", cookie, "Origin", "https://evil.example"}, 403, 40300},
		{"cookie, cross-site Referer POST", "POST", []string{"Cookie", cookie, "Referer", "https://evil.example/page"}, 403, 40300},
		{"cookie, null Origin POST", "POST", []string{"Cookie", cookie, "Origin", "null"}, 403, 40300},
		{"cookie, same-origin POST", "POST", []string{"Cookie", cookie, "Origin", self}, 200, 0},
		{"cookie, same-origin Referer POST", "POST", []string{"Cookie", cookie, "Referer", self + "/admin/"}, 200, 0},
		{"bearer, cross-origin POST", "POST", []string{"Authorization", "Bearer " + adminTok, "Origin", "https://evil.example"}, 200, 0},
		{"bad bearer wins over good cookie", "GET", []string{"Authorization", "Bearer nope", "Cookie", cookie}, 401, 40100},
		{"stale cookie", "GET", []string{"Cookie", auth.SessionCookie + "=stale.1.x"}, 401, 40100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.client.Clone().Do(tt.method, "/admin/ping", nil, tt.headers...)
			expectCode(t, res, tt.status, tt.code)
		})
	}
	expectCode(t, e.get(t, "/user/ping", ""), 401, 40100)
	e.get(t, "/user/ping", "Bearer "+userTok).Expect(200)
}

func TestAccessCookieNeedsSameOrigin(t *testing.T) {
	e := newEnv(t)
	tok, _ := e.svc.NewAccessToken(e.svc.AdminID())
	c := auth.AccessCookie + "=" + tok
	if a := e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", c).Expect(200).A(); !strings.Contains(string(a.Data), `"via":"cookie"`) {
		t.Fatalf("data %s", a.Data)
	}
	expectCode(t, e.client.Clone().Do("POST", "/admin/ping", nil, "Cookie", c, "Origin", "http://evil.example"), 403, 40300)
}

func TestCookieAttributes(t *testing.T) {
	tests := []struct {
		name   string
		https  bool
		secure bool
	}{{"plain http", false, false}, {"https", true, true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://example.com/login", nil)
			if tt.https {
				r = httptest.NewRequest("POST", "https://example.com/login", nil)
			}
			w := httptest.NewRecorder()
			auth.SetSessionCookie(w, r, "v", time.Now().Add(time.Hour))
			c := w.Result().Cookies()[0]
			if c.Name != auth.SessionCookie || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure != tt.secure || c.MaxAge <= 0 {
				t.Fatalf("cookie %+v", c)
			}
		})
	}
}
