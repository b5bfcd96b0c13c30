package blog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestFederationPostLifecycleSendsSignedCreateUpdateDeleteOncePerInbox(t *testing.T) {
	e := newFedEnv(t, fedSetup{})
	// Published before federation began: not news, even once edited.
	old := e.publish("Before federation")
	e.enable()
	base := e.anon.Base
	a, b := e.remote(), e.remote()
	// Three followers on a server with a shared inbox, one on a server
	// without, and one whose Follow awaits approval.
	for _, u := range []string{"ann", "bob", "cy"} {
		e.follow(a.Actor(u).ID, a.Actor(u).SharedInbox, "accepted")
	}
	e.follow(b.Actor("dee").ID, b.Actor("dee").Inbox, "accepted")
	e.follow(b.Actor("eve").ID, b.Actor("eve").Inbox, "pending")
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+old.ID, map[string]any{"title": "Before federation, edited"}), 200, nil)

	p := e.publish("Hello fediverse", "content_markdown", "First words.")
	iri := base + "/posts/" + p.Slug
	steps := []struct {
		name   string
		do     func()
		typ    string
		object func(d delivered) bool
	}{
		{"publish", func() {}, "Create", func(d delivered) bool {
			o := d.Activity["object"].(map[string]any)
			return o["type"] == "Article" && o["name"] == "Hello fediverse" && o["updated"] == nil
		}},
		{"edit", func() {
			// A save that changes nothing sends nothing: the next
			// activity is the edit's Update.
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"show_comments": true}), 200, nil)
			e.settle()
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"content_markdown": "Second words."}), 200, nil)
		}, "Update", func(d delivered) bool {
			o := d.Activity["object"].(map[string]any)
			return o["id"] == iri && o["updated"] != nil && o["content"] == "<p>Second words.</p>\n"
		}},
		{"unpublish", func() {
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"status": "draft"}), 200, nil)
		}, "Delete", func(d delivered) bool {
			o := d.Activity["object"].(map[string]any)
			return o["type"] == "Tombstone"
		}},
		{"publish again", func() {
			data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"status": "published"}), 200, nil)
		}, "Create", func(d delivered) bool { return true }},
		{"delete", func() {
			data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
		}, "Delete", func(d delivered) bool { return true }},
	}
	for i, s := range steps {
		s.do()
		for _, in := range []*fedtest.Server{a, b} {
			got := waitReceived(t, in, i+1)
			d := got[i]
			if d.Type != s.typ || d.Object != iri || !s.object(d) {
				t.Fatalf("%s: %s got %s of %s: %v", s.name, in.URL, d.Type, d.Object, d.Activity)
			}
			if d.Verified != nil {
				t.Fatalf("%s: the signature did not verify: %v", s.name, d.Verified)
			}
			if ctx, _ := d.Activity["@context"].([]any); d.Activity["actor"] != base+"/ap/actor" || len(ctx) != 2 ||
				ctx[0] != activitypub.ActivityStreamsContext || ctx[1].(map[string]any)["Hashtag"] != "as:Hashtag" {
				t.Fatalf("%s: %v", s.name, d.Activity)
			}
		}
	}
	e.settle()
	if n := len(a.Received()); n != len(steps) {
		t.Errorf("the shared inbox got %d activities, want one per step (%d)", n, len(steps))
	}
	for _, d := range received(b) {
		if d.Path != "/users/dee/inbox" {
			t.Errorf("delivered to %s, which no accepted follower has", d.Path)
		}
	}
	// The Tombstone of the deleted post, and the activities kept.
	gone := e.activity("/posts/"+p.Slug, 410)
	if gone["type"] != "Tombstone" || gone["id"] != iri {
		t.Errorf("deleted post: %v", gone)
	}
	first := received(a)[0].Activity["id"].(string)
	if act := e.activity(first[len(base):], 200); act["type"] != "Create" {
		t.Errorf("GET of the Create: %v", act)
	}
}

func TestFederationScheduledPostIsSentWhenItsTimeComes(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	in := e.remote()
	e.follow(in.Actor("ann").ID, in.Actor("ann").SharedInbox, "accepted")
	p := e.publish("Tomorrow", "published_at", time.Now().Add(24*time.Hour))
	e.settle()
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if got := received(in); len(got) != 0 {
		t.Fatalf("a scheduled post was sent before its time: %+v", got)
	}
	e.clock.advance(25 * time.Hour)
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := waitReceived(t, in, 1)
	if got[0].Type != "Create" || got[0].Object != e.anon.Base+"/posts/"+p.Slug || got[0].Verified != nil {
		t.Fatalf("got %+v", got[0])
	}
	e.settle()
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if n := len(in.Received()); n != 1 {
		t.Errorf("the post was sent %d times", n)
	}
}

func TestFederationDeliveryRetriesWithBackoffThenGivesUp(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	flaky, dead := e.remote(), e.remote()
	flaky.SetInboxStatus(http.StatusServiceUnavailable)
	dead.SetInboxStatus(http.StatusServiceUnavailable)
	e.follow(flaky.Actor("ann").ID, flaky.Actor("ann").SharedInbox, "accepted")
	e.follow(dead.Actor("bob").ID, dead.Actor("bob").SharedInbox, "accepted")
	e.publish("Retried")
	waitReceived(t, flaky, 1)
	waitReceived(t, dead, 1)
	waitUntil(t, "both deliveries to wait for their retry", func() bool {
		return e.count("SELECT COUNT(*) FROM jobs WHERE kind = 'blog.ap.deliver' AND state = 'pending' AND tries = 1") == 2
	})
	flaky.SetInboxStatus(http.StatusAccepted) // back up for the retry
	// Not before a minute has passed.
	var runAfter int64
	if err := e.db.QueryRow(context.Background(), "SELECT MIN(run_after) FROM jobs WHERE kind = 'blog.ap.deliver'").Scan(&runAfter); err != nil {
		t.Fatal(err)
	}
	if wait := time.UnixMicro(runAfter).Sub(e.clock.now()); wait < 50*time.Second || wait > time.Minute {
		t.Errorf("first retry in %s, want a minute", wait)
	}
	e.clock.advance(time.Minute + time.Second)
	waitReceived(t, flaky, 2)
	waitReceived(t, dead, 2)
	waitUntil(t, "the flaky host's success to be recorded", func() bool {
		return e.count("SELECT COUNT(*) FROM ap_hosts WHERE host = $1 AND last_success > 0 AND failures = 0 AND failing_since = 0",
			flaky.Host) == 1
	})
	// The dead host: tried on the schedule until four days have passed
	// since the first try, then given up and recorded.
	e.clock.advance(4*24*time.Hour + time.Hour)
	waitReceived(t, dead, 3)
	e.settle()
	var givenUp int
	var lastError string
	if err := e.db.QueryRow(context.Background(), "SELECT given_up, last_error FROM ap_hosts WHERE host = $1",
		dead.Host).Scan(&givenUp, &lastError); err != nil {
		t.Fatal(err)
	}
	if givenUp != 1 || lastError != "HTTP 503" {
		t.Errorf("dead host: given_up %d, last_error %q", givenUp, lastError)
	}
	if n := len(flaky.Received()); n != 2 {
		t.Errorf("the flaky host got %d deliveries, want 2", n)
	}
}

func TestFederationFinalRefusalIsNotRetried(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	in := e.remote()
	in.SetInboxStatus(http.StatusForbidden)
	e.follow(in.Actor("ann").ID, in.Actor("ann").SharedInbox, "accepted")
	e.publish("Refused")
	waitReceived(t, in, 1)
	e.settle()
	if n := e.count("SELECT given_up FROM ap_hosts WHERE host = $1", in.Host); n != 1 {
		t.Errorf("given_up %d, want 1", n)
	}
}

func TestFederationDeadServerDoesNotBlockPublishingOrOthers(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	slow, fine := e.remote(), e.remote()
	slow.HangInbox(time.Hour)
	e.follow(slow.Actor("ann").ID, slow.Actor("ann").SharedInbox, "accepted")
	e.follow(fine.Actor("bob").ID, fine.Actor("bob").SharedInbox, "accepted")
	// The publishing request answers while the slow server holds its
	// delivery: it never waited for it.
	for i := range 3 {
		e.publish("Post " + string(rune('A'+i)))
	}
	got := waitReceived(t, fine, 3)
	for _, d := range got {
		if d.Type != "Create" || d.Verified != nil {
			t.Errorf("got %+v", d)
		}
	}
}

func TestFederationTwoProcessesShareTheKeyAndDeliverEachActivityOnce(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	clock := &testClock{}
	p1 := newFedEnv(t, fedSetup{db: &cfg, clock: clock})
	p2 := newFedEnv(t, fedSetup{db: &cfg, clock: clock})
	p1.enable()
	key := func(e *fedEnv) string {
		a := e.activity("/ap/actor", 200)
		return a["publicKey"].(map[string]any)["publicKeyPem"].(string)
	}
	k1 := key(p1)
	waitUntil(t, "the second process to see federation on", func() bool {
		return p2.anon.Do("GET", "/ap/actor", nil).Status == 200
	})
	if key(p2) != k1 {
		t.Fatal("two processes publish different keys")
	}
	in := p1.remote()
	for _, u := range []string{"ann", "bob", "cy", "dee"} {
		p1.follow(in.Actor(u).ID, in.Actor(u).SharedInbox, "accepted")
	}
	var posts []post
	for i := range 6 {
		e := p1
		if i%2 == 1 {
			e = p2
		}
		posts = append(posts, e.publish("Shared "+string(rune('A'+i))))
	}
	waitReceived(t, in, len(posts))
	p1.settle()
	got := received(in)
	seen := map[string]int{}
	for _, d := range got {
		seen[d.Object]++
		if d.Verified != nil {
			t.Errorf("%s: %v", d.Object, d.Verified)
		}
	}
	if len(got) != len(posts) || len(seen) != len(posts) {
		raw, _ := json.Marshal(seen)
		t.Errorf("%d deliveries of %d posts, want one each: %s", len(got), len(posts), raw)
	}

	// A restart (a new process on the same database) keeps the key.
	p3 := newFedEnv(t, fedSetup{db: &cfg, clock: clock})
	if key(p3) != k1 {
		t.Error("the key changed with a restart")
	}
}

func TestFederationDeliversToOneHostAtMostTwoAtOnceWhileOthersProceed(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	slow, fine := e.remote(), e.remote()
	slow.HangInbox(time.Hour)
	// Personal inboxes only: one delivery per follower.
	for i := range 6 {
		s, f := slow.Actor(fmt.Sprintf("s%d", i)), fine.Actor(fmt.Sprintf("f%d", i))
		e.follow(s.ID, s.Inbox, "accepted")
		e.follow(f.ID, f.Inbox, "accepted")
	}
	e.publish("Crowded")
	slow.WaitFor(t, "two held deliveries", func(ds []fedtest.Delivery) bool { return len(ds) >= 2 })
	got := waitReceived(t, fine, 6)
	for _, d := range got {
		if d.Type != "Create" || d.Verified != nil {
			t.Errorf("got %s (%v)", d.Type, d.Verified)
		}
	}
	if n := slow.MaxInFlight(); n != 2 {
		t.Errorf("the held host had %d deliveries at once, want 2", n)
	}
	if n := fine.MaxInFlight(); n > 2 {
		t.Errorf("the other host had %d deliveries at once, want at most 2", n)
	}
}

func TestFederationFanOutReachesEveryInboxOnceAcrossPages(t *testing.T) {
	if testing.Short() {
		t.Skip("1,100 deliveries")
	}
	e := newFedEnv(t, fedSetup{on: true})
	const perServer, servers = 275, 4 // 1,100 personal inboxes: three pages of 500
	var fleet []*fedtest.Server
	err := e.db.Tx(context.Background(), func(tx *sqlstore.Tx) error {
		for range servers {
			s := e.remote()
			fleet = append(fleet, s)
			for i := range perServer {
				id := fmt.Sprintf("%s/users/u%d", s.URL, i)
				if _, err := tx.Exec(context.Background(), `INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
					VALUES ($1, $2, 'accepted', $3, $4, 0, 0)`, id, id+"#follow", id+"/inbox", s.Host); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// And a server whose followers share one inbox: one delivery for them.
	shared := e.remote()
	for _, u := range []string{"ann", "bob", "cy"} {
		e.follow(shared.Actor(u).ID, shared.Actor(u).SharedInbox, "accepted")
	}
	p := e.publish("To everyone")
	iri := e.origin + "/posts/" + p.Slug
	for _, s := range append(fleet, shared) {
		want := perServer
		if s == shared {
			want = 1
		}
		got := waitReceived(t, s, want)
		paths := map[string]int{}
		for _, d := range got {
			paths[d.Path]++
			if d.Type != "Create" || d.Object != iri || d.Verified != nil {
				t.Fatalf("%s got %s of %s (%v)", d.Path, d.Type, d.Object, d.Verified)
			}
		}
		if len(paths) != want {
			t.Errorf("%s: %d inboxes reached, want %d", s.Host, len(paths), want)
		}
	}
	e.settle()
	for _, s := range append(fleet, shared) {
		for _, d := range received(s) {
			if n := s.Requests(d.Path); n != 1 {
				t.Errorf("%s%s got %d deliveries, want 1", s.URL, d.Path, n)
			}
		}
	}
	// The fan-out went through every page: its progress is the last
	// inbox in order.
	last := ""
	for _, s := range append(fleet, shared) {
		for _, d := range received(s) {
			last = max(last, s.URL+d.Path)
		}
	}
	if n := e.count("SELECT COUNT(*) FROM ap_activities WHERE fanout_after = $1", last); n != 1 {
		t.Errorf("no activity's fan-out ended at the last inbox %s", last)
	}
}

func TestFederationOldActivitiesArePrunedButEachPostsLatestIsKept(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	ctx := context.Background()
	srv := e.remote()
	e.follow(srv.Actor("ann").ID, srv.Actor("ann").SharedInbox, "accepted")
	p := e.publish("Kept")
	waitReceived(t, srv, 1)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"content_markdown": "Edited."}), 200, nil)
	bob := srv.Actor("bob")
	e.send(bob, bob.Follow(e.actor), http.StatusAccepted)
	got := waitReceived(t, srv, 3)
	e.settle()
	ids := map[string]string{} // by type
	for _, d := range got {
		id, _ := d.Activity["id"].(string)
		ids[d.Type] = strings.TrimPrefix(id, e.origin)
	}
	if len(ids) != 3 || ids["Create"] == "" || ids["Update"] == "" || ids["Accept"] == "" {
		t.Fatalf("activities %v, want a Create, an Update and an Accept", ids)
	}
	e.blog.PruneFederation(ctx)
	if n := e.count("SELECT COUNT(*) FROM ap_activities"); n != 3 {
		t.Fatalf("%d activities after pruning young ones, want 3", n)
	}

	e.clock.advance(5*24*time.Hour + time.Hour) // activities are kept five days
	young := e.publish("Young")
	waitReceived(t, srv, 4)
	e.settle()
	e.blog.PruneFederation(ctx)
	// The post's latest (its Update) stays, as does the young post's
	// Create; the superseded Create and the Accept go.
	if n := e.count("SELECT COUNT(*) FROM ap_activities"); n != 2 {
		t.Errorf("%d activities after pruning, want 2", n)
	}
	if act := e.activity(ids["Update"], 200); act["type"] != "Update" {
		t.Errorf("the latest activity of a post: %v", act)
	}
	for _, typ := range []string{"Create", "Accept"} {
		expectError(t, e.anon.Do("GET", ids[typ], nil, "Accept", activitypub.ContentType), 404, "")
	}
	if n := e.count("SELECT COUNT(*) FROM ap_posts WHERE post_id = $1", young.ID); n != 1 {
		t.Errorf("the young post was not federated")
	}
}

func TestFederationCreateOfAPostDeletedMeanwhileIsNotSent(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	srv := e.remote()
	e.follow(srv.Actor("ann").ID, srv.Actor("ann").SharedInbox, "accepted")
	srv.SetInboxStatus(http.StatusServiceUnavailable)
	p := e.publish("Gone soon")
	waitReceived(t, srv, 1)
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
	waitReceived(t, srv, 2)
	waitUntil(t, "both deliveries to wait for their retry", func() bool {
		return e.count("SELECT COUNT(*) FROM jobs WHERE kind = 'blog.ap.deliver' AND state = 'pending' AND tries = 1") == 2
	})
	srv.SetInboxStatus(http.StatusAccepted)
	e.clock.advance(time.Minute + time.Second)
	waitReceived(t, srv, 3)
	e.settle()
	got := received(srv)
	var types []string
	for _, d := range got {
		types = append(types, d.Type)
	}
	// The first two answered 503; of the retries only the Delete goes.
	if len(got) != 3 || got[2].Type != "Delete" {
		t.Fatalf("the server got %v, want Create and Delete refused, then the Delete alone", types)
	}
}

func TestFederationPostDeletedWhileFederationWasOffIsDeletedWhenItIsBack(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	srv := e.remote()
	e.follow(srv.Actor("ann").ID, srv.Actor("ann").SharedInbox, "accepted")
	kept, gone := e.publish("Kept"), e.publish("Deleted while off")
	waitReceived(t, srv, 2)
	e.settle()
	e.federation(map[string]any{"enabled": false})
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+gone.ID, nil), 200, nil)
	e.settle()
	e.federation(map[string]any{"enabled": true})
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitReceived(t, srv, 3)
	e.settle()
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.settle()
	got := received(srv)
	if len(got) != 3 || got[2].Type != "Delete" || got[2].Object != e.origin+"/posts/"+gone.Slug {
		t.Fatalf("after federation came back: %d activities, the last %s of %s", len(got), got[len(got)-1].Type, got[len(got)-1].Object)
	}
	if n := e.count("SELECT COUNT(*) FROM ap_posts WHERE post_id = $1 AND state = 'created'", kept.ID); n != 1 {
		t.Error("the post still visible was touched")
	}
}
