package filehost

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"folio/auth"
	"folio/httpx"
)

// loginView is the sign-in page's data.
type loginView struct {
	Next         string
	Username     string
	RegisterOpen bool
}

// handleConsoleHome is GET /console/: the administrator starts on the
// dashboard of both sides, the blog and the files; everyone else on the
// upload page, as in Lsky Pro (docs/console.md#the-dashboard).
func (s consoleHandlers) handleConsoleHome(w http.ResponseWriter, r *http.Request) error {
	home := "/console/upload"
	if auth.FromContext(r.Context()).IsAdmin() {
		home = "/console/admin"
	}
	http.Redirect(w, r, home, http.StatusSeeOther)
	return nil
}

// handleConsoleLoginPage is GET /console/login. A browser already signed in
// goes straight on.
func (s consoleHandlers) handleConsoleLoginPage(w http.ResponseWriter, r *http.Request) error {
	next := auth.SafeNext(r.URL.Query().Get("next"))
	idn, err := s.console.Identity(r)
	if err != nil {
		return err
	}
	if idn != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	s.renderLogin(w, r, http.StatusOK, loginView{Next: next}, "")
	return nil
}

func (s consoleHandlers) renderLogin(w http.ResponseWriter, r *http.Request, status int, data loginView, problem string) {
	data.RegisterOpen = s.settings.Get(r.Context()).Upload.AllowRegister
	v := s.console.View(w, r, "Sign in", "")
	v.Error = problem
	v.Data = data
	s.console.Render(w, r, status, "login", v)
}

// handleConsoleLogin is POST /console/login. It spends the same per-IP
// allowance as POST /api/v1/auth/login (docs/api.md#limits), so the form
// is no way around it.
func (s consoleHandlers) handleConsoleLogin(w http.ResponseWriter, r *http.Request) error {
	if ok, wait := s.loginLimit.Allow(httpx.ClientIP(r)); !ok {
		return tooMany(w, wait, "Too many sign-in attempts from your address. Wait a minute and try again.")
	}
	if err := s.console.CheckAnonForm(w, r); err != nil {
		return err
	}
	data := loginView{Next: auth.SafeNext(r.PostFormValue("next")), Username: strings.TrimSpace(r.PostFormValue("username"))}
	password := r.PostFormValue("password")
	if data.Username == "" || password == "" {
		s.renderLogin(w, r, http.StatusUnprocessableEntity, data, "Enter your username (or email) and your password.")
		return nil
	}
	u, err := s.auth.CheckPassword(r.Context(), data.Username, password)
	switch {
	case errors.Is(err, auth.ErrInvalidCredentials):
		s.renderLogin(w, r, http.StatusUnauthorized, data, "Wrong username or password.")
		return nil
	case errors.Is(err, auth.ErrDisabled), errors.Is(err, auth.ErrAdminDisabled):
		s.renderLogin(w, r, http.StatusForbidden, data, "This account is disabled.")
		return nil
	case err != nil:
		return err
	}
	on, err := s.auth.TOTPEnabled(r.Context(), u.ID)
	if err != nil {
		return err
	}
	if on {
		// A locked second factor is said at once (the password was
		// right), rather than after a code that could not count.
		if locked := auth.FactorLockAnswer(w, s.auth.FactorLocked(r.Context(), u.ID), factorLockedMsg); locked != nil {
			return locked
		}
		s.renderLoginCode(w, r, http.StatusOK, loginCodeView{Ticket: s.auth.NewLoginTicket(u.ID), Next: data.Next}, "")
		return nil
	}
	return s.startConsoleSession(w, r, u.ID, data.Next)
}

// loginCodeView is the second-factor step's data: the signed ticket that
// says the password was right, and where to go next.
type loginCodeView struct {
	Ticket, Next string
}

func (s consoleHandlers) renderLoginCode(w http.ResponseWriter, r *http.Request, status int, data loginCodeView, problem string) {
	v := s.console.View(w, r, "Two-factor code", "")
	v.Error = problem
	v.Data = data
	s.console.Render(w, r, status, "login-code", v)
}

// factorLockedMsg is the console's page for an account whose second
// factor is locked (docs/console.md#two-factor-sign-in).
const factorLockedMsg = "Too many wrong codes for this account. Sign-in with a code is paused for up to 15 minutes; try again later."

// handleConsoleLoginCode is POST /console/login/code: the second step of
// a sign-in with TOTP on. Guesses spend the sign-in allowance of the
// address and the account's second-factor limit, shared with every other
// login path, so neither many addresses nor one can try the million codes.
func (s consoleHandlers) handleConsoleLoginCode(w http.ResponseWriter, r *http.Request) error {
	if ok, wait := s.loginLimit.Allow(httpx.ClientIP(r)); !ok {
		return tooMany(w, wait, "Too many sign-in attempts from your address. Wait a minute and try again.")
	}
	if err := s.console.CheckAnonForm(w, r); err != nil {
		return err
	}
	data := loginCodeView{Ticket: r.PostFormValue("ticket"), Next: auth.SafeNext(r.PostFormValue("next"))}
	userID, ok := s.auth.ParseLoginTicket(data.Ticket)
	if !ok {
		s.renderLogin(w, r, http.StatusUnauthorized, loginView{Next: data.Next}, "That took too long. Sign in again.")
		return nil
	}
	err := s.auth.CheckSecondFactor(r.Context(), userID, r.PostFormValue("code"))
	if locked := auth.FactorLockAnswer(w, err, factorLockedMsg); locked != nil {
		return locked
	}
	if errors.Is(err, auth.ErrInvalidOTP) {
		s.renderLoginCode(w, r, http.StatusUnauthorized, data, "That code is not right.")
		return nil
	}
	if err != nil {
		return err
	}
	// The account may have been disabled since the password step.
	u, err := s.auth.UserByID(r.Context(), userID)
	if err != nil {
		return err
	}
	if u.Status != "active" {
		s.renderLogin(w, r, http.StatusForbidden, loginView{Next: data.Next}, "This account is disabled.")
		return nil
	}
	return s.startConsoleSession(w, r, u.ID, data.Next)
}

// startConsoleSession signs the browser in and sends it on.
func (s consoleHandlers) startConsoleSession(w http.ResponseWriter, r *http.Request, userID, next string) error {
	value, exp, err := s.auth.NewSession(r.Context(), userID, auth.MetaFromRequest(r))
	if err != nil {
		return err
	}
	auth.SetSessionCookie(w, r, value, exp)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// handleConsoleLogout is POST /console/logout: the session is revoked
// server-side, so the old cookie is worthless even if kept.
func (s consoleHandlers) handleConsoleLogout(w http.ResponseWriter, r *http.Request) error {
	if idn := auth.FromContext(r.Context()); idn != nil && idn.SessionID != "" {
		if err := s.auth.RevokeSession(r.Context(), idn.SessionID); err != nil {
			return err
		}
	}
	auth.ClearCookie(w, r, auth.SessionCookie)
	s.console.Redirect(w, r, "/console/login", "You are signed out.")
	return nil
}

// registerView is the registration page's data.
type registerView struct {
	Username, Email string
}

// handleConsoleRegisterPage is GET /console/register, a page only while
// upload.allow_register is on.
func (s consoleHandlers) handleConsoleRegisterPage(w http.ResponseWriter, r *http.Request) error {
	if !s.settings.Get(r.Context()).Upload.AllowRegister {
		return httpx.E(http.StatusNotFound, "Registration is closed on this site.")
	}
	v := s.console.View(w, r, "Create an account", "")
	v.Data = registerView{}
	s.console.Render(w, r, http.StatusOK, "register", v)
	return nil
}

// handleConsoleRegister is POST /console/register: the rules and the
// per-IP allowance of POST /api/v1/auth/register, then a signed-in session.
func (s consoleHandlers) handleConsoleRegister(w http.ResponseWriter, r *http.Request) error {
	set := s.settings.Get(r.Context()).Upload
	if !set.AllowRegister {
		return httpx.E(http.StatusNotFound, "Registration is closed on this site.")
	}
	if ok, wait := s.registerLimit.Allow(httpx.ClientIP(r)); !ok {
		return tooMany(w, wait, "Too many attempts from your address. Wait a minute and try again.")
	}
	if err := s.console.CheckAnonForm(w, r); err != nil {
		return err
	}
	data := registerView{Username: strings.TrimSpace(r.PostFormValue("username")), Email: strings.TrimSpace(r.PostFormValue("email"))}
	u, err := s.auth.CreateUser(r.Context(), auth.NewUser{Username: data.Username, Email: data.Email,
		Password: r.PostFormValue("password"), Role: auth.RoleUser, QuotaBytes: set.DefaultQuotaBytes})
	if err != nil {
		he := httpx.AsError(httpError(err))
		if he.Status >= 500 {
			return err
		}
		v := s.console.View(w, r, "Create an account", "")
		v.Error = httpx.Sentence(he.Msg)
		v.Data = data
		s.console.Render(w, r, he.Status, "register", v)
		return nil
	}
	return s.startConsoleSession(w, r, u.ID, "/console/upload")
}

// tooMany is a console page's 429: Retry-After in whole seconds, and msg.
func tooMany(w http.ResponseWriter, wait time.Duration, msg string) error {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	return &httpx.Error{Status: http.StatusTooManyRequests, Msg: msg}
}
