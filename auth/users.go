package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/sqlstore"
)

// User is a file-hosting user as the API shows it. The password hash is
// never part of it.
type User struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Email      string `json:"email"`
	Role       string `json:"role"`
	Status     string `json:"status"`
	QuotaBytes int64  `json:"quota_bytes"`
	UsedBytes  int64  `json:"used_bytes"`
	FileCount  int64  `json:"file_count"`
	// DefaultVisibility is the visibility the file host gives the user's
	// uploads that ask for none (docs/filehost.md#visibility).
	DefaultVisibility string    `json:"default_visibility"`
	CreatedAt         time.Time `json:"created_at"`
}

// userColumns matches scanUser.
const userColumns = "id, username, email, role, status, quota_bytes, used_bytes, file_count, default_visibility, created_at"

type scanner interface{ Scan(dest ...any) error }

func scanUser(row scanner) (*User, error) {
	var u User
	var created int64
	if err := row.Scan(&u.ID, &u.Username, &u.Email, &u.Role, &u.Status, &u.QuotaBytes, &u.UsedBytes, &u.FileCount, &u.DefaultVisibility, &created); err != nil {
		return nil, err
	}
	u.CreatedAt = sqlstore.Time(created)
	return &u, nil
}

// UserByID loads a user; sqlstore.ErrNotFound when there is none.
func (s *Service) UserByID(ctx context.Context, id string) (*User, error) {
	if !sqlstore.ValidID(id) {
		return nil, sqlstore.ErrNotFound
	}
	u, err := scanUser(s.db.QueryRow(ctx, "SELECT "+userColumns+" FROM users WHERE id = $1", id))
	if err != nil {
		return nil, fmt.Errorf("auth: load user: %w", err)
	}
	return u, nil
}

// UserByName loads a user by username, in any case; sqlstore.ErrNotFound
// when there is none.
func (s *Service) UserByName(ctx context.Context, username string) (*User, error) {
	u, err := scanUser(s.db.QueryRow(ctx, "SELECT "+userColumns+" FROM users WHERE LOWER(username) = LOWER($1)", strings.TrimSpace(username)))
	if err != nil {
		return nil, fmt.Errorf("auth: load user by name: %w", err)
	}
	return u, nil
}

// CheckPassword finds an active, non-guest user by username or email and
// checks the password in constant time whether or not the user exists.
func (s *Service) CheckPassword(ctx context.Context, login, password string) (*User, error) {
	login = strings.TrimSpace(login)
	var hash string
	var created int64
	var u User
	err := s.db.QueryRow(ctx, "SELECT "+userColumns+", password_hash FROM users WHERE LOWER(username) = LOWER($1) OR (email <> '' AND LOWER(email) = LOWER($1)) ORDER BY created_at LIMIT 1", login).
		Scan(&u.ID, &u.Username, &u.Email, &u.Role, &u.Status, &u.QuotaBytes, &u.UsedBytes, &u.FileCount, &u.DefaultVisibility, &created, &hash)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, fmt.Errorf("auth: find user: %w", err)
	}
	if err != nil || hash == "" || u.Role == RoleGuest {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password))
		return nil, ErrInvalidCredentials
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		noteLoginUser(ctx, &u, true)
		return nil, ErrInvalidCredentials
	}
	if u.Status != "active" {
		noteLoginUser(ctx, &u, true)
		return nil, ErrDisabled
	}
	if u.Role == RoleAdmin && u.ID == s.adminID && !s.cfg.AdminEnabled {
		noteLoginUser(ctx, &u, true)
		return nil, ErrAdminDisabled
	}
	noteLoginUser(ctx, &u, false)
	u.CreatedAt = sqlstore.Time(created)
	return &u, nil
}

// ErrDisabled is returned when a disabled user tries to log in.
var ErrDisabled = errors.New("account is disabled")

// ErrAdminDisabled is returned when admin.enabled is false.
var ErrAdminDisabled = errors.New("administrator login is disabled")

// identityByID loads what a request needs to know about an authenticated
// user; a disabled user's credentials stop working at once.
func (s *Service) identityByID(ctx context.Context, id, via string) (*Identity, error) {
	return s.accessIdentity(ctx, id, -1, via)
}

// accessIdentity is identityByID for an access token signed at issued
// (unix seconds): one signed before the user's last password reset is
// refused. A negative issued skips that check, for credentials that are
// revoked in the database instead (sessions, API tokens).
func (s *Service) accessIdentity(ctx context.Context, id string, issued int64, via string) (*Identity, error) {
	var idn Identity
	var status string
	var notBefore int64
	err := s.db.QueryRow(ctx, "SELECT id, username, role, status, tokens_not_before FROM users WHERE id = $1", id).
		Scan(&idn.UserID, &idn.Username, &idn.Role, &status, &notBefore)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, errUnauthenticated
	}
	if err != nil {
		return nil, fmt.Errorf("auth: load identity: %w", err)
	}
	if status != "active" || idn.Role == RoleGuest || issued >= 0 && issued < notBefore {
		return nil, errUnauthenticated
	}
	if idn.UserID == s.adminID && !s.cfg.AdminEnabled {
		return nil, errUnauthenticated
	}
	idn.Via = via
	return &idn, nil
}
