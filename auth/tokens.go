package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"folio/sqlstore"
)

// APITokenPrefix marks Folio's long-lived API tokens, so that a bare token
// pasted into a client's Authorization field is recognised.
const APITokenPrefix = "folio_"

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b64.EncodeToString(b)
}

// NewAccessToken signs a short-lived access token for a user:
// "fa1.<user id>.<expiry unix>.<mac>".
func (s *Service) NewAccessToken(userID string) (string, time.Time) {
	exp := s.now().Add(AccessTokenTTL)
	return s.accessSigner().seal(accessPrefix+userID, exp.Unix()), exp
}

// parseAccessToken returns the user id of a valid, unexpired access token
// and when it was signed, in unix seconds.
func (s *Service) parseAccessToken(tok string) (userID string, issued int64, ok bool) {
	payload, exp, ok := s.accessSigner().open(tok)
	if !ok || s.now().Unix() >= exp {
		return "", 0, false
	}
	return strings.TrimPrefix(payload, accessPrefix), exp - int64(AccessTokenTTL/time.Second), true
}

// TokenPair is the result of a login or refresh.
type TokenPair struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	User         *User  `json:"user"`
}

// IssuePair makes an access token and a stored, single-use refresh token:
// a sign-in (docs/observability.md#audit-log).
func (s *Service) IssuePair(ctx context.Context, u *User) (*TokenPair, error) {
	p, err := s.issuePair(ctx, u)
	if err == nil {
		s.noteSignIn(ctx, u.ID)
	}
	return p, err
}

func (s *Service) issuePair(ctx context.Context, u *User) (*TokenPair, error) {
	access, _ := s.NewAccessToken(u.ID)
	refresh := randomToken(32)
	now := s.now()
	if _, err := s.db.Exec(ctx, `INSERT INTO refresh_tokens (hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		hashToken(refresh), u.ID, sqlstore.FromTime(now), sqlstore.FromTime(now.Add(RefreshTokenTTL))); err != nil {
		return nil, fmt.Errorf("auth: store refresh token: %w", err)
	}
	return &TokenPair{AccessToken: access, RefreshToken: refresh, TokenType: "Bearer",
		ExpiresIn: int(AccessTokenTTL / time.Second), User: u}, nil
}

// ErrInvalidToken is returned for an unknown, used or expired token.
var ErrInvalidToken = errors.New("invalid or expired token")

// Refresh spends a refresh token and issues a new pair. Presenting a token
// that was already used revokes every refresh token of its user: either the
// client or a thief holds a copy, and neither can be told apart.
func (s *Service) Refresh(ctx context.Context, refresh string) (*TokenPair, error) {
	if refresh == "" {
		return nil, ErrInvalidToken
	}
	h := hashToken(refresh)
	now := sqlstore.FromTime(s.now())
	var userID string
	err := s.db.QueryRowWrite(ctx, `UPDATE refresh_tokens SET used_at = $1
		WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id`, now, h).Scan(&userID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		var owner string
		var used *int64
		if s.db.QueryRowWrite(ctx, "SELECT user_id, used_at FROM refresh_tokens WHERE hash = $1", h).Scan(&owner, &used) == nil && used != nil {
			_, _ = s.db.Exec(ctx, "DELETE FROM refresh_tokens WHERE user_id = $1", owner)
		}
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, fmt.Errorf("auth: refresh: %w", err)
	}
	if _, err := s.identityByID(ctx, userID, "refresh"); err != nil {
		return nil, ErrInvalidToken
	}
	u, err := s.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.issuePair(ctx, u)
}

// RevokeRefresh revokes one refresh token (logout). Unknown tokens are ignored.
func (s *Service) RevokeRefresh(ctx context.Context, refresh string) error {
	if refresh == "" {
		return nil
	}
	_, err := s.db.Exec(ctx, "DELETE FROM refresh_tokens WHERE hash = $1", hashToken(refresh))
	if err != nil {
		return fmt.Errorf("auth: revoke refresh token: %w", err)
	}
	return nil
}

// APIToken is an API token as listed; Token is set only at creation.
type APIToken struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Token      string     `json:"token,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

// CreateAPIToken makes a long-lived token for a user. Only its hash is kept.
func (s *Service) CreateAPIToken(ctx context.Context, userID, name string, expiresAt *time.Time) (*APIToken, error) {
	tok := &APIToken{ID: sqlstore.NewID(), Name: name, Token: APITokenPrefix + randomToken(30),
		CreatedAt: s.now().UTC().Truncate(time.Microsecond), ExpiresAt: expiresAt}
	_, err := s.db.Exec(ctx, `INSERT INTO api_tokens (id, user_id, name, hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		tok.ID, userID, name, hashToken(tok.Token), sqlstore.FromTime(tok.CreatedAt), sqlstore.FromNullTime(expiresAt))
	if err != nil {
		return nil, fmt.Errorf("auth: create api token: %w", err)
	}
	return tok, nil
}

// APITokenRepeatWindow is how long after a one-time form made a token the
// same form, sent again, shows that token again rather than refusing.
const APITokenRepeatWindow = 10 * time.Minute

// ErrFormUsed is a one-time form sent again after APITokenRepeatWindow, or
// after the token it made was revoked.
var ErrFormUsed = errors.New("auth: this form was already sent")

// NewOnce is a one-time value for a form that must not act twice: 128
// random bits, base64url.
func NewOnce() string { return randomToken(16) }

// validOnce is the shape NewOnce makes.
func validOnce(s string) bool { return CanonicalBase64URL(s, 16) }

// CreateAPITokenOnce is CreateAPIToken for the console's form, which a
// double click or a reload sends twice. The value is not random but an
// HMAC of the user and the form's one-time value (NewOnce) under a key of
// its own, so the second request makes the same value, which the unique
// hash refuses to store twice: it finds the first request's token and
// returns it again, with repeated true, for APITokenRepeatWindow after it
// was made, and ErrFormUsed after that or once that token is revoked. The
// value stays unguessable: the one-time value is sent only to the
// signed-in browser, and the key never leaves the server.
func (s *Service) CreateAPITokenOnce(ctx context.Context, userID, name string, expiresAt *time.Time, once string) (tok *APIToken, repeated bool, err error) {
	if !validOnce(once) {
		return nil, false, ErrFormUsed
	}
	m := hmac.New(sha256.New, s.onceKey)
	m.Write([]byte(userID + "\x00" + once))
	value := APITokenPrefix + b64.EncodeToString(m.Sum(nil)[:30])
	tok = &APIToken{ID: sqlstore.NewID(), Name: name, Token: value,
		CreatedAt: s.now().UTC().Truncate(time.Microsecond), ExpiresAt: expiresAt}
	_, err = s.db.Exec(ctx, `INSERT INTO api_tokens (id, user_id, name, hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		tok.ID, userID, name, hashToken(value), sqlstore.FromTime(tok.CreatedAt), sqlstore.FromNullTime(expiresAt))
	if err == nil {
		return tok, false, nil
	}
	if !errors.Is(err, sqlstore.ErrConflict) {
		return nil, false, fmt.Errorf("auth: create api token: %w", err)
	}
	var created int64
	var exp, used, revoked *int64
	err = s.db.QueryRow(ctx, `SELECT id, name, created_at, expires_at, last_used_at, revoked_at FROM api_tokens WHERE hash = $1 AND user_id = $2`,
		hashToken(value), userID).Scan(&tok.ID, &tok.Name, &created, &exp, &used, &revoked)
	if err != nil {
		return nil, false, fmt.Errorf("auth: find the api token of a form sent again: %w", err)
	}
	tok.CreatedAt, tok.ExpiresAt, tok.LastUsedAt = sqlstore.Time(created), sqlstore.NullTime(exp), sqlstore.NullTime(used)
	if revoked != nil || s.now().Sub(tok.CreatedAt) > APITokenRepeatWindow {
		return tok, false, ErrFormUsed
	}
	return tok, true, nil
}

// ListAPITokens lists a user's live tokens, newest first, without values.
func (s *Service) ListAPITokens(ctx context.Context, userID string, limit, offset int) ([]APIToken, int, error) {
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL", userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("auth: count api tokens: %w", err)
	}
	rows, err := s.db.Query(ctx, `SELECT id, name, created_at, expires_at, last_used_at FROM api_tokens
		WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("auth: list api tokens: %w", err)
	}
	defer rows.Close()
	out := []APIToken{}
	for rows.Next() {
		var t APIToken
		var created int64
		var exp, used *int64
		if err := rows.Scan(&t.ID, &t.Name, &created, &exp, &used); err != nil {
			return nil, 0, fmt.Errorf("auth: list api tokens: %w", err)
		}
		t.CreatedAt, t.ExpiresAt, t.LastUsedAt = sqlstore.Time(created), sqlstore.NullTime(exp), sqlstore.NullTime(used)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("auth: list api tokens: %w", err)
	}
	return out, total, nil
}

// RevokeAPIToken revokes one of the user's tokens; sqlstore.ErrNotFound when
// the user has no such live token.
func (s *Service) RevokeAPIToken(ctx context.Context, userID, id string) error {
	if !sqlstore.ValidID(id) {
		return sqlstore.ErrNotFound
	}
	res, err := s.db.Exec(ctx, "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
		sqlstore.FromTime(s.now()), id, userID)
	if err != nil {
		return fmt.Errorf("auth: revoke api token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// lastUsedGranularity limits last_used_at writes to one a minute per token.
const lastUsedGranularity = time.Minute

// apiTokenUser returns the user id of a live API token.
func (s *Service) apiTokenUser(ctx context.Context, tok string) (string, bool, error) {
	var id, userID string
	var exp, used *int64
	err := s.db.QueryRow(ctx, "SELECT id, user_id, expires_at, last_used_at FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL",
		hashToken(tok)).Scan(&id, &userID, &exp, &used)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("auth: api token: %w", err)
	}
	now := s.now()
	if exp != nil && !now.Before(sqlstore.Time(*exp)) {
		return "", false, nil
	}
	if used == nil || now.Sub(sqlstore.Time(*used)) > lastUsedGranularity {
		if _, err := s.db.Exec(ctx, "UPDATE api_tokens SET last_used_at = $1 WHERE id = $2", sqlstore.FromTime(now), id); err != nil {
			return "", false, fmt.Errorf("auth: api token last use: %w", err)
		}
	}
	return userID, true, nil
}
