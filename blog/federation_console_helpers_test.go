package blog_test

import (
	"context"
	"testing"
	"time"

	"folio/blog"
	"folio/blog/fedtest"
	"folio/httpx/outbound"
	"folio/sqlstore"
)

// newFedConsoleEnv is the blog with its console and classic site, its
// outgoing requests allowed to loopback over plain http (where fedtest's
// servers are), and federation on unless off says otherwise.
func newFedConsoleEnv(t testing.TB, on bool) *env {
	t.Helper()
	e, _ := newEnvWith(t, setup{console: true, handler: withSite, deps: func(d *blog.Deps) {
		allow, err := outbound.ParseAllowlist("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		d.FederationAllow, d.FederationAllowHTTP = allow, true
	}})
	if on {
		data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"federation": map[string]any{"enabled": true}}), 200, nil)
	}
	return e
}

// knownActor stores a as the inbox stores an actor it fetched.
func (e *env) knownActor(a *fedtest.Actor) {
	e.t.Helper()
	e.exec(`INSERT INTO ap_actors (id, key_id, public_pem, inbox, shared_inbox, handle, name, url, icon, host, fetched_at)
		VALUES ($1, $2, 'pem', $3, $4, $5, $6, $7, '', $8, $9)`,
		a.ID, a.KeyID, a.Inbox, a.SharedInbox, a.Handle, a.Name, a.URL, a.Server.Host, sqlstore.FromTime(time.Now()))
}

// addFollower stores actorID as a follower on host with status, as the
// inbox stores a Follow; since orders the list.
func (e *env) addFollower(actorID, host, status string, since time.Time) {
	e.t.Helper()
	e.exec(`INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, actorID, actorID+"#follow", status, "http://"+host+"/inbox", host, sqlstore.FromTime(since))
}

// fediverseComment stores a's reply to the post postID with status, as
// the inbox stores one, and returns the comment's id.
func (e *env) fediverseComment(a *fedtest.Actor, postID, status, text string) string {
	e.t.Helper()
	id := sqlstore.NewID()
	e.exec(`INSERT INTO comments (id, post_id, author, email, content, status, ip, user_agent, created_at, updated_at,
		ap_id, ap_actor, author_handle, author_url, reply_to) VALUES ($1, $2, $3, '', $4, $5, '', '', $6, $6, $7, $8, $9, $10, '')`,
		id, postID, a.Name, text, status, sqlstore.FromTime(time.Now()), a.NextID("note"), a.ID, a.Handle, a.URL)
	return id
}

// one reads one value of a query.
func (e *env) one(dst any, q string, args ...any) {
	e.t.Helper()
	if err := e.db.QueryRow(context.Background(), q, args...).Scan(dst); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}
