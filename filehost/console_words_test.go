package filehost

import (
	"strings"
	"testing"
)

// The console's password forms count in characters and explain a password
// that fits in 72 characters but not in bcrypt's 72 bytes.
func TestConsolePasswordFormsSayCharactersNotBytes(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowRegister = true })
	userID, b := e.consoleUser("wren")
	admin := e.consoleAdmin()
	const chars = "must be 8 to 72 characters."
	const bytes = "is too long: accented letters, other scripts and emoji take 2 to 4 of the 72 bytes a password may use."
	long := strings.Repeat("ü", 40) // 40 characters, 80 bytes
	tests := []struct {
		name, path, form string
		fields           []string
		status           int
		want             string
	}{
		{"account, short", "/console/account/password", "/console/account", []string{"current_password", testPassword, "new_password", "short"}, 422, "The new password " + chars},
		{"account, bytes", "/console/account/password", "/console/account", []string{"current_password", testPassword, "new_password", long}, 422, "The new password " + bytes},
		{"register, short", "/console/register", "/console/register", []string{"username", "newbie", "email", "n@example.com", "password", "short"}, 400, "Password " + chars},
		{"register, bytes", "/console/register", "/console/register", []string{"username", "newbie", "email", "n@example.com", "password", long}, 400, "Password " + bytes},
		{"admin create, short", "/console/admin/users", "/console/admin/users", []string{"username", "newbie", "email", "n@example.com", "password", "short", "role", "user", "quota", "0"}, 400, "Password " + chars},
		{"admin edit, bytes", "/console/admin/users/" + userID, "/console/admin/users/" + userID, []string{"status", "active", "role", "user", "quota", "0", "password", long}, 400, "Password " + bytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := b
			switch {
			case strings.HasPrefix(tt.path, "/console/admin/"):
				c = admin
			case tt.path == "/console/register":
				c = e.c.Clone()
			}
			res := c.PostForm(tt.path, append([]string{"form_token", pageToken(c, tt.form)}, tt.fields...)...)
			if res.Status != tt.status || !contains(res, tt.want) {
				t.Errorf("%d, want %d with %q: %.2000s", res.Status, tt.status, tt.want, res.Body)
			}
		})
	}
	for _, p := range []string{"/console/account", "/console/admin/users", "/console/admin/users/" + userID} {
		c := b
		if strings.HasPrefix(p, "/console/admin/") {
			c = admin
		}
		if page := c.Do("GET", p, nil).Expect(200); !contains(page, `maxlength="72"`, "8 to 72 characters") {
			t.Errorf("%s has no 72-character limit or hint", p)
		}
	}
}

// The recovery codes page carries what its script needs to copy and
// download the codes (whose file is named for the account), and keeps them
// as text to select without it; regenerating says the old ones are gone.
func TestRecoveryCodesPageOffersCopyAndDownload(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("rosa")
	e.enableTOTP(b, id)
	account := b.Do("GET", "/console/account", nil).Expect(200)
	if !contains(account, "You have 10 unused recovery codes.") {
		t.Errorf("account page: %s", account.Body)
	}
	res := b.PostForm("/console/account/recovery", "form_token", account.FormToken(), "password", testPassword).Expect(200)
	for _, want := range []string{
		`<ol id="recovery-codes" class="codes" data-user="rosa" data-site="` + e.c.Base + `">`,
		`<div class="row" id="recovery-actions" hidden>`,
		`<button type="button" class="secondary" id="recovery-copy">Copy codes</button>`,
		`<button type="button" class="secondary" id="recovery-download">Download (.txt)</button>`,
		`<p class="muted" id="recovery-status" role="status"></p>`,
		`/console/static/recovery.`,
		"New recovery codes: the old ones no longer work.",
	} {
		if !contains(res, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := len(recoveryCode.FindAllSubmatch(res.Body, -1)); n != 10 {
		t.Errorf("%d codes as text, want 10", n)
	}
	if strings.Contains(string(res.Body), "<script>") || strings.Contains(string(res.Body), "style=") {
		t.Error("inline script or style on the page")
	}
}
