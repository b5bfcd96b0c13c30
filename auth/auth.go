// Package auth owns identity, shared by the blog and the file host: users
// (the configured administrator, file-hosting users and the virtual guest),
// passwords, the administrator's blog sessions, access and refresh tokens,
// long-lived API tokens, and the middleware that turns credentials on a
// request into an Identity. Everything that must be shared between processes
// (sessions, revocations, refresh tokens) lives in the database.
package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/sqlstore"
)

// Roles of users.
const (
	RoleAdmin = "admin"
	RoleUser  = "user"
	RoleGuest = "guest"
)

// Profile is the administrator's public profile from configuration.
type Profile struct {
	DisplayName string `json:"display_name"`
	Email       string `json:"email"`
	Bio         string `json:"bio"`
	Avatar      string `json:"avatar"`
	Website     string `json:"website"`
	Location    string `json:"location"`
}

// Config is the administrator configuration (the admin.* keys of
// docs/api.md#identity).
type Config struct {
	AdminEnabled      bool
	AdminUsername     string
	AdminPasswordHash string // bcrypt; empty: generate one at first start
	SessionSecret     string // empty: generate one at first start
	SessionTTL        time.Duration
	Profile           Profile
	BcryptCost        int // 0 means 12; tests use bcrypt.MinCost
	Logger            *slog.Logger
	// SignInURL is where the administrator signs in (the console's sign-in
	// page), named by the line that shows a generated password; empty
	// when there is no such page.
	SignInURL string
}

// Lifetimes of the file side's tokens.
const (
	AccessTokenTTL  = 2 * time.Hour
	RefreshTokenTTL = 30 * 24 * time.Hour
)

// Service is the identity service. Build it once with New and share it.
type Service struct {
	db         *sqlstore.DB
	cfg        Config
	sessionKey []byte
	accessKey  []byte
	formKey    []byte // console form tokens
	ticketKey  []byte // pending-second-factor login tickets
	valueKey   []byte // Seal and Open
	onceKey    []byte // API tokens made by a one-time form (CreateAPITokenOnce)
	adminID    string
	guestID    string
	// dummyHash is compared against when a login names no user, so that
	// the answer takes as long as a real check. Made on first use: a bcrypt
	// hash at cost 12 would add a quarter second to every start.
	dummyHash func() []byte
	now       func() time.Time
}

// ErrInvalidCredentials is returned for a wrong username or password.
var ErrInvalidCredentials = errors.New("invalid username or password")

// New migrates the identity tables and bootstraps the administrator, the
// guest user and the signing secret.
func New(ctx context.Context, db *sqlstore.DB, cfg Config) (*Service, error) {
	if err := db.Migrate(ctx, "auth", migrations()); err != nil {
		return nil, err
	}
	secret := cfg.SessionSecret
	if secret == "" {
		var err error
		secret, err = db.EnsureMeta(ctx, "session_secret", randomHex(32))
		if err != nil {
			return nil, fmt.Errorf("auth: session secret: %w", err)
		}
	}
	s := newService(db, cfg, secret)
	if err := s.bootstrap(ctx); err != nil {
		return nil, fmt.Errorf("auth: bootstrap: %w", err)
	}
	return s, nil
}

// ErrNotSetUp is returned by Open for a database no serving process has
// prepared yet.
var ErrNotSetUp = errors.New("the database holds no users yet: start folio serve once")

// Open returns the service over a database that a serving process has
// migrated and bootstrapped, without migrating or bootstrapping anything:
// a command such as folio reset-password must not create an administrator,
// a secret or a generated password on its way. A schema at another version
// than this binary's is refused.
func Open(ctx context.Context, db *sqlstore.DB, cfg Config) (*Service, error) {
	v, err := db.SchemaVersion(ctx, "auth")
	if err != nil {
		// Most likely no table at all: nothing was ever served here.
		return nil, fmt.Errorf("auth: schema version (has folio serve run on this database?): %w", err)
	}
	if v == 0 {
		return nil, ErrNotSetUp
	}
	if want := len(migrations()); v != want {
		return nil, fmt.Errorf("auth: the database schema is at version %d, this binary's at %d: start folio serve of this version once", v, want)
	}
	meta := func(key string) (string, error) {
		val, err := db.Meta(ctx, key)
		if errors.Is(err, sqlstore.ErrNotFound) {
			return "", ErrNotSetUp
		}
		return val, err
	}
	secret := cfg.SessionSecret
	if secret == "" {
		if secret, err = meta("session_secret"); err != nil {
			return nil, err
		}
	}
	s := newService(db, cfg, secret)
	if s.adminID, err = meta("admin_user_id"); err != nil {
		return nil, err
	}
	if s.guestID, err = meta("guest_user_id"); err != nil {
		return nil, err
	}
	return s, nil
}

// newService fills in the defaults of cfg and derives the keys.
func newService(db *sqlstore.DB, cfg Config, secret string) *Service {
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = 12
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 168 * time.Hour
	}
	if cfg.AdminUsername == "" {
		cfg.AdminUsername = "admin"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Service{db: db, cfg: cfg, now: time.Now}
	s.sessionKey = derive(secret, "folio session v1")
	s.accessKey = derive(secret, "folio access v1")
	s.formKey = derive(secret, "folio form v1")
	s.ticketKey = derive(secret, "folio login ticket v1")
	s.valueKey = derive(secret, "folio signed values v1")
	s.onceKey = derive(secret, "folio api token once v1")
	s.dummyHash = sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte(randomHex(8)), cfg.BcryptCost) // fails only for cost out of range, checked by HashPassword users
		return h
	})
	return s
}

// AdminID is the user id of the configured administrator.
func (s *Service) AdminID() string { return s.adminID }

// GuestID is the user id of the virtual guest who owns guest uploads.
func (s *Service) GuestID() string { return s.guestID }

// AdminEnabled reports whether the administrator may log in.
func (s *Service) AdminEnabled() bool { return s.cfg.AdminEnabled }

// Profile is the administrator's configured profile.
func (s *Service) Profile() Profile { return s.cfg.Profile }

// HashPassword hashes a password with the configured bcrypt cost.
func (s *Service) HashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	return string(h), nil
}

// hashGenerated hashes a generated password: at most cost 10, never above
// the configured cost (tests configure the minimum).
func (s *Service) hashGenerated(pw string) (string, error) {
	cost := min(s.cfg.BcryptCost, bcrypt.DefaultCost)
	h, err := bcrypt.GenerateFromPassword([]byte(pw), cost)
	if err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	return string(h), nil
}

func (s *Service) bootstrap(ctx context.Context) error {
	now := sqlstore.FromTime(s.now())
	guestID, err := s.db.EnsureMeta(ctx, "guest_user_id", sqlstore.NewID())
	if err != nil {
		return err
	}
	if _, err := s.db.Exec(ctx, `INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ($1, 'guest', '', '', 'guest', 'active', 0, $2, $2) ON CONFLICT (id) DO NOTHING`, guestID, now); err != nil {
		return fmt.Errorf("guest user: %w", err)
	}
	s.guestID = guestID

	adminID, err := s.db.EnsureMeta(ctx, "admin_user_id", sqlstore.NewID())
	if err != nil {
		return err
	}
	s.adminID = adminID
	if _, err := s.db.Exec(ctx, `INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ($1, $2, $3, '', 'admin', 'active', 0, $4, $4) ON CONFLICT (id) DO NOTHING`,
		adminID, s.cfg.AdminUsername, s.cfg.Profile.Email, now); err != nil {
		return fmt.Errorf("administrator user: %w", err)
	}
	// The configuration names the administrator: follow renames.
	if _, err := s.db.Exec(ctx, `UPDATE users SET username = $1, role = 'admin', status = 'active', updated_at = $2
		WHERE id = $3 AND (username <> $1 OR role <> 'admin' OR status <> 'active')`,
		s.cfg.AdminUsername, now, adminID); err != nil {
		if errors.Is(err, sqlstore.ErrConflict) {
			return fmt.Errorf("admin.username %q is already taken by another user", s.cfg.AdminUsername)
		}
		return fmt.Errorf("administrator user: %w", err)
	}

	if s.cfg.AdminPasswordHash != "" {
		if _, err := bcrypt.Cost([]byte(s.cfg.AdminPasswordHash)); err != nil {
			return errors.New("admin.password_hash is not a bcrypt hash (make one with: folio hash-password)")
		}
		_, err := s.db.Exec(ctx, "UPDATE users SET password_hash = $1 WHERE id = $2", s.cfg.AdminPasswordHash, adminID)
		return err
	}
	if _, err := s.db.Meta(ctx, "admin_password_hash"); err == nil {
		return nil // generated at an earlier start; the users row is the truth now
	} else if !errors.Is(err, sqlstore.ErrNotFound) {
		return err
	}
	password := randomPassword()
	// bcrypt's work factor slows the guessing of passwords people choose;
	// this one is ~116 random bits, out of reach at any cost. Cost 10
	// rather than 12 keeps a fresh install's first start to healthy under
	// 300 ms (12 alone takes ~250 ms on a small host). A password the
	// administrator sets later is hashed at the configured cost.
	hash, err := s.hashGenerated(password)
	if err != nil {
		return err
	}
	stored, err := s.db.EnsureMeta(ctx, "admin_password_hash", hash)
	if err != nil {
		return err
	}
	if stored != hash {
		return nil // another process generated it first and printed its own
	}
	if _, err := s.db.Exec(ctx, "UPDATE users SET password_hash = $1 WHERE id = $2", hash, adminID); err != nil {
		return err
	}
	// The one line a first start must be read for: it says where the
	// password goes, not only what it is.
	where, attrs := "", []any{"username", s.cfg.AdminUsername, "password", password}
	if s.cfg.SignInURL != "" {
		where = "sign in at " + s.cfg.SignInURL + " as " + s.cfg.AdminUsername + " with it; "
		attrs = append(attrs, "sign_in", s.cfg.SignInURL)
	}
	s.cfg.Logger.Warn("generated the administrator password; "+where+"it is shown only this once, store it now or set admin.password_hash", attrs...)
	return nil
}

func derive(secret, purpose string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randomPassword() string {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// hashToken is how random tokens are stored: only their SHA-256.
func hashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

func migrations() []sqlstore.Migration {
	return []sqlstore.Migration{
		{Name: "users, sessions and tokens", Up: sqlstore.Statements(
			`CREATE TABLE users (
				id {{uuid}} PRIMARY KEY,
				username TEXT NOT NULL,
				email TEXT NOT NULL DEFAULT '',
				password_hash TEXT NOT NULL DEFAULT '',
				role TEXT NOT NULL,
				status TEXT NOT NULL DEFAULT 'active',
				quota_bytes BIGINT NOT NULL DEFAULT 0,
				used_bytes BIGINT NOT NULL DEFAULT 0,
				file_count BIGINT NOT NULL DEFAULT 0,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE UNIQUE INDEX users_username ON users (LOWER(username))`,
			`CREATE UNIQUE INDEX users_email ON users (LOWER(email)) WHERE email <> ''`,
			`CREATE TABLE sessions (
				id TEXT PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				created_at BIGINT NOT NULL,
				expires_at BIGINT NOT NULL,
				revoked_at BIGINT
			)`,
			`CREATE TABLE refresh_tokens (
				hash TEXT PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				created_at BIGINT NOT NULL,
				expires_at BIGINT NOT NULL,
				used_at BIGINT
			)`,
			`CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id)`,
			`CREATE TABLE api_tokens (
				id {{uuid}} PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				name TEXT NOT NULL,
				hash TEXT NOT NULL UNIQUE,
				created_at BIGINT NOT NULL,
				expires_at BIGINT,
				last_used_at BIGINT,
				revoked_at BIGINT
			)`,
			`CREATE INDEX api_tokens_user ON api_tokens (user_id, created_at)`,
		)},
		{Name: "two-factor sign-in and session details", Up: sqlstore.Statements(
			// totp_secret and totp_pending are base32 text; totp_last_step
			// is the last accepted time step, against replays.
			`ALTER TABLE users ADD COLUMN totp_secret TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE users ADD COLUMN totp_pending TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE users ADD COLUMN totp_enabled BOOLEAN NOT NULL DEFAULT FALSE`,
			`ALTER TABLE users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0`,
			`CREATE TABLE recovery_codes (
				id {{uuid}} PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				hash TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				used_at BIGINT
			)`,
			`CREATE INDEX recovery_codes_user ON recovery_codes (user_id, hash)`,
			`ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT`,
			`CREATE INDEX sessions_user ON sessions (user_id)`,
		)},
		// Access tokens are stateless: a reset password ends those signed
		// before it through this cutoff, in unix seconds (ResetPassword).
		{Name: "access tokens cut off by a password reset", Up: sqlstore.Statements(
			`ALTER TABLE users ADD COLUMN tokens_not_before BIGINT NOT NULL DEFAULT 0`,
		)},
		// The visibility the file host gives a user's uploads that ask for
		// none (docs/filehost.md#visibility).
		{Name: "default visibility of uploads", Up: sqlstore.Statements(
			`ALTER TABLE users ADD COLUMN default_visibility TEXT NOT NULL DEFAULT 'unlisted'
				CHECK (default_visibility IN ('public', 'unlisted', 'restricted'))`,
		)},
		// The second factor's per-account limit (auth/factorlimit.go):
		// failures counted since factor_window_start, and the end of a
		// lock, all in stored time (0: none).
		{Name: "second-factor failures per account", Up: sqlstore.Statements(
			`ALTER TABLE users ADD COLUMN factor_failures INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE users ADD COLUMN factor_window_start BIGINT NOT NULL DEFAULT 0`,
			`ALTER TABLE users ADD COLUMN factor_locked_until BIGINT NOT NULL DEFAULT 0`,
		)},
	}
}
