package blog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/blog/httpsig"
	"folio/sqlstore"
)

func TestFederationConsolePageShowsHandleFollowersAndHealth(t *testing.T) {
	e := newFedConsoleEnv(t, true)
	srv := fedtest.New(t)
	alice, bob := srv.Actor("alice"), srv.Actor("bob")
	e.knownActor(alice)
	now := time.Now()
	e.addFollower(alice.ID, srv.Host, "accepted", now.Add(-time.Hour))
	e.addFollower(bob.ID, srv.Host, "pending", now.Add(-2*time.Hour)) // not stored as an actor: its IRI stands for it
	e.exec(`INSERT INTO ap_hosts (host, last_success, last_failure, failures, given_up, last_error) VALUES
		('down.example', 0, $1, 7, $1, 'dial tcp: connection refused'), ('fine.example', $1, 0, 0, 0, '')`, sqlstore.FromTime(now))
	p := e.publish("Shared far", "slug", "shared-far")
	// The blog federates the post itself, a follower being there: the row
	// may be there already.
	e.exec("INSERT INTO ap_posts (post_id, object_id, state, hash, updated_at) VALUES ($1, $2, 'created', 'h', $3) ON CONFLICT (post_id) DO NOTHING",
		p.ID, e.anon.Base+"/posts/shared-far", sqlstore.FromTime(now))
	for i, kind := range []string{"like", "like", "announce"} {
		e.exec("INSERT INTO ap_reactions (post_id, kind, actor_id, activity_id, created_at) VALUES ($1, $2, $3, $4, 0)",
			p.ID, kind, alice.ID+string(rune('a'+i)), alice.NextID("r"))
	}

	res, _ := consolePage(t, e.admin, "/console/blog/federation", 200)
	host := strings.TrimPrefix(e.anon.Base, "http://")
	if !has(res, "<title>Federation · ", `href="/console/blog/federation" aria-current="page">Federation</a>`,
		`<strong class="fed-handle">@blog@`+host+`</strong>`, e.anon.Base+"/ap/actor",
		`Followers <span class="blog-count">(1, 1 waiting)</span>`,
		`<a href="`+alice.URL+`" rel="nofollow noopener noreferrer">@`+alice.Handle+`</a> <span class="muted">`+alice.Name+`</span>`,
		`<a href="`+bob.ID+`" rel="nofollow noopener noreferrer">`+bob.ID+`</a>`,
		`name="action" value="approve"`, `name="action" value="remove"`, `value="block-domain"`, "Block "+srv.Host,
		"down.example", "dial tcp: connection refused", `<td data-label="Failures" class="num">7</td>`,
		`<a href="/posts/shared-far">Shared far</a></td>`+"\n"+`<td class="num">2 likes</td>`+"\n"+`<td class="num">1 boost</td>`, "Nothing is blocked.") {
		t.Fatalf("page: %s", res.Body)
	}
	if has(res, "fine.example") {
		t.Error("a healthy host is listed among the failing")
	}
	// The follower waiting for approval comes first, whatever its age.
	if strings.Index(string(res.Body), bob.ID) > strings.Index(string(res.Body), alice.Handle) {
		t.Error("the pending follower is not first")
	}

	e.userSession().Do("GET", "/console/blog/federation", nil).Expect(403)
	e.anon.Do("GET", "/console/blog/federation", nil).Expect(303)
	e.admin.Do("GET", "/console/blog/federation?page=x", nil).Expect(400)
}

func TestFederationConsoleSettingsSwitchAndOrigin(t *testing.T) {
	e := newFedConsoleEnv(t, false)
	// A key recorded with no origin, as one made by background work
	// without site.site_url: turning federation on records this request's.
	priv, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	e.exec("INSERT INTO ap_keys (name, origin, public_pem, private_pem, created_at) VALUES ('blog', '', $1, $2, 0)",
		httpsig.MarshalPublicKey(&priv.PublicKey), httpsig.MarshalPrivateKey(priv))

	res, tok := consolePage(t, e.admin, "/console/blog/federation", 200)
	if !has(res, "When federation is on, readers follow the blog as", `name="federation.username" type="text" value="blog"`) ||
		has(res, `id="fed-enabled" name="federation.enabled" value="1" checked`) {
		t.Fatalf("off: %s", res.Body)
	}
	res = e.admin.PostForm("/console/blog/federation", "form_token", tok, "federation.enabled", "1", "federation.username", "Not Valid").Expect(422)
	if !has(res, "Not saved. Username: must be 1-30 lowercase letters, digits or underscores.", `value="Not Valid" maxlength="30" required aria-describedby="fed-username-hint" aria-invalid="true"`) {
		t.Fatalf("refused: %s", res.Body)
	}
	var origin string
	if e.one(&origin, "SELECT origin FROM ap_keys"); origin != "" {
		t.Fatalf("a refused form recorded the origin %q", origin)
	}

	page := consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation", "form_token", tok, "federation.enabled", "1",
		"federation.username", "notes", "federation.approve_followers", "1"), "Federation is on: the blog can be followed.")
	if !has(page, "Readers follow the blog as", "@notes@", `id="fed-approve" name="federation.approve_followers" value="1" checked`) {
		t.Fatalf("on: %s", page.Body)
	}
	if e.one(&origin, "SELECT origin FROM ap_keys"); origin != e.anon.Base {
		t.Errorf("origin recorded %q, want %q", origin, e.anon.Base)
	}
	var s struct {
		Federation map[string]any `json:"federation"`
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/settings", nil), 200, &s)
	if s.Federation["enabled"] != true || s.Federation["username"] != "notes" || s.Federation["approve_followers"] != true || s.Federation["authorized_fetch"] != false {
		t.Errorf("stored: %v", s.Federation)
	}
	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation", "form_token", tok, "federation.username", "notes"),
		"Federation is off: nothing is sent or answered.")
}

func TestFederationSettingsAPIRecordsTheOriginWhenTurnedOn(t *testing.T) {
	e := newFedConsoleEnv(t, false)
	priv, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	e.exec("INSERT INTO ap_keys (name, origin, public_pem, private_pem, created_at) VALUES ('blog', 'https://old.example', $1, $2, 0)",
		httpsig.MarshalPublicKey(&priv.PublicKey), httpsig.MarshalPrivateKey(priv))
	var origin string
	// A PUT that leaves federation off records nothing.
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"federation": map[string]any{"username": "notes"}}), 200, nil)
	if e.one(&origin, "SELECT origin FROM ap_keys"); origin != "https://old.example" {
		t.Fatalf("origin %q after a PUT that left federation off", origin)
	}
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"federation": map[string]any{"enabled": true}}), 200, nil)
	if e.one(&origin, "SELECT origin FROM ap_keys"); origin != e.anon.Base {
		t.Errorf("origin %q after turning federation on, want %q", origin, e.anon.Base)
	}
}

func TestFederationConsoleFollowerActions(t *testing.T) {
	e := newFedConsoleEnv(t, true)
	now := time.Now()
	for _, f := range []struct{ id, host, status string }{
		{"https://social.example/users/ann", "social.example", "pending"},
		{"https://social.example/users/ben", "social.example", "pending"},
		{"https://social.example/users/cat", "social.example", "accepted"},
		{"https://social.example/users/dan", "social.example", "accepted"},
		{"https://eu.social.example/users/eve", "eu.social.example", "accepted"},
		{"https://notsocial.example/users/fay", "notsocial.example", "accepted"},
		{"https://social.example:8443/users/gus", "social.example:8443", "accepted"},
	} {
		e.addFollower(f.id, f.host, f.status, now)
	}
	_, tok := consolePage(t, e.admin, "/console/blog/federation", 200)
	act := func(actor, action string) int {
		return e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", actor, "action", action, "page", "2").Status
	}
	status := func(actor string) string {
		var s string
		err := e.db.QueryRow(context.Background(), "SELECT status FROM ap_followers WHERE actor_id = $1", actor).Scan(&s)
		if err != nil {
			return "none"
		}
		return s
	}

	res := e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://social.example/users/ann", "action", "approve", "page", "2")
	if res.Expect(303).Location() != "/console/blog/federation?page=2" {
		t.Errorf("back to %q", res.Location())
	}
	consoleFlash(t, e.admin, res, "Approved https://social.example/users/ann.")
	if got := status("https://social.example/users/ann"); got != "accepted" {
		t.Errorf("approved follower is %s", got)
	}
	again := e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://social.example/users/ann", "action", "approve").Expect(409)
	if !has(again, "is not waiting for approval.") {
		t.Fatalf("approving twice: %s", again.Body)
	}
	if act("https://social.example/users/ben", "reject") != 303 || status("https://social.example/users/ben") != "none" {
		t.Error("a rejected follower stays")
	}
	if act("https://social.example/users/cat", "remove") != 303 || status("https://social.example/users/cat") != "none" {
		t.Error("a removed follower stays")
	}
	missing := e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://social.example/users/cat", "action", "remove").Expect(404)
	if !has(missing, "That account does not follow the blog (any more).") {
		t.Fatalf("removing twice: %s", missing.Body)
	}
	e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://social.example/users/dan", "action", "burn").Expect(422)

	// A domain block covers the host at any port and its subdomains, not
	// a host that merely ends alike.
	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation/blocks", "form_token", tok, "kind", "domain", "value", " @someone@Social.Example "),
		"Blocked the domain social.example and removed 4 followers.")
	for actor, want := range map[string]string{
		"https://social.example/users/ann": "none", "https://social.example/users/dan": "none", "https://eu.social.example/users/eve": "none",
		"https://social.example:8443/users/gus": "none", "https://notsocial.example/users/fay": "accepted",
	} {
		if got := status(actor); got != want {
			t.Errorf("%s after the domain block: %s, want %s", actor, got, want)
		}
	}
	// The follower row's own buttons: an actor block.
	e.addFollower("https://other.example/users/hal", "other.example", "accepted", now)
	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://other.example/users/hal", "action", "block-actor"),
		"Blocked https://other.example/users/hal and removed 1 follower.")
	e.addFollower("https://port.example:8443/users/ivy", "port.example:8443", "accepted", now)
	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation/followers", "form_token", tok, "actor", "https://port.example:8443/users/ivy", "action", "block-domain"),
		"Blocked the domain port.example:8443 and removed 1 follower.")

	page, _ := consolePage(t, e.admin, "/console/blog/federation", 200)
	if !has(page, `<td data-label="Blocked" class="blog-url">social.example</td>`, `<td data-label="Blocked" class="blog-url">port.example:8443</td>`, `<td data-label="Blocked" class="blog-url">https://other.example/users/hal</td>`) {
		t.Fatalf("blocks: %s", page.Body)
	}
	var n int
	if e.one(&n, "SELECT COUNT(*) FROM ap_blocks"); n != 3 {
		t.Errorf("%d blocks, want 3", n)
	}

	for _, c := range []struct{ kind, value, msg string }{
		{"domain", "not a host!", "Not blocked: a domain is a host name such as social.example."},
		{"actor", "javascript:alert(1)", "Not blocked: an actor is its address, an http or https URL."},
		{"server", "x.example", "Not blocked: kind must be actor or domain."},
	} {
		res := e.admin.PostForm("/console/blog/federation/blocks", "form_token", tok, "kind", c.kind, "value", c.value).Expect(422)
		if !has(res, c.msg, `aria-invalid="true"`) {
			t.Errorf("block %s %q: %s", c.kind, c.value, res.Body)
		}
	}

	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/federation/blocks/delete", "form_token", tok, "kind", "domain", "value", "social.example"),
		"Unblocked social.example.")
	e.admin.PostForm("/console/blog/federation/blocks/delete", "form_token", tok, "kind", "domain", "value", "social.example").Expect(404)
	// Without the form token, nothing changes.
	e.admin.PostForm("/console/blog/federation/blocks", "kind", "domain", "value", "x.example").Expect(403)
}

func TestFederationConsoleReplyToAFediverseComment(t *testing.T) {
	e := newFedConsoleEnv(t, true)
	srv := fedtest.New(t)
	alice, stranger := srv.Actor("alice"), srv.Actor("stranger")
	e.knownActor(alice)
	p := e.publish("Far and wide", "slug", "far-and-wide")
	pending := e.fediverseComment(alice, p.ID, "pending", "Still waiting")
	approved := e.fediverseComment(alice, p.ID, "approved", "Lovely <b>post</b>")
	unknown := e.fediverseComment(stranger, p.ID, "approved", "Who am I?")
	var local struct{ ID string }
	data(t, e.visitor("10.9.0.1").Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{"author": "Lou", "email": "lou@example.com", "content": "Local"}), 201, &local)
	e.exec("UPDATE comments SET status = 'approved' WHERE id = $1", local.ID)

	res, tok := consolePage(t, e.admin, "/console/blog/comments?status=all", 200)
	if !has(res, `<a href="`+alice.URL+`" rel="nofollow noopener noreferrer">@`+alice.Handle+`</a></span> <span class="blog-fediverse">via the fediverse</span>`,
		`action="/console/blog/comments/`+approved+`/reply"`, `<label for="reply-text-`+approved+`">Reply to @`+alice.Handle+`</label>`) ||
		has(res, `/console/blog/comments/`+pending+`/reply"`, `/console/blog/comments/`+local.ID+`/reply"`) {
		t.Fatalf("moderation page: %s", res.Body)
	}

	for _, c := range []struct {
		name, id, text string
		status         int
		msg            string
	}{
		{"a local comment", local.ID, "Hi", 422, "Only comments from the fediverse take a reply here."},
		{"a pending comment", pending, "Hi", 409, "Approve the comment first: the reply shows under the post with it."},
		{"an empty reply", approved, "  ", 422, "Not sent: the reply must not be empty."},
		// A refused reply comes back in its box.
		{"a long reply", approved, strings.Repeat("x", 5001), 422, "Not sent: the reply must be at most 5000 characters.\n" + strings.Repeat("x", 5001) + "</textarea>"},
		{"no such comment", "0190aaaa-0000-7000-8000-000000000000", "Hi", 404, "There is no such comment."},
	} {
		res := e.admin.PostForm("/console/blog/comments/"+c.id+"/reply", "form_token", tok, "content", c.text, "status", "all", "page", "1").Expect(c.status)
		msg, typed, _ := strings.Cut(c.msg, "\n")
		if !has(res, msg, typed) {
			t.Errorf("%s: %s", c.name, res.Body)
		}
	}
	var n int
	if e.one(&n, "SELECT COUNT(*) FROM comments WHERE reply_to <> ''"); n != 0 {
		t.Fatalf("refused replies stored %d comments", n)
	}

	// A follower of the blog on another server: the Note is cc the
	// followers.
	other := fedtest.New(t)
	fan := other.Actor("fan")
	e.addFollower(fan.ID, other.Host, "accepted", time.Now())
	res2 := e.admin.PostForm("/console/blog/comments/"+approved+"/reply", "form_token", tok, "content", "Thank you!\nReally.\n\n<3 & more", "status", "all", "page", "1")
	if res2.Expect(303).Location() != "/console/blog/comments?status=all" {
		t.Errorf("back to %q", res2.Location())
	}
	consoleFlash(t, e.admin, res2, "Replied to "+alice.Name+" (@"+alice.Handle+").")
	var rid, apID, author, status, email string
	if err := e.db.QueryRow(context.Background(), "SELECT id, ap_id, author, status, email FROM comments WHERE reply_to = $1", approved).
		Scan(&rid, &apID, &author, &status, &email); err != nil {
		t.Fatal(err)
	}
	if apID != e.anon.Base+"/ap/comments/"+rid || author != "Folio" || status != "approved" || email != "" {
		t.Errorf("reply stored as ap_id %q author %q status %q email %q", apID, author, status, email)
	}

	// On the post: the fediverse comment marked, linked and the reply
	// shown as one.
	site := e.anon.Do("GET", "/posts/far-and-wide", nil).Expect(200)
	if !has(site, `<article class="comment comment-fediverse" id="comment-`+approved+`">`,
		`<strong class="author"><a href="`+alice.URL+`" rel="nofollow ugc noopener">`+alice.Name+`</a></strong> <span class="comment-handle muted">@`+alice.Handle+`</span> <span class="comment-via">via the fediverse</span>`,
		`<article class="comment comment-reply" id="comment-`+rid+`">`, `in reply to <a href="#comment-`+approved+`">`+alice.Name+`</a>`,
		"Lovely &lt;b&gt;post&lt;/b&gt;") {
		t.Fatalf("post page: %s", site.Body)
	}
	if strings.Count(string(site.Body), "via the fediverse") != 2 {
		t.Errorf("the fediverse mark shows %d times, want 2 (alice's and the stranger's comments, not the reply)", strings.Count(string(site.Body), "via the fediverse"))
	}

	// The Note as the fediverse fetches it.
	c := e.anon.Clone()
	c.Header.Set("Accept", activitypub.ContentType)
	got := c.Do("GET", "/ap/comments/"+rid, nil).Expect(200)
	if ct := got.Header.Get("Content-Type"); ct != "application/activity+json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	note, err := activitypub.Decode(got.Body)
	if err != nil {
		t.Fatal(err)
	}
	var alicesNote string
	e.one(&alicesNote, "SELECT ap_id FROM comments WHERE id = $1", approved)
	want := map[string]string{
		"id": apID, "type": "Note", "attributedTo": e.anon.Base + "/ap/actor", "inReplyTo": alicesNote,
		"url":     e.anon.Base + "/posts/far-and-wide#comment-" + rid,
		"content": `<p><span class="h-card"><a href="` + alice.URL + `" class="u-url mention">@<span>alice</span></a></span> Thank you!<br>Really.</p><p>&lt;3 &amp; more</p>`,
	}
	for k, v := range map[string]string{"id": note.ID, "type": note.Type, "attributedTo": note.AttributedTo.ID, "inReplyTo": note.InReplyTo.ID,
		"url": note.URL.IRI(), "content": note.Content} {
		if v != want[k] {
			t.Errorf("note %s = %q, want %q", k, v, want[k])
		}
	}
	if ids := note.To.IDs(); len(ids) != 1 || ids[0] != alice.ID {
		t.Errorf("to %v", ids)
	}
	if ids := note.Cc.IDs(); len(ids) != 1 || ids[0] != e.anon.Base+"/ap/actor/followers" {
		t.Errorf("cc %v", ids)
	}
	if len(note.Tag) != 1 || note.Tag[0].Object == nil || note.Tag[0].Object.Type != "Mention" || note.Tag[0].Object.Href != alice.ID ||
		note.Tag[0].Object.Name != "@"+alice.Handle {
		t.Errorf("tag %s", got.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(got.Body, &raw); err != nil || raw["@context"] != activitypub.ActivityStreamsContext {
		t.Errorf("@context: %s", got.Body)
	}
	// The Create of the Note reaches its author's server and the
	// followers' servers, signed by the blog.
	for _, s := range []*fedtest.Server{srv, other} {
		s.WaitFor(t, "the Create of the reply", func(ds []fedtest.Delivery) bool {
			for _, d := range fedtest.OfType(ds, "Create") {
				if d.Verified == nil && d.Activity.Object.Object != nil && d.Activity.Object.Object.ID == apID &&
					d.Activity.Object.Object.InReplyTo.ID == alicesNote {
					return true
				}
			}
			return false
		})
	}

	// Only the blog's replies are served, and only while federation is on.
	c.Do("GET", "/ap/comments/"+approved, nil).Expect(404)
	c.Do("GET", "/ap/comments/nope", nil).Expect(404)

	// The author of a comment the blog holds no actor for: the reply is
	// kept on the site, and the flash says it went nowhere.
	e.exec("DELETE FROM ap_actors")
	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/comments/"+unknown+"/reply", "form_token", tok, "content", "Hello", "status", "all", "page", "1"),
		"the blog does not know their account, so the reply was not sent to them.")

	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"federation": map[string]any{"enabled": false}}), 200, nil)
	c.Do("GET", "/ap/comments/"+rid, nil).Expect(404)
	off := e.admin.PostForm("/console/blog/comments/"+approved+"/reply", "form_token", tok, "content", "Again", "status", "all", "page", "1").Expect(409)
	if !has(off, "Federation is off: turn it on to reply on the fediverse.") {
		t.Errorf("reply while off: %s", off.Body)
	}
}

func TestFederationCommentsInTheAPIAndOnTheSite(t *testing.T) {
	e := newFedConsoleEnv(t, true)
	srv := fedtest.New(t)
	alice, mallory := srv.Actor("alice"), srv.Actor("mallory")
	p := e.publish("Open", "slug", "open")
	e.fediverseComment(alice, p.ID, "approved", "From afar")
	bad := e.fediverseComment(mallory, p.ID, "approved", "Sneaky")
	e.exec("UPDATE comments SET author_url = 'javascript:alert(1)' WHERE id = $1", bad)

	var pub page[map[string]any]
	data(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID+"/comments", nil), 200, &pub)
	if len(pub.Items) != 2 || pub.Items[0]["author_handle"] != alice.Handle || pub.Items[0]["author_url"] != alice.URL ||
		pub.Items[0]["fediverse"] != true || pub.Items[0]["reply_to"] != "" || pub.Items[0]["email"] != nil {
		t.Fatalf("public comments: %+v", pub.Items)
	}
	var adm page[map[string]any]
	data(t, e.admin.Do("GET", "/api/v1/admin/comments?post_id="+p.ID, nil), 200, &adm)
	if len(adm.Items) != 2 || adm.Items[1]["author_handle"] != alice.Handle || adm.Items[1]["fediverse"] != true {
		t.Fatalf("admin comments: %+v", adm.Items)
	}
	site := e.anon.Do("GET", "/posts/open", nil).Expect(200)
	if !has(site, `<strong class="author">Name of mallory</strong> <span class="comment-handle muted">@`+mallory.Handle+`</span>`) || has(site, "javascript:") {
		t.Fatalf("a profile URL that is not http(s) is linked: %s", site.Body)
	}
}
