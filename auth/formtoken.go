package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"time"

	"folio/httpx"
)

// Form tokens guard the console's forms against cross-site submission
// (docs/design.md#identity). A signed-in form carries an HMAC of the
// session id; a form shown before sign-in (login, register, the code
// step) carries an HMAC of a random cookie, which another site can
// neither read nor set (double submit).

// FormCookie holds the random value behind anonymous form tokens.
const FormCookie = "folio_form"

// formCookieLen is the random bytes of a FormCookie value.
const formCookieLen = 24

func (s *Service) formMAC(msg string) string {
	m := hmac.New(sha256.New, s.formKey)
	m.Write([]byte(msg))
	return b64.EncodeToString(m.Sum(nil))
}

// FormToken is the form token of a session.
func (s *Service) FormToken(sessionID string) string { return s.formMAC(sessionID) }

// ValidFormToken reports whether token is the form token of sessionID.
func (s *Service) ValidFormToken(sessionID, token string) bool {
	if sessionID == "" || token == "" {
		return false
	}
	return hmac.Equal([]byte(s.formMAC(sessionID)), []byte(token))
}

// AnonFormToken returns the form token for a page shown before sign-in,
// setting the folio_form cookie (HttpOnly, SameSite=Strict, Path /,
// Secure over HTTPS, for the session lifetime) when the request has no
// usable one. Call it before writing the body.
func (s *Service) AnonFormToken(w http.ResponseWriter, r *http.Request) string {
	v, ok := formCookie(r)
	if !ok {
		v = randomToken(formCookieLen)
		http.SetCookie(w, &http.Cookie{Name: FormCookie, Value: v, Path: "/", MaxAge: int(s.cfg.SessionTTL / time.Second),
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: httpx.IsHTTPS(r)})
	}
	return s.formMAC("anon:" + v)
}

// ValidAnonFormToken reports whether token matches the request's
// folio_form cookie.
func (s *Service) ValidAnonFormToken(r *http.Request, token string) bool {
	v, ok := formCookie(r)
	if !ok || token == "" {
		return false
	}
	return hmac.Equal([]byte(s.formMAC("anon:"+v)), []byte(token))
}

// formCookie returns the request's folio_form value when it has the shape
// AnonFormToken gives it.
func formCookie(r *http.Request) (string, bool) {
	c, err := r.Cookie(FormCookie)
	if err != nil {
		return "", false
	}
	b, err := b64.DecodeString(c.Value)
	if err != nil || len(b) != formCookieLen {
		return "", false
	}
	return c.Value, true
}
