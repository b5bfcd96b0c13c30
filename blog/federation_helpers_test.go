package blog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/blog"
	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/httpx"
	"folio/httpx/httpxtest"
	"folio/httpx/outbound"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/templates"
)

// fedEnv is one blog process with its classic site and the federation
// routes (the inboxes among them), federation allowed to reach loopback
// over plain http, on a clock the test moves, over a database that
// another fedEnv may share (a second process). Other servers are
// blog/fedtest servers (remote).
type fedEnv struct {
	*siteEnv
	blog   *blog.Blog
	cfg    sqlstoretest.Config
	origin string // the blog's, as its site_url says once enabled
	actor  string // the blog's actor IRI
	inbox  string // its shared inbox's URL
}

// fedSetup varies newFedEnv.
type fedSetup struct {
	// on turns federation on at once (enable).
	on bool
	// noPrivate leaves federation.allow_private_addresses empty: the blog
	// then reaches no test server (they are on loopback).
	noPrivate bool
	// db, when set, is the database of another process to share; nil is
	// a fresh one.
	db *sqlstoretest.Config
	// clock, when set, is shared with another process; nil is the env's
	// own.
	clock *testClock
}

// newFedEnv builds a blog process as cmd/folio does: registered in the
// database's instance registry, its routes behind the proxy middleware
// (trusting loopback, so that tests may play client addresses).
func newFedEnv(t testing.TB, s fedSetup) *fedEnv {
	t.Helper()
	ctx := context.Background()
	cfg := sqlstoretest.Config{}
	if s.db != nil {
		cfg = *s.db
	} else {
		cfg = sqlstoretest.NewConfig(t)
	}
	clock := s.clock
	if clock == nil {
		clock = &testClock{}
	}
	db := cfg.Open(t)
	a := authtest.New(t, db)
	st := openSettings(t, db)
	var allow outbound.Allowlist
	if !s.noPrivate {
		var err error
		if allow, err = outbound.ParseAllowlist("127.0.0.1"); err != nil {
			t.Fatal(err)
		}
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
	e := &env{t: t, db: db, auth: a, settings: st, handler: trustLoopback(t, routes, b)}
	e.anon = httpxtest.NewServer(t, e.handler)
	e.admin = e.anon.Clone()
	e.admin.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	fe := &fedEnv{siteEnv: &siteEnv{env: e, site: site, clock: clock}, blog: b, cfg: cfg,
		origin: e.anon.Base, actor: e.anon.Base + "/ap/actor", inbox: e.anon.Base + "/ap/inbox"}
	if s.on {
		fe.enable()
	}
	return fe
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
	e.putSettings(map[string]any{
		"site":       map[string]any{"site_url": e.origin, "site_name": "Field Notes", "description": "Notes <from> the field"},
		"federation": fed})
	e.anon.Do("GET", "/ap/actor", nil).Expect(200)
}

// federation changes the federation settings group.
func (e *fedEnv) federation(group map[string]any) {
	e.t.Helper()
	e.putSettings(map[string]any{"federation": group})
}

// remote starts another server on loopback whose inboxes check the
// blog's signatures against the blog's clock.
func (e *fedEnv) remote() *fedtest.Server {
	e.t.Helper()
	s := fedtest.New(e.t)
	s.SetNow(e.clock.now)
	s.Wait = 60 * time.Second // a fan-out under the race detector
	return s
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

// follow makes a follower delivered to at inbox, accepted unless status
// says otherwise: the rows the inbox writes when a Follow arrives.
func (e *fedEnv) follow(actorID, inbox, status string) {
	e.t.Helper()
	now := sqlstore.FromTime(time.Now())
	e.exec(`INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, actorID, actorID+"#follow", status, inbox, activitypub.Host(inbox), now)
}

// send posts activity to the blog's shared inbox as a, signed, and checks
// the answer's status.
func (e *fedEnv) send(a *fedtest.Actor, activity any, status int) {
	e.t.Helper()
	e.sendWith(a, activity, fedtest.PostOptions{}, status)
}

func (e *fedEnv) sendWith(a *fedtest.Actor, activity any, o fedtest.PostOptions, status int) {
	e.t.Helper()
	if got, body := a.PostWith(e.t, e.inbox, activity, o); got != status {
		e.t.Fatalf("inbox answered %d, want %d: %s", got, status, body)
	}
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

// jobsLeft counts the federation jobs not finished.
func (e *fedEnv) jobsLeft() int {
	e.t.Helper()
	return e.count("SELECT COUNT(*) FROM jobs WHERE kind IN ('blog.ap.post', 'blog.ap.fanout', 'blog.ap.deliver') AND state <> 'failed'")
}

// settle waits until every federation job is finished.
func (e *fedEnv) settle() {
	e.t.Helper()
	waitUntil(e.t, "the federation jobs to finish", func() bool { return e.jobsLeft() == 0 })
}

// follower is a row of ap_followers.
type follower struct {
	FollowID, Status, Inbox, Host string
}

// follower reads the follower actorID; ok is false when it is none.
func (e *fedEnv) follower(actorID string) (f follower, ok bool) {
	e.t.Helper()
	err := e.db.QueryRow(context.Background(), "SELECT follow_id, status, inbox, host FROM ap_followers WHERE actor_id = $1", actorID).
		Scan(&f.FollowID, &f.Status, &f.Inbox, &f.Host)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return f, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return f, true
}

// fedComment is a comment as the inbox stores a fediverse reply.
type fedComment struct {
	ID, PostID, Author, Email, Content, Status, Handle, URL, ReplyTo, Actor string
}

// reply reads the comment whose Note is apID; ok is false when none is.
func (e *fedEnv) reply(apID string) (c fedComment, ok bool) {
	e.t.Helper()
	err := e.db.QueryRow(context.Background(), `SELECT id, post_id, author, email, content, status, author_handle, author_url,
		reply_to, ap_actor FROM comments WHERE ap_id = $1`, apID).
		Scan(&c.ID, &c.PostID, &c.Author, &c.Email, &c.Content, &c.Status, &c.Handle, &c.URL, &c.ReplyTo, &c.Actor)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return c, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return c, true
}

// reactions is a post's likes and boosts.
func (e *fedEnv) reactions(postID string) [2]int {
	e.t.Helper()
	got, err := e.blog.ReactionCounts(context.Background(), []string{postID})
	if err != nil {
		e.t.Fatal(err)
	}
	return got[postID]
}

// block adds an ap_blocks row (the console's, which is not built here).
func (e *fedEnv) block(kind, value string) {
	e.t.Helper()
	e.exec("INSERT INTO ap_blocks (kind, value, created_at) VALUES ($1, $2, 0)", kind, value)
}

// delivered is one POST a fedtest inbox received, decoded for assertions.
type delivered struct {
	Path     string
	Type     string // the activity's
	Object   string // its object's id
	Activity map[string]any
	Verified error // nil: the signature, digest and date were right
}

// received lists what s's inboxes got so far, in order.
func received(s *fedtest.Server) []delivered {
	var out []delivered
	for _, d := range s.Received() {
		x := delivered{Path: d.Path, Verified: d.Verified}
		_ = json.Unmarshal(d.Body, &x.Activity)
		x.Type, _ = x.Activity["type"].(string)
		switch o := x.Activity["object"].(type) {
		case string:
			x.Object = o
		case map[string]any:
			x.Object, _ = o["id"].(string)
		}
		out = append(out, x)
	}
	return out
}

// waitReceived waits until s's inboxes have received n POSTs, and
// returns them.
func waitReceived(t testing.TB, s *fedtest.Server, n int) []delivered {
	t.Helper()
	s.WaitFor(t, fmt.Sprintf("%d deliveries", n), func(ds []fedtest.Delivery) bool { return len(ds) >= n })
	return received(s)
}

// waitUntil polls cond until it holds, for up to 30 s.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
