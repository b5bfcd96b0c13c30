package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// auditPage is the data of GET /api/v1/admin/audit-log.
type auditPage struct {
	Items      []auth.AuditEntry `json:"items"`
	Pagination struct {
		Page     int `json:"page"`
		PageSize int `json:"page_size"`
		Total    int `json:"total"`
	} `json:"pagination"`
}

func auditLog(t *testing.T, c *httpxtest.Client, query string) auditPage {
	t.Helper()
	var p auditPage
	httpxtest.Into(t, c.Do("GET", "/api/v1/admin/audit-log"+query, nil).Expect(200).B().Data, &p)
	return p
}

// entryLike finds the newest entry with action, method and route.
func entryLike(entries []auth.AuditEntry, action, method, route string) *auth.AuditEntry {
	for i := range entries {
		e := &entries[i]
		if e.Action == action && e.Method == method && e.Route == route {
			return e
		}
	}
	return nil
}

func TestAuditLogRecordsAdministratorWritesAndSignIns(t *testing.T) {
	start := time.Now().Add(-time.Second)
	a, c := newTestApp(t)
	const ip = "203.0.113.7"
	c.Header.Set("X-Forwarded-For", ip) // the test client is a trusted proxy

	// Sign-ins: a wrong password for the administrator counts, one for a
	// name nobody has does not (it names no account).
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": "wrong password"}).Expect(401)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": "nobody-here", "password": "wrong password"}).Expect(401)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)

	// Blog API writes; reads leave nothing.
	c.Do("GET", "/api/v1/admin/posts", nil).Expect(200)
	var post struct{ ID string }
	httpxtest.Into(t, c.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Audited", "status": "draft", "content_markdown": "x"}).Expect(201).B().Data, &post)
	c.Do("DELETE", "/api/v1/admin/posts/"+post.ID, nil).Expect(200)

	// File host admin API, and a user who is not an administrator.
	c.Do("POST", "/api/v1/admin/users", map[string]any{"username": "nina", "email": "nina@example.com",
		"password": "nina password", "role": "user", "quota_bytes": 0}).Expect(201)
	nina := c.Clone()
	nina.Header.Del("X-Forwarded-For")
	var pair struct {
		AccessToken string `json:"access_token"`
	}
	httpxtest.Into(t, nina.Do("POST", "/api/v1/auth/login", map[string]string{"username": "nina", "password": "nina password"}).Expect(200).A().Data, &pair)
	nina.Header.Set("Authorization", "Bearer "+pair.AccessToken)
	nina.Do("POST", "/api/v1/albums", map[string]any{"name": "Nina's"}).Expect(201)
	nina.Do("GET", "/api/v1/admin/audit-log", nil).Expect(403)
	c.Clone().Do("GET", "/api/v1/admin/audit-log", nil).Expect(401)

	// The console: its sign-in and an administrator form post.
	con := consoleAdmin(t, c)
	tok := con.Do("GET", "/console/admin/users", nil).Expect(200).FormToken()
	con.PostForm("/console/admin/users", "form_token", tok, "username", "omar", "email", "omar@example.com",
		"password", "omar password", "role", "user", "quota", "0").Expect(303)

	c.Do("POST", "/api/v1/admin/auth/logout", nil).Expect(200)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)

	all := auditLog(t, c, "?page_size=100").Items
	adminID := a.auth.AdminID()
	for _, tt := range []struct {
		action, method, route string
		status                int
		resource              string
		via                   string
	}{
		{auth.AuditLoginFailed, "POST", "/api/v1/admin/auth/login", 401, "", "password"},
		{auth.AuditLogin, "POST", "/api/v1/admin/auth/login", 200, "", "password"},
		{auth.AuditWrite, "POST", "/api/v1/admin/posts", 201, "", "session"},
		{auth.AuditWrite, "DELETE", "/api/v1/admin/posts/{id}", 200, post.ID, "session"},
		{auth.AuditWrite, "POST", "/api/v1/admin/users", 201, "", "session"},
		{auth.AuditLogin, "POST", "/console/login", 303, "", "password"},
		{auth.AuditWrite, "POST", "/console/admin/users", 303, "", "session"},
		{auth.AuditLogout, "POST", "/api/v1/admin/auth/logout", 200, "", "session"},
	} {
		e := entryLike(all, tt.action, tt.method, tt.route)
		if e == nil {
			t.Errorf("no %s entry for %s %s in %+v", tt.action, tt.method, tt.route, all)
			continue
		}
		if e.Status != tt.status || e.ResourceID != tt.resource || e.Via != tt.via || e.UserID != adminID ||
			e.Username != authtest.AdminUsername || e.ClientIP != ip || e.Path == "" || e.At.Before(start) || e.At.After(time.Now()) {
			t.Errorf("%s %s %s: %+v", tt.action, tt.method, tt.route, *e)
		}
	}
	for _, e := range all {
		if e.Method == "GET" || e.Username != authtest.AdminUsername || strings.Contains(e.Path, "albums") || strings.Contains(e.Path, "/auth/login") && e.Route != "/api/v1/admin/auth/login" {
			t.Errorf("unexpected entry %+v", e)
		}
	}
	if n := len(all); n != 9 { // the eight above and the second sign-in
		t.Errorf("%d entries, want 9: %+v", n, all)
	}
	if all[0].Action != auth.AuditLogin || all[1].Action != auth.AuditLogout {
		t.Errorf("not newest first: %+v, %+v", all[0], all[1])
	}

	// Filters.
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"?method=delete", 1}, {"?action=login_failed", 1}, {"?action=login", 3},
		{"?user=" + strings.ToUpper(authtest.AdminUsername), 9}, {"?user=" + adminID, 9}, {"?user=nina", 0},
	} {
		if got := auditLog(t, c, tt.query); got.Pagination.Total != tt.want || len(got.Items) != tt.want {
			t.Errorf("%s: %d entries (total %d), want %d", tt.query, len(got.Items), got.Pagination.Total, tt.want)
		}
	}
	c.Do("GET", "/api/v1/admin/audit-log?action=nope", nil).Expect(400)
	c.Do("GET", "/api/v1/admin/audit-log?page=x", nil).Expect(400)
	c.Do("POST", "/api/v1/admin/audit-log", nil).Expect(405)
}

func TestAuditLogPagesNewestFirst(t *testing.T) {
	a, c := newTestApp(t)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	for i := range 5 {
		c.Do("POST", "/api/v1/admin/categories", map[string]any{"name": fmt.Sprintf("Category %d", i)}).Expect(201)
	}
	var seen []string
	for page := 1; page <= 3; page++ {
		p := auditLog(t, c, fmt.Sprintf("?page=%d&page_size=2&action=write", page))
		if p.Pagination.Page != page || p.Pagination.PageSize != 2 || p.Pagination.Total != 5 {
			t.Fatalf("page %d: pagination %+v", page, p.Pagination)
		}
		if want := min(2, 5-2*(page-1)); len(p.Items) != want {
			t.Fatalf("page %d: %d items, want %d", page, len(p.Items), want)
		}
		for _, e := range p.Items {
			seen = append(seen, e.ID)
		}
	}
	all := auditLog(t, c, "?page_size=100&action=write").Items
	for i := range all {
		if seen[i] != all[i].ID {
			t.Fatalf("pages do not walk the list in order: %v vs %+v", seen, all)
		}
		if i > 0 && all[i].At.After(all[i-1].At) {
			t.Errorf("entry %d is newer than entry %d", i, i-1)
		}
	}
	if p := auditLog(t, c, ""); p.Pagination.PageSize != 10 || p.Pagination.Page != 1 {
		t.Errorf("defaults: %+v", p.Pagination)
	}

	// Retention: entries past it go, the others stay.
	if _, err := a.db.Exec(context.Background(), "UPDATE audit_log SET at = $1 WHERE id = $2",
		time.Now().Add(-auditRetention-time.Hour).UnixMicro(), all[4].ID); err != nil {
		t.Fatal(err)
	}
	n, err := a.auth.PruneAudit(context.Background(), time.Now().Add(-auditRetention))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if got := auditLog(t, c, "?action=write").Pagination.Total; got != 4 {
		t.Errorf("%d write entries after pruning, want 4", got)
	}
}

func TestAuditLogRecordsTokenWritesAndNeverFailsTheRequest(t *testing.T) {
	db := sqlstoretest.NewConfig(t)
	cfg, err := LoadConfig("", nil, []string{
		"FOLIO_DATABASE_DRIVER=" + db.Driver, "FOLIO_DATABASE_DSN=" + db.DSN, "FOLIO_STORAGE_DIR=" + t.TempDir(),
		"FOLIO_ADMIN_PASSWORD_HASH=$2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W",
	})
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	a, err := newApp(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	c := httpxtest.NewServer(t, a.handler)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	var tok struct{ Token string }
	httpxtest.Into(t, c.Do("POST", "/api/v1/tokens", map[string]any{"name": "ci"}).Expect(201).A().Data, &tok)
	bot := c.Clone()
	bot.Header.Set("Authorization", "Bearer "+tok.Token)
	bot.Do("POST", "/api/v1/admin/categories", map[string]any{"name": "By Token"}).Expect(201)
	// An upload writes its entry in its own transaction, and a refused one
	// after the answer, as other writes: once each, with the answer's status.
	bot.Upload("/api/v1/upload", "file", "empty.txt", nil).Expect(400)
	bot.Upload("/api/v1/upload", "file", "a.png", testPNG(t)).Expect(200)

	log := auditLog(t, c, "?page_size=100").Items
	uploads := map[int]int{}
	for _, e := range log {
		if e.Route == "/api/v1/upload" {
			uploads[e.Status]++
		}
	}
	if uploads[200] != 1 || uploads[400] != 1 || len(uploads) != 2 {
		t.Errorf("upload entries by status: %v, want one 200 and one 400", uploads)
	}
	for _, route := range []string{"/api/v1/admin/categories", "/api/v1/upload"} {
		if e := entryLike(log, auth.AuditWrite, "POST", route); e == nil || e.Via != "api_token" || e.Status != 200 && e.Status != 201 {
			t.Errorf("%s by API token: %+v", route, e)
		}
	}
	if e := entryLike(log, auth.AuditWrite, "POST", "/api/v1/tokens"); e == nil || e.Via != "session" {
		t.Errorf("token creation: %+v", e)
	}

	// With the table gone every write is refused by the database: the
	// request still succeeds, and the failure is only logged.
	if _, err := a.db.Exec(context.Background(), "DROP TABLE audit_log"); err != nil {
		t.Fatal(err)
	}
	bot.Do("POST", "/api/v1/admin/categories", map[string]any{"name": "Unaudited"}).Expect(201)
	bot.Upload("/api/v1/upload", "file", "b.png", testPNG(t)).Expect(200)
	for _, path := range []string{"/api/v1/admin/categories", "/api/v1/upload"} {
		if got := logs.String(); !strings.Contains(got, "audit log not written") || !strings.Contains(got, "path="+path) {
			t.Errorf("the failure of %s was not logged:\n%s", path, got)
		}
	}
}
