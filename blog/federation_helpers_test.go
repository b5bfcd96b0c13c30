package blog_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/blog"
	"folio/blog/activitypub"
	"folio/blog/httpsig"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/httpx/outbound"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/templates"
)

// fedEnv is one blog process with its classic site, federation allowed
// to reach loopback over plain http, on a clock the test moves, over a
// database that another fedEnv may share (a second process).
type fedEnv struct {
	*env
	blog  *blog.Blog
	clock *testClock
	cfg   sqlstoretest.Config
}

// newFedEnv builds a blog on a fresh database.
func newFedEnv(t testing.TB) *fedEnv {
	t.Helper()
	return newFedProcess(t, sqlstoretest.NewConfig(t), &testClock{})
}

// newFedProcess builds a blog process over the database of cfg, on clock,
// registered in the database's instance registry, as cmd/folio does.
func newFedProcess(t testing.TB, cfg sqlstoretest.Config, clock *testClock) *fedEnv {
	t.Helper()
	ctx := context.Background()
	db := cfg.Open(t)
	a := authtest.New(t, db)
	st := openSettings(t, db)
	allow, err := outbound.ParseAllowlist("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	reg := sqlstore.NewInstances(db)
	inst, err := reg.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := blog.New(ctx, blog.Deps{DB: db, Auth: a, Settings: st, Templates: templates.FS,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.now,
		Instance: inst.ID, Instances: reg, FederationAllow: allow, FederationAllowHTTP: true, Version: "1.2.3-test"})
	if err != nil {
		t.Fatal(err)
	}
	b.SetFederationClock(clock.now)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = b.Close(ctx)
		_ = reg.Unregister(context.Background(), inst)
	})
	eng, err := templates.New(templates.Options{Pages: templates.FS})
	if err != nil {
		t.Fatal(err)
	}
	site, err := blog.NewSite(b, eng)
	if err != nil {
		t.Fatal(err)
	}
	routes := httpx.NewRouter()
	b.Routes(routes)
	site.Routes(routes)
	e := &env{t: t, db: db, auth: a, settings: st, handler: httpx.Chain(routes, httpx.Proxies{}.Middleware)}
	e.anon = httpxtest.NewServer(t, e.handler)
	e.admin = e.anon.Clone()
	e.admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	return &fedEnv{env: e, blog: b, clock: clock, cfg: cfg}
}

// enable turns federation on with the site's address set to this
// process's, as an administrator would, and fetches the actor as a
// follower's server first does.
func (e *fedEnv) enable(extra ...map[string]any) {
	e.t.Helper()
	fed := map[string]any{"enabled": true}
	for _, x := range extra {
		for k, v := range x {
			fed[k] = v
		}
	}
	data(e.t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{
		"site":       map[string]any{"site_url": e.anon.Base, "site_name": "Field Notes", "description": "Notes <from> the field"},
		"federation": fed}), 200, nil)
	e.anon.Do("GET", "/ap/actor", nil).Expect(200)
}

// activity fetches an ActivityStreams document and decodes it.
func (e *fedEnv) activity(path string, status int) map[string]any {
	e.t.Helper()
	r := e.anon.Do("GET", path, nil, "Accept", activitypub.ContentType).Expect(status)
	if ct := r.Header.Get("Content-Type"); ct != "application/activity+json; charset=utf-8" {
		e.t.Fatalf("GET %s: Content-Type %q; body %s", path, ct, r.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		e.t.Fatalf("GET %s: %v: %s", path, err, r.Body)
	}
	return m
}

// follow makes a follower that the inbox stands for, accepted unless
// status says otherwise: the rows the inbox writes when a Follow arrives.
func (e *fedEnv) follow(actorID, inbox, status string) {
	e.t.Helper()
	now := sqlstore.FromTime(time.Now())
	e.exec(`INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, actorID, actorID+"#follow", status, inbox, activitypub.Host(inbox), now)
}

// count runs a COUNT query.
func (e *fedEnv) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// delivered is one POST a remote inbox received.
type delivered struct {
	Path     string
	Type     string // the activity's
	Object   string // its object's id
	Activity map[string]any
	Verified error // nil: the signature, digest and date were right
}

// remoteInbox is another server's inbox on loopback: it records each POST
// and checks its signature against the blog's actor, fetched by the
// signature's keyId as a real server would. answer says how to answer
// the n-th POST (from 1); nil answers 202.
type remoteInbox struct {
	t      testing.TB
	srv    *httptest.Server
	clock  *testClock
	mu     sync.Mutex
	got    []delivered
	answer func(n int) int
	hang   chan struct{} // when not nil, every POST waits for it to close
}

func newRemoteInbox(t testing.TB, clock *testClock) *remoteInbox {
	t.Helper()
	ri := &remoteInbox{t: t, clock: clock}
	ri.srv = httptest.NewServer(http.HandlerFunc(ri.serve))
	t.Cleanup(func() {
		ri.mu.Lock()
		if ri.hang != nil {
			select {
			case <-ri.hang:
			default:
				close(ri.hang)
			}
		}
		ri.mu.Unlock()
		ri.srv.Close()
	})
	return ri
}

// url is the inbox at path on this server.
func (ri *remoteInbox) url(path string) string { return ri.srv.URL + path }

func (ri *remoteInbox) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "no", http.StatusBadRequest)
		return
	}
	ri.mu.Lock()
	hang := ri.hang
	ri.mu.Unlock()
	if hang != nil {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
		return
	}
	d := delivered{Path: r.URL.Path, Verified: ri.verify(r, body)}
	_ = json.Unmarshal(body, &d.Activity)
	d.Type, _ = d.Activity["type"].(string)
	switch o := d.Activity["object"].(type) {
	case string:
		d.Object = o
	case map[string]any:
		d.Object, _ = o["id"].(string)
	}
	ri.mu.Lock()
	ri.got = append(ri.got, d)
	n := len(ri.got)
	answer := ri.answer
	ri.mu.Unlock()
	status := http.StatusAccepted
	if answer != nil {
		status = answer(n)
	}
	w.WriteHeader(status)
}

// verify checks the request as Mastodon does: the Digest of the body,
// a Date near the sender's clock, a signature over (request-target), host,
// date and digest by the key its keyId names, fetched from the actor.
func (ri *remoteInbox) verify(r *http.Request, body []byte) error {
	if err := httpsig.CheckDigest(r.Header, body); err != nil {
		return err
	}
	if err := httpsig.CheckDate(r.Header, ri.clock.now(), 12*time.Hour); err != nil {
		return err
	}
	sig, err := httpsig.Parse(r.Header)
	if err != nil {
		return err
	}
	actor, _, _ := strings.Cut(sig.KeyID, "#")
	req, err := http.NewRequest("GET", actor, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", activitypub.ContentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	doc, err := activitypub.Decode(raw)
	if err != nil {
		return err
	}
	if doc.PublicKey == nil || doc.PublicKey.ID != sig.KeyID {
		return errKeyNotFound
	}
	pub, err := httpsig.ParsePublicKey(doc.PublicKey.PublicKeyPem)
	if err != nil {
		return err
	}
	return sig.Verify(r, pub, []string{"(request-target)", "host", "date", "digest"})
}

var errKeyNotFound = errors.New("the actor has no key of that id")

// received lists what the inbox got so far.
func (ri *remoteInbox) received() []delivered {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	return append([]delivered(nil), ri.got...)
}

// wait waits until the inbox has received n POSTs, and returns them.
func (ri *remoteInbox) wait(n int) []delivered {
	ri.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := ri.received()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			ri.t.Fatalf("the inbox received %d activities in 15 s, want %d: %+v", len(got), n, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitUntil polls cond until it holds, for up to 15 s.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
