package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestCheckPassword(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "Grace", "Grace@Example.com", "s3cret-pass", auth.RoleUser)
	tests := []struct {
		name, login, password string
		want                  error
	}{
		{"username", "Grace", "s3cret-pass", nil},
		{"username any case", " grace ", "s3cret-pass", nil},
		{"email", "grace@example.com", "s3cret-pass", nil},
		{"admin", authtest.AdminUsername, authtest.AdminPassword, nil},
		{"admin by profile email", "admin@example.com", authtest.AdminPassword, nil},
		{"wrong password", "Grace", "wrong", auth.ErrInvalidCredentials},
		{"unknown user", "nobody", "s3cret-pass", auth.ErrInvalidCredentials},
		{"empty login", "", "", auth.ErrInvalidCredentials},
		{"guest", "guest", "", auth.ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.svc.CheckPassword(ctx, tt.login, tt.password)
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckPassword(%q) = %v, want %v", tt.login, err, tt.want)
			}
			if tt.want == nil && got == nil {
				t.Fatal("no user returned")
			}
			if tt.name == "email" && got.ID != u.ID {
				t.Fatalf("email login found %s, want %s", got.ID, u.ID)
			}
		})
	}
}

// bootLog collects a service's log as JSON lines.
type bootLog struct{ bytes.Buffer }

func (b *bootLog) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(b, nil)) }

// generatedPassword returns the password of the "generated" log line, if any.
func (b *bootLog) generatedPassword(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var rec map[string]any
		if line == "" || json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, "generated the administrator password") {
			pw, _ := rec["password"].(string)
			return pw
		}
	}
	return ""
}

func TestBootstrapGeneratesPasswordOnce(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	conf := authtest.Config(t)
	conf.AdminPasswordHash = ""

	var first bootLog
	conf.Logger = first.logger()
	svc, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	pw := first.generatedPassword(t)
	if len(pw) < 16 {
		t.Fatalf("generated password %q not logged; log: %s", pw, first.String())
	}
	if _, err := svc.CheckPassword(ctx, conf.AdminUsername, pw); err != nil {
		t.Fatalf("generated password does not log in: %v", err)
	}

	var second bootLog
	conf.Logger = second.logger()
	svc2, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	if again := second.generatedPassword(t); again != "" {
		t.Fatalf("second start generated another password %q", again)
	}
	if _, err := svc2.CheckPassword(ctx, conf.AdminUsername, pw); err != nil {
		t.Fatalf("password of the first start rejected after restart: %v", err)
	}
	if svc2.AdminID() != svc.AdminID() || svc2.GuestID() != svc.GuestID() {
		t.Fatal("restart changed the administrator or guest id")
	}
	// The generated session secret is kept too: old tokens still verify.
	tok, _ := svc.NewAccessToken(svc.AdminID())
	c := newEnvFor(t, svc2)
	c.get(t, "/admin/ping", "Bearer "+tok).Expect(200)
}

// A generated password is long and random: it is hashed at bcrypt's
// default cost, below the configured 12, so that a first start stays fast.
func TestBootstrapHashesTheGeneratedPasswordAtCost10(t *testing.T) {
	ctx := context.Background()
	db := sqlstoretest.NewConfig(t).Open(t)
	conf := authtest.Config(t)
	conf.AdminPasswordHash = ""
	conf.BcryptCost = 0 // the production default, 12
	var log bootLog
	conf.Logger = log.logger()
	if _, err := auth.New(ctx, db, conf); err != nil {
		t.Fatal(err)
	}
	hash, err := db.Meta(ctx, "admin_password_hash")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost != bcrypt.DefaultCost {
		t.Fatalf("generated password hashed at cost %d (%v), want %d", cost, err, bcrypt.DefaultCost)
	}
	if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(log.generatedPassword(t))); err != nil {
		t.Fatalf("stored hash does not match the logged password: %v", err)
	}
}

func TestBootstrapConfiguredHashWins(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	conf := authtest.Config(t)
	conf.AdminPasswordHash = ""
	var log bootLog
	conf.Logger = log.logger()
	if _, err := auth.New(ctx, cfg.Open(t), conf); err != nil {
		t.Fatal(err)
	}
	generated := log.generatedPassword(t)

	hash, _ := bcrypt.GenerateFromPassword([]byte("configured password"), bcrypt.MinCost)
	conf.AdminPasswordHash = string(hash)
	svc, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CheckPassword(ctx, conf.AdminUsername, "configured password"); err != nil {
		t.Fatalf("configured password rejected: %v", err)
	}
	if _, err := svc.CheckPassword(ctx, conf.AdminUsername, generated); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("generated password still accepted: %v", err)
	}

	conf.AdminPasswordHash = "not-a-bcrypt-hash"
	if _, err := auth.New(ctx, cfg.Open(t), conf); err == nil || !strings.Contains(err.Error(), "password_hash") {
		t.Fatalf("bad hash = %v, want an error naming admin.password_hash", err)
	}
}

func TestBootstrapAdminDisabled(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	conf := authtest.Config(t)
	conf.AdminEnabled = false
	svc, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CheckPassword(ctx, conf.AdminUsername, authtest.AdminPassword); !errors.Is(err, auth.ErrAdminDisabled) {
		t.Fatalf("disabled admin login = %v, want ErrAdminDisabled", err)
	}
	if _, err := svc.CheckPassword(ctx, conf.AdminUsername, "wrong"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("disabled admin, wrong password = %v, want ErrInvalidCredentials", err)
	}
	tok, _ := svc.NewAccessToken(svc.AdminID())
	e := newEnvFor(t, svc)
	expectCode(t, e.get(t, "/admin/ping", "Bearer "+tok), 401, 40100)
}

func TestBootstrapAdminRenameFollowsConfig(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	conf := authtest.Config(t)
	svc, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	conf.AdminUsername = "alice"
	renamed, err := auth.New(ctx, cfg.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	if renamed.AdminID() != svc.AdminID() {
		t.Fatal("rename made a new administrator")
	}
	u, err := renamed.CheckPassword(ctx, "alice", authtest.AdminPassword)
	if err != nil || u.Username != "alice" || u.Role != auth.RoleAdmin {
		t.Fatalf("login as renamed admin = %+v, %v", u, err)
	}
	if _, err := renamed.CheckPassword(ctx, authtest.AdminUsername, authtest.AdminPassword); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("old admin name still logs in: %v", err)
	}

	// A configured name taken by another user is refused with a clear error.
	db := cfg.Open(t)
	now := sqlstore.FromTime(u.CreatedAt)
	if _, err := db.Exec(ctx, `INSERT INTO users (id, username, role, created_at, updated_at) VALUES ($1, 'taken', 'user', $2, $2)`, sqlstore.NewID(), now); err != nil {
		t.Fatal(err)
	}
	conf.AdminUsername = "taken"
	if _, err := auth.New(ctx, db, conf); err == nil || !strings.Contains(err.Error(), "already taken") {
		t.Fatalf("rename onto a taken name = %v", err)
	}
}

func TestSessionSecretFromConfig(t *testing.T) {
	ctx := context.Background()
	conf := authtest.Config(t)
	conf.SessionSecret = "shared secret"
	a, err := auth.New(ctx, sqlstoretest.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := auth.New(ctx, sqlstoretest.Open(t), conf)
	if err != nil {
		t.Fatal(err)
	}
	// Same secret, different databases: the signature verifies, the user
	// id does not exist there, so still 401 rather than a crash.
	tok, _ := a.NewAccessToken(a.AdminID())
	expectCode(t, newEnvFor(t, b).get(t, "/admin/ping", "Bearer "+tok), 401, 40100)
	tok, _ = b.NewAccessToken(b.AdminID())
	newEnvFor(t, b).get(t, "/admin/ping", "Bearer "+tok).Expect(200)
}
