package auth

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"folio/sqlstore"
)

// Statuses of users.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// Errors of user management. Handlers map them to client answers.
var (
	ErrUsernameTaken = errors.New("username is already taken")
	ErrEmailTaken    = errors.New("email is already taken")
	// ErrProtectedUser is returned when a change would delete, disable or
	// demote the configured administrator, or touch the virtual guest in a
	// way that makes no sense for it.
	ErrProtectedUser = errors.New("this user cannot be changed that way")
)

// FieldError names the field of a user that failed validation.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + " " + e.Msg }

// ValidateUsername enforces 3-32 characters of [A-Za-z0-9_-].
func ValidateUsername(name string) error {
	if len(name) < 3 || len(name) > 32 {
		return &FieldError{"username", "must be 3-32 characters"}
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return &FieldError{"username", "may contain only letters, digits, _ and -"}
		}
	}
	return nil
}

// ValidatePassword enforces 8 to 72 bytes of UTF-8 (bcrypt ignores anything
// past 72), and says so in characters, which is what people count. A
// password of at most 72 characters can still be over 72 bytes; that
// refusal says why, instead of a limit the person seems to be within.
func ValidatePassword(pw string) error {
	switch {
	case len(pw) >= MinPasswordBytes && len(pw) <= MaxPasswordBytes:
		return nil
	case len(pw) > MaxPasswordBytes && utf8.RuneCountInString(pw) <= MaxPasswordBytes:
		return &FieldError{"password", "is too long: accented letters, other scripts and emoji take 2 to 4 of the 72 bytes a password may use"}
	}
	return &FieldError{"password", "must be 8 to 72 characters"}
}

// The password rule in bytes (docs/api.md#accounts): what bcrypt reads.
const (
	MinPasswordBytes = 8
	MaxPasswordBytes = 72
)

// ValidateEmail accepts a bare address (no display name) of at most 254
// characters whose domain has a dot-free or dotted host part.
func ValidateEmail(email string) error {
	bad := &FieldError{"email", "must be a valid email address"}
	if email == "" || len(email) > 254 || !utf8.ValidString(email) {
		return bad
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return bad
	}
	at := strings.LastIndexByte(email, '@')
	if at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n<>") {
		return bad
	}
	return nil
}

// ValidRole reports whether role may be given to a file-hosting user.
func ValidRole(role string) bool { return role == RoleUser || role == RoleAdmin }

// NewUser is what CreateUser needs. Password is in clear and is hashed here.
type NewUser struct {
	Username   string
	Email      string
	Password   string
	Role       string // user or admin; empty means user
	QuotaBytes int64  // 0 means none
}

// Validate checks the fields of a new user.
func (n NewUser) Validate() error {
	if err := ValidateUsername(n.Username); err != nil {
		return err
	}
	if err := ValidateEmail(n.Email); err != nil {
		return err
	}
	if err := ValidatePassword(n.Password); err != nil {
		return err
	}
	if n.Role != "" && !ValidRole(n.Role) {
		return &FieldError{"role", "must be user or admin"}
	}
	if n.QuotaBytes < 0 {
		return &FieldError{"quota_bytes", "must be 0 (no quota) or more"}
	}
	return nil
}

// CreateUser validates and stores an active user. Usernames and emails are
// unique case-insensitively among all users, the administrator and the
// guest included: ErrUsernameTaken or ErrEmailTaken otherwise.
func (s *Service) CreateUser(ctx context.Context, n NewUser) (*User, error) {
	n.Username = strings.TrimSpace(n.Username)
	n.Email = strings.TrimSpace(n.Email)
	if n.Role == "" {
		n.Role = RoleUser
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkTaken(ctx, n.Username, n.Email); err != nil {
		return nil, err
	}
	hash, err := s.HashPassword(n.Password)
	if err != nil {
		return nil, err
	}
	now := sqlstore.FromTime(s.now())
	u, err := scanUser(s.db.QueryRowWrite(ctx, `INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $7) RETURNING `+userColumns,
		sqlstore.NewID(), n.Username, n.Email, hash, n.Role, n.QuotaBytes, now))
	if errors.Is(err, sqlstore.ErrConflict) {
		// Lost a race with another registration: say which, if we can.
		if err := s.checkTaken(ctx, n.Username, n.Email); err != nil {
			return nil, err
		}
		return nil, ErrUsernameTaken
	}
	if err != nil {
		return nil, fmt.Errorf("auth: create user: %w", err)
	}
	return u, nil
}

// checkTaken reports which of username and email another user holds.
func (s *Service) checkTaken(ctx context.Context, username, email string) error {
	var nameHits, emailHits int
	err := s.db.QueryRowWrite(ctx, `SELECT
		COALESCE(SUM(CASE WHEN LOWER(username) = LOWER($1) THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN email <> '' AND LOWER(email) = LOWER($2) THEN 1 ELSE 0 END), 0)
		FROM users WHERE LOWER(username) = LOWER($1) OR (email <> '' AND LOWER(email) = LOWER($2))`,
		username, email).Scan(&nameHits, &emailHits)
	if err != nil {
		return fmt.Errorf("auth: check user: %w", err)
	}
	switch {
	case nameHits > 0:
		return ErrUsernameTaken
	case emailHits > 0:
		return ErrEmailTaken
	}
	return nil
}

// ListUsers returns one page of users, oldest first, whose username or email
// contains keyword (case-insensitively; empty matches all), and the total.
// The guest is listed too: it owns guest uploads.
func (s *Service) ListUsers(ctx context.Context, keyword string, limit, offset int) ([]User, int, error) {
	cond := ""
	args := []any{}
	if keyword = strings.TrimSpace(keyword); keyword != "" {
		d := s.db.Dialect()
		cond = " WHERE " + d.ILike("username", "$1") + " OR " + d.ILike("email", "$1")
		args = append(args, sqlstore.LikePattern(keyword))
	}
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM users"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("auth: count users: %w", err)
	}
	n := len(args)
	rows, err := s.db.Query(ctx, "SELECT "+userColumns+" FROM users"+cond+
		fmt.Sprintf(" ORDER BY created_at, id LIMIT $%d OFFSET $%d", n+1, n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("auth: list users: %w", err)
	}
	defer rows.Close()
	out := []User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("auth: list users: %w", err)
		}
		out = append(out, *u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("auth: list users: %w", err)
	}
	return out, total, nil
}

// UserPatch holds the changes an administrator may make to a user; nil
// fields stay as they are.
type UserPatch struct {
	Status     *string
	Role       *string
	QuotaBytes *int64
	Password   *string // in clear; hashed by UpdateUser
}

// Validate checks the fields that are present.
func (p UserPatch) Validate() error {
	if p.Status != nil && *p.Status != StatusActive && *p.Status != StatusDisabled {
		return &FieldError{"status", "must be active or disabled"}
	}
	if p.Role != nil && !ValidRole(*p.Role) {
		return &FieldError{"role", "must be user or admin"}
	}
	if p.QuotaBytes != nil && *p.QuotaBytes < 0 {
		return &FieldError{"quota_bytes", "must be 0 (no quota) or more"}
	}
	if p.Password != nil {
		if err := ValidatePassword(*p.Password); err != nil {
			return err
		}
	}
	return nil
}

// UpdateUser applies a patch. The configured administrator cannot be
// disabled or demoted, and the guest can only have its quota changed:
// ErrProtectedUser. A new password or a disabled status also ends the
// user's sessions and refresh tokens, so that what was signed in with the
// old password dies and re-enabling a user does not bring it back.
func (s *Service) UpdateUser(ctx context.Context, id string, p UserPatch) (*User, error) {
	if !sqlstore.ValidID(id) {
		return nil, sqlstore.ErrNotFound
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	switch id {
	case s.adminID:
		if p.Status != nil && *p.Status != StatusActive || p.Role != nil && *p.Role != RoleAdmin {
			return nil, ErrProtectedUser
		}
	case s.guestID:
		if p.Status != nil || p.Role != nil || p.Password != nil {
			return nil, ErrProtectedUser
		}
	}
	sets := []string{}
	args := []any{}
	set := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, fmt.Sprintf("%s = $%d", col, len(args)))
	}
	if p.Status != nil {
		set("status", *p.Status)
	}
	if p.Role != nil {
		set("role", *p.Role)
	}
	if p.QuotaBytes != nil {
		set("quota_bytes", *p.QuotaBytes)
	}
	if p.Password != nil {
		hash, err := s.HashPassword(*p.Password)
		if err != nil {
			return nil, err
		}
		set("password_hash", hash)
	}
	set("updated_at", sqlstore.FromTime(s.now()))
	args = append(args, id)
	var u *User
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, "UPDATE users SET "+strings.Join(sets, ", ")+
			fmt.Sprintf(" WHERE id = $%d RETURNING ", len(args))+userColumns, args...))
		if err != nil {
			return err
		}
		if p.Password != nil || p.Status != nil && *p.Status == StatusDisabled {
			return revokeAll(ctx, tx, id, "", s.now())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("auth: update user: %w", err)
	}
	return u, nil
}

// DeleteUser removes a user with its sessions and tokens (the foreign keys
// cascade). The configured administrator and the guest cannot be deleted:
// ErrProtectedUser. Content owned elsewhere (the file host's files) must
// be released by its owner first.
func (s *Service) DeleteUser(ctx context.Context, id string) error {
	if !sqlstore.ValidID(id) {
		return sqlstore.ErrNotFound
	}
	if id == s.adminID || id == s.guestID {
		return ErrProtectedUser
	}
	res, err := s.db.Exec(ctx, "DELETE FROM users WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("auth: delete user: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("auth: delete user: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// revokeAll ends every session of the user but keepSessionID ("" keeps
// none) and deletes all of the user's refresh tokens.
func revokeAll(ctx context.Context, tx *sqlstore.Tx, userID, keepSessionID string, now time.Time) error {
	if _, err := tx.Exec(ctx, "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND id <> $3 AND revoked_at IS NULL",
		sqlstore.FromTime(now), userID, keepSessionID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "DELETE FROM refresh_tokens WHERE user_id = $1", userID)
	return err
}

// ErrPasswordInConfig is returned when the configured administrator tries
// to change a password that admin.password_hash sets at every start: the
// change would be undone by the next restart.
var ErrPasswordInConfig = errors.New("the administrator's password is set by admin.password_hash in the configuration")

// ChangePassword is a user changing their own password: current must be
// right (ErrInvalidCredentials), next must pass ValidatePassword. Every
// other session of the user and all of its refresh tokens end; the session
// keepSessionID (the one making the change, or "") stays.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next, keepSessionID string) error {
	if err := s.checkUserPassword(ctx, userID, current); err != nil {
		return err
	}
	if err := ValidatePassword(next); err != nil {
		return err
	}
	if userID == s.adminID && s.cfg.AdminPasswordHash != "" {
		return ErrPasswordInConfig
	}
	hash, err := s.HashPassword(next)
	if err != nil {
		return err
	}
	now := s.now()
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3",
			hash, sqlstore.FromTime(now), userID); err != nil {
			return err
		}
		return revokeAll(ctx, tx, userID, keepSessionID, now)
	})
	if err != nil {
		return fmt.Errorf("auth: change password: %w", err)
	}
	return nil
}

// ResetPassword is the operator setting a user's password without knowing
// the current one (folio reset-password). In one transaction it sets the
// password and ends everything signed in with the old one: every session,
// every refresh token and every API token of the user. Access tokens
// already handed out are signed and stateless: they cannot be refreshed
// any more and run out within AccessTokenTTL. The guest has no password
// (ErrProtectedUser); the configured administrator's password cannot be
// reset while admin.password_hash sets it at every start
// (ErrPasswordInConfig). An unknown id: sqlstore.ErrNotFound.
func (s *Service) ResetPassword(ctx context.Context, userID, password string) error {
	if err := ValidatePassword(password); err != nil {
		return err
	}
	if !sqlstore.ValidID(userID) {
		return sqlstore.ErrNotFound
	}
	if userID == s.guestID {
		return ErrProtectedUser
	}
	admin := userID == s.adminID
	if admin && s.cfg.AdminPasswordHash != "" {
		return ErrPasswordInConfig
	}
	hash, err := s.HashPassword(password)
	if err != nil {
		return err
	}
	now := s.now()
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		// Access tokens signed up to this second end too; one signed later
		// in the same second is refused with them, a sub-second window in
		// which a client signs in again.
		res, err := tx.Exec(ctx, "UPDATE users SET password_hash = $1, updated_at = $2, tokens_not_before = $3 WHERE id = $4 AND role <> $5",
			hash, sqlstore.FromTime(now), now.Unix()+1, userID, RoleGuest)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sqlstore.ErrNotFound
		}
		if err := revokeAll(ctx, tx, userID, "", now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE api_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
			sqlstore.FromTime(now), userID); err != nil {
			return err
		}
		if !admin {
			return nil
		}
		// Without this mark a start with no admin.password_hash would take
		// the administrator for new and generate a password over this one
		// (when the hash was configured at the first start and dropped since).
		_, err = tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('admin_password_hash', $1)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, hash)
		return err
	})
	if err != nil {
		return fmt.Errorf("auth: reset password: %w", err)
	}
	return nil
}

// ChangeEmail sets a user's email after ValidateEmail; ErrEmailTaken when
// another user has it (case-insensitively), as for CreateUser.
func (s *Service) ChangeEmail(ctx context.Context, userID, email string) (*User, error) {
	email = strings.TrimSpace(email)
	if err := ValidateEmail(email); err != nil {
		return nil, err
	}
	if !sqlstore.ValidID(userID) {
		return nil, sqlstore.ErrNotFound
	}
	if userID == s.guestID {
		return nil, ErrProtectedUser
	}
	var others int
	if err := s.db.QueryRowWrite(ctx, "SELECT COUNT(*) FROM users WHERE id <> $1 AND email <> '' AND LOWER(email) = LOWER($2)",
		userID, email).Scan(&others); err != nil {
		return nil, fmt.Errorf("auth: change email: %w", err)
	}
	if others > 0 {
		return nil, ErrEmailTaken
	}
	u, err := scanUser(s.db.QueryRowWrite(ctx, "UPDATE users SET email = $1, updated_at = $2 WHERE id = $3 RETURNING "+userColumns,
		email, sqlstore.FromTime(s.now()), userID))
	if errors.Is(err, sqlstore.ErrConflict) {
		return nil, ErrEmailTaken // lost a race with another change
	}
	if err != nil {
		return nil, fmt.Errorf("auth: change email: %w", err)
	}
	return u, nil
}

// SetDefaultVisibility sets the visibility the file host gives a user's
// uploads that ask for none. The file host checks the value
// (docs/filehost.md#visibility); the column accepts only its three names.
func (s *Service) SetDefaultVisibility(ctx context.Context, userID, visibility string) (*User, error) {
	if !sqlstore.ValidID(userID) {
		return nil, sqlstore.ErrNotFound
	}
	u, err := scanUser(s.db.QueryRowWrite(ctx, "UPDATE users SET default_visibility = $1, updated_at = $2 WHERE id = $3 RETURNING "+userColumns,
		visibility, sqlstore.FromTime(s.now()), userID))
	if err != nil {
		return nil, fmt.Errorf("auth: set default visibility: %w", err)
	}
	return u, nil
}
