package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
)

func TestSealedValuesAreBoundToPurposeAndTime(t *testing.T) {
	e := newEnv(t)
	s := e.svc
	v := s.Seal("ticket", "share-1", e.clock.Now().Add(time.Minute))
	if got, ok := s.Open("ticket", v); !ok || got != "share-1" {
		t.Fatalf("Open = %q, %v", got, ok)
	}
	for name, value := range map[string]string{
		"tampered payload": strings.Replace(v, "share-1", "share-2", 1),
		"tampered expiry":  strings.Replace(v, ".", ".9", 1),
		"tampered mac":     v[:len(v)-2] + tamper(v[len(v)-2:]),
		"no mac":           v[:strings.LastIndexByte(v, '.')],
		"empty":            "",
		"dots":             "..",
	} {
		if _, ok := s.Open("ticket", value); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, ok := s.Open("cookie", v); ok {
		t.Error("a value made for one purpose is accepted for another")
	}
	e.clock.Advance(time.Minute)
	if _, ok := s.Open("ticket", v); ok {
		t.Error("an expired value is accepted")
	}
}

func TestOpenAnyIgnoresOnlyTheClock(t *testing.T) {
	e := newEnv(t)
	s := e.svc
	exp := e.clock.Now().Add(time.Minute).Truncate(time.Second)
	v := s.Seal("preview", "post-1", exp)
	if got, x, ok := s.OpenAny("preview", v); !ok || got != "post-1" || !x.Equal(exp) {
		t.Fatalf("OpenAny = %q, %v, %v", got, x, ok)
	}
	e.clock.Advance(time.Hour)
	if _, ok := s.Open("preview", v); ok {
		t.Fatal("Open accepts an expired value")
	}
	// Expired, it still opens, with its expiry: the caller tells an
	// expired link from a forged one.
	if got, x, ok := s.OpenAny("preview", v); !ok || got != "post-1" || !x.Equal(exp) {
		t.Fatalf("OpenAny of an expired value = %q, %v, %v", got, x, ok)
	}
	for name, value := range map[string]string{
		"tampered payload": strings.Replace(v, "post-1", "post-2", 1),
		"tampered expiry":  strings.Replace(v, ".", ".9", 1),
		"tampered mac":     v[:len(v)-2] + tamper(v[len(v)-2:]),
		"no mac":           v[:strings.LastIndexByte(v, '.')],
		"empty":            "",
		"dots":             "..",
	} {
		if _, _, ok := s.OpenAny("preview", value); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, _, ok := s.OpenAny("ticket", v); ok {
		t.Error("a value made for one purpose is accepted for another")
	}
	if _, _, ok := s.OpenAny("", v); ok {
		t.Error("OpenAny with an empty purpose accepted something")
	}
	if _, _, ok := s.OpenAny("preview", s.Seal("ticket", "post-1", exp)); ok {
		t.Error("a value sealed for another purpose is accepted")
	}
}

func TestSealMakesOnlyValuesOpenAccepts(t *testing.T) {
	e := newEnv(t)
	exp := e.clock.Now().Add(time.Hour)
	long := strings.Repeat("a", 256)
	if v := e.svc.Seal("p", long, exp); v == "" {
		t.Fatal("a 256-character payload was not sealed")
	} else if got, ok := e.svc.Open("p", v); !ok || got != long {
		t.Fatal("a 256-character payload does not open")
	}
	for _, tc := range []struct {
		name, purpose, payload string
		exp                    time.Time
	}{
		{"empty payload", "p", "", exp},
		{"payload with a dot", "p", "a.b", exp},
		{"payload with a space", "p", "a b", exp},
		{"payload with '='", "p", "ab=", exp},
		{"payload too long", "p", long + "a", exp},
		{"empty purpose", "", "a", exp},
		{"purpose with a NUL", "p\x00q", "a", exp},
		{"expiry at 1970", "p", "a", time.Unix(0, 0)},
		{"expiry before 1970", "p", "a", time.Unix(-5, 0)},
	} {
		if v := e.svc.Seal(tc.purpose, tc.payload, tc.exp); v != "" {
			t.Errorf("%s: sealed as %q", tc.name, v)
		}
	}
	if _, ok := e.svc.Open("", ""); ok {
		t.Error("Open with an empty purpose accepted something")
	}
}

// signedKind is one kind of "<payload>.<expiry>.<mac>" value and a valid
// payload of it.
type signedKind struct {
	name    string
	kind    int
	payload string
}

func signedKinds() []signedKind {
	id := sqlstore.NewID()
	return []signedKind{
		{"session cookie", auth.KindSession, strings.Repeat("0123456789abcdef", 2)},
		{"access token", auth.KindAccess, "fa1." + id},
		{"login ticket", auth.KindTicket, "lt1." + id},
		{"sealed value", auth.KindValue, id},
	}
}

func TestSignedValuesAcceptOnlyTheSignersText(t *testing.T) {
	e := newEnv(t)
	now := e.clock.Now().Unix()
	exp := now + 3600
	for _, k := range signedKinds() {
		t.Run(k.name, func(t *testing.T) {
			valid := auth.SealKind(e.svc, k.kind, k.payload, exp)
			if p, x, ok := auth.OpenKind(e.svc, k.kind, valid); !ok || p != k.payload || x != exp {
				t.Fatalf("the signer's own value: %q %d %v", p, x, ok)
			}
			if _, ok := auth.ParseKind(e.svc, k.kind, valid); !ok {
				t.Fatal("the signer's own value is refused")
			}
			for _, v := range authtest.MACVariants(t, valid) {
				if _, ok := auth.ParseKind(e.svc, k.kind, v.Value); ok {
					t.Errorf("%s: accepted %q", v.Name, v.Value)
				}
			}
			// A correct MAC does not excuse a payload or an expiry the
			// signer would not have written.
			x := strconv.FormatInt(exp, 10)
			bad := map[string]string{
				"expiry with a leading zero": k.payload + ".0" + x,
				"expiry with a plus sign":    k.payload + ".+" + x,
				"expiry with a space":        k.payload + ". " + x,
				"expiry with an underscore":  k.payload + "." + x[:3] + "_" + x[3:],
				"expiry past int64":          k.payload + ".9223372036854775808",
				"negative expiry":            k.payload + ".-" + x,
				"empty expiry":               k.payload + ".",
				"no expiry":                  k.payload,
				"payload with a space":       k.payload + " ." + x,
				"payload with a newline":     k.payload + "\n." + x,
				"extra field":                k.payload + ".1." + x,
				"empty payload":              "." + x,
			}
			if k.kind != auth.KindValue { // sealed payloads may hold capitals
				bad["payload in upper case"] = strings.ToUpper(k.payload) + "." + x
			}
			for name, msg := range bad {
				v := auth.SignMsg(e.svc, k.kind, msg)
				if _, _, ok := auth.OpenKind(e.svc, k.kind, v); ok {
					t.Errorf("%s: accepted %q", name, v)
				}
			}
		})
	}
}

func TestFormTokensAcceptOnlyTheSignersText(t *testing.T) {
	e := newEnv(t)
	sid := sessionID(e.sessionCookie(t, e.svc.AdminID()))
	tok := e.svc.FormToken(sid)
	if !e.svc.ValidFormToken(sid, tok) {
		t.Fatal("the session's own token is refused")
	}
	for _, v := range authtest.MACVariants(t, tok) {
		if e.svc.ValidFormToken(sid, v.Value) {
			t.Errorf("session form token, %s: accepted %q", v.Name, v.Value)
		}
	}

	w := httptest.NewRecorder()
	anon := e.svc.AnonFormToken(w, httptest.NewRequest("GET", "http://example.com/console/login", nil))
	cookie := w.Result().Cookies()[0]
	post := httptest.NewRequest("POST", "http://example.com/console/login", nil)
	post.AddCookie(cookie)
	if !e.svc.ValidAnonFormToken(post, anon) {
		t.Fatal("the anonymous token is refused with its own cookie")
	}
	for _, v := range authtest.MACVariants(t, anon) {
		if e.svc.ValidAnonFormToken(post, v.Value) {
			t.Errorf("anonymous form token, %s: accepted %q", v.Name, v.Value)
		}
	}
}

func TestFormCookieMustBeCanonical(t *testing.T) {
	e := newEnv(t)
	w := httptest.NewRecorder()
	e.svc.AnonFormToken(w, httptest.NewRequest("GET", "http://example.com/console/login", nil))
	v := w.Result().Cookies()[0].Value
	for name, value := range map[string]string{
		"padding":           v + "=",
		"standard alphabet": "+/" + v[2:],
		"truncated":         v[:31],
		"extended":          v + "A",
	} {
		r := httptest.NewRequest("GET", "http://example.com/console/login", nil)
		r.AddCookie(&http.Cookie{Name: auth.FormCookie, Value: value})
		w := httptest.NewRecorder()
		tok := e.svc.AnonFormToken(w, r)
		if len(w.Result().Cookies()) != 1 {
			t.Errorf("%s: the cookie %q was kept", name, value)
		}
		if e.svc.ValidAnonFormToken(r, tok) {
			t.Errorf("%s: a token matched the cookie %q", name, value)
		}
	}
}

func TestCanonicalBase64URL(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		ok   bool
	}{
		{"24 bytes", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", 24, true},
		{"24 bytes, all of the alphabet's ends", "-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_", 24, true},
		{"24 bytes with '='", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX=", 24, false},
		{"24 bytes with a newline", "AAECAwQFBgcICQoLDA0O\nDxAREhMUFRYX", 24, false},
		{"24 bytes, newline replacing a character", "AAECAwQFBgcICQoLDA0O\nxAREhMUFRYX", 24, false},
		{"24 bytes, standard alphabet", "+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/", 24, false},
		{"24 bytes, one short", "AAECAwQFBgcICQoLDA0ODxAREhMUFRY", 24, false},
		{"32 bytes", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", 32, true},
		{"32 bytes, unused bits set", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9", 32, false},
		{"32 bytes, 33 expected", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", 33, false},
		{"1 byte", "_w", 1, true},
		{"1 byte, unused bits set", "_x", 1, false},
		{"empty for none", "", 0, true},
		{"a non-ASCII byte", "AAECAwQFBgcICQoLDA0ODxAREhMUFR\xc3\xa9", 24, false},
		{"a NUL", "AAECAwQFBgcICQoLDA0ODxAREhMUFRY\x00", 24, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.CanonicalBase64URL(tt.s, tt.n); got != tt.ok {
				t.Fatalf("CanonicalBase64URL(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.ok)
			}
		})
	}
}

// Values signed before the one parser existed still open: these literals
// were made by the code it replaced, with the same secret and clock.
func TestSignedValuesKeepTheirWireFormat(t *testing.T) {
	const (
		now  = 1767225600
		user = "01936b2e-7c4a-7000-8000-00000000f00d"
		sid  = "0123456789abcdef0123456789abcdef"
	)
	svc := fixedService(t, "folio wire format secret", now)
	signed := []struct {
		name, value, payload string
		kind                 int
		make                 func() string
	}{
		{"session cookie", "0123456789abcdef0123456789abcdef.1767229200.QyvXVoSHXo0agMAPHAmhb-jJCJv0oZQzJG5eiOLBHGY", sid, auth.KindSession,
			func() string { return auth.SealKind(svc, auth.KindSession, sid, now+3600) }},
		{"access token", "fa1.01936b2e-7c4a-7000-8000-00000000f00d.1767232800.MNJkgMdd6KcmDilPGRuRazJXIQ1OmQn98LAhKFS6OEU", user, auth.KindAccess,
			func() string { tok, _ := svc.NewAccessToken(user); return tok }},
		{"login ticket", "lt1.01936b2e-7c4a-7000-8000-00000000f00d.1767225900.BzfkhpONHj008a3_XqlLnj5jbiEm8MesJChvxIQA7sw", user, auth.KindTicket,
			func() string { return svc.NewLoginTicket(user) }},
	}
	for _, tt := range signed {
		if got := tt.make(); got != tt.value {
			t.Errorf("%s: signed as %q, was %q", tt.name, got, tt.value)
		}
		if got, ok := auth.ParseKind(svc, tt.kind, tt.value); !ok || got != tt.payload {
			t.Errorf("%s: %q opens as %q, %v", tt.name, tt.value, got, ok)
		}
	}

	share := "01936b2e-7c4a-7000-8000-00000000f00d.1767226500.O9O0zIUQO9yic_7MXKku5KinBkttjtpwW88abHghmBE"
	if got := svc.Seal("folio share ticket v1", user, time.Unix(now+900, 0)); got != share {
		t.Errorf("share ticket: sealed as %q, was %q", got, share)
	}
	if got, ok := svc.Open("folio share ticket v1", share); !ok || got != user {
		t.Errorf("share ticket: opens as %q, %v", got, ok)
	}

	form := "4VWn8TcxQD_qNIVme_djFeWe3FYfkRZiUStSxbj_vQM"
	if got := svc.FormToken(sid); got != form || !svc.ValidFormToken(sid, form) {
		t.Errorf("form token: %q, was %q", got, form)
	}
	r := httptest.NewRequest("POST", "http://example.com/console/login", nil)
	r.AddCookie(&http.Cookie{Name: auth.FormCookie, Value: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX"})
	anon := "8RjDQ6HTXXWZl_lkYI-A5au_UcKdzAnFMRXhAAjhuC4"
	if got := svc.AnonFormToken(httptest.NewRecorder(), r); got != anon || !svc.ValidAnonFormToken(r, anon) {
		t.Errorf("anonymous form token: %q, was %q", got, anon)
	}
}
