package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
)

func TestFormToken(t *testing.T) {
	e := newEnv(t)
	sid := sessionID(e.sessionCookie(t, e.svc.AdminID()))
	other := sessionID(e.sessionCookie(t, e.svc.AdminID()))
	tok := e.svc.FormToken(sid)
	if tok == "" || strings.ContainsAny(tok, "+/=") {
		t.Fatalf("token %q is not base64url", tok)
	}
	cfg := authtest.Config(t)
	cfg.SessionSecret = "another secret"
	foreign, err := auth.New(context.Background(), e.db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, session, token string
		ok                   bool
	}{
		{"own session", sid, tok, true},
		{"another session's token", sid, e.svc.FormToken(other), false},
		{"token for another session", other, tok, false},
		{"empty token", sid, "", false},
		{"empty session", "", e.svc.FormToken(""), false},
		{"tampered", sid, tamper(tok), false},
		{"truncated", sid, tok[:10], false},
		{"another secret's token", sid, foreign.FormToken(sid), false},
		{"the anonymous token of the same value", sid, anonToken(t, e.svc, sid), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.svc.ValidFormToken(tt.session, tt.token); got != tt.ok {
				t.Fatalf("ValidFormToken = %v, want %v", got, tt.ok)
			}
		})
	}
}

// anonToken is the anonymous form token of a request whose folio_form
// cookie is value (which need not have the shape AnonFormToken makes).
func anonToken(t *testing.T, svc *auth.Service, value string) string {
	t.Helper()
	r := httptest.NewRequest("GET", "http://example.com/console/login", nil)
	r.AddCookie(&http.Cookie{Name: auth.FormCookie, Value: value})
	return svc.AnonFormToken(httptest.NewRecorder(), r)
}

func TestAnonFormToken(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		https  bool
		secure bool
	}{{"plain http", false, false}, {"https", true, true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := "http://example.com/console/login"
			if tt.https {
				url = "https://example.com/console/login"
			}
			w := httptest.NewRecorder()
			tok := e.svc.AnonFormToken(w, httptest.NewRequest("GET", url, nil))
			cookies := w.Result().Cookies()
			if len(cookies) != 1 {
				t.Fatalf("%d cookies set", len(cookies))
			}
			c := cookies[0]
			if c.Name != auth.FormCookie || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" ||
				c.Secure != tt.secure || c.MaxAge != 3600 || c.Value == "" {
				t.Fatalf("cookie %+v", c)
			}
			// The form comes back with the cookie.
			post := func(cookie *http.Cookie) *http.Request {
				r := httptest.NewRequest("POST", url, nil)
				if cookie != nil {
					r.AddCookie(cookie)
				}
				return r
			}
			if !e.svc.ValidAnonFormToken(post(c), tok) {
				t.Fatal("the token does not match its own cookie")
			}
			other := *c
			other.Value = strings.Repeat("A", len(c.Value))
			for _, bad := range []struct {
				name  string
				r     *http.Request
				token string
			}{
				{"no cookie", post(nil), tok},
				{"another cookie", post(&other), tok},
				{"empty token", post(c), ""},
				{"session form token", post(c), e.svc.FormToken(c.Value)},
				{"tampered token", post(c), tamper(tok)},
			} {
				if e.svc.ValidAnonFormToken(bad.r, bad.token) {
					t.Errorf("%s: accepted", bad.name)
				}
			}
			// A page shown again keeps the cookie and its token.
			w = httptest.NewRecorder()
			r := httptest.NewRequest("GET", url, nil)
			r.AddCookie(c)
			if again := e.svc.AnonFormToken(w, r); again != tok || len(w.Result().Cookies()) != 0 {
				t.Fatalf("second visit: token changed=%v, %d cookies set", again != tok, len(w.Result().Cookies()))
			}
		})
	}
}

func TestAnonFormTokenReplacesAMalformedCookie(t *testing.T) {
	e := newEnv(t)
	for _, value := range []string{"short", strings.Repeat("A", 33), "not base64!!", ""} {
		r := httptest.NewRequest("GET", "http://example.com/console/login", nil)
		r.AddCookie(&http.Cookie{Name: auth.FormCookie, Value: value})
		w := httptest.NewRecorder()
		tok := e.svc.AnonFormToken(w, r)
		cookies := w.Result().Cookies()
		if len(cookies) != 1 || cookies[0].Value == value {
			t.Fatalf("cookie %q: not replaced (%v)", value, cookies)
		}
		if e.svc.ValidAnonFormToken(r, tok) {
			t.Fatalf("cookie %q: the token matched the malformed cookie", value)
		}
		r2 := httptest.NewRequest("POST", "http://example.com/console/login", nil)
		r2.AddCookie(cookies[0])
		if !e.svc.ValidAnonFormToken(r2, tok) {
			t.Fatalf("cookie %q: the token does not match the new cookie", value)
		}
	}
}

// tamper changes the last character of s.
func tamper(s string) string {
	last := byte('A')
	if s[len(s)-1] == last {
		last = 'B'
	}
	return s[:len(s)-1] + string(last)
}
