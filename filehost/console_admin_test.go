package filehost

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// adminPages are the administration routes, with what a form needs.
var adminPages = []struct{ method, path string }{
	{"GET", "/console/admin/users"},
	{"POST", "/console/admin/users"},
	{"GET", "/console/admin/users/{id}"},
	{"POST", "/console/admin/users/{id}"},
	{"POST", "/console/admin/users/{id}/delete"},
	{"GET", "/console/admin/files"},
	{"POST", "/console/admin/files/delete"},
	{"GET", "/console/admin/settings"},
	{"POST", "/console/admin/settings"},
}

func TestConsoleAdminPagesAreTheAdministrators(t *testing.T) {
	e := newTestEnv(t)
	victim := e.createUser("victim", 0)
	_, user := e.consoleUser("ursula")
	tok := pageToken(user, "/console/account")
	for _, p := range adminPages {
		path := strings.ReplaceAll(p.path, "{id}", victim)
		t.Run(p.method+" "+p.path, func(t *testing.T) {
			var status int
			if p.method == "GET" {
				status = user.Do("GET", path, nil).Status
			} else {
				status = user.PostForm(path, "form_token", tok, "status", "disabled", "ids", victim).Status
			}
			if status != 403 {
				t.Errorf("a user got %d", status)
			}
			anon := e.c.Clone()
			res := anon.Do(p.method, path, nil)
			if res.Status != 303 || !strings.HasPrefix(res.Location(), "/console/login") {
				t.Errorf("anonymous got %d %q", res.Status, res.Location())
			}
		})
	}
	// Nothing changed.
	u, err := e.auth.UserByID(context.Background(), victim)
	if err != nil || u.Status != "active" {
		t.Fatalf("the victim: %+v %v", u, err)
	}
}

func TestConsoleAdminManagesUsers(t *testing.T) {
	e := newTestEnv(t)
	admin := e.consoleAdmin()
	list := admin.Do("GET", "/console/admin/users", nil).Expect(200)
	if !contains(list, `<tr data-user="admin">`, `<tr data-user="guest">`, `id="user-create"`, `value="1 GiB"`) {
		t.Fatalf("user list: %.800s", list.Body)
	}
	tok := list.FormToken()

	// Creating: refusals keep the form, success leads to the user.
	bad := admin.PostForm("/console/admin/users", "form_token", tok, "username", "nina", "email", "nina@example.com", "password", testPassword, "role", "user", "quota", "lots")
	bad.Expect(422)
	if !contains(bad, `value="nina@example.com"`, "Quota must be") {
		t.Errorf("refused form: %.500s", bad.Body)
	}
	admin.PostForm("/console/admin/users", "form_token", tok, "username", "admin", "email", "x@example.com", "password", testPassword, "role", "user", "quota", "0").Expect(409)
	admin.PostForm("/console/admin/users", "form_token", tok, "username", "no", "email", "x@example.com", "password", testPassword, "role", "user", "quota", "0").Expect(400)
	res := admin.PostForm("/console/admin/users", "form_token", tok, "username", "nina", "email", "nina@example.com", "password", testPassword, "role", "user", "quota", "500 MiB").Expect(303)
	page := admin.Do("GET", res.Location(), nil).Expect(200)
	if !contains(page, "User nina", `value="500 MiB"`, `id="user-delete"`) {
		t.Fatalf("user page: %.600s", page.Body)
	}
	if got := admin.Do("GET", "/console/admin/users?q=NIN", nil).Expect(200); !contains(got, `data-user="nina"`) || contains(got, `data-user="admin"`) {
		t.Error("search does not find nina alone")
	}
	id := strings.TrimPrefix(res.Location(), "/console/admin/users/")

	// Disabling signs nina out at once.
	nina := e.consoleAs("nina", testPassword)
	nina.Do("GET", "/console/files", nil).Expect(200)
	admin.PostForm("/console/admin/users/"+id, "form_token", tok, "status", "disabled", "role", "user", "quota", "2 GiB").Expect(303)
	if got := nina.Do("GET", "/console/files", nil).Expect(303).Location(); !strings.HasPrefix(got, "/console/login") {
		t.Errorf("a disabled user still opens the console: %q", got)
	}
	u, _ := e.auth.UserByID(context.Background(), id)
	if u.Status != "disabled" || u.QuotaBytes != 2<<30 {
		t.Errorf("after the save: %+v", u)
	}
	admin.PostForm("/console/admin/users/"+id, "form_token", tok, "status", "active", "role", "user", "quota", "-1").Expect(422)
	admin.PostForm("/console/admin/users/"+id, "form_token", tok, "status", "asleep", "role", "user", "quota", "0").Expect(400)

	// The administrator keeps its powers; its quota still saves.
	adminID := e.auth.AdminID()
	admin.PostForm("/console/admin/users/"+adminID, "form_token", tok, "status", "disabled", "role", "admin", "quota", "0").Expect(403)
	admin.PostForm("/console/admin/users/"+adminID, "form_token", tok, "status", "active", "role", "user", "quota", "0").Expect(403)
	admin.PostForm("/console/admin/users/"+adminID, "form_token", tok, "status", "active", "role", "admin", "quota", "3 GiB").Expect(303)
	admin.PostForm("/console/admin/users/"+adminID+"/delete", "form_token", tok).Expect(403)
	admin.Do("GET", "/console/admin/users/"+e.auth.GuestID(), nil).Expect(200)
	admin.Do("GET", "/console/admin/users/0190aaaa-0000-7000-8000-000000000000", nil).Expect(404)
	admin.Do("GET", "/console/admin/users/not-an-id", nil).Expect(404)

	// Deleting takes the files along.
	ninaAPI := e.clientFor(id)
	admin.PostForm("/console/admin/users/"+id, "form_token", tok, "status", "active", "role", "user", "quota", "0").Expect(303)
	ninaAPI.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 4, 4), "permission", "1").Expect(200)
	admin.PostForm("/console/admin/users/"+id+"/delete", "form_token", tok).Expect(303)
	if _, err := e.auth.UserByID(context.Background(), id); err == nil {
		t.Error("the user is still there")
	}
	var n int
	if err := e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM files WHERE user_id = $1", id).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d files left (%v)", n, err)
	}
	admin.PostForm("/console/admin/users/"+id, "status", "active").Expect(403)
}

func TestConsoleAdminSeesEveryFile(t *testing.T) {
	e := newTestEnv(t)
	aliceID, _ := e.newUser("alice", 0)
	bobID, _ := e.newUser("bob", 0)
	e.clientFor(aliceID).Upload("/api/v1/upload", "file", "alice-cat.png", pngBytes(t, 4, 4)).Expect(200)
	e.clientFor(bobID).Upload("/api/v1/upload", "file", "bob-dog.png", pngBytes(t, 4, 4)).Expect(200)
	admin := e.consoleAdmin()

	all := admin.Do("GET", "/console/admin/files", nil).Expect(200)
	if !contains(all, `data-name="alice-cat.png"`, `data-name="bob-dog.png"`, `href="/console/admin/files?user=alice"`) {
		t.Fatalf("all files: %.800s", all.Body)
	}
	only := admin.Do("GET", "/console/admin/files?user=Alice", nil).Expect(200)
	if !contains(only, `data-name="alice-cat.png"`) || contains(only, `data-name="bob-dog.png"`) {
		t.Error("the owner filter does not filter")
	}
	admin.Do("GET", "/console/admin/files?user=nobody", nil).Expect(404)
	admin.Do("GET", "/console/admin/files?type=pdf", nil).Expect(400)

	id := regexp.MustCompile(`data-id="([^"]+)" data-name="bob-dog.png"`).FindSubmatch(all.Body)[1]
	admin.PostForm("/console/admin/files/delete", "form_token", all.FormToken()).Expect(422)
	admin.PostForm("/console/admin/files/delete", "ids", string(id)).Expect(403)
	res := admin.PostForm("/console/admin/files/delete", "form_token", all.FormToken(), "ids", string(id), "back", "/console/admin/files?user=bob").Expect(303)
	if res.Location() != "/console/admin/files?user=bob" {
		t.Errorf("back to %q", res.Location())
	}
	if _, n := e.usage(bobID); n != 0 {
		t.Errorf("bob still has %d files", n)
	}
}

func TestConsoleAdminChangesUploadSettings(t *testing.T) {
	e := newTestEnv(t)
	admin := e.consoleAdmin()
	page := admin.Do("GET", "/console/admin/settings", nil).Expect(200)
	if !contains(page, `value="100 MiB"`, `value="{year}/{month}/{md5_8}/{uuid}.{ext}"`) {
		t.Fatalf("settings page: %.800s", page.Body)
	}
	tok := page.FormToken()
	before := e.settings.Get(context.Background())

	refused := []struct{ name, field, value, want string }{
		{"size that is not one", "max_file_size", "huge", "Not saved. Largest file: must be a size like 10 MiB"},
		{"zero size", "max_file_size", "0", "Not saved. Largest file: must be a positive number of bytes."},
		{"path out of the folder", "path_pattern", "../{uuid}", "Not saved. Path pattern: "},
		{"path without a unique part", "path_pattern", "{year}/{ext}", "Not saved. Path pattern: must contain {uuid} or {md5}."},
		{"negative quota", "default_quota", "-5", "Not saved. Quota of new accounts: "},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			fields := map[string]string{"max_file_size": "10 MiB", "default_quota": "0", "path_pattern": DefaultPathPattern, "allow_guest_upload": "1"}
			fields[tt.field] = tt.value
			var pairs []string
			for k, v := range fields {
				pairs = append(pairs, k, v)
			}
			res := admin.PostForm("/console/admin/settings", append(pairs, "form_token", tok)...).Expect(422)
			if !contains(res, tt.want, `aria-invalid="true"`) || contains(res, "upload.") {
				t.Errorf("page lacks %q or names a setting's key: %s", tt.want, res.Body)
			}
			if got := e.settings.Get(context.Background()); got.AllowGuestUpload != before.AllowGuestUpload || got.MaxFileSize != before.MaxFileSize {
				t.Errorf("a refused form stored something: %+v", got)
			}
		})
	}

	admin.PostForm("/console/admin/settings", "form_token", tok, "allow_guest_upload", "1", "allow_register", "1",
		"max_file_size", "5 MiB", "default_quota", "2 GiB", "allowed_types", "image/*, .PDF", "forbidden_exts", "exe", "path_pattern", "{year}/{uuid}.{ext}", "strip_metadata", "1").Expect(303)
	got := e.settings.Get(context.Background())
	if !got.AllowGuestUpload || !got.AllowRegister || got.AllowDuplicate || !got.StripMetadata || got.MaxFileSize != 5<<20 || got.DefaultQuotaBytes != 2<<30 ||
		strings.Join(got.AllowedTypes, ",") != "image/*,pdf" || got.PathPattern != "{year}/{uuid}.{ext}" {
		t.Errorf("stored %+v", got)
	}
	// The guest page opens with the setting.
	e.c.Do("GET", "/upload", nil).Expect(200)
	admin.PostForm("/console/admin/settings", "max_file_size", "1").Expect(403)
}

// Every upload setting a refusal names is named by the label the page
// shows it with.
func TestUploadSettingLabelsAreThePagesLabels(t *testing.T) {
	e := newTestEnv(t)
	page := e.consoleAdmin().Do("GET", "/console/admin/settings", nil).Expect(200)
	for key, label := range uploadSettingLabels() {
		if !contains(page, label) {
			t.Errorf("%s: the label %q is not on the page", key, label)
		}
	}
}

func TestSizeTextReadsBackExactly(t *testing.T) {
	for _, n := range []int64{0, 1, 1023, 1024, 1536, 100 << 20, 1 << 30, 3<<30 + 1} {
		got, err := formSize(sizeText(n))
		if err != nil || got != n {
			t.Errorf("%d → %q → %d, %v", n, sizeText(n), got, err)
		}
	}
	for _, bad := range []string{"x", "-1", "1.5 GiB", "1 TB"} {
		if _, err := formSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
