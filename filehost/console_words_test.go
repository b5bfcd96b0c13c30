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
