package filehost

import (
	"context"
	"encoding/base32"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/httpx/httpxtest"
)

var (
	secretOnPage = regexp.MustCompile(`<code id="totp-secret">([A-Z2-7]+)</code>`)
	recoveryCode = regexp.MustCompile(`<li><code>([a-z0-9-]+)</code></li>`)
)

// enableTOTP turns two-factor sign-in on through the account pages and
// returns the secret and the recovery codes. The step the confirming code
// used is forgotten, so that a test can sign in within the same 30 seconds.
func (e *testEnv) enableTOTP(b *httpxtest.Client, userID string) ([]byte, []string) {
	e.t.Helper()
	setup := b.PostForm("/console/account/totp", "form_token", pageToken(b, "/console/account")).Expect(200)
	m := secretOnPage.FindSubmatch(setup.Body)
	if m == nil || !contains(setup, `<div id="totp-qr" class="qr"><svg`) {
		e.t.Fatalf("set-up page lacks the secret or the QR code: %.600s", setup.Body)
	}
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(string(m[1]))
	if err != nil {
		e.t.Fatal(err)
	}
	wrong := b.PostForm("/console/account/totp/enable", "form_token", setup.FormToken(), "code", "000000").Expect(422)
	if !contains(wrong, "That code is not right") {
		e.t.Errorf("wrong code page: %.300s", wrong.Body)
	}
	done := b.PostForm("/console/account/totp/enable", "form_token", setup.FormToken(), "code", auth.TOTPCode(secret, time.Now())).Expect(200)
	var codes []string
	for _, c := range recoveryCode.FindAllSubmatch(done.Body, -1) {
		codes = append(codes, string(c[1]))
	}
	if len(codes) != 10 {
		e.t.Fatalf("%d recovery codes shown: %.600s", len(codes), done.Body)
	}
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET totp_last_step = 0 WHERE id = $1", userID); err != nil {
		e.t.Fatal(err)
	}
	return secret, codes
}

func TestConsoleTwoFactorSignIn(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("tina")
	secret, codes := e.enableTOTP(b, id)
	if !contains(b.Do("GET", "/console/account", nil).Expect(200), "Two-factor sign-in is <strong>on</strong>", "10 unused recovery codes") {
		t.Error("account page does not show TOTP on")
	}

	// The password alone now leads to the code step.
	other := e.c.Clone()
	step := other.PostForm("/console/login", "form_token", pageToken(other, "/console/login"), "username", "tina", "password", testPassword, "next", "/console/tokens").Expect(200)
	if !contains(step, `action="/console/login/code"`, `name="ticket"`) {
		t.Fatalf("no code step: %.500s", step.Body)
	}
	ticket := regexp.MustCompile(`name="ticket" value="([^"]+)"`).FindSubmatch(step.Body)[1]
	if got := other.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/login" {
		t.Fatalf("signed in before the code: %q", got)
	}
	other.PostForm("/console/login/code", "form_token", step.FormToken(), "ticket", string(ticket), "code", "123456").Expect(401)
	other.PostForm("/console/login/code", "form_token", step.FormToken(), "ticket", "forged", "code", auth.TOTPCode(secret, time.Now())).Expect(401)
	other.PostForm("/console/login/code", "ticket", string(ticket), "code", auth.TOTPCode(secret, time.Now())).Expect(403)
	res := other.PostForm("/console/login/code", "form_token", step.FormToken(), "ticket", string(ticket), "next", "/console/tokens",
		"code", auth.TOTPCode(secret, time.Now())).Expect(303)
	if res.Location() != "/console/tokens" {
		t.Errorf("code step leads to %q", res.Location())
	}

	// A recovery code works once.
	for _, want := range []int{303, 401} {
		c := e.c.Clone()
		step := c.PostForm("/console/login", "form_token", pageToken(c, "/console/login"), "username", "tina", "password", testPassword).Expect(200)
		tk := regexp.MustCompile(`name="ticket" value="([^"]+)"`).FindSubmatch(step.Body)[1]
		c.PostForm("/console/login/code", "form_token", step.FormToken(), "ticket", string(tk), "code", strings.ToUpper(codes[0])).Expect(want)
	}

	// The API login needs the code too.
	e.c.Do("POST", "/api/v1/auth/login", map[string]string{"username": "tina", "password": testPassword}).Expect(401)

	// Turning it off needs the password.
	tok := pageToken(b, "/console/account")
	b.PostForm("/console/account/totp/disable", "form_token", tok, "password", "wrong-password").Expect(422)
	b.PostForm("/console/account/totp/disable", "form_token", tok, "password", testPassword).Expect(303)
	e.c.Do("POST", "/api/v1/auth/login", map[string]string{"username": "tina", "password": testPassword}).Expect(200)
}

func TestConsolePasswordChangeSignsOutOtherSessions(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("paul")
	second := e.consoleAs("paul", testPassword)
	pair := e.c.Do("POST", "/api/v1/auth/login", map[string]string{"username": "paul", "password": testPassword}).Expect(200).A()
	var tokens struct {
		RefreshToken string `json:"refresh_token"`
	}
	httpxtest.Into(t, pair.Data, &tokens)

	page := b.Do("GET", "/console/account", nil).Expect(200)
	if n := strings.Count(string(page.Body), `<tr class="session"`); n != 2 {
		t.Errorf("%d sessions listed, want 2", n)
	}
	if !contains(page, `data-current="true"`) {
		t.Error("the current session is not marked")
	}
	tok := page.FormToken()
	b.PostForm("/console/account/password", "form_token", tok, "current_password", "not-it-at-all", "new_password", "new-password-1").Expect(422)
	b.PostForm("/console/account/password", "form_token", tok, "current_password", testPassword, "new_password", "short").Expect(422)
	b.PostForm("/console/account/password", "form_token", tok, "current_password", testPassword, "new_password", "new-password-1").Expect(303)

	b.Do("GET", "/console/account", nil).Expect(200)
	if got := second.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/login" {
		t.Errorf("the other session survived: %q", got)
	}
	e.c.Do("POST", "/api/v1/auth/refresh", map[string]string{"refresh_token": tokens.RefreshToken}).Expect(401)
	e.consoleAs("paul", "new-password-1")
}

func TestConsoleSessionsCanBeSignedOut(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("sam")
	second := e.consoleAs("sam", testPassword)
	third := e.consoleAs("sam", testPassword)
	_, mallory := e.consoleUser("mallory")

	page := b.Do("GET", "/console/account", nil).Expect(200)
	ids := regexp.MustCompile(`/console/account/sessions/([0-9a-f]+)/revoke`).FindAllSubmatch(page.Body, -1)
	if len(ids) != 2 {
		t.Fatalf("%d revocable sessions, want 2", len(ids))
	}
	// Someone else's session id is nobody's here.
	mallory.PostForm("/console/account/sessions/"+string(ids[0][1])+"/revoke", "form_token", pageToken(mallory, "/console/account")).Expect(404)
	b.PostForm("/console/account/sessions/"+string(ids[0][1])+"/revoke", "form_token", page.FormToken()).Expect(303)
	b.PostForm("/console/account/sessions/revoke-others", "form_token", page.FormToken()).Expect(303)
	for _, c := range []*httpxtest.Client{second, third} {
		if got := c.Do("GET", "/console/", nil).Expect(303).Location(); got != "/console/login" {
			t.Errorf("a session survived: %q", got)
		}
	}
	b.Do("GET", "/console/account", nil).Expect(200)
}

func TestConsoleEmailChange(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("emma")
	e.createUser("taken", 0)
	tok := pageToken(b, "/console/account")
	b.PostForm("/console/account/email", "form_token", tok, "email", "not-an-email").Expect(400)
	res := b.PostForm("/console/account/email", "form_token", tok, "email", "taken@example.com").Expect(409)
	if !contains(res, `value="taken@example.com"`) {
		t.Error("the form does not keep the input")
	}
	b.PostForm("/console/account/email", "form_token", tok, "email", "emma@new.example").Expect(303)
	if !contains(b.Do("GET", "/console/account", nil).Expect(200), `value="emma@new.example"`) {
		t.Error("email not saved")
	}
	b.PostForm("/console/account/email", "email", "x@example.com").Expect(403)
}

func TestConsoleSessionsAreNamedByBrowserAndSystem(t *testing.T) {
	e := newTestEnv(t)
	e.createUser("uma", 0)
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	browsers := map[string]*httpxtest.Client{}
	for _, ua := range []string{firefox, iphone} {
		b := e.c.Clone()
		b.Header = http.Header{"User-Agent": {ua}}
		tok := b.Do("GET", "/console/login", nil).Expect(200).FormToken()
		b.PostForm("/console/login", "form_token", tok, "username", "uma", "password", testPassword).Expect(303)
		browsers[ua] = b
	}
	page := browsers[firefox].Do("GET", "/console/account", nil).Expect(200)
	for _, tc := range []struct{ name, want string }{
		{"this browser, by name, the user-agent kept in its title", `<span class="browser" title="` + firefox + `">Firefox on Linux</span> <strong>(this browser)</strong>`},
		{"the other browser", `<span class="browser" title="` + iphone + `">Safari on iPhone</span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !contains(page, tc.want) {
				t.Errorf("the sessions list lacks %s: %s", tc.want, page.Body)
			}
		})
	}
}
