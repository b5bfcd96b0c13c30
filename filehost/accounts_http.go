package filehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
)

// registerRequest is the body of POST /api/v1/auth/register.
type registerRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// loginRequest is the body of POST /api/v1/auth/login.
type loginRequest struct {
	Username string `json:"username"`
	Email    string `json:"email"` // accepted in place of username
	Password string `json:"password"`
	OTP      string `json:"otp"` // the second factor, when the account has TOTP on
}

// refreshRequest is the body of POST /api/v1/auth/refresh and logout.
type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// handleRegister is POST /api/v1/auth/register: open only when the
// administrator has turned upload.allow_register on.
func (s *Service) handleRegister(w http.ResponseWriter, r *http.Request) error {
	set := s.settings.Get(r.Context()).Upload
	if !set.AllowRegister {
		return httpx.Forbidden("registration is disabled")
	}
	var req registerRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	u, err := s.auth.CreateUser(r.Context(), auth.NewUser{Username: req.Username, Email: req.Email,
		Password: req.Password, Role: auth.RoleUser, QuotaBytes: set.DefaultQuotaBytes})
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusCreated, u)
	return nil
}

// handleLogin is POST /api/v1/auth/login: a token pair, and the access
// token in an HttpOnly cookie for browsers.
func (s *Service) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	login := strings.TrimSpace(req.Username)
	if login == "" {
		login = strings.TrimSpace(req.Email)
	}
	if login == "" || req.Password == "" {
		return httpx.BadRequest("username and password are required")
	}
	u, err := s.auth.CheckLogin(r.Context(), login, req.Password, req.OTP)
	if locked := auth.FactorLockAnswer(w, err, ""); locked != nil {
		return locked
	}
	if err != nil {
		return httpError(err)
	}
	return s.sendPair(w, r, u)
}

func (s *Service) sendPair(w http.ResponseWriter, r *http.Request, u *auth.User) error {
	pair, err := s.auth.IssuePair(r.Context(), u)
	if err != nil {
		return err
	}
	auth.SetAccessCookie(w, r, pair.AccessToken)
	httpx.FileAPI.OK(w, http.StatusOK, pair)
	return nil
}

// handleRefresh is POST /api/v1/auth/refresh: spends a refresh token for a
// new pair. A used, unknown or expired token is a 401.
func (s *Service) handleRefresh(w http.ResponseWriter, r *http.Request) error {
	var req refreshRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	pair, err := s.auth.Refresh(r.Context(), strings.TrimSpace(req.RefreshToken))
	if err != nil {
		return httpError(err)
	}
	auth.SetAccessCookie(w, r, pair.AccessToken)
	httpx.FileAPI.OK(w, http.StatusOK, pair)
	return nil
}

// handleLogout is POST /api/v1/auth/logout. The body is optional: when it
// names a refresh token, that token is revoked. The access cookie is always
// cleared; access tokens themselves are stateless and run out on their own.
func (s *Service) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.LimitBody(w, r, httpx.MaxJSONBody); err != nil {
		return err
	}
	raw, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return httpx.AsError(err)
	}
	if err != nil {
		return &httpx.Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
	}
	var req refreshRequest
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &req); err != nil {
			return &httpx.Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
		}
	}
	if err := s.auth.RevokeRefresh(r.Context(), strings.TrimSpace(req.RefreshToken)); err != nil {
		return err
	}
	auth.ClearCookie(w, r, auth.AccessCookie)
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}

// handleMe is GET /api/v1/auth/me.
func (s *Service) handleMe(w http.ResponseWriter, r *http.Request) error {
	u, err := s.auth.UserByID(r.Context(), auth.FromContext(r.Context()).UserID)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, u)
	return nil
}

// handlePatchMe is PATCH /api/v1/auth/me: the caller's own settings, today
// the visibility of uploads that ask for none.
func (s *Service) handlePatchMe(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		DefaultVisibility *string `json:"default_visibility"`
	}
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	idn := auth.FromContext(r.Context())
	if req.DefaultVisibility == nil {
		return s.handleMe(w, r)
	}
	u, err := s.setDefaultVisibility(r.Context(), idn.UserID, *req.DefaultVisibility)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, u)
	return nil
}
