// Package authtest builds an auth.Service for tests, with a known
// administrator password and the cheapest bcrypt cost.
package authtest

import (
	"context"
	"encoding/base32"
	"io"
	"log/slog"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/sqlstore"
)

// Admin credentials of every test service.
const (
	AdminUsername = "admin"
	AdminPassword = "correct horse battery"
)

// Config is the configuration New uses; tests may start from it.
func Config(t testing.TB) auth.Config {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(AdminPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Config{
		AdminEnabled:      true,
		AdminUsername:     AdminUsername,
		AdminPasswordHash: string(hash),
		SessionTTL:        time.Hour,
		BcryptCost:        bcrypt.MinCost,
		Profile:           auth.Profile{DisplayName: "Test Admin", Email: "admin@example.com"},
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// New returns a ready identity service on db.
func New(t testing.TB, db *sqlstore.DB) *auth.Service {
	t.Helper()
	svc, err := auth.New(context.Background(), db, Config(t))
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	return svc
}

// TOTP is a second factor turned on for a test account.
type TOTP struct {
	Key      []byte   // the secret, to make codes with auth.TOTPCode
	Recovery []string // the ten recovery codes
	// Spent is the code that confirmed the enrolment: its step counts as
	// used, so it is wrong whenever it is sent. The code of the next step
	// (auth.TOTPCode(Key, time.Now().Add(30*time.Second))) is the first
	// that signs in.
	Spent string
}

// EnableTOTP turns two-factor sign-in on for userID through svc.
func EnableTOTP(t testing.TB, svc *auth.Service, userID string) TOTP {
	t.Helper()
	ctx := context.Background()
	secret, _, err := svc.BeginTOTP(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		t.Fatal(err)
	}
	spent := auth.TOTPCode(key, time.Now())
	recovery, err := svc.EnableTOTP(ctx, userID, spent)
	if err != nil {
		t.Fatal(err)
	}
	return TOTP{Key: key, Recovery: recovery, Spent: spent}
}
