package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// servedSite is a running Folio and a configuration file naming its
// database, as an operator's shell beside the server would have.
type servedSite struct {
	app    *app
	client *httpxtest.Client
	config string
}

// newServedSite starts Folio on a fresh database; env adds FOLIO_*
// settings to the server's configuration, extra adds lines to the file.
func newServedSite(t *testing.T, extra string, env ...string) servedSite {
	t.Helper()
	db := sqlstoretest.NewConfig(t)
	a, c := newTestAppOn(t, db, env...)
	config := filepath.Join(t.TempDir(), "folio.conf")
	conf := "database.driver = " + db.Driver + "\ndatabase.dsn = \"" + db.DSN + "\"\n" + extra
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return servedSite{app: a, client: c, config: config}
}

// resetPassword runs folio reset-password at bcrypt's least cost, as
// newTestAppOn's apps hash: at cost 12 each hash and each sign-in with the
// new password takes seconds under the race detector.
// TestResetPasswordHashesAtTheProductionCost holds the command itself to 12.
func (s servedSite) resetPassword(args []string, stdin string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := runWith(append([]string{"reset-password", "-config", s.config}, args...),
		&invocation{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, bcryptCost: bcrypt.MinCost})
	return code, out.String(), errOut.String()
}

// TestResetPasswordHashesAtTheProductionCost runs folio reset-password as
// an operator does and finds the new password hashed at cost 12.
func TestResetPasswordHashesAtTheProductionCost(t *testing.T) {
	site := newServedSite(t, "")
	admin := site.client.Clone()
	admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	admin.Do("POST", "/api/v1/admin/users", map[string]any{"username": "alice", "email": "alice@example.com", "password": "password1", "role": "user"}).Expect(201)
	code, out, errOut := runOut([]string{"reset-password", "-config", site.config, "alice"}, "a new password\n")
	if code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var hash string
	if err := site.app.db.QueryRow(context.Background(), "SELECT password_hash FROM users WHERE username = $1", "alice").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost != 12 {
		t.Errorf("reset-password hashed at cost %d (%v), want 12", cost, err)
	}
}

// pair is a file-side login.
type pair struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

func login(t *testing.T, c *httpxtest.Client, username, password string, status int) pair {
	t.Helper()
	res := c.Clone().Do("POST", "/api/v1/auth/login", map[string]string{"username": username, "password": password}).Expect(status)
	var p pair
	if status == 200 {
		httpxtest.Into(t, res.A().Data, &p)
	}
	return p
}

func TestResetPasswordOfAUserBesideARunningServer(t *testing.T) {
	site := newServedSite(t, "")
	admin := site.client.Clone()
	admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	admin.Do("POST", "/api/v1/admin/users", map[string]any{"username": "alice", "email": "alice@example.com", "password": "password1", "role": "user"}).Expect(201)
	before := login(t, site.client, "alice", "password1", 200)
	var tok struct{ Token string }
	httpxtest.Into(t, site.client.Clone().Do("POST", "/api/v1/tokens", map[string]string{"name": "uploader"},
		"Authorization", "Bearer "+before.AccessToken).Expect(201).A().Data, &tok)
	site.client.Clone().Do("GET", "/api/v1/auth/me", nil, "Authorization", "Bearer "+tok.Token).Expect(200)

	code, out, errOut := site.resetPassword([]string{"alice"}, "a new password\n")
	if code != 0 || out != "password of alice set; every session, refresh token and API token of alice is revoked\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The running server sees it on the very next request.
	site.client.Clone().Do("GET", "/api/v1/auth/me", nil, "Authorization", "Bearer "+tok.Token).Expect(401)
	site.client.Clone().Do("POST", "/api/v1/auth/refresh", map[string]string{"refresh_token": before.RefreshToken}).Expect(401)
	login(t, site.client, "alice", "password1", 401)
	login(t, site.client, "alice", "a new password", 200)
	// The administrator's session is someone else's.
	admin.Do("GET", "/api/v1/admin/users", nil).Expect(200)
	// The audit log tells the administrator what the command line did.
	var page struct {
		Items []auth.AuditEntry `json:"items"`
	}
	httpxtest.Into(t, admin.Do("GET", "/api/v1/admin/audit-log?action=command", nil).Expect(200).B().Data, &page)
	if len(page.Items) != 1 || page.Items[0].Path != "folio reset-password alice" || page.Items[0].Via != "command" || page.Items[0].ResourceID == "" {
		t.Errorf("audit log of commands: %+v", page.Items)
	}
}

func TestResetPasswordOfTheAdministrator(t *testing.T) {
	// No admin.password_hash: the password was generated at the first start.
	site := newServedSite(t, "", "FOLIO_ADMIN_PASSWORD_HASH=")
	code, out, errOut := site.resetPassword(nil, "the admin's new one\n")
	if code != 0 || !strings.HasPrefix(out, "password of admin set") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	site.client.Clone().Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "admin", "password": "the admin's new one"}).Expect(200)
}

func TestResetPasswordRefuses(t *testing.T) {
	site := newServedSite(t, "")
	configured := newServedSite(t, "admin.password_hash = $2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W\n")
	site.client.Clone().Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)

	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.conf")
	if err := os.WriteFile(missing, []byte("database.dsn = "+filepath.Join(dir, "none", "folio.db")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unserved := servedSite{config: filepath.Join(dir, "unserved.conf")}
	db := sqlstoretest.NewConfig(t)
	if db.Driver == "sqlite" {
		if err := os.WriteFile(db.DSN, nil, 0o600); err != nil { // there, but never served
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(unserved.config, []byte("database.driver = "+db.Driver+"\ndatabase.dsn = \""+db.DSN+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		site  servedSite
		args  []string
		stdin string
		msg   string
	}{
		{"an unknown user", site, []string{"nobody"}, "password1\n", `no user named "nobody"`},
		{"the guest", site, []string{"guest"}, "password1\n", "guest is the owner of guest uploads and has no password"},
		{"a short password", site, []string{"admin"}, "short\n", "password must be 8 to 72 characters"},
		{"a password bcrypt cannot use", site, nil, strings.Repeat("p", 73) + "\n", "password must be 8 to 72 characters"},
		{"a password over 72 bytes in 72 characters", site, nil, strings.Repeat("é", 40) + "\n", "password is too long: accented letters"},
		{"no password", site, nil, "", "no password on standard input"},
		{"an administrator of admin.password_hash", configured, nil, "password1\n", "set admin.password_hash instead"},
		{"a database that is not there", servedSite{config: missing}, nil, "password1\n", "database:"},
		{"a database never served", unserved, nil, "password1\n", "folio serve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := tt.site.resetPassword(tt.args, tt.stdin)
			if code != 1 || out != "" || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, tt.msg)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("reset-password created the data folder: %v", err)
	}
	// Nothing was changed on the way.
	site.client.Clone().Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
}
