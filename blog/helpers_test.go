package blog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/blog"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/templates"
)

// env is one blog over a real database and HTTP server.
type env struct {
	t        testing.TB
	db       *sqlstore.DB
	auth     *auth.Service
	settings blog.SettingsGroups
	handler  http.Handler
	admin    *httpxtest.Client // logged in with the session cookie
	anon     *httpxtest.Client
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e, _ := newEnvWith(t, setup{})
	return e
}

// setup varies what newEnvWith builds.
type setup struct {
	log io.Writer        // the blog's log; nil discards it
	now func() time.Time // the blog's clock; nil is time.Now
	// handler turns the router holding the blog's routes into the handler
	// under test; nil puts it behind a trusted-loopback proxy so that
	// tests can play several client IPs (rate limits are per IP) with
	// X-Forwarded-For.
	handler func(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler
	// console serves the blog's console pages (console_helpers_test.go).
	console bool
	// deps, when not nil, changes the blog's Deps before it is built.
	deps func(d *blog.Deps)
}

// newEnvWith builds the blog on a fresh database, serves it, logs the
// administrator in, and closes the blog (its AI jobs) before the database.
func newEnvWith(t testing.TB, s setup) (*env, *blog.Blog) {
	t.Helper()
	ctx := context.Background()
	db := sqlstoretest.Open(t)
	a := authtest.New(t, db)
	st := openSettings(t, db)
	if s.log == nil {
		s.log = io.Discard
	}
	d := blog.Deps{DB: db, Auth: a, Settings: st, Templates: templates.FS,
		Logger: slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug})), Now: s.now}
	if s.console {
		d.Console = newConsoleFrame(t, a, st)
	}
	if s.deps != nil {
		s.deps(&d)
	}
	b, err := blog.New(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = b.Close(ctx)
	})
	routes := httpx.NewRouter()
	b.Routes(routes)
	if s.handler == nil {
		s.handler = trustLoopback
	}
	e := &env{t: t, db: db, auth: a, settings: st, handler: s.handler(t, routes, b)}
	e.anon = httpxtest.NewServer(t, e.handler)
	e.admin = e.anon.Clone()
	e.admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	return e, b
}

// openSettings registers the blog's settings groups with the built-in
// defaults over db, as a (re)started process would.
func openSettings(t testing.TB, db *sqlstore.DB) blog.SettingsGroups {
	t.Helper()
	reg := sqlstore.NewRegistry()
	st := blog.RegisterSettings(reg, blog.DefaultSettings())
	if err := reg.Open(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return st
}

func trustLoopback(t testing.TB, routes *httpx.Router, _ *blog.Blog) http.Handler {
	loopback, err := httpx.ParsePrefixes("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	return httpx.Chain(routes, httpx.Proxies{Trusted: loopback}.Middleware)
}

// visitor is a new client without cookies that comes from ip.
func (e *env) visitor(ip string) *httpxtest.Client {
	c := e.anon.Clone()
	c.Header.Set("X-Forwarded-For", ip)
	return c
}

// data decodes an envelope-B answer of the wanted status into dst.
func data(t testing.TB, r *httpxtest.Response, status int, dst any) {
	t.Helper()
	r.Expect(status)
	b := r.B()
	if b.Code != status {
		t.Fatalf("envelope code %d, want %d: %s", b.Code, status, r.Body)
	}
	if dst != nil {
		httpxtest.Into(t, b.Data, dst)
	}
}

// expectError checks an envelope-B error's status and exact msg.
func expectError(t testing.TB, r *httpxtest.Response, status int, msg string) {
	t.Helper()
	r.Expect(status)
	b := r.B()
	if b.Code != status || string(b.Data) != "null" {
		t.Fatalf("error envelope: code %d data %s, want %d null", b.Code, b.Data, status)
	}
	if msg != "" && b.Msg != msg {
		t.Fatalf("msg %q, want %q", b.Msg, msg)
	}
}

// post is the JSON shape of a post in responses.
type post struct {
	ID              string           `json:"id"`
	Title           string           `json:"title"`
	Slug            string           `json:"slug"`
	Summary         string           `json:"summary"`
	ContentMarkdown *string          `json:"content_markdown"`
	ContentHTML     *string          `json:"content_html"`
	TOC             []map[string]any `json:"toc"`
	Status          string           `json:"status"`
	CoverImage      string           `json:"cover_image"`
	PublishedAt     *time.Time       `json:"published_at"`
	ShowComments    bool             `json:"show_comments"`
	CategoryID      string           `json:"category_id"`
	Category        *ref             `json:"category"`
	Tags            []ref            `json:"tags"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
}

type ref struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

type page[T any] struct {
	Items      []T `json:"items"`
	Pagination struct {
		Page     int `json:"page"`
		PageSize int `json:"page_size"`
		Total    int `json:"total"`
	} `json:"pagination"`
}

// createPost creates a post through the API; fields fill the body.
func (e *env) createPost(fields map[string]any) post {
	e.t.Helper()
	body := map[string]any{"title": "A post", "content_markdown": "Hello **world**"}
	for k, v := range fields {
		body[k] = v
	}
	var p post
	data(e.t, e.admin.Do("POST", "/api/v1/admin/posts", body), 201, &p)
	return p
}

// publish creates a published post.
func (e *env) publish(title string, fields ...any) post {
	e.t.Helper()
	m := map[string]any{"title": title, "status": "published"}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	return e.createPost(m)
}

func (e *env) createTerm(res, name string) ref {
	e.t.Helper()
	var r ref
	data(e.t, e.admin.Do("POST", "/api/v1/admin/"+res, map[string]string{"name": name}), 201, &r)
	return r
}

// exec runs SQL directly, for states the API cannot make.
// startAgain starts and closes a second blog on the test's database, as a
// restart would, so that what the blog does as it starts (rendering again
// what an older renderer stored) has run; images may be nil.
func (e *env) startAgain(t *testing.T, images blog.ImageSizer) {
	t.Helper()
	b, err := blog.New(context.Background(), blog.Deps{DB: e.db, Auth: e.auth, Settings: e.settings,
		Templates: templates.FS, Images: images, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (e *env) exec(q string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Exec(context.Background(), q, args...); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

// userToken makes a role-user and returns an access token of theirs.
func (e *env) userToken() string {
	e.t.Helper()
	id := sqlstore.NewID()
	now := sqlstore.FromTime(time.Now())
	e.exec(`INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ($1, $2, '', '', 'user', 'active', 0, $3, $3)`, id, fmt.Sprintf("u%d", time.Now().UnixNano()), now)
	tok, _ := e.auth.NewAccessToken(id)
	return tok
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
