package auth_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// clock is a settable clock safe to read from server goroutines.
type clock struct{ us atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.us.Store(time.Now().UnixMicro())
	return c
}
func (c *clock) Now() time.Time          { return time.UnixMicro(c.us.Load()) }
func (c *clock) Advance(d time.Duration) { c.us.Add(d.Microseconds()) }

// env is a service with a real database, a clock the test controls, and a
// real HTTP server with routes behind each guard.
type env struct {
	db     *sqlstore.DB
	svc    *auth.Service
	clock  *clock
	client *httpxtest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := sqlstoretest.Open(t)
	e := newEnvFor(t, authtest.New(t, db))
	e.db = db
	return e
}

// newEnvFor serves routes guarded by svc; its db field is nil.
func newEnvFor(t *testing.T, svc *auth.Service) *env {
	t.Helper()
	c := newClock()
	auth.SetClock(svc, c.Now)
	e := &env{svc: svc, clock: c}

	whoami := func(w http.ResponseWriter, r *http.Request) error {
		idn := auth.FromContext(r.Context())
		httpx.FileAPI.OK(w, http.StatusOK, map[string]string{"user_id": idn.UserID, "role": idn.Role, "via": idn.Via})
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /admin/ping", svc.RequireAdmin(httpx.FileAPI)(httpx.FileAPI.Handle(whoami)))
	mux.Handle("POST /admin/ping", svc.RequireAdmin(httpx.FileAPI)(httpx.FileAPI.Handle(whoami)))
	mux.Handle("GET /user/ping", svc.RequireUser(httpx.FileAPI)(httpx.FileAPI.Handle(whoami)))
	mux.Handle("POST /admin/logout", svc.RequireAdmin(httpx.BlogAPI)(httpx.BlogAPI.Handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := svc.RevokeSession(r.Context(), auth.FromContext(r.Context()).SessionID); err != nil {
			return err
		}
		auth.ClearCookie(w, r, auth.SessionCookie)
		httpx.BlogAPI.OK(w, http.StatusOK, nil)
		return nil
	})))
	e.client = httpxtest.NewServer(t, httpx.Proxies{}.Middleware(mux))
	return e
}

// visitor is a new client of the server whose failures are t's, for use
// inside a subtest.
func (e *env) visitor(t *testing.T) *httpxtest.Client {
	c := e.client.Clone()
	c.T = t
	return c
}

// fixedService is a service on a throwaway database that signs with
// secret and reads a clock stopped at the Unix time now, so that the values
// it signs are always the same.
func fixedService(t testing.TB, secret string, now int64) *auth.Service {
	t.Helper()
	cfg := authtest.Config(t)
	cfg.SessionSecret = secret
	svc, err := auth.New(context.Background(), sqlstoretest.Open(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth.SetClock(svc, func() time.Time { return time.Unix(now, 0) })
	return svc
}

// createUser inserts an active user with a password and returns it.
func (e *env) createUser(t *testing.T, username, email, password, role string) *auth.User {
	t.Helper()
	ctx := context.Background()
	hash, err := e.svc.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	id := sqlstore.NewID()
	now := sqlstore.FromTime(e.clock.Now())
	if _, err := e.db.Exec(ctx, `INSERT INTO users (id, username, email, password_hash, role, status, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, 'active', $6, $6)`, id, username, email, hash, role, now); err != nil {
		t.Fatalf("create user %s: %v", username, err)
	}
	u, err := e.svc.UserByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (e *env) setStatus(t *testing.T, userID, status string) {
	t.Helper()
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET status = $1 WHERE id = $2", status, userID); err != nil {
		t.Fatal(err)
	}
}

// get sends GET path with an Authorization header (none when empty).
func (e *env) get(t *testing.T, path, authorization string) *httpxtest.Response {
	t.Helper()
	c := e.client.Clone()
	if authorization != "" {
		return c.Do("GET", path, nil, "Authorization", authorization)
	}
	return c.Do("GET", path, nil)
}

// expectCode checks an envelope-A response's status and code.
func expectCode(t *testing.T, res *httpxtest.Response, status, code int) {
	t.Helper()
	res.Expect(status)
	if got := res.A().Code; got != code {
		t.Fatalf("code %d, want %d: %s", got, code, res.Body)
	}
}

// sessionCookie returns a Cookie header value for a new admin session.
func (e *env) sessionCookie(t *testing.T, userID string) string {
	t.Helper()
	v, _, err := e.svc.NewSession(context.Background(), userID, auth.SessionMeta{UserAgent: "test", IP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	return auth.SessionCookie + "=" + v
}
