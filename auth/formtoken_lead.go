package auth

// TEMPORARY until branch h-auth lands: the lead's stand-in with the same
// signatures. Deleted at that merge.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"

	"folio/httpx"
)

func (s *Service) formMAC(v string) string {
	m := hmac.New(sha256.New, derive(string(s.sessionKey), "folio form v1"))
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Service) FormToken(sessionID string) string { return s.formMAC(sessionID) }

func (s *Service) ValidFormToken(sessionID, token string) bool {
	return hmac.Equal([]byte(s.formMAC(sessionID)), []byte(token))
}

func (s *Service) AnonFormToken(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie("folio_form")
	v := ""
	if err == nil && len(c.Value) == 32 {
		v = c.Value
	} else {
		v = randomHex(16)
		http.SetCookie(w, &http.Cookie{Name: "folio_form", Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: httpx.IsHTTPS(r)})
	}
	return s.formMAC("anon:" + v)
}

func (s *Service) ValidAnonFormToken(r *http.Request, token string) bool {
	c, err := r.Cookie("folio_form")
	return err == nil && token != "" && hmac.Equal([]byte(s.formMAC("anon:"+c.Value)), []byte(token))
}
