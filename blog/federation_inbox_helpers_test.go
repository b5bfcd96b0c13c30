package blog_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"folio/blog"
	"folio/blog/fedtest"
	"folio/httpx"
	"folio/httpx/outbound"
	"folio/sqlstore"
	"folio/templates"
)

// inboxEnv is a blog with federation on, its classic site, and its inbox
// reached at /ap/inbox and /ap/actor/inbox.
type inboxEnv struct {
	*siteEnv
	b      *blog.Blog
	actor  string // the blog's actor IRI
	inbox  string // its shared inbox's URL
	origin string
}

// inboxSetup varies newInboxEnv.
type inboxSetup struct {
	// noPrivate leaves federation.allow_private_addresses empty: the blog
	// then reaches no test server (they are on loopback).
	noPrivate bool
}

func newInboxEnv(t testing.TB, fs inboxSetup) *inboxEnv {
	t.Helper()
	clock := &testClock{}
	var site *blog.Site
	e, b := newEnvWith(t, setup{now: clock.now,
		deps: func(d *blog.Deps) {
			d.FederationAllowHTTP = true
			if !fs.noPrivate {
				allow, err := outbound.ParseAllowlist("127.0.0.1")
				if err != nil {
					t.Fatal(err)
				}
				d.FederationAllow = allow
			}
		},
		handler: func(t testing.TB, routes *httpx.Router, b *blog.Blog) http.Handler {
			eng, err := templates.New(templates.Options{Pages: templates.FS})
			if err != nil {
				t.Fatal(err)
			}
			if site, err = blog.NewSite(b, eng); err != nil {
				t.Fatal(err)
			}
			site.Routes(routes)
			// The federation routes register the inbox on the router; until
			// they are built, the tests route it themselves.
			mux := http.NewServeMux()
			mux.HandleFunc("POST /ap/inbox", b.ServeInbox)
			mux.HandleFunc("POST /ap/actor/inbox", b.ServeInbox)
			mux.Handle("/", routes)
			loopback, err := httpx.ParsePrefixes("127.0.0.0/8,::1/128")
			if err != nil {
				t.Fatal(err)
			}
			return httpx.Chain(mux, httpx.Proxies{Trusted: loopback}.Middleware)
		}})
	fe := &inboxEnv{siteEnv: &siteEnv{env: e, site: site, clock: clock}, b: b, origin: e.anon.Base,
		actor: e.anon.Base + "/ap/actor", inbox: e.anon.Base + "/ap/inbox"}
	// The origin of work outside requests (a test's calls) is the site's.
	fe.putSettings(map[string]any{"site": map[string]any{"site_url": fe.origin}})
	fe.federation(map[string]any{"enabled": true})
	return fe
}

// federation changes the federation settings group.
func (fe *inboxEnv) federation(group map[string]any) {
	fe.t.Helper()
	fe.putSettings(map[string]any{"federation": group})
}

// send posts activity to the blog's shared inbox as a, signed, and checks
// the answer's status.
func (fe *inboxEnv) send(a *fedtest.Actor, activity any, status int) {
	fe.t.Helper()
	fe.sendWith(a, activity, fedtest.PostOptions{}, status)
}

func (fe *inboxEnv) sendWith(a *fedtest.Actor, activity any, o fedtest.PostOptions, status int) {
	fe.t.Helper()
	if got, body := a.PostWith(fe.t, fe.inbox, activity, o); got != status {
		fe.t.Fatalf("inbox answered %d, want %d: %s", got, status, body)
	}
}

// count runs a SELECT COUNT(*) query.
func (fe *inboxEnv) count(q string, args ...any) int {
	fe.t.Helper()
	var n int
	if err := fe.db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		fe.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// follower is a row of ap_followers.
type follower struct {
	FollowID, Status, Inbox, Host string
}

// follower reads the follower actorID; ok is false when it is none.
func (fe *inboxEnv) follower(actorID string) (f follower, ok bool) {
	fe.t.Helper()
	err := fe.db.QueryRow(context.Background(), "SELECT follow_id, status, inbox, host FROM ap_followers WHERE actor_id = $1", actorID).
		Scan(&f.FollowID, &f.Status, &f.Inbox, &f.Host)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return f, false
	}
	if err != nil {
		fe.t.Fatal(err)
	}
	return f, true
}

// fedComment is a comment as the inbox stores a fediverse reply.
type fedComment struct {
	ID, PostID, Author, Email, Content, Status, Handle, URL, ReplyTo, Actor string
}

// reply reads the comment whose Note is apID; ok is false when none is.
func (fe *inboxEnv) reply(apID string) (c fedComment, ok bool) {
	fe.t.Helper()
	err := fe.db.QueryRow(context.Background(), `SELECT id, post_id, author, email, content, status, author_handle, author_url,
		reply_to, ap_actor FROM comments WHERE ap_id = $1`, apID).
		Scan(&c.ID, &c.PostID, &c.Author, &c.Email, &c.Content, &c.Status, &c.Handle, &c.URL, &c.ReplyTo, &c.Actor)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return c, false
	}
	if err != nil {
		fe.t.Fatal(err)
	}
	return c, true
}

// reactions is a post's likes and boosts.
func (fe *inboxEnv) reactions(postID string) [2]int {
	fe.t.Helper()
	got, err := fe.b.ReactionCounts(context.Background(), []string{postID})
	if err != nil {
		fe.t.Fatal(err)
	}
	return got[postID]
}

// block adds an ap_blocks row (the console's, which is not built here).
func (fe *inboxEnv) block(kind, value string) {
	fe.t.Helper()
	fe.exec("INSERT INTO ap_blocks (kind, value, created_at) VALUES ($1, $2, 0)", kind, value)
}
