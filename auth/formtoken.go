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

func (s *Service) formMAC(msg string) []byte {
	m := hmac.New(sha256.New, s.formKey)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// FormToken is the form token of a session.
func (s *Service) FormToken(sessionID string) string { return b64.EncodeToString(s.formMAC(sessionID)) }

// ValidFormToken reports whether token is, exactly, the form token of
// sessionID (the one parser of signed values: signed.go).
func (s *Service) ValidFormToken(sessionID, token string) bool {
	return sessionID != "" && macOK(token, s.formMAC(sessionID))
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
	return b64.EncodeToString(s.formMAC("anon:" + v))
}

// ValidAnonFormToken reports whether token matches the request's
// folio_form cookie.
func (s *Service) ValidAnonFormToken(r *http.Request, token string) bool {
	v, ok := formCookie(r)
	return ok && macOK(token, s.formMAC("anon:"+v))
}

// formCookie returns the request's folio_form value when it is exactly
// what AnonFormToken writes: canonical base64url of 24 bytes.
func formCookie(r *http.Request) (string, bool) {
	c, err := r.Cookie(FormCookie)
	if err != nil || !CanonicalBase64URL(c.Value, formCookieLen) {
		return "", false
	}
	return c.Value, true
}
