package blog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/blog/httpsig"
	"folio/httpx"
)

func TestFederationInboxRefusesHostileActivities(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
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
	fe := newFedEnv(t, fedSetup{on: true})
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
	fe := newFedEnv(t, fedSetup{on: true, noPrivate: true})
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
	fe := newFedEnv(t, fedSetup{on: true})
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
	fe := newFedEnv(t, fedSetup{on: true})
	fe.blog.SetInboxLimit(2)
	alice := fedtest.New(t).Actor("alice")
	bob := fedtest.New(t).Actor("bob")
	for range 2 {
		fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	}
	kept := &headerKeeper{}
	fe.sendWith(alice, alice.Follow(fe.actor), fedtest.PostOptions{Client: &http.Client{Transport: kept}}, http.StatusTooManyRequests)
	if kept.header.Get("Retry-After") == "" {
		t.Fatalf("429 without Retry-After: %v", kept.header)
	}
	// Another host has its own allowance.
	fe.send(bob, bob.Follow(fe.actor), http.StatusAccepted)
}

// headerKeeper keeps the headers of the last answer its client got.
type headerKeeper struct {
	header http.Header
}

func (k *headerKeeper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		k.header = resp.Header
	}
	return resp, err
}

func TestFederationFollowAndUndo(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
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

func TestFederationRepliesBecomePendingComments(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice, bob := srv.Actor("alice"), srv.Actor("bob")
	p := fe.publish("Hello fediverse")
	postURL := fe.origin + "/posts/" + p.Slug

	create := alice.CreateNote("", postURL, `<p>Nice <b>post</b>, <span class="h-card"><a href="https://example.org/@x">@<span>x</span></a></span>!</p>`)
	noteID := create["object"].(map[string]any)["id"].(string)
	fe.send(alice, create, http.StatusAccepted)
	c, ok := fe.reply(noteID)
	want := fedComment{ID: c.ID, PostID: p.ID, Author: alice.Name, Content: "Nice post, @x!", Status: "pending",
		Handle: alice.Handle, URL: alice.URL, Actor: alice.ID}
	if !ok || c != want {
		t.Fatalf("reply stored as %+v (%v), want %+v", c, ok, want)
	}
	var public page[map[string]any]
	data(t, fe.anon.Do("GET", "/api/v1/posts/"+p.ID+"/comments", nil), 200, &public)
	if public.Pagination.Total != 0 {
		t.Fatalf("a pending reply is public: %+v", public)
	}
	// Delivered again, or sent again in another Create, it is one
	// comment.
	fe.send(alice, create, http.StatusAccepted)
	again := alice.CreateNote(noteID, postURL, "<p>Nice post, again.</p>")
	fe.send(alice, again, http.StatusAccepted)
	if n := fe.count("SELECT COUNT(*) FROM comments WHERE post_id = $1", p.ID); n != 1 {
		t.Fatalf("%d comments after a second delivery, want 1", n)
	}

	// A reply to the reply answers that comment, on the same post.
	answer := bob.CreateNote("", noteID, "<p>Agreed.</p>")
	answerID := answer["object"].(map[string]any)["id"].(string)
	fe.send(bob, answer, http.StatusAccepted)
	if got, ok := fe.reply(answerID); !ok || got.PostID != p.ID || got.ReplyTo != c.ID {
		t.Fatalf("reply to a reply: %+v (%v), want on post %s answering %s", got, ok, p.ID, c.ID)
	}

	// A post renamed is still found by its old address.
	data(t, fe.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"slug": "renamed"}), 200, nil)
	late := alice.CreateNote("", postURL, "<p>Late to the party.</p>")
	fe.send(alice, late, http.StatusAccepted)
	if got, ok := fe.reply(late["object"].(map[string]any)["id"].(string)); !ok || got.PostID != p.ID {
		t.Fatalf("reply to the old address: %+v (%v)", got, ok)
	}

	// Edits: the text follows, and an approved reply goes back to review.
	data(t, fe.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "approved"}), 200, nil)
	fe.send(alice, alice.UpdateNote(noteID, postURL, "<p>Nice post, edited.</p>"), http.StatusAccepted)
	if got, _ := fe.reply(noteID); got.Content != "Nice post, edited." || got.Status != "pending" {
		t.Fatalf("after Update: %q %s, want the new text, pending", got.Content, got.Status)
	}
	// Nobody else edits or deletes it, even from the same server.
	forged := bob.UpdateNote(noteID, postURL, "<p>Forged.</p>")
	fe.send(bob, forged, http.StatusAccepted)
	fe.send(bob, bob.DeleteNote(noteID), http.StatusAccepted)
	if got, ok := fe.reply(noteID); !ok || got.Content != "Nice post, edited." {
		t.Fatalf("another actor's Update or Delete took: %+v (%v)", got, ok)
	}
	// An Update naming someone else as the author is refused.
	forged = bob.UpdateNote(noteID, postURL, "<p>Forged.</p>")
	forged["object"].(map[string]any)["attributedTo"] = alice.ID
	fe.send(bob, forged, http.StatusBadRequest)
	fe.send(alice, alice.DeleteNote(noteID), http.StatusAccepted)
	if _, ok := fe.reply(noteID); ok {
		t.Fatal("Delete of the note left its comment")
	}
}

func TestFederationRepliesIgnored(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	alice := fedtest.New(t).Actor("alice")
	open := fe.publish("Open")
	closed := fe.publish("Closed", "show_comments", false)
	draft := fe.createPost(map[string]any{"title": "Draft"})
	for _, c := range []struct {
		name, inReplyTo, html string
	}{
		{"a post whose comments are closed", fe.origin + "/posts/" + closed.Slug, "<p>Hi</p>"},
		{"a draft", fe.origin + "/posts/" + draft.Slug, "<p>Hi</p>"},
		{"a post that does not exist", fe.origin + "/posts/nothing-here", "<p>Hi</p>"},
		{"someone else's note", alice.ID + "/statuses/999", "<p>Hi</p>"},
		{"nothing: a timeline post", "", "<p>Hi</p>"},
		{"a note with no text", fe.origin + "/posts/" + open.Slug, "<p> </p><script>x</script>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fe.send(alice, alice.CreateNote("", c.inReplyTo, c.html), http.StatusAccepted)
			if n := fe.count("SELECT COUNT(*) FROM comments"); n != 0 {
				t.Fatalf("%d comments stored", n)
			}
		})
	}
	t.Run("comments off for the whole blog", func(t *testing.T) {
		fe.putSettings(map[string]any{"post": map[string]any{"enable_comment": false}})
		defer fe.putSettings(map[string]any{"post": map[string]any{"enable_comment": true}})
		fe.send(alice, alice.CreateNote("", fe.origin+"/posts/"+open.Slug, "<p>Hi</p>"), http.StatusAccepted)
		if n := fe.count("SELECT COUNT(*) FROM comments"); n != 0 {
			t.Fatalf("%d comments stored", n)
		}
	})
	t.Run("a note on another server than its actor", func(t *testing.T) {
		create := alice.CreateNote(fedtest.New(t).URL+"/notes/1", fe.origin+"/posts/"+open.Slug, "<p>Hi</p>")
		fe.send(alice, create, http.StatusBadRequest)
	})
}

func TestFederationReplyWithScriptIsPlainText(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	alice := fedtest.New(t).Actor("alice")
	p := fe.publish("Target")
	html := `<p>Hello<br>there</p><script>alert("owned")</script><style>p{}</style>` +
		`<p>&lt;img src=x onerror=alert(1)&gt; &amp; <a href="javascript:alert(2)">a link</a></p>`
	create := alice.CreateNote("", fe.origin+"/posts/"+p.Slug, html)
	fe.send(alice, create, http.StatusAccepted)
	c, ok := fe.reply(create["object"].(map[string]any)["id"].(string))
	want := "Hello\nthere\n\n<img src=x onerror=alert(1)> & a link"
	if !ok || c.Content != want {
		t.Fatalf("stored %q (%v), want %q", c.Content, ok, want)
	}
	data(t, fe.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "approved"}), 200, nil)
	page := fe.html("/posts/"+p.Slug, 200)
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt; &amp; a link") {
		t.Fatalf("the reply is not shown escaped:\n%s", page)
	}
	for _, bad := range []string{"<img src=x", "alert(\"owned\")", "javascript:"} {
		if strings.Contains(page, bad) {
			t.Fatalf("the page holds %q", bad)
		}
	}
}

func TestFederationReplyIsCutToTheCommentBounds(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	p := fe.publish("Target")
	long := alice.CreateNote("", fe.origin+"/posts/"+p.Slug, "<p>"+strings.Repeat("é", 6000)+"</p>")
	fe.send(alice, long, http.StatusAccepted)
	c, _ := fe.reply(long["object"].(map[string]any)["id"].(string))
	if n := len([]rune(c.Content)); n != 5000 || !strings.HasSuffix(c.Content, "…") {
		t.Fatalf("a long reply kept %d characters, ending %q", n, c.Content[len(c.Content)-8:])
	}
}

func TestFederationLikesAndBoostsAreCounted(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice, bob := srv.Actor("alice"), srv.Actor("bob")
	p := fe.publish("Liked")
	postURL := fe.origin + "/posts/" + p.Slug

	like := alice.Like(postURL)
	fe.send(alice, like, http.StatusAccepted)
	boost := bob.Announce(postURL)
	fe.send(bob, boost, http.StatusAccepted)
	fe.send(alice, alice.Like(postURL), http.StatusAccepted) // a second Like counts once
	fe.send(alice, alice.Like(fe.origin+"/posts/no-such-post"), http.StatusAccepted)
	fe.send(alice, alice.Announce(alice.ID+"/statuses/1"), http.StatusAccepted)
	if got := fe.reactions(p.ID); got != [2]int{1, 1} {
		t.Fatalf("likes and boosts %v, want [1 1]", got)
	}
	if n := fe.count("SELECT COUNT(*) FROM ap_reactions"); n != 2 {
		t.Fatalf("%d reactions stored, want 2", n)
	}
	fe.send(alice, alice.Undo(like), http.StatusAccepted)
	if got := fe.reactions(p.ID); got != [2]int{0, 1} {
		t.Fatalf("after Undo of the Like: %v, want [0 1]", got)
	}
	undo := bob.Undo(nil)
	undo["object"] = boost["id"]
	fe.send(bob, undo, http.StatusAccepted)
	if got := fe.reactions(p.ID); got != [2]int{0, 0} {
		t.Fatalf("after Undo of the boost by its id: %v, want [0 0]", got)
	}
}

func TestFederationDeletedActorIsForgotten(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	p := fe.publish("Target")
	postURL := fe.origin + "/posts/" + p.Slug
	fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	fe.send(alice, alice.Like(postURL), http.StatusAccepted)
	pending := alice.CreateNote("", postURL, "<p>Still pending.</p>")
	approved := alice.CreateNote("", postURL, "<p>Approved.</p>")
	fe.send(alice, pending, http.StatusAccepted)
	fe.send(alice, approved, http.StatusAccepted)
	approvedID := approved["object"].(map[string]any)["id"].(string)
	c, _ := fe.reply(approvedID)
	data(t, fe.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "approved"}), 200, nil)

	fe.send(alice, alice.DeleteActor(), http.StatusAccepted)
	if _, ok := fe.follower(alice.ID); ok {
		t.Error("the deleted actor still follows")
	}
	if got := fe.reactions(p.ID); got != [2]int{} {
		t.Errorf("its reactions stay: %v", got)
	}
	if _, ok := fe.reply(pending["object"].(map[string]any)["id"].(string)); ok {
		t.Error("its pending reply stays")
	}
	if _, ok := fe.reply(approvedID); !ok {
		t.Error("its approved reply is gone")
	}

	// An actor the blog never knew, whose document is gone: its Delete
	// is taken and does nothing.
	gone := srv.URL + "/users/gone"
	del := map[string]any{"id": gone + "#delete", "type": "Delete", "actor": gone, "object": gone}
	fe.sendWith(alice, del, fedtest.PostOptions{KeyID: gone + "#main-key"}, http.StatusAccepted)
	// Any other activity of a key that cannot be fetched is refused.
	other := map[string]any{"id": gone + "/likes/1", "type": "Like", "actor": gone, "object": postURL}
	fe.sendWith(alice, other, fedtest.PostOptions{KeyID: gone + "#main-key"}, http.StatusUnauthorized)
}

func TestFederationKeysAreFetchedAgainWhenRotated(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	p := fe.publish("Target")
	fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	if n := srv.Requests("/users/alice"); n != 1 {
		t.Fatalf("actor fetched %d times, want 1", n)
	}
	fe.send(alice, alice.Like(fe.origin+"/posts/"+p.Slug), http.StatusAccepted)
	if n := srv.Requests("/users/alice"); n != 1 {
		t.Fatalf("a stored key was fetched again: %d fetches", n)
	}
	alice.RotateKey()
	fe.send(alice, alice.Announce(fe.origin+"/posts/"+p.Slug), http.StatusAccepted)
	if n := srv.Requests("/users/alice"); n != 2 {
		t.Fatalf("a rotated key: %d fetches, want 2", n)
	}
	if got := fe.reactions(p.ID); got != [2]int{1, 1} {
		t.Fatalf("reactions %v", got)
	}
}

func TestFederationKeysOfTheirOwnDocument(t *testing.T) {
	// Some servers name a key document of its own (actor/main-key) that
	// names its owner.
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	carol := srv.Actor("carol")
	keyID := carol.ID + "/main-key"
	doc := carol.Document()
	doc.PublicKey.ID = keyID
	srv.ServeJSON("/users/carol", doc)
	srv.ServeJSON("/users/carol/main-key", map[string]any{"@context": activitypub.SecurityContext, "id": keyID,
		"type": "Key", "owner": carol.ID, "publicKeyPem": doc.PublicKey.PublicKeyPem})
	fe.sendWith(carol, carol.Follow(fe.actor), fedtest.PostOptions{KeyID: keyID}, http.StatusAccepted)
	if _, ok := fe.follower(carol.ID); !ok {
		t.Fatal("no follower")
	}
	// A key document naming an owner that does not claim it.
	dave := srv.Actor("dave")
	srv.ServeJSON("/users/dave/main-key", map[string]any{"id": dave.ID + "/main-key", "type": "Key", "owner": dave.ID,
		"publicKeyPem": doc.PublicKey.PublicKeyPem})
	fe.sendWith(dave, dave.Follow(fe.actor), fedtest.PostOptions{KeyID: dave.ID + "/main-key"}, http.StatusUnauthorized)
}

func TestFederationRemoteActorsAreKeptADay(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	ctx := context.Background()
	a, err := fe.blog.RemoteActor(ctx, alice.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if a.Handle != alice.Handle || a.Name != alice.Name || a.URL != alice.URL || a.Inbox != alice.Inbox ||
		a.SharedInbox != alice.SharedInbox || a.KeyID != alice.KeyID || a.Host != srv.Host || a.Icon == "" {
		t.Fatalf("actor %+v", a)
	}
	for _, c := range []struct {
		name    string
		advance time.Duration
		refresh bool
		fetches int
	}{
		{"stored", time.Hour, false, 1},
		{"a day old", 24 * time.Hour, false, 2},
		{"refreshed", 0, true, 3},
	} {
		fe.clock.advance(c.advance)
		if _, err := fe.blog.RemoteActor(ctx, alice.ID, c.refresh); err != nil {
			t.Fatal(err)
		}
		if n := srv.Requests("/users/alice"); n != c.fetches {
			t.Fatalf("%s: %d fetches, want %d", c.name, n, c.fetches)
		}
	}
	// An Update of the actor is fetched again.
	bob := srv.Actor("bob")
	if _, err := fe.blog.RemoteActor(ctx, bob.ID, false); err != nil {
		t.Fatal(err)
	}
	renamed := bob.Document()
	renamed.Name = "Bob Renamed"
	srv.ServeJSON("/users/bob", renamed)
	fe.sendWith(bob, map[string]any{"id": bob.NextID("activities"), "type": "Update", "actor": bob.ID, "object": renamed},
		fedtest.PostOptions{Date: fe.clock.now()}, http.StatusAccepted)
	if a, err := fe.blog.RemoteActor(ctx, bob.ID, false); err != nil || a.Name != "Bob Renamed" {
		t.Fatalf("after an Update of the actor: %+v, %v", a, err)
	}
	// A server that stops answering: the stored actor serves.
	srv.ServeJSON("/users/alice", []byte("not json"))
	fe.clock.advance(25 * time.Hour)
	if a, err := fe.blog.RemoteActor(ctx, alice.ID, false); err != nil || a.ID != alice.ID {
		t.Fatalf("a stale actor when its server fails: %+v, %v", a, err)
	}
	if _, err := fe.blog.RemoteActor(ctx, alice.ID, true); err == nil {
		t.Fatal("a refresh from a failing server succeeded")
	}
}

func TestFederationAuthorizedFetch(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fedtest.New(t)
	alice := srv.Actor("alice")
	stranger := fedtest.New(t).Actor("stranger")
	blocked := fedtest.New(t)
	carl := blocked.Actor("carl")
	fe.block("domain", blocked.Host)
	get := func(signer *fedtest.Actor, key *fedtest.Actor) *http.Request {
		r, err := http.NewRequest(http.MethodGet, fe.origin+"/posts/a-post", nil)
		if err != nil {
			t.Fatal(err)
		}
		if signer != nil {
			if err := (httpsig.Signer{KeyID: signer.KeyID, Key: key.Key}).Sign(r, nil); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	if err := fe.blog.VerifyFetch(get(nil, nil)); err != nil {
		t.Fatalf("authorized fetch off: %v", err)
	}
	fe.federation(map[string]any{"authorized_fetch": true})
	for _, c := range []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"signed", get(alice, alice), 0},
		{"unsigned", get(nil, nil), http.StatusUnauthorized},
		{"signed with another key", get(alice, stranger), http.StatusUnauthorized},
		{"from a blocked domain", get(carl, carl), http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := fe.blog.VerifyFetch(c.req)
			var he *httpx.Error
			switch {
			case c.status == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case c.status != 0 && (!errors.As(err, &he) || he.Status != c.status):
				t.Fatalf("got %v, want %d", err, c.status)
			}
		})
	}
}

func TestFederationFollowIsAnsweredWithASignedAcceptUnlessHeldForApproval(t *testing.T) {
	for _, c := range []struct {
		name    string
		approve bool
	}{{"accepted at once", false}, {"held for approval", true}} {
		t.Run(c.name, func(t *testing.T) {
			fe := newFedEnv(t, fedSetup{on: true})
			fe.federation(map[string]any{"approve_followers": c.approve})
			srv := fe.remote()
			alice := srv.Actor("alice")
			follow := alice.Follow(fe.actor)
			fe.send(alice, follow, http.StatusAccepted)
			f, ok := fe.follower(alice.ID)
			if c.approve {
				// The Accept would have been queued before the inbox
				// answered: none is, and none will be sent.
				if !ok || f.Status != "pending" {
					t.Fatalf("follower %+v (%v), want pending", f, ok)
				}
				if n := fe.count("SELECT COUNT(*) FROM jobs WHERE kind = 'blog.ap.deliver'") + fe.count("SELECT COUNT(*) FROM ap_activities"); n != 0 {
					t.Fatalf("%d deliveries or activities queued for a follower held for approval", n)
				}
				if got := srv.Received(); len(got) != 0 {
					t.Fatalf("the follower's server got %d activities", len(got))
				}
				return
			}
			if !ok || f.Status != "accepted" {
				t.Fatalf("follower %+v (%v), want accepted", f, ok)
			}
			got := waitReceived(t, srv, 1)
			d := got[0]
			if d.Type != "Accept" || d.Path != "/users/alice/inbox" || d.Verified != nil || d.Activity["actor"] != fe.actor {
				t.Fatalf("got %s at %s (verified: %v) by %v, want the blog's signed Accept at alice's inbox",
					d.Type, d.Path, d.Verified, d.Activity["actor"])
			}
			if d.Object != follow["id"] {
				t.Errorf("the Accept's object is %q, want the Follow %q", d.Object, follow["id"])
			}
			fe.settle()
			if n := len(srv.Received()); n != 1 {
				t.Errorf("the follower's server got %d activities, want the one Accept", n)
			}
		})
	}
}

func TestFederationActorsAreFetchedSignedFromServersThatRequireIt(t *testing.T) {
	fe := newFedEnv(t, fedSetup{on: true})
	srv := fe.remote()
	srv.RequireSignedFetch(true)
	alice := srv.Actor("alice")
	r, err := http.Get(alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("an unsigned fetch of the actor: %d, want 401", r.StatusCode)
	}
	fe.send(alice, alice.Follow(fe.actor), http.StatusAccepted)
	if _, ok := fe.follower(alice.ID); !ok {
		t.Fatal("the Follow of an actor whose server requires signed fetches was not taken")
	}
	if n := srv.Requests("/users/alice"); n != 2 {
		t.Errorf("the actor was fetched %d times, want once by the test and once by the blog", n)
	}
	if a, err := fe.blog.RemoteActor(context.Background(), alice.ID, true); err != nil || a.Inbox != alice.Inbox {
		t.Fatalf("a refresh of the actor: %+v, %v", a, err)
	}
}
