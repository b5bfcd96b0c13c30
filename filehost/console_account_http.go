package filehost

import (
	"errors"
	"html/template"
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
)

// accountView is the account page's data.
type accountView struct {
	User         *auth.User
	Email        string // as typed, when the email form failed
	TOTP         bool
	RecoveryLeft int
	Sessions     []auth.Session
	// Visibility is the default visibility of the account's uploads.
	Visibility visibilityField
}

// totpSetupView is the two-factor set-up page's data.
type totpSetupView struct {
	Secret string
	QR     template.HTML // our own SVG, drawn by auth.QRSVG
}

// handleConsoleAccount is GET /console/account.
func (s consoleHandlers) handleConsoleAccount(w http.ResponseWriter, r *http.Request) error {
	return s.renderAccount(w, r, http.StatusOK, "", "")
}

// renderAccount shows the account page, with problem when a form failed
// and email as the user typed it.
func (s consoleHandlers) renderAccount(w http.ResponseWriter, r *http.Request, status int, problem, email string) error {
	ctx := r.Context()
	idn := auth.FromContext(ctx)
	u, err := s.auth.UserByID(ctx, idn.UserID)
	if err != nil {
		return err
	}
	data := accountView{User: u, Email: u.Email,
		Visibility: newVisibilityField("default-visibility", "default_visibility", u.DefaultVisibility, false)}
	if email != "" {
		data.Email = email
	}
	if data.TOTP, err = s.auth.TOTPEnabled(ctx, u.ID); err != nil {
		return err
	}
	if data.TOTP {
		if data.RecoveryLeft, err = s.auth.RecoveryCodesLeft(ctx, u.ID); err != nil {
			return err
		}
	}
	if data.Sessions, err = s.auth.ListSessions(ctx, u.ID, idn.SessionID); err != nil {
		return err
	}
	v := s.console.View(w, r, "Your account", "account")
	v.Error = problem
	v.Data = data
	s.console.Render(w, r, status, "account", v)
	return nil
}

// handleConsolePassword is POST /console/account/password: the current
// password is required; every other session of the account and its
// refresh tokens end (docs/console.md#your-account).
func (s consoleHandlers) handleConsolePassword(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	err := s.auth.ChangePassword(r.Context(), idn.UserID, r.PostFormValue("current_password"), r.PostFormValue("new_password"), idn.SessionID)
	var fe *auth.FieldError
	switch {
	case errors.Is(err, auth.ErrInvalidCredentials):
		return s.renderAccount(w, r, http.StatusUnprocessableEntity, "Your current password is not right.", "")
	case errors.Is(err, auth.ErrPasswordInConfig):
		return s.renderAccount(w, r, http.StatusConflict, "This password is set by admin.password_hash in the configuration: change it there (folio hash-password makes the hash).", "")
	case errors.As(err, &fe):
		return s.renderAccount(w, r, http.StatusUnprocessableEntity, "The new password "+fe.Msg+".", "")
	case err != nil:
		return err
	}
	s.console.Redirect(w, r, "/console/account", "Password changed. Your other sessions are signed out.")
	return nil
}

// handleConsoleEmail is POST /console/account/email.
func (s consoleHandlers) handleConsoleEmail(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	email := strings.TrimSpace(r.PostFormValue("email"))
	if _, err := s.auth.ChangeEmail(r.Context(), idn.UserID, email); err != nil {
		he := httpx.AsError(httpError(err))
		if he.Status >= 500 {
			return err
		}
		return s.renderAccount(w, r, he.Status, httpx.Sentence(he.Msg), email)
	}
	s.console.Redirect(w, r, "/console/account", "Email saved.")
	return nil
}

// handleConsoleVisibility is POST /console/account/visibility: the
// visibility of uploads that ask for none.
func (s consoleHandlers) handleConsoleVisibility(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	if _, err := s.setDefaultVisibility(r.Context(), idn.UserID, r.PostFormValue("default_visibility")); err != nil {
		if errors.Is(err, errBadVisibility) {
			return s.renderAccount(w, r, http.StatusUnprocessableEntity, "Choose a visibility.", "")
		}
		return err
	}
	s.console.Redirect(w, r, "/console/account", "Default visibility saved.")
	return nil
}

// handleConsoleTOTPBegin is POST /console/account/totp: a new pending
// secret, shown as a QR code and as text.
func (s consoleHandlers) handleConsoleTOTPBegin(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	on, err := s.auth.TOTPEnabled(r.Context(), idn.UserID)
	if err != nil {
		return err
	}
	if on {
		s.console.Redirect(w, r, "/console/account", "Two-factor sign-in is already on.")
		return nil
	}
	secret, uri, err := s.auth.BeginTOTP(r.Context(), idn.UserID)
	if errors.Is(err, auth.ErrProtectedUser) {
		return httpx.Forbidden("this account cannot use two-factor sign-in")
	}
	if err != nil {
		return err
	}
	return s.renderTOTPSetup(w, r, http.StatusOK, secret, uri, "")
}

// handleConsoleTOTPSetup is GET /console/account/totp: the set-up page
// again (after a reload), while a secret is pending.
func (s consoleHandlers) handleConsoleTOTPSetup(w http.ResponseWriter, r *http.Request) error {
	secret, uri, ok, err := s.auth.PendingTOTP(r.Context(), auth.FromContext(r.Context()).UserID)
	if err != nil {
		return err
	}
	if !ok {
		http.Redirect(w, r, "/console/account", http.StatusSeeOther)
		return nil
	}
	return s.renderTOTPSetup(w, r, http.StatusOK, secret, uri, "")
}

func (s consoleHandlers) renderTOTPSetup(w http.ResponseWriter, r *http.Request, status int, secret, uri, problem string) error {
	svg, err := auth.QRSVG([]byte(uri))
	if err != nil {
		return err
	}
	v := s.console.View(w, r, "Set up two-factor sign-in", "account")
	v.Error = problem
	v.Data = totpSetupView{Secret: secret, QR: template.HTML(svg)}
	s.console.Render(w, r, status, "totp-setup", v)
	return nil
}

// handleConsoleTOTPEnable is POST /console/account/totp/enable: the first
// code from the app proves it holds the secret; the recovery codes are
// shown once.
func (s consoleHandlers) handleConsoleTOTPEnable(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	idn := auth.FromContext(ctx)
	codes, err := s.auth.EnableTOTP(ctx, idn.UserID, r.PostFormValue("code"))
	if errors.Is(err, auth.ErrTOTPEnabled) {
		s.console.Redirect(w, r, "/console/account", "Two-factor sign-in is already on.")
		return nil
	}
	if errors.Is(err, auth.ErrInvalidOTP) {
		secret, uri, ok, perr := s.auth.PendingTOTP(ctx, idn.UserID)
		if perr != nil {
			return perr
		}
		if !ok {
			return httpx.E(http.StatusConflict, "Start the set-up again: there is no key waiting to be confirmed.")
		}
		return s.renderTOTPSetup(w, r, http.StatusUnprocessableEntity, secret, uri, "That code is not right. Check the time on your device and try the next code.")
	}
	if err != nil {
		return err
	}
	return s.renderRecoveryCodes(w, r, codes, "Two-factor sign-in is on.")
}

// renderRecoveryCodes shows new recovery codes, the only time they are
// shown, with what just happened (flash).
func (s consoleHandlers) renderRecoveryCodes(w http.ResponseWriter, r *http.Request, codes []string, flash string) error {
	v := s.console.View(w, r, "Your recovery codes", "account")
	v.Flash = flash
	v.Data = codes
	s.console.Render(w, r, http.StatusOK, "recovery-codes", v)
	return nil
}

// handleConsoleTOTPDisable is POST /console/account/totp/disable: needs the
// password.
func (s consoleHandlers) handleConsoleTOTPDisable(w http.ResponseWriter, r *http.Request) error {
	err := s.auth.DisableTOTP(r.Context(), auth.FromContext(r.Context()).UserID, r.PostFormValue("password"))
	if errors.Is(err, auth.ErrInvalidCredentials) {
		return s.renderAccount(w, r, http.StatusUnprocessableEntity, "Your password is not right; two-factor sign-in stays on.", "")
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/account", "Two-factor sign-in is off.")
	return nil
}

// handleConsoleRecoveryCodes is POST /console/account/recovery: ten new
// codes replace the old ones.
func (s consoleHandlers) handleConsoleRecoveryCodes(w http.ResponseWriter, r *http.Request) error {
	codes, err := s.auth.RegenerateRecoveryCodes(r.Context(), auth.FromContext(r.Context()).UserID, r.PostFormValue("password"))
	switch {
	case errors.Is(err, auth.ErrInvalidCredentials):
		return s.renderAccount(w, r, http.StatusUnprocessableEntity, "Your password is not right.", "")
	case errors.Is(err, auth.ErrTOTPNotEnabled):
		return s.renderAccount(w, r, http.StatusConflict, "Recovery codes come with two-factor sign-in: turn it on first.", "")
	}
	if err != nil {
		return err
	}
	return s.renderRecoveryCodes(w, r, codes, "New recovery codes: the old ones no longer work.")
}

// handleConsoleRevokeSession is POST /console/account/sessions/{id}/revoke.
func (s consoleHandlers) handleConsoleRevokeSession(w http.ResponseWriter, r *http.Request) error {
	err := s.auth.RevokeUserSession(r.Context(), auth.FromContext(r.Context()).UserID, r.PathValue("id"))
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.E(http.StatusNotFound, "There is no such session.")
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/account", "That session is signed out.")
	return nil
}

// handleConsoleRevokeOthers is POST /console/account/sessions/revoke-others.
func (s consoleHandlers) handleConsoleRevokeOthers(w http.ResponseWriter, r *http.Request) error {
	idn := auth.FromContext(r.Context())
	if err := s.auth.RevokeOtherSessions(r.Context(), idn.UserID, idn.SessionID); err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/account", "Signed out everywhere else.")
	return nil
}
