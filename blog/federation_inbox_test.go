package blog_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/blog/httpsig"
)

func TestFederationInboxRefusesHostileActivities(t *testing.T) {
	fe := newFedEnv(t, fedSetup{})
	srv := fedtest.New(t)
	alice, bob, eve := srv.Actor("alice"), srv.Actor("bob"), srv.Actor("eve")
	fe.block("actor", eve.ID)
	stranger := fedtest.New(t).Actor("stranger") // another server's key
	blockedSrv := fedtest.New(t)
	blockedOne := blockedSrv.Actor("carl")
	fe.block("domain", blockedSrv.Host)
	huge := alice.Follow(fe.actor)
	huge["padding"] = strings.Repeat("x", 256<<10)
	tampered, _ := json.Marshal(alice.Follow(fe.actor))
	tampered = bytes.Replace(tampered, []byte(fe.actor), []byte(fe.origin+"/ap/actor?"), 1)

	for _, c := range []struct {
		name     string
		as       *fedtest.Actor
		activity any
		o        fedtest.PostOptions
		status   int
	}{
		{"wrong content type", alice, nil, fedtest.PostOptions{ContentType: "application/json"}, http.StatusUnsupportedMediaType},
		{"unsigned", alice, nil, fedtest.PostOptions{Unsigned: true}, http.StatusUnauthorized},
		{"signed with another key", alice, nil, fedtest.PostOptions{Key: stranger.Key}, http.StatusUnauthorized},
		{"body changed after signing", alice, nil, fedtest.PostOptions{Body: tampered}, http.StatusUnauthorized},
		{"no digest", alice, nil, fedtest.PostOptions{After: func(r *http.Request) { r.Header.Del("Digest") }}, http.StatusUnauthorized},
		{"digest not signed", alice, nil, fedtest.PostOptions{After: func(r *http.Request) {
			// Signed as a GET is: (request-target) host date only.
			if err := (httpsig.Signer{KeyID: alice.KeyID, Key: alice.Key}).Sign(r, nil); err != nil {
				t.Fatal(err)
			}
		}}, http.StatusUnauthorized},
		{"replayed: dated 13 hours ago", alice, nil, fedtest.PostOptions{Date: time.Now().Add(-13 * time.Hour)}, http.StatusUnauthorized},
		{"dated 13 hours ahead", alice, nil, fedtest.PostOptions{Date: time.Now().Add(13 * time.Hour)}, http.StatusUnauthorized},
		{"signed by another actor than its own", bob, alice.Follow(fe.actor), fedtest.PostOptions{}, http.StatusUnauthorized},
		{"blocked actor", eve, nil, fedtest.PostOptions{}, http.StatusForbidden},
		{"blocked domain", blockedOne, nil, fedtest.PostOptions{}, http.StatusForbidden},
		{"oversized", alice, huge, fedtest.PostOptions{}, http.StatusRequestEntityTooLarge},
		{"not an activity", alice, []byte(`["Follow"]`), fedtest.PostOptions{}, http.StatusBadRequest},
		{"id on another server", alice, map[string]any{"id": stranger.ID + "/follows/1", "type": "Follow", "actor": alice.ID,
			"object": fe.actor}, fedtest.PostOptions{}, http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			activity := c.activity
			if activity == nil {
				activity = c.as.Follow(fe.actor)
			}
			fe.sendWith(c.as, activity, c.o, c.status)
			if n := fe.count("SELECT COUNT(*) FROM ap_followers"); n != 0 {
				t.Fatalf("%d followers stored", n)
			}
		})
	}
	if n := blockedSrv.Requests("/users/carl"); n != 0 {
		t.Errorf("the blocked domain's actor was fetched %d times", n)
	}
	if n := srv.Requests("/users/eve"); n != 0 {
		t.Errorf("the blocked actor was fetched %d times", n)
	}
	// After all that, a good Follow is taken.
	fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	if _, ok := fe.follower(alice.ID); !ok {
		t.Fatal("a signed Follow stored no follower")
	}
}

func TestFederationInboxIsOffWithFederation(t *testing.T) {
	fe := newFedEnv(t, fedSetup{})
	fe.federation(map[string]any{"enabled": false})
	alice := fedtest.New(t).Actor("alice")
	fe.send(alice, alice.Follow(fe.actor), http.StatusNotFound)
	if n := alice.Server.Requests("/users/alice"); n != 0 {
		t.Errorf("the actor was fetched %d times", n)
	}
}

func TestFederationInboxRefusesKeysOnPrivateAddresses(t *testing.T) {
	// Without federation.allow_private_addresses, loopback is refused when
	// the connection is made: the test server never sees a request.
	fe := newFedEnv(t, fedSetup{noPrivate: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	fe.send(alice, alice.Follow(fe.actor), http.StatusUnauthorized)
	if n := srv.Requests("/users/alice"); n != 0 {
		t.Fatalf("the key's server got %d requests", n)
	}
	if _, ok := fe.follower(alice.ID); ok {
		t.Fatal("a follower was stored")
	}
}

func TestFederationInboxRefusesBadActorDocuments(t *testing.T) {
	fe := newFedEnv(t, fedSetup{})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	other := fedtest.New(t).Actor("other")
	for _, c := range []struct {
		name   string
		change func(doc *activitypub.Object)
	}{
		{"its id is another's", func(doc *activitypub.Object) { doc.ID = alice.ID }},
		{"not an actor", func(doc *activitypub.Object) { doc.Type = "Note" }},
		{"no inbox", func(doc *activitypub.Object) { doc.Inbox = "" }},
		{"an inbox that is not http", func(doc *activitypub.Object) { doc.Inbox = "ftp://example.org/inbox" }},
		{"no key", func(doc *activitypub.Object) { doc.PublicKey = nil }},
		{"a key owned by another", func(doc *activitypub.Object) { doc.PublicKey.Owner = alice.ID }},
		{"a key on another host", func(doc *activitypub.Object) { doc.PublicKey.ID = other.KeyID }},
		{"a key of another id than the signature's", func(doc *activitypub.Object) { doc.PublicKey.ID = doc.ID + "#other-key" }},
		{"a key that is no key", func(doc *activitypub.Object) { doc.PublicKey.PublicKeyPem = "not a key" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "u" + strings.NewReplacer(" ", "-", "'", "").Replace(c.name)
			id := srv.URL + "/users/" + name
			doc := alice.Document()
			doc.ID, doc.PreferredUsername, doc.Inbox = id, name, id+"/inbox"
			doc.PublicKey = &activitypub.PublicKey{ID: id + "#main-key", Owner: id, PublicKeyPem: doc.PublicKey.PublicKeyPem}
			c.change(doc)
			srv.ServeJSON("/users/"+name, doc)
			follow := map[string]any{"id": id + "/follows/1", "type": "Follow", "actor": id, "object": fe.actor}
			fe.sendWith(alice, follow, fedtest.PostOptions{KeyID: id + "#main-key"}, http.StatusUnauthorized)
			if n := srv.Requests("/users/" + name); n == 0 {
				t.Fatal("the document was never fetched")
			}
			if n := fe.count("SELECT COUNT(*) FROM ap_followers"); n != 0 {
				t.Fatalf("%d followers stored", n)
			}
		})
	}
}

func TestFederationInboxLimitsEachRemoteHost(t *testing.T) {
	fe := newFedEnv(t, fedSetup{})
	fe.b.SetInboxLimit(2)
	alice := fedtest.New(t).Actor("alice")
	bob := fedtest.New(t).Actor("bob")
	for range 2 {
		fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	}
	resp := postSigned(t, alice, fe.inbox, alice.Follow(fe.actor))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third activity from one host: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Another host has its own allowance.
	fe.send(bob, bob.Follow(fe.actor), http.StatusAccepted)
}

// postSigned signs and posts activity as a and returns the answer, its body
// closed.
func postSigned(t *testing.T, a *fedtest.Actor, inbox string, activity any) *http.Response {
	t.Helper()
	body, err := json.Marshal(activity)
	if err != nil {
		t.Fatal(err)
	}
	r, err := http.NewRequest(http.MethodPost, inbox, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", activitypub.ContentType)
	if err := (httpsig.Signer{KeyID: a.KeyID, Key: a.Key}).Sign(r, body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestFederationFollowAndUndo(t *testing.T) {
	fe := newFedEnv(t, fedSetup{})
	srv := fedtest.New(t)
	alice, bob, carol := srv.Actor("alice"), srv.Actor("bob"), srv.Actor("carol")

	follow := alice.Follow(fe.actor)
	fe.send(alice, follow, http.StatusAccepted)
	f, ok := fe.follower(alice.ID)
	if !ok || f.Status != "accepted" || f.FollowID != follow["id"] || f.Inbox != alice.SharedInbox || f.Host != srv.Host {
		t.Fatalf("follower %+v (stored %v), want accepted, follow %s, shared inbox, host %s", f, ok, follow["id"], srv.Host)
	}
	// The Accept is queued through deliver; its delivery is delivery's
	// test.

	fe.send(bob, bob.Follow(alice.ID), http.StatusAccepted)
	if _, ok := fe.follower(bob.ID); ok {
		t.Fatal("a Follow of someone else made a follower")
	}

	fe.send(alice, alice.Undo(follow), http.StatusAccepted)
	if _, ok := fe.follower(alice.ID); ok {
		t.Fatal("Undo of the Follow left the follower")
	}
	// The same Follow delivered again is remembered, and does nothing.
	fe.send(alice, follow, http.StatusAccepted)
	if _, ok := fe.follower(alice.ID); ok {
		t.Fatal("a replayed Follow made a follower again")
	}

	// Held for approval; following again changes nothing of that, and
	// an approved follower stays approved.
	fe.federation(map[string]any{"approve_followers": true})
	fe.send(carol, carol.Follow(fe.actor), http.StatusAccepted)
	fe.send(carol, carol.Follow(fe.actor), http.StatusAccepted)
	if f, _ := fe.follower(carol.ID); f.Status != "pending" {
		t.Fatalf("follower under approval: %q, want pending", f.Status)
	}
	fe.exec("UPDATE ap_followers SET status = 'accepted' WHERE actor_id = $1", carol.ID)
	again := carol.Follow(fe.actor)
	fe.send(carol, again, http.StatusAccepted)
	if f, _ := fe.follower(carol.ID); f.Status != "accepted" || f.FollowID != again["id"] {
		t.Fatalf("approved follower following again: %+v", f)
	}

	// An Undo naming the Follow only by its id.
	undo := carol.Undo(nil)
	undo["object"] = again["id"]
	fe.send(carol, undo, http.StatusAccepted)
	if _, ok := fe.follower(carol.ID); ok {
		t.Fatal("Undo naming the Follow by its id left the follower")
	}
}
