package filehost

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/storage"
	"folio/storage/storagetest"
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
	store    storage.Store
	svc      *Service
	handler  http.Handler // the routes behind the trusted-loopback proxy middleware
	c        *httpxtest.Client
	// admin is a client carrying the configured administrator's Bearer token.
	admin *httpxtest.Client
	// instance is the registered process the service runs as.
	instance  *sqlstore.Instance
	instances *sqlstore.Instances
	spoolDir  string // Deps.SpoolDir
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
	local, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatalf("storage: %v", err)
	}
	return newTestEnvStore(t, db, local, nil)
}

// eachBackend runs test once per storage backend (storagetest.Backends),
// each time on a fresh site.
func eachBackend(t *testing.T, test func(t *testing.T, e *testEnv)) {
	for _, b := range storagetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			test(t, newTestEnvStore(t, sqlstoretest.Open(t), b.New(t), nil))
		})
	}
}

// tagStore is store with its temporary uploads tagged by instance.
func tagStore(t testing.TB, store storage.Store, instance string) storage.Store {
	t.Helper()
	switch s := store.(type) {
	case *storage.S3:
		return s.WithInstance(instance)
	case *storage.Local:
		l, err := s.WithInstance(instance)
		if err != nil {
			t.Fatalf("storage: %v", err)
		}
		return l
	}
	t.Fatalf("storage: no instance tags on %T", store)
	return nil
}

// newTestEnvStore builds a file host on db and store; edit, when not nil,
// changes its Deps first.
func newTestEnvStore(t testing.TB, db *sqlstore.DB, untagged storage.Store, edit func(d *Deps)) *testEnv {
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
	store := tagStore(t, untagged, inst.ID)
	tmpl, err := templates.NewConsole()
	if err != nil {
		t.Fatalf("console templates: %v", err)
	}
	public, err := templates.NewPublic()
	if err != nil {
		t.Fatalf("public templates: %v", err)
	}
	deps := Deps{DB: db, Auth: authSvc, Settings: settings, Store: store,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Console: auth.NewConsole(authSvc, tmpl, nil), Public: public,
		Instance: inst.ID, Instances: instances, SpoolDir: t.TempDir()}
	if edit != nil {
		edit(&deps)
	}
	svc, err := New(ctx, deps)
	if err != nil {
		t.Fatalf("filehost.New: %v", err)
	}
	routes := httpx.NewRouter()
	svc.Routes(routes)
	h := httpx.Chain(routes, httpx.Proxies{Trusted: loopback}.Middleware)
	e := &testEnv{t: t, db: db, auth: authSvc, settings: settings, store: store, svc: svc, handler: h,
		instance: inst, instances: instances, spoolDir: deps.SpoolDir}
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

// deadInstance registers a process whose last heartbeat is an hour old
// and returns its id.
func (e *testEnv) deadInstance() string {
	e.t.Helper()
	r := sqlstore.NewInstances(e.db)
	r.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	in, err := r.Register(context.Background())
	if err != nil {
		e.t.Fatalf("register dead instance: %v", err)
	}
	return in.ID
}

// place stores content under key directly, as a process would before it
// records anything.
func (e *testEnv) place(key, content string) {
	e.t.Helper()
	w, err := e.store.Begin(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		e.t.Fatal(err)
	}
	if err := w.Commit(key); err != nil {
		e.t.Fatalf("place %s: %v", key, err)
	}
}

// addIntent inserts a storage intent of instance, made age ago.
func (e *testEnv) addIntent(op, key, instance string, age time.Duration) string {
	e.t.Helper()
	id := sqlstore.NewID()
	if _, err := e.db.Exec(context.Background(), `INSERT INTO storage_intents (id, op, storage_key, instance_id, created_at)
		VALUES ($1, $2, $3, $4, $5)`, id, op, key, instance, sqlstore.FromTime(e.svc.now().Add(-age))); err != nil {
		e.t.Fatalf("add intent: %v", err)
	}
	return id
}

// stored reports whether bytes are stored under key.
func (e *testEnv) stored(key string) bool {
	e.t.Helper()
	_, err := e.store.Stat(context.Background(), key)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		e.t.Fatalf("stat %s: %v", key, err)
	}
	return err == nil
}

// intents returns the keys of the storage intents left, by op.
func (e *testEnv) intents() map[string][]string {
	e.t.Helper()
	rows, err := e.db.Query(context.Background(), "SELECT op, storage_key FROM storage_intents ORDER BY storage_key")
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var op, key string
		if err := rows.Scan(&op, &key); err != nil {
			e.t.Fatal(err)
		}
		out[op] = append(out[op], key)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// objectOf returns the object id and storage key behind a file record.
func (e *testEnv) objectOf(fileID string) (id, key string) {
	e.t.Helper()
	if err := e.db.QueryRow(context.Background(), "SELECT o.id, o.storage_key FROM files f JOIN objects o ON o.id = f.object_id WHERE f.id = $1",
		fileID).Scan(&id, &key); err != nil {
		e.t.Fatalf("object of %s: %v", fileID, err)
	}
	return id, key
}

// tempFile leaves a temporary upload as a writer tagged instance ("":
// untagged) would, last modified age ago, and returns its name.
func (e *testEnv) tempFile(instance string, age time.Duration) string {
	e.t.Helper()
	name := "up-" + sqlstore.NewID()[:8]
	if instance != "" {
		name = instance + "-" + name
	}
	p := filepath.Join(e.localRoot(), ".tmp", name)
	if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(p, at, at); err != nil {
		e.t.Fatal(err)
	}
	return name
}

// localRoot is the folder of a test on the local store only.
func (e *testEnv) localRoot() string {
	l, ok := e.store.(*storage.Local)
	if !ok {
		e.t.Fatalf("this test needs the local store, not %T", e.store)
	}
	return l.Root()
}

// temps lists the names of the temporary uploads left.
func (e *testEnv) temps() map[string]bool {
	e.t.Helper()
	ts, err := e.store.Temps(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, t := range ts {
		out[t.Name] = true
	}
	return out
}

// storedKeys lists every key in the store.
func (e *testEnv) storedKeys() []string {
	e.t.Helper()
	var keys []string
	if err := e.store.List(context.Background(), func(key string, _ int64) error {
		keys = append(keys, key)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return keys
}

// sqlstoreConfig prepares a database two test environments can share.
func sqlstoreConfig(t testing.TB) sqlstoretest.Config { return sqlstoretest.NewConfig(t) }
