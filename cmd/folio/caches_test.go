package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"image"
	"image/png"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// twoProcesses starts two Folios on one database and storage folder, as two
// processes behind one proxy, each with its own caches; the first client is
// the administrator's.
func twoProcesses(t *testing.T) (a, b *app, ca, cb *httpxtest.Client) {
	t.Helper()
	dbc := sqlstoretest.NewConfig(t)
	dir := "FOLIO_STORAGE_DIR=" + t.TempDir()
	a, ca = newTestAppOn(t, dbc, dir)
	b, cb = newTestAppOn(t, dbc, dir)
	for _, p := range []*app{a, b} {
		if !p.db.Changes().Local() {
			t.Fatal("two processes of one machine do not trust their shared change counters")
		}
	}
	ca.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	return a, b, ca, cb
}

// TestCachedPagesShowAnotherProcesssWriteOnTheNextView: the second process
// serves its pages from memory, yet a settings change or a new post made
// through the first shows on its very next page view.
func TestCachedPagesShowAnotherProcesssWriteOnTheNextView(t *testing.T) {
	_, _, admin, reader := twoProcesses(t)
	page := func(path string) string {
		t.Helper()
		reader.Do("GET", path, nil).Expect(200)
		return string(reader.Do("GET", path, nil).Expect(200).Body) // the second from memory
	}
	for _, path := range []string{"/", "/feed.xml"} {
		if !strings.Contains(page(path), "Folio") {
			t.Fatalf("GET %s does not show the site name", path)
		}
	}
	admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"site": map[string]any{"site_name": "Renamed Elsewhere"}}).Expect(200)
	for _, path := range []string{"/", "/feed.xml"} {
		if body := page(path); !strings.Contains(body, "Renamed Elsewhere") {
			t.Fatalf("GET %s right after another process renamed the site: old name served", path)
		}
	}
	admin.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Written Elsewhere", "status": "published",
		"content_markdown": "hello"}).Expect(201)
	for _, path := range []string{"/", "/feed.xml"} {
		if body := page(path); !strings.Contains(body, "Written Elsewhere") {
			t.Fatalf("GET %s right after another process published a post: not shown", path)
		}
	}
}

// TestDeletedFileStopsServingAtOnceInAnotherProcess: the second process
// keeps the bytes of a hot short link and its thumbnail in memory; a
// deletion through the first stops both on its very next request.
func TestDeletedFileStopsServingAtOnceInAnotherProcess(t *testing.T) {
	_, _, owner, reader := twoProcesses(t)
	content := testPNG(t)
	up := owner.Upload("/api/v1/upload", "file", "a.png", content).Expect(200).U()
	var res struct {
		ID    string `json:"id"`
		Links struct {
			URL          string `json:"url"`
			ThumbnailURL string `json:"thumbnail_url"`
		} `json:"links"`
	}
	httpxtest.Into(t, up.Data, &res)
	paths := []string{pathOf(t, res.Links.URL), pathOf(t, res.Links.ThumbnailURL)}
	for _, p := range paths {
		for range 2 { // the second from memory
			reader.Do("GET", p, nil).Expect(200)
		}
	}
	if got := reader.Do("GET", paths[0], nil).Expect(200).Body; string(got) != string(content) {
		t.Fatal("the short link serves other bytes than were uploaded")
	}
	owner.Do("DELETE", "/api/v1/files/"+res.ID, nil).Expect(200)
	for _, p := range paths {
		reader.Do("GET", p, nil).Expect(404)
	}
}

func pathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		t.Fatalf("link %q: %v", link, err)
	}
	return u.Path
}

// testPNG is a small PNG of random pixels, so that every test uploads new
// bytes.
func testPNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	rand.Read(img.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestScopeWatchTrustsCountersOnlyWhileEveryProcessSharesThem: a process
// of another scope (another machine, another changes file) turns the
// counters off on PostgreSQL until it is gone; on SQLite every writer
// shares the file, always. A process that disappears bumps every counter.
func TestScopeWatchTrustsCountersOnlyWhileEveryProcessSharesThem(t *testing.T) {
	a, _, _, _ := twoProcesses(t)
	ctx := context.Background()
	instances := sqlstore.NewInstances(a.db)
	w := &scopeWatch{db: a.db, instances: instances, logger: slog.New(slog.DiscardHandler)}
	w.check(ctx)
	if !a.db.Changes().Local() {
		t.Fatal("one scope: counters not trusted")
	}

	foreign := sqlstore.NewInstances(a.db)
	foreign.Scope = "another machine"
	inst, err := foreign.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.check(ctx)
	wantLocal := a.db.Dialect() == sqlstore.SQLite
	if got := a.db.Changes().Local(); got != wantLocal {
		t.Fatalf("with a process of another scope: Local = %v, want %v", got, wantLocal)
	}

	counter := a.db.Changes().Counter("any")
	before := counter.Load()
	if err := foreign.Unregister(ctx, inst); err != nil {
		t.Fatal(err)
	}
	w.check(ctx)
	if !a.db.Changes().Local() {
		t.Fatal("the other scope's process is gone: counters still not trusted")
	}
	if counter.Load() == before {
		t.Fatal("a process disappeared and no counter moved")
	}
}

// TestCredentialsAndSettingsChangedThroughOneProcessHoldOnTheNextRequestToAnother:
// sessions, tokens and settings live in the database, read on each request
// (settings through the change counter), so what one process revokes or
// turns on is refused or allowed by the other at once.
func TestCredentialsAndSettingsChangedThroughOneProcessHoldOnTheNextRequestToAnother(t *testing.T) {
	_, _, admin, other := twoProcesses(t)
	other.Do("POST", "/api/v1/auth/register", map[string]string{
		"username": "early", "email": "early@example.com", "password": "password-123"}).Expect(403)
	admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"upload": map[string]any{"allow_register": true}}).Expect(200)
	other.Do("POST", "/api/v1/auth/register", map[string]string{
		"username": "reader", "email": "reader@example.com", "password": "password-123"}).Expect(201)

	// The user signs in through the first process and makes an API token.
	var login struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		User         struct {
			ID string `json:"id"`
		} `json:"user"`
	}
	httpxtest.Into(t, admin.Clone().Do("POST", "/api/v1/auth/login", map[string]string{
		"username": "reader", "password": "password-123"}).Expect(200).A().Data, &login)
	var tok struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	httpxtest.Into(t, admin.Clone().Do("POST", "/api/v1/tokens", map[string]string{"name": "cli"},
		"Authorization", "Bearer "+login.AccessToken).Expect(201).A().Data, &tok)
	bearer := func(c *httpxtest.Client, token string) int {
		return c.Clone().Do("GET", "/api/v1/tokens", nil, "Authorization", "Bearer "+token).Status
	}
	for _, token := range []string{login.AccessToken, tok.Token} {
		if got := bearer(other, token); got != 200 {
			t.Fatalf("a credential made through the first process: %d through the second, want 200", got)
		}
	}
	admin.Clone().Do("DELETE", "/api/v1/tokens/"+tok.ID, nil, "Authorization", "Bearer "+login.AccessToken).Expect(200)
	if got := bearer(other, tok.Token); got != 401 {
		t.Fatalf("API token revoked through the first process: %d through the second, want 401", got)
	}
	// A console session made through the first process, used through the
	// second, ends with a password change through the first, as does the
	// refresh token (access tokens run out by themselves: docs/design.md#identity).
	console := admin.Clone()
	console.PostForm("/console/login", "form_token", console.Do("GET", "/console/login", nil).Expect(200).FormToken(),
		"username", "reader", "password", "password-123").Expect(303)
	session := other.Clone()
	shareCookies(t, console, session)
	session.Do("GET", "/api/v1/tokens", nil).Expect(200)
	admin.Do("PATCH", "/api/v1/admin/users/"+login.User.ID, map[string]string{"password": "password-456"}).Expect(200)
	session.Do("GET", "/api/v1/tokens", nil).Expect(401)
	other.Clone().Do("POST", "/api/v1/auth/refresh", map[string]string{"refresh_token": login.RefreshToken}).Expect(401)

	// The administrator's session cookie works on both, until a logout
	// through the first.
	shared := other.Clone()
	shareCookies(t, admin, shared)
	shared.Do("GET", "/api/v1/admin/settings", nil).Expect(200)
	admin.Do("POST", "/api/v1/admin/auth/logout", nil).Expect(200)
	shared.Do("GET", "/api/v1/admin/settings", nil).Expect(401)
}

// shareCookies gives to the cookies from's jar holds for its server, as a
// proxy in front of both servers would send them to either.
func shareCookies(t *testing.T, from, to *httpxtest.Client) {
	t.Helper()
	src, err := url.Parse(from.Base)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := url.Parse(to.Base)
	if err != nil {
		t.Fatal(err)
	}
	to.HTTP.Jar.SetCookies(dst, from.HTTP.Jar.Cookies(src))
}

// TestNewShortLinkServedAtOnceByAnotherProcess: a process that never saw a
// short link (no cached miss is kept) serves it on the first request after
// the upload through another.
func TestNewShortLinkServedAtOnceByAnotherProcess(t *testing.T) {
	_, _, owner, reader := twoProcesses(t)
	content := testPNG(t)
	var res struct {
		Links struct {
			URL string `json:"url"`
		} `json:"links"`
	}
	httpxtest.Into(t, owner.Upload("/api/v1/upload", "file", "a.png", content).Expect(200).U().Data, &res)
	if got := reader.Do("GET", pathOf(t, res.Links.URL), nil).Expect(200).Body; !bytes.Equal(got, content) {
		t.Fatal("the other process serves other bytes than were uploaded")
	}
}

// TestScopeWatchWaitsForTheNextRequestWhileQuiet: while the site is quiet
// the registry is not read every second (a process's disappearance is not
// acted on yet); the next request has it read at once.
func TestScopeWatchWaitsForTheNextRequestWhileQuiet(t *testing.T) {
	db := sqlstoretest.Open(t)
	ctx := context.Background()
	foreign := sqlstore.NewInstances(db)
	inst, err := foreign.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	quiet := &quietSignal{}
	w := &scopeWatch{db: db, instances: sqlstore.NewInstances(db), logger: slog.New(slog.DiscardHandler), quiet: quiet}
	w.check(ctx)
	quiet.raise()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.run(runCtx) }()
	defer func() { stop(); <-done }()

	counter := db.Changes().Counter("any")
	before := counter.Load()
	if err := foreign.Unregister(ctx, inst); err != nil {
		t.Fatal(err)
	}
	time.Sleep(scopeEvery + scopeEvery/2)
	if counter.Load() != before {
		t.Fatal("the registry was read every second while the site was quiet")
	}
	quiet.lower()
	deadline := time.Now().Add(5 * time.Second)
	for counter.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("a request ended the quiet and the registry was not read")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
