// Package authtest builds an auth.Service for tests, with a known
// administrator password and the cheapest bcrypt cost.
package authtest

import (
	"context"
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
