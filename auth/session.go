package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// SessionCookie is the administrator's blog session cookie.
const SessionCookie = "folio_session"

// SessionMeta is what a session records about the browser that opened it,
// for the account page's list of sessions.
type SessionMeta struct {
	UserAgent string
	IP        string
}

// maxUserAgent is how many runes of a User-Agent a session keeps.
const maxUserAgent = 200

// MetaFromRequest is the SessionMeta of r: its User-Agent (NewSession
// keeps at most 200 runes) and the client address httpx.Proxies decided on.
func MetaFromRequest(r *http.Request) SessionMeta {
	return SessionMeta{UserAgent: r.UserAgent(), IP: httpx.ClientIP(r)}
}

// NewSession starts a session for a user and returns the signed cookie value
// "<session id>.<expiry unix>.<mac>" and its expiry: a sign-in
// (docs/observability.md#audit-log).
func (s *Service) NewSession(ctx context.Context, userID string, meta SessionMeta) (string, time.Time, error) {
	id := randomHex(16)
	now := s.now()
	exp := now.Add(s.cfg.SessionTTL)
	ua := strings.ToValidUTF8(meta.UserAgent, "")
	if r := []rune(ua); len(r) > maxUserAgent {
		ua = string(r[:maxUserAgent])
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO sessions (id, user_id, created_at, expires_at, user_agent, ip, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6, $3)`,
		id, userID, sqlstore.FromTime(now), sqlstore.FromTime(exp), ua, strings.ToValidUTF8(meta.IP, "")); err != nil {
		return "", time.Time{}, fmt.Errorf("auth: create session: %w", err)
	}
	s.noteSignIn(ctx, userID)
	return s.sessionSigner().seal(id, exp.Unix()), exp, nil
}

// parseSession checks the signature and expiry of a cookie value and
// returns its session id; the database is not consulted.
func (s *Service) parseSession(value string) (string, bool) {
	return s.sessionSigner().openAt(value, s.now())
}

// lastSeenGranularity limits last_seen_at writes to one a minute per
// session.
const lastSeenGranularity = time.Minute

// sessionUser returns the user of a live session and notes that the
// session was seen.
func (s *Service) sessionUser(ctx context.Context, id string) (string, bool, error) {
	var userID string
	var seen *int64
	now := s.now()
	err := s.db.QueryRow(ctx, "SELECT user_id, last_seen_at FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2",
		id, sqlstore.FromTime(now)).Scan(&userID, &seen)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("auth: session: %w", err)
	}
	if seen == nil || now.Sub(sqlstore.Time(*seen)) >= lastSeenGranularity {
		// Only a note for the session list: a failure must not fail the
		// request it rides on.
		if _, err := s.db.Exec(ctx, "UPDATE sessions SET last_seen_at = $1 WHERE id = $2", sqlstore.FromTime(now), id); err != nil {
			s.cfg.Logger.Debug("auth: session last seen", "err", err)
		}
	}
	return userID, true, nil
}

// Session is one of a user's live sessions, as an account page lists them.
// The ID alone cannot make a cookie (that needs the session key's MAC),
// so a page may use it to name a session to revoke.
type Session struct {
	ID                               string
	UserAgent, IP                    string
	CreatedAt, LastSeenAt, ExpiresAt time.Time
	Current                          bool // the session of the asking request
}

// Browser names the session's browser and system ("Firefox on Linux"),
// from its User-Agent.
func (s Session) Browser() string { return BrowserName(s.UserAgent) }

// ListSessions lists the user's live sessions, newest first; currentID
// (the asking request's session, or "") is marked Current.
func (s *Service) ListSessions(ctx context.Context, userID, currentID string) ([]Session, error) {
	rows, err := s.db.Query(ctx, `SELECT id, user_agent, ip, created_at, last_seen_at, expires_at FROM sessions
		WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id DESC`,
		userID, sqlstore.FromTime(s.now()))
	if err != nil {
		return nil, fmt.Errorf("auth: list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		var ss Session
		var created, exp int64
		var seen *int64
		if err := rows.Scan(&ss.ID, &ss.UserAgent, &ss.IP, &created, &seen, &exp); err != nil {
			return nil, fmt.Errorf("auth: list sessions: %w", err)
		}
		ss.CreatedAt, ss.ExpiresAt, ss.LastSeenAt = sqlstore.Time(created), sqlstore.Time(exp), sqlstore.Time(created)
		if seen != nil {
			ss.LastSeenAt = sqlstore.Time(*seen)
		}
		ss.Current = currentID != "" && ss.ID == currentID
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("auth: list sessions: %w", err)
	}
	return out, nil
}

// RevokeUserSession ends one of the user's live sessions;
// sqlstore.ErrNotFound when the user has no such session (another user's
// included).
func (s *Service) RevokeUserSession(ctx context.Context, userID, id string) error {
	now := sqlstore.FromTime(s.now())
	res, err := s.db.Exec(ctx, "UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL AND expires_at > $1",
		now, id, userID)
	if err != nil {
		return fmt.Errorf("auth: revoke session: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// RevokeOtherSessions ends every session of the user but keepID ("" ends
// them all).
func (s *Service) RevokeOtherSessions(ctx context.Context, userID, keepID string) error {
	if _, err := s.db.Exec(ctx, "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND id <> $3 AND revoked_at IS NULL",
		sqlstore.FromTime(s.now()), userID, keepID); err != nil {
		return fmt.Errorf("auth: revoke sessions: %w", err)
	}
	return nil
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
