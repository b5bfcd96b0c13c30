package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestResetPasswordEndsEverySessionAndToken(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	cookie := e.sessionCookie(t, u.ID)
	pair, err := e.svc.IssuePair(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := e.svc.CreateAPIToken(ctx, u.ID, "uploader", nil)
	if err != nil {
		t.Fatal(err)
	}
	theirCookie := e.sessionCookie(t, other.ID)
	theirToken, err := e.svc.CreateAPIToken(ctx, other.ID, "theirs", nil)
	if err != nil {
		t.Fatal(err)
	}
	theirPair, err := e.svc.IssuePair(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie).Expect(200)
	e.get(t, "/user/ping", "Bearer "+tok.Token).Expect(200)
	e.get(t, "/user/ping", "Bearer "+pair.AccessToken).Expect(200)

	if err := e.svc.ResetPassword(ctx, u.ID, "a new password"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CheckPassword(ctx, "alice", "password1"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("old password: %v", err)
	}
	if _, err := e.svc.CheckPassword(ctx, "alice", "a new password"); err != nil {
		t.Errorf("new password: %v", err)
	}
	expectCode(t, e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie), 401, 40100)
	expectCode(t, e.get(t, "/user/ping", "Bearer "+tok.Token), 401, 40100)
	// The stateless access token, signed before the reset, ends with it.
	expectCode(t, e.get(t, "/user/ping", "Bearer "+pair.AccessToken), 401, 40100)
	if _, err := e.svc.Refresh(ctx, pair.RefreshToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("refresh token survived: %v", err)
	}
	if list, _, err := e.svc.ListAPITokens(ctx, u.ID, 10, 0); err != nil || len(list) != 0 {
		t.Errorf("live API tokens after reset: %v, %v", list, err)
	}
	// Nobody else is touched.
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", theirCookie).Expect(200)
	e.get(t, "/user/ping", "Bearer "+theirToken.Token).Expect(200)
	e.get(t, "/user/ping", "Bearer "+theirPair.AccessToken).Expect(200)

	// Signing in again after the reset gives a token that works.
	e.clock.Advance(time.Second)
	again, err := e.svc.IssuePair(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	e.get(t, "/user/ping", "Bearer "+again.AccessToken).Expect(200)
}

func TestResetPasswordRefuses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "", "password1", auth.RoleUser)
	var fe *auth.FieldError
	for _, tc := range []struct {
		name, user, password string
		check                func(error) bool
	}{
		{"a short password", u.ID, "short", func(err error) bool { return errors.As(err, &fe) && fe.Field == "password" }},
		{"a password bcrypt cannot use", u.ID, strings.Repeat("p", 73), func(err error) bool { return errors.As(err, &fe) }},
		{"an unknown user", sqlstore.NewID(), "password2", func(err error) bool { return errors.Is(err, sqlstore.ErrNotFound) }},
		{"a malformed id", "nope", "password2", func(err error) bool { return errors.Is(err, sqlstore.ErrNotFound) }},
		{"the guest", e.svc.GuestID(), "password2", func(err error) bool { return errors.Is(err, auth.ErrProtectedUser) }},
		{"the administrator of admin.password_hash", e.svc.AdminID(), "password2", func(err error) bool { return errors.Is(err, auth.ErrPasswordInConfig) }},
	} {
		if err := e.svc.ResetPassword(ctx, tc.user, tc.password); !tc.check(err) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	if _, err := e.svc.CheckPassword(ctx, "alice", "password1"); err != nil {
		t.Errorf("a refused reset changed the password: %v", err)
	}
}

func TestOpenNeedsADatabaseThatWasServed(t *testing.T) {
	ctx := context.Background()
	db := sqlstoretest.Open(t)
	cfg := authtest.Config(t)
	if _, err := auth.Open(ctx, db, cfg); !errors.Is(err, auth.ErrNotSetUp) {
		t.Fatalf("Open of a database never served: %v", err)
	}
	if _, err := db.Meta(ctx, "session_secret"); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("Open made a session secret: %v", err)
	}
	served := authtest.New(t, db)
	opened, err := auth.Open(ctx, db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opened.AdminID() != served.AdminID() || opened.GuestID() != served.GuestID() {
		t.Errorf("Open found admin %s guest %s, New made %s %s", opened.AdminID(), opened.GuestID(), served.AdminID(), served.GuestID())
	}
}

// A reset administrator password survives the next start without
// admin.password_hash, even when the first start had one configured and
// so never generated a password.
func TestResetAdministratorPasswordSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	db := sqlstoretest.Open(t)
	authtest.New(t, db) // the first start, with admin.password_hash
	cfg := authtest.Config(t)
	cfg.AdminPasswordHash = ""
	svc, err := auth.Open(ctx, db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.ResetPassword(ctx, svc.AdminID(), "the new one"); err != nil {
		t.Fatal(err)
	}
	restarted, err := auth.New(ctx, db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restarted.CheckPassword(ctx, authtest.AdminUsername, "the new one"); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}
