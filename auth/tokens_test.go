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

func TestAccessToken(t *testing.T) {
	e := newEnv(t)
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	tok, exp := e.svc.NewAccessToken(u.ID)
	if d := exp.Sub(e.clock.Now()); d != auth.AccessTokenTTL {
		t.Fatalf("expiry in %v, want %v", d, auth.AccessTokenTTL)
	}
	other := authtest.New(t, sqlstoretest.Open(t)) // another secret
	foreign, _ := other.NewAccessToken(u.ID)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	tests := []struct {
		name, header string
		status       int
	}{
		{"valid", "Bearer " + tok, 200},
		{"scheme is case-insensitive", "bearer " + tok, 200},
		{"tampered mac", "Bearer " + flip(tok, len(tok)-3), 401},
		{"tampered user id", "Bearer " + strings.Replace(tok, u.ID, sqlstore.NewID(), 1), 401},
		{"tampered expiry", "Bearer " + strings.Replace(tok, "."+strings.Split(tok, ".")[2]+".", ".9999999999.", 1), 401},
		{"truncated", "Bearer " + tok[:len(tok)-10], 401},
		{"other secret", "Bearer " + foreign, 401},
		{"garbage", "Bearer abc", 401},
		{"empty bearer", "Bearer ", 401},
		{"other scheme", "Basic YWxpY2U6cHc=", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.get(t, "/user/ping", tt.header)
			if tt.status == 200 {
				res.Expect(200)
				return
			}
			expectCode(t, res, 401, 40100)
		})
	}
	e.clock.Advance(auth.AccessTokenTTL - time.Second)
	e.get(t, "/user/ping", "Bearer "+tok).Expect(200)
	e.clock.Advance(2 * time.Second)
	expectCode(t, e.get(t, "/user/ping", "Bearer "+tok), 401, 40100)
}

// Through a real server: an access token that is not exactly the
// signer's text is 401 as a Bearer token and as the access_token cookie.
func TestAccessTokenMustBeTheSignersText(t *testing.T) {
	e := newEnv(t)
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	tok, _ := e.svc.NewAccessToken(u.ID)
	e.get(t, "/user/ping", "Bearer "+tok).Expect(200)
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", auth.AccessCookie+"="+tok).Expect(200)
	for _, v := range authtest.MACVariants(t, tok) {
		if !v.Header {
			continue // no client sends a CR or LF in a header; TestSignedValuesAcceptOnlyTheSignersText covers them
		}
		t.Run(v.Name, func(t *testing.T) {
			expectCode(t, e.visitor(t).Do("GET", "/user/ping", nil, "Authorization", "Bearer "+v.Value), 401, 40100)
			expectCode(t, e.visitor(t).Do("GET", "/user/ping", nil, "Cookie", auth.AccessCookie+"="+v.Value), 401, 40100)
		})
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "bob", "bob@example.com", "password1", auth.RoleUser)
	p1, err := e.svc.IssuePair(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if p1.TokenType != "Bearer" || p1.ExpiresIn != 7200 || p1.User.ID != u.ID {
		t.Fatalf("pair = %+v", p1)
	}
	e.get(t, "/user/ping", "Bearer "+p1.AccessToken).Expect(200)

	p2, err := e.svc.Refresh(ctx, p1.RefreshToken)
	if err != nil {
		t.Fatalf("first refresh: %v", err)
	}
	if p2.RefreshToken == p1.RefreshToken {
		t.Fatal("refresh did not rotate the refresh token")
	}
	e.get(t, "/user/ping", "Bearer "+p2.AccessToken).Expect(200)

	// Replaying the spent token is reuse: it fails and revokes p2's too.
	if _, err := e.svc.Refresh(ctx, p1.RefreshToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("reuse = %v, want ErrInvalidToken", err)
	}
	if _, err := e.svc.Refresh(ctx, p2.RefreshToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("after reuse the newest token = %v, want revoked", err)
	}

	for _, bad := range []string{"", "unknown-token"} {
		if _, err := e.svc.Refresh(ctx, bad); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("Refresh(%q) = %v, want ErrInvalidToken", bad, err)
		}
	}
}

func TestRefreshExpiryLogoutAndDisabled(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "carol", "", "password1", auth.RoleUser)
	issue := func() string {
		p, err := e.svc.IssuePair(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		return p.RefreshToken
	}
	expired := issue()
	e.clock.Advance(auth.RefreshTokenTTL + time.Second)
	if _, err := e.svc.Refresh(ctx, expired); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("expired refresh = %v", err)
	}
	loggedOut := issue()
	if err := e.svc.RevokeRefresh(ctx, loggedOut); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Refresh(ctx, loggedOut); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("refresh after logout = %v", err)
	}
	disabled := issue()
	e.setStatus(t, u.ID, "disabled")
	if _, err := e.svc.Refresh(ctx, disabled); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("refresh of a disabled user = %v", err)
	}
}

func TestAPITokens(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "dave", "dave@example.com", "password1", auth.RoleUser)
	other := e.createUser(t, "erin", "erin@example.com", "password1", auth.RoleUser)

	tok, err := e.svc.CreateAPIToken(ctx, u.ID, "picgo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.Token, auth.APITokenPrefix) || len(tok.Token) < 30 || tok.ExpiresAt != nil || tok.LastUsedAt != nil {
		t.Fatalf("created token = %+v", tok)
	}
	var stored int
	if err := e.db.QueryRow(ctx, "SELECT COUNT(*) FROM api_tokens WHERE hash = $1", tok.Token).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("token value stored in clear (%d, %v)", stored, err)
	}

	list, total, err := e.svc.ListAPITokens(ctx, u.ID, 10, 0)
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != tok.ID || list[0].Token != "" || list[0].LastUsedAt != nil {
		t.Fatalf("list = %+v, %d, %v", list, total, err)
	}

	for _, header := range []string{"Bearer " + tok.Token, tok.Token, "  " + tok.Token + "  "} {
		if got := e.get(t, "/user/ping", header).Expect(200).A(); !strings.Contains(string(got.Data), `"via":"api_token"`) {
			t.Fatalf("%q: %s", header, got.Data)
		}
	}
	list, _, _ = e.svc.ListAPITokens(ctx, u.ID, 10, 0)
	if list[0].LastUsedAt == nil || list[0].LastUsedAt.Sub(e.clock.Now()).Abs() > time.Second {
		t.Fatalf("last_used_at = %v after use, want about now", list[0].LastUsedAt)
	}

	expectCode(t, e.get(t, "/user/ping", tok.Token+"x"), 401, 40100)
	expectCode(t, e.get(t, "/user/ping", "folio_"), 401, 40100)

	if err := e.svc.RevokeAPIToken(ctx, other.ID, tok.ID); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("revoke by another user = %v, want ErrNotFound", err)
	}
	if err := e.svc.RevokeAPIToken(ctx, u.ID, "not-an-id"); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("revoke malformed id = %v, want ErrNotFound", err)
	}
	e.get(t, "/user/ping", tok.Token).Expect(200)
	if err := e.svc.RevokeAPIToken(ctx, u.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	expectCode(t, e.get(t, "/user/ping", "Bearer "+tok.Token), 401, 40100)
	if err := e.svc.RevokeAPIToken(ctx, u.ID, tok.ID); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("second revoke = %v, want ErrNotFound", err)
	}
	if _, total, _ := e.svc.ListAPITokens(ctx, u.ID, 10, 0); total != 0 {
		t.Fatalf("revoked token still listed (%d)", total)
	}

	exp := e.clock.Now().Add(time.Hour)
	expiring, err := e.svc.CreateAPIToken(ctx, u.ID, "short", &exp)
	if err != nil {
		t.Fatal(err)
	}
	e.get(t, "/user/ping", expiring.Token).Expect(200)
	e.clock.Advance(time.Hour)
	expectCode(t, e.get(t, "/user/ping", expiring.Token), 401, 40100)
}

func TestDisabledUserRejectedAtOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "frank", "", "password1", auth.RoleUser)
	access, _ := e.svc.NewAccessToken(u.ID)
	api, err := e.svc.CreateAPIToken(ctx, u.ID, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.get(t, "/user/ping", "Bearer "+access).Expect(200)
	e.get(t, "/user/ping", api.Token).Expect(200)
	e.setStatus(t, u.ID, "disabled")
	expectCode(t, e.get(t, "/user/ping", "Bearer "+access), 401, 40100)
	expectCode(t, e.get(t, "/user/ping", api.Token), 401, 40100)
	if _, err := e.svc.CheckPassword(ctx, "frank", "password1"); !errors.Is(err, auth.ErrDisabled) {
		t.Fatalf("login of disabled user = %v, want ErrDisabled", err)
	}
	e.setStatus(t, u.ID, "active")
	e.get(t, "/user/ping", "Bearer "+access).Expect(200)
}

func TestGuestCannotAuthenticate(t *testing.T) {
	e := newEnv(t)
	access, _ := e.svc.NewAccessToken(e.svc.GuestID())
	expectCode(t, e.get(t, "/user/ping", "Bearer "+access), 401, 40100)
	if _, err := e.svc.CheckPassword(context.Background(), "guest", ""); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("guest login = %v", err)
	}
}
