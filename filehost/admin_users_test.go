package filehost

import (
	"net/http"
	"testing"

	"folio/sqlstore"
)

type userPage struct {
	Items []userJSON `json:"items"`
	Total int        `json:"total"`
}

func TestAdminRoutesRefuseUsersAndStrangers(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("vera", 0)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/v1/admin/users"},
		{"POST", "/api/v1/admin/users"},
		{"GET", "/api/v1/admin/users/" + id},
		{"PATCH", "/api/v1/admin/users/" + id},
		{"DELETE", "/api/v1/admin/users/" + id},
		{"GET", "/api/v1/admin/stats"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			acctErr(t, c.Do(tc.method, tc.path, map[string]any{"status": "disabled", "role": "admin"}), 403, 40300)
			acctErr(t, e.c.Do(tc.method, tc.path, map[string]any{"status": "disabled"}), 401, 40100)
		})
	}
	var u userJSON
	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users/"+id, nil), 200, &u)
	if u.Status != "active" || u.Role != "user" {
		t.Fatalf("a user changed their own account through admin routes: %+v", u)
	}
}

func TestAdminCreatesListsAndPatchesUsers(t *testing.T) {
	e := newTestEnv(t)
	var u userJSON
	acctOK(t, e.admin.Do(http.MethodPost, "/api/v1/admin/users",
		map[string]any{"username": "wendy", "email": "wendy@example.org", "password": "password123", "role": "admin", "quota_bytes": 4096}), 201, &u)
	if u.Username != "wendy" || u.Role != "admin" || u.Status != "active" || u.QuotaBytes != 4096 {
		t.Fatalf("created = %+v", u)
	}
	var def userJSON
	acctOK(t, e.admin.Do(http.MethodPost, "/api/v1/admin/users",
		map[string]any{"username": "xena", "email": "xena@example.org", "password": "password123"}), 201, &def)
	if def.Role != "user" || def.QuotaBytes != DefaultUploadSettings().DefaultQuotaBytes {
		t.Fatalf("defaults = %+v", def)
	}

	for _, tc := range []struct {
		name         string
		body         any
		status, code int
	}{
		{"taken username", map[string]any{"username": "WENDY", "email": "w2@example.org", "password": "password123"}, 409, 40900},
		{"taken email", map[string]any{"username": "wendy2", "email": "Wendy@example.org", "password": "password123"}, 409, 40900},
		{"bad role", map[string]any{"username": "yuri", "email": "y@example.org", "password": "password123", "role": "guest"}, 400, 40000},
		{"negative quota", map[string]any{"username": "yuri", "email": "y@example.org", "password": "password123", "quota_bytes": -1}, 400, 40000},
		{"short password", map[string]any{"username": "yuri", "email": "y@example.org", "password": "short"}, 400, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.admin.Do(http.MethodPost, "/api/v1/admin/users", tc.body), tc.status, tc.code)
		})
	}

	// The admin user made here may use the admin routes.
	p := e.login("wendy", "password123")
	acctOK(t, e.bearer(p.AccessToken).Do(http.MethodGet, "/api/v1/admin/stats", nil), 200, nil)

	var page userPage
	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users", nil), 200, &page)
	if page.Total != 4 || len(page.Items) != 4 { // admin, guest, wendy, xena
		t.Fatalf("list = %+v", page)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{{"?keyword=EXAMPLE.ORG", 2}, {"?keyword=xen", 1}, {"?keyword=%25", 0}, {"?keyword=_", 0}, {"?size=1&page=2", 4}} {
		acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users"+tc.query, nil), 200, &page)
		if page.Total != tc.want {
			t.Fatalf("%s: total %d, want %d", tc.query, page.Total, tc.want)
		}
	}

	// PATCH: quota, role, status and password.
	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+def.ID, map[string]any{"quota_bytes": 0}), 200, &u)
	if u.QuotaBytes != 0 || u.Role != "user" || u.Status != "active" {
		t.Fatalf("patched = %+v", u)
	}
	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+def.ID, map[string]any{"role": "admin", "status": "disabled"}), 200, &u)
	if u.Role != "admin" || u.Status != "disabled" {
		t.Fatalf("patched = %+v", u)
	}
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/login", map[string]string{"username": "xena", "password": "password123"}), 403, 40300)
	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+def.ID, map[string]any{"status": "active", "password": "new-password"}), 200, nil)
	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/auth/login", map[string]string{"username": "xena", "password": "password123"}), 401, 40100)
	e.login("xena", "new-password")

	for _, tc := range []struct {
		name         string
		path         string
		body         any
		status, code int
	}{
		{"bad status", def.ID, map[string]any{"status": "banned"}, 400, 40000},
		{"bad role", def.ID, map[string]any{"role": "root"}, 400, 40000},
		{"negative quota", def.ID, map[string]any{"quota_bytes": -5}, 400, 40000},
		{"short password", def.ID, map[string]any{"password": "x"}, 400, 40000},
		{"wrong types", def.ID, `{"quota_bytes": "lots"}`, 400, 40000},
		{"unknown user", sqlstore.NewID(), map[string]any{"status": "active"}, 404, 40400},
		{"bad id", "nope", map[string]any{"status": "active"}, 404, 40400},
		{"disable the administrator", e.auth.AdminID(), map[string]any{"status": "disabled"}, 403, 40300},
		{"demote the administrator", e.auth.AdminID(), map[string]any{"role": "user"}, 403, 40300},
		{"disable the guest", e.auth.GuestID(), map[string]any{"status": "disabled"}, 403, 40300},
		{"give the guest a password", e.auth.GuestID(), map[string]any{"password": "password123"}, 403, 40300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+tc.path, tc.body), tc.status, tc.code)
		})
	}
	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+e.auth.GuestID(), map[string]any{"quota_bytes": 1 << 20}), 200, &u)
	if u.QuotaBytes != 1<<20 || u.Role != "guest" {
		t.Fatalf("guest = %+v", u)
	}
	acctErr(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users/"+sqlstore.NewID(), nil), 404, 40400)
}

func TestAdminDeletesAUserAndTheirFiles(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("yara", 0)
	_, other := e.newUser("zack", 0)
	shared := pngBytes(t, 11, 11)
	mustUpload(t, c, "shared.png", shared)
	keep := mustUpload(t, other, "shared-too.png", shared)
	own := mustUpload(t, c, "own.png", pngBytes(t, 12, 12))
	var tok tokenJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "t"}), 201, &tok)
	acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]string{"name": "a"}), 201, nil)
	storedBefore := len(e.storedFiles())

	for _, tc := range []struct {
		name, id     string
		status, code int
	}{
		{"the administrator", e.auth.AdminID(), 403, 40300},
		{"the guest", e.auth.GuestID(), 403, 40300},
		{"unknown", sqlstore.NewID(), 404, 40400},
		{"bad id", "x", 404, 40400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, e.admin.Do(http.MethodDelete, "/api/v1/admin/users/"+tc.id, nil), tc.status, tc.code)
		})
	}

	acctOK(t, e.admin.Do(http.MethodDelete, "/api/v1/admin/users/"+id, nil), 200, nil)
	acctErr(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users/"+id, nil), 404, 40400)
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", id); n != 0 {
		t.Fatalf("%d files left", n)
	}
	if n := e.count("SELECT COUNT(*) FROM albums WHERE user_id = $1", id); n != 0 {
		t.Fatalf("%d albums left", n)
	}
	acctErr(t, e.bearer(tok.Token).Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)
	if r := e.c.Do(http.MethodGet, own.path(), nil); r.Status != http.StatusNotFound {
		t.Fatalf("own file's link: %d", r.Status)
	}
	// Content shared with another user stays for them.
	if r := e.c.Do(http.MethodGet, keep.path(), nil); r.Status != http.StatusOK {
		t.Fatalf("shared file's link: %d", r.Status)
	}
	if n := e.count("SELECT ref_count FROM objects WHERE md5 = $1", keep.MD5); n != 1 {
		t.Fatalf("shared object ref_count = %d", n)
	}
	if after := len(e.storedFiles()); after != storedBefore-1 {
		t.Fatalf("stored files %d -> %d, want one fewer", storedBefore, after)
	}
	// The administrator is still there.
	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/users/"+e.auth.AdminID(), nil), 200, nil)
}
