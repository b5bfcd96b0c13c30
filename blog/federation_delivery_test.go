package blog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"folio/blog/activitypub"
)

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

func TestFederationPostLifecycleSendsSignedCreateUpdateDeleteOncePerInbox(t *testing.T) {
	e := newFedEnv(t)
	// Published before federation began: not news, even once edited.
	old := e.publish("Before federation")
	e.enable()
	base := e.anon.Base
	a, b := newRemoteInbox(t, e.clock), newRemoteInbox(t, e.clock)
	// Three followers on a server with a shared inbox, one on a server
	// without, and one whose Follow awaits approval.
	for _, u := range []string{"ann", "bob", "cy"} {
		e.follow(a.url("/users/"+u), a.url("/inbox"), "accepted")
	}
	e.follow(b.url("/users/dee"), b.url("/users/dee/inbox"), "accepted")
	e.follow(b.url("/users/eve"), b.url("/users/eve/inbox"), "pending")
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
		for _, in := range []*remoteInbox{a, b} {
			got := in.wait(i + 1)
			d := got[i]
			if d.Type != s.typ || d.Object != iri || !s.object(d) {
				t.Fatalf("%s: %s got %s of %s: %v", s.name, in.url(""), d.Type, d.Object, d.Activity)
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
	if n := len(a.received()); n != len(steps) {
		t.Errorf("the shared inbox got %d activities, want one per step (%d)", n, len(steps))
	}
	for _, d := range b.received() {
		if d.Path != "/users/dee/inbox" {
			t.Errorf("delivered to %s, which no accepted follower has", d.Path)
		}
	}
	// The Tombstone of the deleted post, and the activities kept.
	gone := e.activity("/posts/"+p.Slug, 410)
	if gone["type"] != "Tombstone" || gone["id"] != iri {
		t.Errorf("deleted post: %v", gone)
	}
	first := a.received()[0].Activity["id"].(string)
	if act := e.activity(first[len(base):], 200); act["type"] != "Create" {
		t.Errorf("GET of the Create: %v", act)
	}
}

func TestFederationScheduledPostIsSentWhenItsTimeComes(t *testing.T) {
	e := newFedEnv(t)
	e.enable()
	in := newRemoteInbox(t, e.clock)
	e.follow(in.url("/users/ann"), in.url("/inbox"), "accepted")
	p := e.publish("Tomorrow", "published_at", time.Now().Add(24*time.Hour))
	e.settle()
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if got := in.received(); len(got) != 0 {
		t.Fatalf("a scheduled post was sent before its time: %+v", got)
	}
	e.clock.advance(25 * time.Hour)
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := in.wait(1)
	if got[0].Type != "Create" || got[0].Object != e.anon.Base+"/posts/"+p.Slug || got[0].Verified != nil {
		t.Fatalf("got %+v", got[0])
	}
	e.settle()
	if err := e.blog.ScanFederation(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if n := len(in.received()); n != 1 {
		t.Errorf("the post was sent %d times", n)
	}
}

func TestFederationDeliveryRetriesWithBackoffThenGivesUp(t *testing.T) {
	e := newFedEnv(t)
	e.enable()
	flaky, dead := newRemoteInbox(t, e.clock), newRemoteInbox(t, e.clock)
	flaky.answer = func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusAccepted
	}
	dead.answer = func(int) int { return http.StatusServiceUnavailable }
	e.follow(flaky.url("/users/ann"), flaky.url("/inbox"), "accepted")
	e.follow(dead.url("/users/bob"), dead.url("/inbox"), "accepted")
	e.publish("Retried")
	flaky.wait(1)
	dead.wait(1)
	waitUntil(t, "both deliveries to wait for their retry", func() bool {
		return e.count("SELECT COUNT(*) FROM jobs WHERE kind = 'blog.ap.deliver' AND state = 'pending' AND tries = 1") == 2
	})
	// Not before a minute has passed.
	var runAfter int64
	if err := e.db.QueryRow(context.Background(), "SELECT MIN(run_after) FROM jobs WHERE kind = 'blog.ap.deliver'").Scan(&runAfter); err != nil {
		t.Fatal(err)
	}
	if wait := time.UnixMicro(runAfter).Sub(e.clock.now()); wait < 50*time.Second || wait > time.Minute {
		t.Errorf("first retry in %s, want a minute", wait)
	}
	e.clock.advance(time.Minute + time.Second)
	flaky.wait(2)
	dead.wait(2)
	waitUntil(t, "the flaky host's success to be recorded", func() bool {
		return e.count("SELECT COUNT(*) FROM ap_hosts WHERE host = $1 AND last_success > 0 AND failures = 0 AND failing_since = 0",
			activitypub.Host(flaky.url(""))) == 1
	})
	// The dead host: tried on the schedule until four days have passed
	// since the first try, then given up and recorded.
	e.clock.advance(4*24*time.Hour + time.Hour)
	dead.wait(3)
	e.settle()
	var givenUp int
	var lastError string
	if err := e.db.QueryRow(context.Background(), "SELECT given_up, last_error FROM ap_hosts WHERE host = $1",
		activitypub.Host(dead.url(""))).Scan(&givenUp, &lastError); err != nil {
		t.Fatal(err)
	}
	if givenUp != 1 || lastError != "HTTP 503" {
		t.Errorf("dead host: given_up %d, last_error %q", givenUp, lastError)
	}
	if n := len(flaky.received()); n != 2 {
		t.Errorf("the flaky host got %d deliveries, want 2", n)
	}
}

func TestFederationFinalRefusalIsNotRetried(t *testing.T) {
	e := newFedEnv(t)
	e.enable()
	in := newRemoteInbox(t, e.clock)
	in.answer = func(int) int { return http.StatusForbidden }
	e.follow(in.url("/users/ann"), in.url("/inbox"), "accepted")
	e.publish("Refused")
	in.wait(1)
	e.settle()
	if n := e.count("SELECT given_up FROM ap_hosts WHERE host = $1", activitypub.Host(in.url(""))); n != 1 {
		t.Errorf("given_up %d, want 1", n)
	}
}

func TestFederationDeadServerDoesNotBlockPublishingOrOthers(t *testing.T) {
	e := newFedEnv(t)
	e.enable()
	slow, fine := newRemoteInbox(t, e.clock), newRemoteInbox(t, e.clock)
	slow.hang = make(chan struct{})
	e.follow(slow.url("/users/ann"), slow.url("/inbox"), "accepted")
	e.follow(fine.url("/users/bob"), fine.url("/inbox"), "accepted")
	// The publishing request answers while the slow server holds its
	// delivery: it never waited for it.
	for i := range 3 {
		e.publish("Post " + string(rune('A'+i)))
	}
	got := fine.wait(3)
	for _, d := range got {
		if d.Type != "Create" || d.Verified != nil {
			t.Errorf("got %+v", d)
		}
	}
}

func TestFederationTwoProcessesShareTheKeyAndDeliverEachActivityOnce(t *testing.T) {
	cfg := newFedEnv(t).cfg // a database only
	clock := &testClock{}
	p1 := newFedProcess(t, cfg, clock)
	p2 := newFedProcess(t, cfg, clock)
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
	in := newRemoteInbox(t, clock)
	for _, u := range []string{"ann", "bob", "cy", "dee"} {
		p1.follow(in.url("/users/"+u), in.url("/inbox"), "accepted")
	}
	var posts []post
	for i := range 6 {
		e := p1
		if i%2 == 1 {
			e = p2
		}
		posts = append(posts, e.publish("Shared "+string(rune('A'+i))))
	}
	in.wait(len(posts))
	p1.settle()
	got := in.received()
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
	p3 := newFedProcess(t, cfg, clock)
	if key(p3) != k1 {
		t.Error("the key changed with a restart")
	}
}
