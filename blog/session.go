package blog

import (
	"errors"
	"net/http"
	"time"

	"folio/auth"
	"folio/httpx"
)

// adminState is the data of login and me.
type adminState struct {
	LoggedIn  bool         `json:"logged_in"`
	Username  string       `json:"username"`
	Role      string       `json:"role"`
	Profile   auth.Profile `json:"profile"`
	ExpiresAt *time.Time   `json:"expires_at,omitempty"`
}

// handleLogin signs the administrator in with a session cookie. Only a user
// with the admin role may log in here; anyone else gets the same 401 as a
// wrong password, so the endpoint does not reveal who exists.
func (b *Blog) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
		OTP      string `json:"otp"` // when the administrator has two-factor sign-in on
	}
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	bad := httpx.E(http.StatusUnauthorized, "invalid username or password")
	if in.Username == "" || in.Password == "" {
		return bad
	}
	u, err := b.auth.CheckLogin(r.Context(), in.Username, in.Password, in.OTP)
	if locked := auth.FactorLockAnswer(w, err, ""); locked != nil {
		return locked
	}
	switch {
	case errors.Is(err, auth.ErrInvalidCredentials), errors.Is(err, auth.ErrDisabled), errors.Is(err, auth.ErrAdminDisabled):
		return bad
	case errors.Is(err, auth.ErrOTPRequired):
		return httpx.E(http.StatusUnauthorized, "two-factor code required")
	case errors.Is(err, auth.ErrInvalidOTP):
		return httpx.E(http.StatusUnauthorized, "invalid two-factor code")
	case err != nil:
		return err
	case u.Role != auth.RoleAdmin:
		return bad
	}
	value, exp, err := b.auth.NewSession(r.Context(), u.ID, auth.MetaFromRequest(r))
	if err != nil {
		return err
	}
	auth.SetSessionCookie(w, r, value, exp)
	exp = exp.UTC()
	httpx.BlogAPI.OK(w, http.StatusOK, adminState{LoggedIn: true, Username: u.Username, Role: u.Role, Profile: b.auth.Profile(), ExpiresAt: &exp})
	return nil
}

func (b *Blog) handleMe(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	httpx.BlogAPI.OK(w, http.StatusOK, adminState{LoggedIn: true, Username: idn.Username, Role: idn.Role, Profile: b.auth.Profile()})
	return nil
}

// handleLogout revokes the session server-side, so a replayed cookie is
// refused, and clears the cookie.
func (b *Blog) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if idn := auth.FromContext(r.Context()); idn != nil && idn.SessionID != "" {
		if err := b.auth.RevokeSession(r.Context(), idn.SessionID); err != nil {
			return err
		}
	}
	auth.ClearCookie(w, r, auth.SessionCookie)
	httpx.BlogAPI.OK(w, http.StatusOK, nil)
	return nil
}
