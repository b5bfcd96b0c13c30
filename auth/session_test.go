package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
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

// Through a real server: a session cookie that is not exactly the
// signer's text is 401 in envelope A, even where Go's lenient base64
// decoder reads the same MAC (docs/design.md#identity).
func TestSessionCookieMustBeTheSignersText(t *testing.T) {
	e := newEnv(t)
	cookie := e.sessionCookie(t, e.svc.AdminID())
	value := strings.TrimPrefix(cookie, auth.SessionCookie+"=")
	e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", cookie).Expect(200)
	for _, v := range authtest.MACVariants(t, value) {
		if !v.Header {
			continue // no client sends a CR or LF in a header; TestSignedValuesAcceptOnlyTheSignersText covers them
		}
		t.Run(v.Name, func(t *testing.T) {
			res := e.visitor(t).Do("GET", "/admin/ping", nil, "Cookie", auth.SessionCookie+"="+v.Value)
			expectCode(t, res, 401, 40100)
		})
	}
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
	// The JSON API's rule: a cookie write naming another origin is
	// refused, one naming none is a client that is no browser.
	site := e.client.Base
	for _, tt := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"neither Origin nor Referer", nil, 200},
		{"Origin of the site", []string{"Origin", site}, 200},
		{"Referer of the site without Origin", []string{"Referer", site + "/console/"}, 200},
		{"Origin of another host", []string{"Origin", "http://evil.example"}, 403},
		{"Referer of another host without Origin", []string{"Referer", "http://evil.example/page"}, 403},
		{"Origin of another host, Referer of the site", []string{"Origin", "http://evil.example", "Referer", site + "/"}, 403},
		{"opaque null Origin", []string{"Origin", "null"}, 403},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.visitor(t).Do("POST", "/admin/ping", nil, append([]string{"Cookie", c}, tt.headers...)...)
			if tt.want == 403 {
				expectCode(t, r, 403, 40300)
				return
			}
			r.Expect(tt.want)
		})
	}
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

// sessionID returns the session id inside a Cookie header value.
func sessionID(cookie string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(cookie, auth.SessionCookie+"="), ".")
	return id
}

func TestNewSessionRecordsTheBrowser(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	tests := []struct {
		name   string
		meta   auth.SessionMeta
		wantUA string
	}{
		{"plain", auth.SessionMeta{UserAgent: "Mozilla/5.0 (X11)", IP: "203.0.113.9"}, "Mozilla/5.0 (X11)"},
		{"long user agent", auth.SessionMeta{UserAgent: strings.Repeat("ü", 300), IP: "2001:db8::1"}, strings.Repeat("ü", 200)},
		{"invalid UTF-8", auth.SessionMeta{UserAgent: "a\xffb", IP: ""}, "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _, err := e.svc.NewSession(ctx, u.ID, tt.meta)
			if err != nil {
				t.Fatal(err)
			}
			list, err := e.svc.ListSessions(ctx, u.ID, sessionID(v))
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, s := range list {
				if s.Current {
					found = true
					if s.UserAgent != tt.wantUA || s.IP != tt.meta.IP {
						t.Fatalf("session %+v", s)
					}
				}
			}
			if !found {
				t.Fatal("the new session is not listed as current")
			}
		})
	}
}

func TestListSessions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	older := e.sessionCookie(t, u.ID)
	e.clock.Advance(time.Minute)
	revoked := e.sessionCookie(t, u.ID)
	e.clock.Advance(time.Minute)
	newer := e.sessionCookie(t, u.ID)
	e.sessionCookie(t, other.ID)
	if err := e.svc.RevokeSession(ctx, sessionID(revoked)); err != nil {
		t.Fatal(err)
	}
	list, err := e.svc.ListSessions(ctx, u.ID, sessionID(older))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != sessionID(newer) || list[1].ID != sessionID(older) ||
		list[0].Current || !list[1].Current {
		t.Fatalf("sessions %+v", list)
	}
	s := list[1]
	if !s.ExpiresAt.Equal(s.CreatedAt.Add(time.Hour)) || !s.LastSeenAt.Equal(s.CreatedAt) || s.UserAgent != "test" || s.IP != "192.0.2.1" {
		t.Fatalf("session %+v", s)
	}
	// Expired sessions drop out: the older one lives an hour from its start.
	e.clock.Advance(time.Hour - 2*time.Minute)
	if list, _ := e.svc.ListSessions(ctx, u.ID, ""); len(list) != 1 || list[0].ID != sessionID(newer) || list[0].Current {
		t.Fatalf("after the first expiry: %+v", list)
	}
	if list, err := e.svc.ListSessions(ctx, sqlstore.NewID(), ""); err != nil || len(list) != 0 || list == nil {
		t.Fatalf("unknown user: %v, %v", list, err)
	}
}

func TestSessionLastSeenIsWrittenAtMostOnceAMinute(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cookie := e.sessionCookie(t, e.svc.AdminID())
	lastSeen := func() time.Time {
		t.Helper()
		list, err := e.svc.ListSessions(ctx, e.svc.AdminID(), "")
		if err != nil || len(list) != 1 {
			t.Fatalf("sessions %v, %v", list, err)
		}
		return list[0].LastSeenAt
	}
	start := lastSeen()
	steps := []struct {
		advance time.Duration
		moved   bool
	}{
		{30 * time.Second, false},
		{29 * time.Second, false},
		{time.Second, true}, // a minute after the last write
		{10 * time.Second, false},
		{50 * time.Second, true},
	}
	prev := start
	for i, st := range steps {
		e.clock.Advance(st.advance)
		e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", cookie).Expect(200)
		got := lastSeen()
		if want := e.clock.Now().UTC().Truncate(time.Microsecond); st.moved && !got.Equal(want) || !st.moved && !got.Equal(prev) {
			t.Fatalf("step %d: last seen %v (was %v, now %v), want moved=%v", i, got, prev, want, st.moved)
		}
		prev = got
	}
}

func TestRevokeUserSession(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	mine := e.sessionCookie(t, u.ID)
	theirs := e.sessionCookie(t, other.ID)
	for _, tc := range []struct{ name, user, id string }{
		{"another user's session", u.ID, sessionID(theirs)},
		{"unknown id", u.ID, "0123456789abcdef0123456789abcdef"},
		{"empty id", u.ID, ""},
		{"unknown user", sqlstore.NewID(), sessionID(mine)},
	} {
		if err := e.svc.RevokeUserSession(ctx, tc.user, tc.id); !errors.Is(err, sqlstore.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", tc.name, err)
		}
	}
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", theirs).Expect(200)
	if err := e.svc.RevokeUserSession(ctx, u.ID, sessionID(mine)); err != nil {
		t.Fatal(err)
	}
	expectCode(t, e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", mine), 401, 40100)
	if err := e.svc.RevokeUserSession(ctx, u.ID, sessionID(mine)); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("revoking twice: %v", err)
	}
}

func TestRevokeOtherSessions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	keep, a, b := e.sessionCookie(t, u.ID), e.sessionCookie(t, u.ID), e.sessionCookie(t, u.ID)
	theirs := e.sessionCookie(t, other.ID)
	if err := e.svc.RevokeOtherSessions(ctx, u.ID, sessionID(keep)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"kept", keep, 200}, {"other one", a, 401}, {"another", b, 401}, {"another user's", theirs, 200}} {
		if res := e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", tc.cookie); res.Status != tc.status {
			t.Errorf("%s session: %d, want %d", tc.name, res.Status, tc.status)
		}
	}
	if err := e.svc.RevokeOtherSessions(ctx, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	expectCode(t, e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", keep), 401, 40100)
}

func TestSessionsWorkForEveryRole(t *testing.T) {
	e := newEnv(t)
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	cookie := e.sessionCookie(t, u.ID)
	res := e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie).Expect(200)
	if d := string(res.A().Data); !strings.Contains(d, `"via":"session"`) || !strings.Contains(d, `"role":"user"`) {
		t.Fatalf("data %s", d)
	}
	expectCode(t, e.client.Clone().Do("GET", "/admin/ping", nil, "Cookie", cookie), 403, 40300)
}
