package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// SessionCookie is the administrator's blog session cookie.
const SessionCookie = "folio_session"

// NewSession starts a session for a user and returns the signed cookie value
// "<session id>.<expiry unix>.<mac>" and its expiry.
func (s *Service) NewSession(ctx context.Context, userID string) (string, time.Time, error) {
	id := randomHex(16)
	now := s.now()
	exp := now.Add(s.cfg.SessionTTL)
	if _, err := s.db.Exec(ctx, "INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
		id, userID, sqlstore.FromTime(now), sqlstore.FromTime(exp)); err != nil {
		return "", time.Time{}, fmt.Errorf("auth: create session: %w", err)
	}
	return sign(s.sessionKey, id+"."+strconv.FormatInt(exp.Unix(), 10)), exp, nil
}

// parseSession checks the signature and expiry of a cookie value and
// returns its session id; the database is not consulted.
func (s *Service) parseSession(value string) (string, bool) {
	payload, ok := verify(s.sessionKey, value)
	if !ok {
		return "", false
	}
	id, expText, ok := strings.Cut(payload, ".")
	if !ok {
		return "", false
	}
	exp, err := strconv.ParseInt(expText, 10, 64)
	if err != nil || s.now().Unix() >= exp {
		return "", false
	}
	return id, true
}

// sessionUser returns the user of a live session.
func (s *Service) sessionUser(ctx context.Context, id string) (string, bool, error) {
	var userID string
	err := s.db.QueryRow(ctx, "SELECT user_id FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2",
		id, sqlstore.FromTime(s.now())).Scan(&userID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("auth: session: %w", err)
	}
	return userID, true, nil
}

// RevokeSession ends a session server-side, so the cookie stops working
// even if it is replayed.
func (s *Service) RevokeSession(ctx context.Context, id string) error {
	if _, err := s.db.Exec(ctx, "UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
		sqlstore.FromTime(s.now()), id); err != nil {
		return fmt.Errorf("auth: revoke session: %w", err)
	}
	// Expired sessions are of no further use: prune them now and then.
	_, _ = s.db.Exec(ctx, "DELETE FROM sessions WHERE expires_at < $1", sqlstore.FromTime(s.now().Add(-24*time.Hour)))
	return nil
}

// SetSessionCookie writes the session cookie: HttpOnly, SameSite=Lax, Path /,
// Secure when the request came over HTTPS.
func SetSessionCookie(w http.ResponseWriter, r *http.Request, value string, exp time.Time) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: value, Path: "/", Expires: exp,
		MaxAge: int(time.Until(exp).Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
}

// ClearCookie removes a cookie set by Folio.
func ClearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
}

// AccessCookie is the file side's browser cookie holding an access token.
const AccessCookie = "access_token"

// SetAccessCookie writes the access token cookie after a file-side login.
func SetAccessCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: AccessCookie, Value: token, Path: "/", MaxAge: int(AccessTokenTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
}
