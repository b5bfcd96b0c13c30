package auth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestValidateUsername(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"abc", true}, {"A_b-9", true}, {strings.Repeat("x", 32), true},
		{"ab", false}, {strings.Repeat("x", 33), false}, {"a b", false}, {"a.b", false},
		{"héllo", false}, {"abc\n", false}, {"", false}, {"a@b", false},
	} {
		if err := auth.ValidateUsername(tc.in); (err == nil) != tc.ok {
			t.Errorf("ValidateUsername(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func TestValidatePasswordCountsBytesAndSaysCharacters(t *testing.T) {
	const chars = "password must be 8 to 72 characters"
	const bytes = "password is too long: accented letters, other scripts and emoji take 2 to 4 of the 72 bytes a password may use"
	for _, tc := range []struct {
		name, in, want string // want "" is accepted
	}{
		{"eight ASCII", "12345678", ""},
		{"72 ASCII", strings.Repeat("p", 72), ""},
		{"accents within 72 bytes", "päss wörd", ""},
		{"three CJK letters are 9 bytes", "密码字", ""},
		{"seven ASCII", "1234567", chars},
		{"empty", "", chars},
		{"73 ASCII", strings.Repeat("p", 73), chars},
		{"73 accented letters", strings.Repeat("é", 73), chars},
		{"37 accented letters are 74 bytes", strings.Repeat("é", 37), bytes},
		{"19 emoji are 76 bytes", strings.Repeat("🔑", 19), bytes},
	} {
		err := auth.ValidatePassword(tc.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: ValidatePassword = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestValidateEmail(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"a@example.com", true}, {"first.last+tag@sub.example.org", true}, {"x@localhost", true},
		{"", false}, {"example.com", false}, {"@example.com", false}, {"a@", false},
		{"A <a@example.com>", false}, {"a b@example.com", false}, {"a@exa mple.com", false},
		{strings.Repeat("a", 250) + "@b.co", false},
	} {
		if err := auth.ValidateEmail(tc.in); (err == nil) != tc.ok {
			t.Errorf("ValidateEmail(%q) = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func acctService(t *testing.T) (*auth.Service, *sqlstore.DB) {
	t.Helper()
	db := sqlstoretest.Open(t)
	return authtest.New(t, db), db
}

func TestCreateUserIsUniqueCaseInsensitively(t *testing.T) {
	svc, _ := acctService(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, auth.NewUser{Username: " Alice ", Email: "Alice@Example.com", Password: "password123", QuotaBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if u.Username != "Alice" || u.Role != auth.RoleUser || u.Status != auth.StatusActive || u.QuotaBytes != 10 {
		t.Fatalf("user = %+v", u)
	}
	if got, err := svc.CheckPassword(ctx, "alice", "password123"); err != nil || got.ID != u.ID {
		t.Fatalf("CheckPassword = %v, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		nu   auth.NewUser
		want error
	}{
		{"username", auth.NewUser{Username: "ALICE", Email: "b@example.com", Password: "password123"}, auth.ErrUsernameTaken},
		{"email", auth.NewUser{Username: "bob", Email: "alice@EXAMPLE.com", Password: "password123"}, auth.ErrEmailTaken},
		{"guest", auth.NewUser{Username: "Guest", Email: "g@example.com", Password: "password123"}, auth.ErrUsernameTaken},
		{"administrator", auth.NewUser{Username: authtest.AdminUsername, Email: "x@example.com", Password: "password123"}, auth.ErrUsernameTaken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := svc.CreateUser(ctx, tc.nu); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	var fe *auth.FieldError
	if _, err := svc.CreateUser(ctx, auth.NewUser{Username: "carl", Email: "c@example.com", Password: "password123", Role: "guest"}); !errors.As(err, &fe) || fe.Field != "role" {
		t.Fatalf("guest role: %v", err)
	}
}

func TestListUsersSearchesUsernameAndEmail(t *testing.T) {
	svc, _ := acctService(t)
	ctx := context.Background()
	for _, n := range []string{"anna", "bert", "cora_x"} {
		if _, err := svc.CreateUser(ctx, auth.NewUser{Username: n, Email: n + "@mail.test", Password: "password123"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		keyword string
		total   int
		first   string
	}{
		{"", 5, "guest"}, // bootstrap makes the guest first, then the administrator
		{"MAIL.TEST", 3, "anna"},
		{"ber", 1, "bert"},
		{"_", 1, "cora_x"}, // a literal underscore, not a wildcard
		{"%", 0, ""},
	} {
		t.Run(tc.keyword, func(t *testing.T) {
			users, total, err := svc.ListUsers(ctx, tc.keyword, 10, 0)
			if err != nil {
				t.Fatal(err)
			}
			if total != tc.total || len(users) != tc.total || (tc.total > 0 && users[0].Username != tc.first) {
				t.Fatalf("total %d, users %+v", total, users)
			}
		})
	}
	users, total, err := svc.ListUsers(ctx, "", 2, 4)
	if err != nil || total != 5 || len(users) != 1 || users[0].Username != "cora_x" {
		t.Fatalf("page = %+v, %d, %v", users, total, err)
	}
}

func TestUpdateUserProtectsTheAdministratorAndGuest(t *testing.T) {
	svc, _ := acctService(t)
	ctx := context.Background()
	str := func(s string) *string { return &s }
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name string
		id   string
		p    auth.UserPatch
	}{
		{"disable admin", svc.AdminID(), auth.UserPatch{Status: str(auth.StatusDisabled)}},
		{"demote admin", svc.AdminID(), auth.UserPatch{Role: str(auth.RoleUser)}},
		{"disable guest", svc.GuestID(), auth.UserPatch{Status: str(auth.StatusDisabled)}},
		{"promote guest", svc.GuestID(), auth.UserPatch{Role: str(auth.RoleAdmin)}},
		{"guest password", svc.GuestID(), auth.UserPatch{Password: str("password123")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := svc.UpdateUser(ctx, tc.id, tc.p); !errors.Is(err, auth.ErrProtectedUser) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	for _, id := range []string{svc.AdminID(), svc.GuestID()} {
		if err := svc.DeleteUser(ctx, id); !errors.Is(err, auth.ErrProtectedUser) {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	if u, err := svc.UpdateUser(ctx, svc.GuestID(), auth.UserPatch{QuotaBytes: n(99)}); err != nil || u.QuotaBytes != 99 {
		t.Fatalf("guest quota: %+v, %v", u, err)
	}
	if u, err := svc.UpdateUser(ctx, svc.AdminID(), auth.UserPatch{Password: str("another password")}); err != nil || u.Role != auth.RoleAdmin {
		t.Fatalf("admin password: %+v, %v", u, err)
	}
	if _, err := svc.CheckPassword(ctx, authtest.AdminUsername, "another password"); err != nil {
		t.Fatalf("new admin password: %v", err)
	}
	if _, err := svc.UpdateUser(ctx, sqlstore.NewID(), auth.UserPatch{QuotaBytes: n(1)}); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
	if err := svc.DeleteUser(ctx, sqlstore.NewID()); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("delete unknown user: %v", err)
	}
}

func TestPasswordChangeAndDisableEndRefreshTokens(t *testing.T) {
	svc, _ := acctService(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, auth.NewUser{Username: "dina", Email: "dina@example.com", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	for _, p := range []auth.UserPatch{{Password: str("password456")}, {Status: str(auth.StatusDisabled)}} {
		pair, err := svc.IssuePair(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateUser(ctx, u.ID, p); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateUser(ctx, u.ID, auth.UserPatch{Status: str(auth.StatusActive)}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Refresh(ctx, pair.RefreshToken); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("refresh after %+v: %v", p, err)
		}
	}
	// A quota change leaves sessions alone.
	pair, err := svc.IssuePair(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	q := int64(5)
	if _, err := svc.UpdateUser(ctx, u.ID, auth.UserPatch{QuotaBytes: &q}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Refresh(ctx, pair.RefreshToken); err != nil {
		t.Fatalf("refresh after quota change: %v", err)
	}
}

func TestDeleteUserEndsTheirTokens(t *testing.T) {
	svc, db := acctService(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, auth.NewUser{Username: "emil", Email: "emil@example.com", Password: "password123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateAPIToken(ctx, u.ID, "t", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.IssuePair(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"api_tokens", "refresh_tokens", "users"} {
		var n int
		if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE "+map[bool]string{true: "id", false: "user_id"}[table == "users"]+" = $1", u.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%d rows left in %s", n, table)
		}
	}
	if _, err := svc.UserByID(ctx, u.ID); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("UserByID after delete: %v", err)
	}
}

func TestAdminDisableAndPasswordResetEndSessions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	str := func(s string) *string { return &s }
	for i, p := range []auth.UserPatch{{Status: str(auth.StatusDisabled)}, {Password: str("password456")}} {
		u := e.createUser(t, fmt.Sprintf("user%d", i), "", "password1", auth.RoleUser)
		cookie := e.sessionCookie(t, u.ID)
		e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie).Expect(200)
		if _, err := e.svc.UpdateUser(ctx, u.ID, p); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.UpdateUser(ctx, u.ID, auth.UserPatch{Status: str(auth.StatusActive)}); err != nil {
			t.Fatal(err)
		}
		expectCode(t, e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie), 401, 40100)
		if list, _ := e.svc.ListSessions(ctx, u.ID, ""); len(list) != 0 {
			t.Fatalf("after %+v: %d live sessions", p, len(list))
		}
	}
	// A quota change leaves sessions alone.
	u := e.createUser(t, "quota", "", "password1", auth.RoleUser)
	cookie := e.sessionCookie(t, u.ID)
	q := int64(5)
	if _, err := e.svc.UpdateUser(ctx, u.ID, auth.UserPatch{QuotaBytes: &q}); err != nil {
		t.Fatal(err)
	}
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", cookie).Expect(200)
}

func TestChangePassword(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	other := e.createUser(t, "bob", "", "password1", auth.RoleUser)
	keep, drop := e.sessionCookie(t, u.ID), e.sessionCookie(t, u.ID)
	theirs := e.sessionCookie(t, other.ID)
	pair, err := e.svc.IssuePair(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	otherPair, err := e.svc.IssuePair(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	var fe *auth.FieldError
	for _, tc := range []struct {
		name, user, current, next string
		check                     func(error) bool
	}{
		{"wrong current password", u.ID, "nope", "password2", func(err error) bool { return errors.Is(err, auth.ErrInvalidCredentials) }},
		{"another user's password", u.ID, "", "password2", func(err error) bool { return errors.Is(err, auth.ErrInvalidCredentials) }},
		{"new password too short", u.ID, "password1", "short", func(err error) bool { return errors.As(err, &fe) && fe.Field == "password" }},
		{"new password too long", u.ID, "password1", strings.Repeat("p", 73), func(err error) bool { return errors.As(err, &fe) }},
		{"unknown user", sqlstore.NewID(), "password1", "password2", func(err error) bool { return errors.Is(err, auth.ErrInvalidCredentials) }},
		{"the guest", e.svc.GuestID(), "", "password2", func(err error) bool { return errors.Is(err, auth.ErrInvalidCredentials) }},
		{"configured administrator", e.svc.AdminID(), authtest.AdminPassword, "password2", func(err error) bool { return errors.Is(err, auth.ErrPasswordInConfig) }},
	} {
		if err := e.svc.ChangePassword(ctx, tc.user, tc.current, tc.next, ""); !tc.check(err) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	// Nothing changed so far.
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", drop).Expect(200)
	if _, err := e.svc.CheckPassword(ctx, "alice", "password1"); err != nil {
		t.Fatal(err)
	}

	if err := e.svc.ChangePassword(ctx, u.ID, "password1", "password2", sessionID(keep)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CheckPassword(ctx, "alice", "password1"); !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Fatalf("old password: %v", err)
	}
	if _, err := e.svc.CheckPassword(ctx, "alice", "password2"); err != nil {
		t.Fatalf("new password: %v", err)
	}
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", keep).Expect(200)
	expectCode(t, e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", drop), 401, 40100)
	e.client.Clone().Do("GET", "/user/ping", nil, "Cookie", theirs).Expect(200)
	if _, err := e.svc.Refresh(ctx, pair.RefreshToken); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("refresh token survived: %v", err)
	}
	if _, err := e.svc.Refresh(ctx, otherPair.RefreshToken); err != nil {
		t.Fatalf("another user's refresh token: %v", err)
	}
}

func TestChangePasswordOfAGeneratedAdministratorPassword(t *testing.T) {
	db := sqlstoretest.Open(t)
	cfg := authtest.Config(t)
	cfg.AdminPasswordHash = "" // generated at first start, then the users row is the truth
	svc, err := auth.New(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The generated password is only logged; set a known one as an
	// administrator would through the API.
	pw := "password1"
	if _, err := svc.UpdateUser(ctx, svc.AdminID(), auth.UserPatch{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	if err := svc.ChangePassword(ctx, svc.AdminID(), "password1", "password2", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CheckPassword(ctx, authtest.AdminUsername, "password2"); err != nil {
		t.Fatal(err)
	}
}

func TestChangeEmail(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u := e.createUser(t, "alice", "alice@example.com", "password1", auth.RoleUser)
	e.createUser(t, "bob", "bob@example.com", "password1", auth.RoleUser)
	var fe *auth.FieldError
	for _, tc := range []struct {
		name, user, email string
		check             func(error) bool
	}{
		{"invalid", u.ID, "not an email", func(err error) bool { return errors.As(err, &fe) && fe.Field == "email" }},
		{"empty", u.ID, "", func(err error) bool { return errors.As(err, &fe) }},
		{"taken", u.ID, "BOB@example.com", func(err error) bool { return errors.Is(err, auth.ErrEmailTaken) }},
		{"the administrator's", u.ID, "admin@example.com", func(err error) bool { return errors.Is(err, auth.ErrEmailTaken) }},
		{"unknown user", sqlstore.NewID(), "new@example.com", func(err error) bool { return errors.Is(err, sqlstore.ErrNotFound) }},
		{"bad id", "x", "new@example.com", func(err error) bool { return errors.Is(err, sqlstore.ErrNotFound) }},
		{"the guest", e.svc.GuestID(), "guest@example.com", func(err error) bool { return errors.Is(err, auth.ErrProtectedUser) }},
	} {
		if _, err := e.svc.ChangeEmail(ctx, tc.user, tc.email); !tc.check(err) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	for _, email := range []string{"ALICE@example.com", " alice2@example.com "} {
		got, err := e.svc.ChangeEmail(ctx, u.ID, email)
		if err != nil {
			t.Fatalf("%q: %v", email, err)
		}
		if got.Email != strings.TrimSpace(email) || got.ID != u.ID || got.Username != "alice" {
			t.Fatalf("user %+v", got)
		}
	}
	if got, err := e.svc.CheckPassword(ctx, "alice2@example.com", "password1"); err != nil || got.ID != u.ID {
		t.Fatalf("login by the new email: %v", err)
	}
}
