package filehost

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"testing"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/storage"
	"folio/templates"
)

// testPassword is the password of every user made by createUser.
const testPassword = "password123"

// testEnv is a whole file host on a throwaway database and storage folder,
// served over real HTTP.
type testEnv struct {
	t        testing.TB
	db       *sqlstore.DB
	auth     *auth.Service
	settings *sqlstore.Group[UploadSettings]
	store    *storage.Local
	svc      *Service
	handler  http.Handler // the routes behind the trusted-loopback proxy middleware
	c        *httpxtest.Client
	// admin is a client carrying the configured administrator's Bearer token.
	admin *httpxtest.Client
	// instance is the registered process the service runs as.
	instance  *sqlstore.Instance
	instances *sqlstore.Instances
}

// loopback is what the test server trusts as a proxy.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// newTestEnv builds DB, auth, settings, local storage and the file host and
// serves them; settings start from the built-in defaults.
func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	return newTestEnvOn(t, sqlstoretest.Open(t), t.TempDir())
}

// newTestEnvOn builds a file host on db storing under dir: two of them on
// one database and folder are two processes of one site.
func newTestEnvOn(t testing.TB, db *sqlstore.DB, dir string) *testEnv {
	t.Helper()
	ctx := context.Background()
	authSvc := authtest.New(t, db)
	reg := sqlstore.NewRegistry()
	settings := RegisterSettings(reg, DefaultUploadSettings())
	if err := reg.Open(ctx, db); err != nil {
		t.Fatalf("settings: %v", err)
	}
	instances := sqlstore.NewInstances(db)
	inst, err := instances.Register(ctx)
	if err != nil {
		t.Fatalf("register instance: %v", err)
	}
	local, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatalf("storage: %v", err)
	}
	store, err := local.WithInstance(inst.ID)
	if err != nil {
		t.Fatalf("storage: %v", err)
	}
	tmpl, err := templates.NewConsole()
	if err != nil {
		t.Fatalf("console templates: %v", err)
	}
	public, err := templates.NewPublic()
	if err != nil {
		t.Fatalf("public templates: %v", err)
	}
	svc, err := New(ctx, Deps{DB: db, Auth: authSvc, Settings: settings, Store: store,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Console: auth.NewConsole(authSvc, tmpl, nil), Public: public,
		Instance: inst.ID, Instances: instances})
	if err != nil {
		t.Fatalf("filehost.New: %v", err)
	}
	routes := httpx.NewRouter()
	svc.Routes(routes)
	h := httpx.Chain(routes, httpx.Proxies{Trusted: loopback}.Middleware)
	e := &testEnv{t: t, db: db, auth: authSvc, settings: settings, store: store, svc: svc, handler: h,
		instance: inst, instances: instances}
	e.c = httpxtest.NewServer(t, h)
	e.admin = e.clientFor(authSvc.AdminID())
	return e
}

// setUpload changes the upload settings through the settings store.
func (e *testEnv) setUpload(change func(u *UploadSettings)) {
	e.t.Helper()
	ctx := context.Background()
	s := e.settings.Get(ctx)
	change(&s)
	if err := e.settings.Put(ctx, s); err != nil {
		e.t.Fatalf("put settings: %v", err)
	}
}

// createUser inserts an active user with role "user", password testPassword
// and the given quota (0: none), and returns its id.
func (e *testEnv) createUser(username string, quota int64) string {
	e.t.Helper()
	hash, err := e.auth.HashPassword(testPassword)
	if err != nil {
		e.t.Fatal(err)
	}
	id := sqlstore.NewID()
	now := sqlstore.FromTime(e.svc.now())
	if _, err := e.db.Exec(context.Background(), `INSERT INTO users (id, username, email, password_hash, role, status, quota_bytes, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 'user', 'active', $5, $6, $6)`, id, username, username+"@example.com", hash, quota, now); err != nil {
		e.t.Fatalf("create user %s: %v", username, err)
	}
	return id
}

// token returns a fresh access token for a user.
func (e *testEnv) token(userID string) string {
	tok, _ := e.auth.NewAccessToken(userID)
	return tok
}

// clientFor returns a client that sends the user's Bearer token.
func (e *testEnv) clientFor(userID string) *httpxtest.Client {
	c := e.c.Clone()
	c.Header.Set("Authorization", "Bearer "+e.token(userID))
	return c
}

// within returns c, with its cookies and a copy of its headers, failing t
// instead of c's test: for use inside a subtest.
func within(t testing.TB, c *httpxtest.Client) *httpxtest.Client {
	n := *c
	n.T = t
	n.Header = c.Header.Clone()
	return &n
}

// newUser creates a user with the given quota and returns its id and a
// client authenticated as it.
func (e *testEnv) newUser(username string, quota int64) (string, *httpxtest.Client) {
	e.t.Helper()
	id := e.createUser(username, quota)
	return id, e.clientFor(id)
}

// userRow reads a user's usage counters.
func (e *testEnv) usage(userID string) (usedBytes, fileCount int64) {
	e.t.Helper()
	if err := e.db.QueryRow(context.Background(), "SELECT used_bytes, file_count FROM users WHERE id = $1", userID).
		Scan(&usedBytes, &fileCount); err != nil {
		e.t.Fatalf("usage of %s: %v", userID, err)
	}
	return usedBytes, fileCount
}
