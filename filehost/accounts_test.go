package filehost

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
)

func TestRegisterIsOffByDefault(t *testing.T) {
	e := newTestEnv(t)
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/register",
		map[string]string{"username": "alice", "email": "alice@example.com", "password": "password123"}),
		http.StatusForbidden, 40300)
	if n := e.count("SELECT COUNT(*) FROM users WHERE username = $1", "alice"); n != 0 {
		t.Fatalf("a user was created while registration is off")
	}
}

func TestRegisterCreatesAnActiveUserWithTheDefaultQuota(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowRegister = true; u.DefaultQuotaBytes = 5 << 20 })
	r := e.c.Do(http.MethodPost, "/api/v1/auth/register",
		map[string]any{"username": "Alice_1", "email": "Alice@Example.com", "password": "password123", "role": "admin"})
	var u userJSON
	acctOK(t, r, http.StatusCreated, &u)
	if !sqlstore.ValidID(u.ID) || u.Username != "Alice_1" || u.Email != "Alice@Example.com" || u.Role != "user" ||
		u.Status != "active" || u.QuotaBytes != 5<<20 || u.UsedBytes != 0 || u.FileCount != 0 {
		t.Fatalf("user = %+v", u)
	}
	if _, err := time.Parse(time.RFC3339, u.CreatedAt); err != nil {
		t.Fatalf("created_at %q: %v", u.CreatedAt, err)
	}
	keys := acctKeys(t, r.A().Data)
	for _, k := range []string{"id", "username", "email", "role", "status", "quota_bytes", "used_bytes", "file_count", "default_visibility", "created_at"} {
		if !keys[k] {
			t.Errorf("user lacks %q", k)
		}
	}
	if len(keys) != 10 || strings.Contains(string(r.Body), "hash") {
		t.Fatalf("user has extra keys: %s", r.Body)
	}
	// The new user can log in.
	p := e.login("alice_1", "password123")
	if p.User.ID != u.ID {
		t.Fatalf("login user = %+v", p.User)
	}
}

func TestRegisterRejectsBadFields(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowRegister = true })
	for _, tc := range []struct {
		name string
		body any
	}{
		{"short username", map[string]string{"username": "ab", "email": "a@example.com", "password": "password123"}},
		{"long username", map[string]string{"username": strings.Repeat("a", 33), "email": "a@example.com", "password": "password123"}},
		{"username with a space", map[string]string{"username": "a b c", "email": "a@example.com", "password": "password123"}},
		{"username with a dot", map[string]string{"username": "a.bc", "email": "a@example.com", "password": "password123"}},
		{"non-ASCII username", map[string]string{"username": "ünïcode", "email": "a@example.com", "password": "password123"}},
		{"short password", map[string]string{"username": "abc", "email": "a@example.com", "password": "1234567"}},
		{"password over 72 bytes", map[string]string{"username": "abc", "email": "a@example.com", "password": strings.Repeat("x", 73)}},
		{"email without @", map[string]string{"username": "abc", "email": "example.com", "password": "password123"}},
		{"email with a name", map[string]string{"username": "abc", "email": "A <a@example.com>", "password": "password123"}},
		{"empty email", map[string]string{"username": "abc", "email": "", "password": "password123"}},
		{"malformed JSON", `{"username": "abc",`},
		{"wrong types", `{"username": 5, "email": "a@example.com", "password": "password123"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/register", tc.body), http.StatusBadRequest, 40000)
		})
	}
	// The limits themselves are allowed.
	acctOK(t, e.c.Do(http.MethodPost, "/api/v1/auth/register", map[string]string{
		"username": strings.Repeat("z", 32), "email": "z@example.com", "password": strings.Repeat("p", 72)}), http.StatusCreated, nil)
	acctOK(t, e.c.Do(http.MethodPost, "/api/v1/auth/register", map[string]string{
		"username": "a-_", "email": "y@example.com", "password": "12345678"}), http.StatusCreated, nil)
}

func TestRegisterRejectsTakenNamesAndEmails(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowRegister = true })
	acctOK(t, e.c.Do(http.MethodPost, "/api/v1/auth/register",
		map[string]string{"username": "alice", "email": "alice@example.com", "password": "password123"}), http.StatusCreated, nil)
	for _, tc := range []struct{ name, username, email string }{
		{"same username in another case", "ALICE", "other@example.com"},
		{"same email in another case", "alice2", "ALICE@example.COM"},
		{"the guest's name", "guest", "g@example.com"},
		{"the administrator's name", strings.ToUpper(authtest.AdminUsername), "adm@example.com"},
		{"the administrator's email", "someone", "admin@example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/register",
				map[string]string{"username": tc.username, "email": tc.email, "password": "password123"}), http.StatusConflict, 40900)
		})
	}
}

func TestLoginIssuesAPairAndAnHttpOnlyCookie(t *testing.T) {
	e := newTestEnv(t)
	id := e.createUser("bob", 0)
	for _, login := range []string{"bob", "BOB", "bob@example.com"} {
		t.Run(login, func(t *testing.T) {
			c := e.c.Clone()
			r := c.Do(http.MethodPost, "/api/v1/auth/login", map[string]string{"username": login, "password": testPassword})
			var p pairJSON
			acctOK(t, r, http.StatusOK, &p)
			if p.TokenType != "Bearer" || p.ExpiresIn != 7200 || p.AccessToken == "" || p.RefreshToken == "" || p.User.ID != id || p.User.Username != "bob" {
				t.Fatalf("pair = %+v", p)
			}
			var cookie *http.Cookie
			for _, ck := range (&http.Response{Header: r.Header}).Cookies() {
				if ck.Name == auth.AccessCookie {
					cookie = ck
				}
			}
			if cookie == nil || !cookie.HttpOnly || cookie.Value != p.AccessToken {
				t.Fatalf("access cookie = %+v", cookie)
			}
			// The cookie alone authenticates (c has no Authorization header).
			var me userJSON
			acctOK(t, c.Do(http.MethodGet, "/api/v1/auth/me", nil), http.StatusOK, &me)
			if me.ID != id {
				t.Fatalf("me by cookie = %+v", me)
			}
			// And so does the Bearer token.
			acctOK(t, e.bearer(p.AccessToken).Do(http.MethodGet, "/api/v1/auth/me", nil), http.StatusOK, &me)
			if me.ID != id || me.Email != "bob@example.com" {
				t.Fatalf("me by bearer = %+v", me)
			}
		})
	}
}

func TestLoginFailures(t *testing.T) {
	e := newTestEnv(t)
	disabled := e.createUser("carol", 0)
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET status = 'disabled' WHERE id = $1", disabled); err != nil {
		t.Fatal(err)
	}
	e.createUser("dave", 0)
	for _, tc := range []struct {
		name         string
		body         any
		status, code int
	}{
		{"wrong password", map[string]string{"username": "dave", "password": "wrong-password"}, 401, 40100},
		{"unknown user", map[string]string{"username": "nobody", "password": testPassword}, 401, 40100},
		{"the guest", map[string]string{"username": "guest", "password": ""}, 400, 40000},
		{"the guest with a password", map[string]string{"username": "guest", "password": testPassword}, 401, 40100},
		{"disabled user", map[string]string{"username": "carol", "password": testPassword}, 403, 40300},
		{"disabled user, wrong password", map[string]string{"username": "carol", "password": "wrong-password"}, 401, 40100},
		{"missing password", map[string]string{"username": "dave"}, 400, 40000},
		{"malformed JSON", "{", 400, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.Clone().Do(http.MethodPost, "/api/v1/auth/login", tc.body)
			acctErr(t, r, tc.status, tc.code)
			if r.Header.Get("Set-Cookie") != "" {
				t.Fatalf("a failed login set a cookie: %v", r.Header["Set-Cookie"])
			}
		})
	}
}

func TestRefreshRotatesAndIsSingleUse(t *testing.T) {
	e := newTestEnv(t)
	e.createUser("erin", 0)
	first := e.login("erin", testPassword)

	var second pairJSON
	acctOK(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}), http.StatusOK, &second)
	if second.RefreshToken == "" || second.RefreshToken == first.RefreshToken || second.AccessToken == "" ||
		second.TokenType != "Bearer" || second.ExpiresIn != 7200 || second.User.Username != "erin" {
		t.Fatalf("refreshed pair = %+v", second)
	}
	acctOK(t, e.bearer(second.AccessToken).Do(http.MethodGet, "/api/v1/auth/me", nil), http.StatusOK, nil)

	// The spent token cannot be used again; presenting it also ends the
	// tokens issued from it, since a copy is evidently in other hands.
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}), 401, 40100)
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}), 401, 40100)

	for _, tc := range []struct {
		name string
		body any
		code int
	}{
		{"unknown token", map[string]string{"refresh_token": "not-a-token"}, 40100},
		{"empty token", map[string]string{}, 40100},
		{"malformed JSON", "[", 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", tc.body), tc.code/100, tc.code)
		})
	}

	t.Run("expired token", func(t *testing.T) {
		p := e.login("erin", testPassword)
		if _, err := e.db.Exec(context.Background(), "UPDATE refresh_tokens SET expires_at = $1",
			sqlstore.FromTime(time.Now().Add(-time.Minute))); err != nil {
			t.Fatal(err)
		}
		acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": p.RefreshToken}), 401, 40100)
	})

	t.Run("disabled user", func(t *testing.T) {
		id := e.createUser("frank", 0)
		p := e.login("frank", testPassword)
		acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+id, map[string]string{"status": "disabled"}), 200, nil)
		acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": p.RefreshToken}), 401, 40100)
	})
}

func TestLogoutRevokesTheRefreshTokenAndClearsTheCookie(t *testing.T) {
	e := newTestEnv(t)
	e.createUser("gina", 0)
	p := e.login("gina", testPassword)
	r := e.c.Do(http.MethodPost, "/api/v1/auth/logout", map[string]string{"refresh_token": p.RefreshToken})
	acctOK(t, r, http.StatusOK, nil)
	cleared := false
	for _, ck := range (&http.Response{Header: r.Header}).Cookies() {
		cleared = cleared || ck.Name == auth.AccessCookie && ck.MaxAge < 0 && ck.Value == ""
	}
	if !cleared {
		t.Fatalf("cookie not cleared: %v", r.Header["Set-Cookie"])
	}
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": p.RefreshToken}), 401, 40100)

	// A browser logs out with its cookie and no body; afterwards the jar
	// holds no access cookie and /me is 401.
	c := e.c.Clone()
	acctOK(t, c.Do(http.MethodPost, "/api/v1/auth/login", map[string]string{"username": "gina", "password": testPassword}), 200, nil)
	acctOK(t, c.Do(http.MethodGet, "/api/v1/auth/me", nil), 200, nil)
	acctOK(t, c.Do(http.MethodPost, "/api/v1/auth/logout", nil), http.StatusOK, nil)
	acctErr(t, c.Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)

	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/logout", "{oops"), 400, 40000)
}

func TestMeNeedsValidCredentials(t *testing.T) {
	e := newTestEnv(t)
	for _, tc := range []struct{ name, header string }{
		{"none", ""},
		{"garbage bearer", "Bearer garbage"},
		{"unknown API token", "Bearer folio_unknown"},
		{"another scheme", "Basic YWRtaW46YWRtaW4="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := e.c.Clone()
			if tc.header != "" {
				c.Header.Set("Authorization", tc.header)
			}
			acctErr(t, c.Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)
		})
	}
	var me userJSON
	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/auth/me", nil), 200, &me)
	if me.ID != e.auth.AdminID() || me.Role != "admin" || me.Username != authtest.AdminUsername {
		t.Fatalf("admin me = %+v", me)
	}
}

func TestAuthRoutesAreRateLimitedPerIP(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		body       any
	}{
		{"login", "/api/v1/auth/login", map[string]string{"username": "nobody", "password": "wrong-password"}},
		{"register", "/api/v1/auth/register", map[string]string{"username": "x"}},
		{"refresh", "/api/v1/auth/refresh", map[string]string{"refresh_token": "nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			for i := 0; i < 20; i++ {
				if r := e.c.Do(http.MethodPost, tc.path, tc.body); r.Status == http.StatusTooManyRequests {
					t.Fatalf("request %d was limited", i+1)
				}
			}
			r := e.c.Do(http.MethodPost, tc.path, tc.body)
			acctErr(t, r, http.StatusTooManyRequests, 42900)
			if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
				t.Fatalf("Retry-After = %q", ra)
			}
			// Another client address has its own allowance.
			r = e.c.Do(http.MethodPost, tc.path, tc.body, "X-Forwarded-For", "203.0.113.9")
			if r.Status == http.StatusTooManyRequests {
				t.Fatalf("another IP was limited")
			}
		})
	}
}

func TestLoginWithTwoFactor(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	id := e.createUser("bob", 0)
	totp := authtest.EnableTOTP(t, e.auth, id)
	key, recovery, enrolCode := totp.Key, totp.Recovery, totp.Spent
	login := func(body map[string]string) *httpxtest.Response {
		return e.c.Clone().Do(http.MethodPost, "/api/v1/auth/login", body)
	}
	for _, tc := range []struct {
		name string
		body map[string]string
		msg  string
	}{
		{"no code", map[string]string{"username": "bob", "password": testPassword}, "two-factor code required"},
		{"empty code", map[string]string{"username": "bob", "password": testPassword, "otp": ""}, "two-factor code required"},
		// The enrolment code's step is spent, so it is wrong whatever the time.
		{"spent code", map[string]string{"username": "bob", "password": testPassword, "otp": enrolCode}, "invalid two-factor code"},
		{"malformed code", map[string]string{"username": "bob", "password": testPassword, "otp": "12ab56"}, "invalid two-factor code"},
		{"wrong password, good code", map[string]string{"username": "bob", "password": "wrong-password", "otp": recovery[0]}, "invalid username or password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := login(tc.body)
			acctErr(t, r, http.StatusUnauthorized, 40100)
			if got := r.A().Message; got != tc.msg {
				t.Fatalf("message %q, want %q", got, tc.msg)
			}
			if r.Header.Get("Set-Cookie") != "" {
				t.Fatalf("a failed login set a cookie: %v", r.Header["Set-Cookie"])
			}
		})
	}
	// A code of the next step is always after the spent one and inside the
	// accepted window.
	var p pairJSON
	acctOK(t, login(map[string]string{"username": "bob", "password": testPassword,
		"otp": auth.TOTPCode(key, time.Now().Add(30*time.Second))}), http.StatusOK, &p)
	if p.User.ID != id || p.AccessToken == "" {
		t.Fatalf("pair = %+v", p)
	}
	acctOK(t, login(map[string]string{"email": "bob@example.com", "password": testPassword, "otp": recovery[1]}), http.StatusOK, &p)
	r := login(map[string]string{"username": "bob", "password": testPassword, "otp": recovery[1]})
	acctErr(t, r, http.StatusUnauthorized, 40100)
	// Refresh and API tokens do not ask for the code.
	acctOK(t, e.c.Clone().Do(http.MethodPost, "/api/v1/auth/refresh", map[string]string{"refresh_token": p.RefreshToken}), http.StatusOK, nil)
	tok, err := e.auth.CreateAPIToken(ctx, id, "cli", nil)
	if err != nil {
		t.Fatal(err)
	}
	acctOK(t, e.bearer(tok.Token).Do(http.MethodGet, "/api/v1/auth/me", nil), http.StatusOK, nil)
	// A user without TOTP may send the field or not.
	e.createUser("carol", 0)
	acctOK(t, login(map[string]string{"username": "carol", "password": testPassword, "otp": "123456"}), http.StatusOK, nil)
}
