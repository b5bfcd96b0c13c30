package blog_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/fedtest"
	"folio/blog/httpsig"
)

func TestFederationRoutesAnswer404WhileFederationIsOff(t *testing.T) {
	e := newFedEnv(t, fedSetup{})
	p := e.publish("Quiet")
	for _, path := range []string{
		"/.well-known/webfinger?resource=acct:blog@example.com", "/.well-known/nodeinfo", "/nodeinfo/2.1",
		"/ap/actor", "/ap/actor/outbox", "/ap/actor/followers", "/ap/actor/following",
		"/ap/activities/0190aaaa-0000-7000-8000-000000000000",
	} {
		expectError(t, e.anon.Do("GET", path, nil, "Accept", activitypub.ContentType), 404, "resource not found")
	}
	expectError(t, e.anon.Do("POST", "/ap/inbox", `{"type":"Follow"}`, "Content-Type", activitypub.ContentType), 404, "resource not found")
	// The pages are pages, whatever the Accept, and do not vary by it.
	for _, path := range []string{"/", "/posts/" + p.Slug} {
		r := e.anon.Do("GET", path, nil, "Accept", activitypub.ContentType).Expect(200)
		if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || r.Header.Get("Vary") != "" {
			t.Errorf("GET %s with federation off: %q, Vary %q", path, ct, r.Header.Get("Vary"))
		}
	}
}

func TestFederationWebFingerFindsTheBlogsAccountOnly(t *testing.T) {
	e := newFedEnv(t, fedSetup{})
	e.enable(map[string]any{"username": "notes"})
	u, _ := url.Parse(e.anon.Base)
	host := u.Host
	actor := e.anon.Base + "/ap/actor"
	tests := []struct {
		name, resource string
		status         int
	}{
		{"the acct", "acct:notes@" + host, 200},
		{"the acct in capitals", "acct:NOTES@" + strings.ToUpper(host), 200},
		{"the actor's IRI", actor, 200},
		{"the home page", e.anon.Base + "/", 200},
		{"another user", "acct:admin@" + host, 404},
		{"another host", "acct:notes@example.com", 404},
		{"not an account", "notes", 404},
		{"no resource", "", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.anon.Do("GET", "/.well-known/webfinger?resource="+url.QueryEscape(tt.resource), nil)
			r.Expect(tt.status)
			if tt.status != 200 {
				return
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/jrd+json") {
				t.Errorf("Content-Type %q", ct)
			}
			if r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Error("no CORS header")
			}
			var jrd activitypub.JRD
			if err := json.Unmarshal(r.Body, &jrd); err != nil {
				t.Fatal(err)
			}
			if jrd.Subject != "acct:notes@"+host {
				t.Errorf("subject %q", jrd.Subject)
			}
			var self, profile bool
			for _, l := range jrd.Links {
				self = self || l.Rel == "self" && l.Type == activitypub.ContentType && l.Href == actor
				profile = profile || l.Rel == "http://webfinger.net/rel/profile-page" && l.Type == "text/html" && l.Href == e.anon.Base+"/"
			}
			if !self || !profile {
				t.Errorf("links %+v lack self or profile-page", jrd.Links)
			}
		})
	}
}

func TestFederationNodeInfoNamesFolioAndCountsPublicPosts(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	e.publish("One")
	e.publish("Two")
	e.createPost(map[string]any{"title": "Draft"})
	e.publish("Later", "published_at", time.Now().Add(time.Hour))

	var links activitypub.NodeInfoLinks
	if err := json.Unmarshal(e.anon.Do("GET", "/.well-known/nodeinfo", nil).Expect(200).Body, &links); err != nil {
		t.Fatal(err)
	}
	if len(links.Links) != 1 || links.Links[0].Rel != activitypub.NodeInfoSchema21 || links.Links[0].Href != e.anon.Base+"/nodeinfo/2.1" {
		t.Fatalf("links %+v", links)
	}
	r := e.anon.Do("GET", "/nodeinfo/2.1", nil).Expect(200)
	if ct := r.Header.Get("Content-Type"); ct != activitypub.NodeInfoProfile21 {
		t.Errorf("Content-Type %q", ct)
	}
	var ni activitypub.NodeInfo
	if err := json.Unmarshal(r.Body, &ni); err != nil {
		t.Fatal(err)
	}
	if ni.Version != "2.1" || ni.Software.Name != "folio" || ni.Software.Version != "1.2.3-test" || ni.OpenRegistrations ||
		ni.Usage.Users.Total != 1 || ni.Usage.LocalPosts != 2 || len(ni.Protocols) != 1 || ni.Protocols[0] != "activitypub" {
		t.Errorf("nodeinfo %+v", ni)
	}
}

func TestFederationActorHasWhatMastodonNeeds(t *testing.T) {
	e := newFedEnv(t, fedSetup{})
	e.enable(map[string]any{"approve_followers": true})
	base := e.anon.Base
	for _, path := range []string{"/ap/actor", "/"} {
		a := e.activity(path, 200)
		want := map[string]any{
			"id": base + "/ap/actor", "type": "Person", "preferredUsername": "blog", "name": "Field Notes",
			"url": base + "/", "inbox": base + "/ap/actor/inbox", "outbox": base + "/ap/actor/outbox",
			"followers": base + "/ap/actor/followers", "following": base + "/ap/actor/following",
			"manuallyApprovesFollowers": true, "discoverable": true,
			"summary": "<p>Notes &lt;from&gt; the field</p>",
		}
		for k, v := range want {
			if a[k] != v {
				t.Errorf("GET %s: %s = %v, want %v", path, k, a[k], v)
			}
		}
		if ep, _ := a["endpoints"].(map[string]any); ep["sharedInbox"] != base+"/ap/inbox" {
			t.Errorf("GET %s: endpoints %v", path, a["endpoints"])
		}
		key, _ := a["publicKey"].(map[string]any)
		if key["id"] != base+"/ap/actor#main-key" || key["owner"] != base+"/ap/actor" {
			t.Errorf("GET %s: publicKey %v", path, key)
		}
		if _, err := httpsig.ParsePublicKey(key["publicKeyPem"].(string)); err != nil {
			t.Errorf("GET %s: the key does not parse: %v", path, err)
		}
		ctx, _ := a["@context"].([]any)
		if len(ctx) != 2 || ctx[0] != activitypub.ActivityStreamsContext || ctx[1] != activitypub.SecurityContext {
			t.Errorf("GET %s: @context %v", path, a["@context"])
		}
		if _, err := time.Parse(time.RFC3339, a["published"].(string)); err != nil {
			t.Errorf("GET %s: published %v", path, a["published"])
		}
	}
}

func TestFederationPagesAnswerActivityStreamsToServersAndHTMLToBrowsers(t *testing.T) {
	for _, mode := range []string{"classic", "headless"} {
		t.Run(mode, func(t *testing.T) {
			e := newFedEnv(t, fedSetup{})
			e.enable()
			data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"render": map[string]any{"render_mode": mode}}), 200, nil)
			p := e.publish("Hello fediverse", "content_markdown", "Some *text*.")
			for _, accept := range []string{activitypub.ContentType, activitypub.LDContentType} {
				r := e.anon.Do("GET", "/posts/"+p.Slug, nil, "Accept", accept).Expect(200)
				var art map[string]any
				if err := json.Unmarshal(r.Body, &art); err != nil || art["type"] != "Article" || art["id"] != e.anon.Base+"/posts/"+p.Slug {
					t.Errorf("Accept %s: %s", accept, r.Body)
				}
			}
			if a := e.activity("/", 200); a["type"] != "Person" {
				t.Errorf("home as ActivityStreams: %v", a["type"])
			}
			for _, path := range []string{"/", "/posts/" + p.Slug} {
				r := e.anon.Do("GET", path, nil, "Accept", activitypub.ContentType)
				if r.Header.Get("Vary") != "Accept" {
					t.Errorf("GET %s as ActivityStreams: Vary %q", path, r.Header.Get("Vary"))
				}
				// A browser gets the page (or, headless, the API's 404),
				// also after a server asked: nothing is cached across.
				r = e.anon.Do("GET", path, nil, "Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
				if strings.Contains(r.Header.Get("Content-Type"), "activity") || r.Header.Get("Vary") != "Accept" {
					t.Errorf("GET %s as a browser: %d %q, Vary %q", path, r.Status, r.Header.Get("Content-Type"), r.Header.Get("Vary"))
				}
				if mode == "classic" {
					r.Expect(200)
				}
			}
		})
	}
}

func TestFederationArticleShapeAndHiddenPosts(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	base := e.anon.Base
	tag := e.createTerm("tags", "Field Work")
	md := "Intro [a link](/pages/about) and [out](https://example.org/x).\n\n" +
		"![A heron](/i/abc123.jpg)\n\n![elsewhere](https://example.org/y.png)\n\n## Part\n\nEnd."
	p := e.publish("Herons", "content_markdown", md, "summary", "About herons.", "tag_ids", []string{tag.ID},
		"cover_image", base+"/i/cover1.png")
	art := e.activity("/posts/"+p.Slug, 200)
	want := map[string]any{"type": "Article", "id": base + "/posts/" + p.Slug, "url": base + "/posts/" + p.Slug,
		"attributedTo": base + "/ap/actor", "name": "Herons", "summary": "About herons."}
	for k, v := range want {
		if art[k] != v {
			t.Errorf("%s = %v, want %v", k, art[k], v)
		}
	}
	content, _ := art["content"].(string)
	siteHas(t, "content", content, `href="`+base+`/pages/about"`, `href="https://example.org/x"`, `src="`+base+`/i/abc123.jpg"`, "<h2")
	siteLacks(t, "content", content, "<script", `href="/`)
	if to, _ := art["to"].([]any); len(to) != 1 || to[0] != activitypub.Public {
		t.Errorf("to %v", art["to"])
	}
	if cc, _ := art["cc"].([]any); len(cc) != 1 || cc[0] != base+"/ap/actor/followers" {
		t.Errorf("cc %v", art["cc"])
	}
	tags, _ := art["tag"].([]any)
	if len(tags) != 1 || tags[0].(map[string]any)["name"] != "#FieldWork" || tags[0].(map[string]any)["type"] != "Hashtag" ||
		tags[0].(map[string]any)["href"] != base+"/tags/"+tag.Slug {
		t.Errorf("tag %v", art["tag"])
	}
	// A server reading JSON-LD keeps the hashtags only if a context
	// defines the term.
	if ctx, _ := art["@context"].([]any); len(ctx) != 2 || ctx[0] != activitypub.ActivityStreamsContext ||
		ctx[1].(map[string]any)["Hashtag"] != "as:Hashtag" {
		t.Errorf("@context %v does not define Hashtag", art["@context"])
	}
	att, _ := art["attachment"].([]any)
	if len(att) != 2 {
		t.Fatalf("attachment %v, want the cover and the one image of the file host", art["attachment"])
	}
	cover, img := att[0].(map[string]any), att[1].(map[string]any)
	if cover["url"] != base+"/i/cover1.png" || cover["mediaType"] != "image/png" || cover["name"] != "Herons" {
		t.Errorf("cover %v", cover)
	}
	if img["url"] != base+"/i/abc123.jpg" || img["mediaType"] != "image/jpeg" || img["name"] != "A heron" || img["type"] != "Image" {
		t.Errorf("image %v", img)
	}

	draft := e.createPost(map[string]any{"title": "Not yet"})
	later := e.publish("Later", "published_at", time.Now().Add(time.Hour))
	for _, slug := range []string{draft.Slug, later.Slug, "no-such-post"} {
		expectError(t, e.anon.Do("GET", "/posts/"+slug, nil, "Accept", activitypub.ContentType), 404, "")
	}
}

func TestFederationOutboxPagesThroughPublicPostsNewestFirst(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	base := e.anon.Base
	start := time.Now().Add(-100 * time.Hour)
	for i := range 23 {
		e.publish("Post "+string(rune('A'+i)), "published_at", start.Add(time.Duration(i)*time.Hour))
	}
	e.createPost(map[string]any{"title": "Draft"})
	root := e.activity("/ap/actor/outbox", 200)
	if root["type"] != "OrderedCollection" || root["totalItems"] != float64(23) || root["first"] != base+"/ap/actor/outbox?page=1" {
		t.Fatalf("outbox %v", root)
	}
	p1 := e.activity("/ap/actor/outbox?page=1", 200)
	items, _ := p1["orderedItems"].([]any)
	if p1["type"] != "OrderedCollectionPage" || len(items) != 20 || p1["next"] != base+"/ap/actor/outbox?page=2" ||
		p1["partOf"] != base+"/ap/actor/outbox" || p1["prev"] != nil {
		t.Fatalf("page 1: %d items, %v", len(items), p1["next"])
	}
	first := items[0].(map[string]any)
	obj, _ := first["object"].(map[string]any)
	if first["type"] != "Create" || first["actor"] != base+"/ap/actor" || obj["type"] != "Article" || obj["name"] != "Post W" {
		t.Errorf("newest item %v", first)
	}
	p2 := e.activity("/ap/actor/outbox?page=2", 200)
	if items, _ := p2["orderedItems"].([]any); len(items) != 3 || p2["next"] != nil || p2["prev"] != base+"/ap/actor/outbox?page=1" {
		t.Errorf("page 2: %v", p2)
	}
	expectError(t, e.anon.Do("GET", "/ap/actor/outbox?page=0", nil), 400, "")
}

func TestFederationFollowersShowACountNotNames(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	e.follow("https://a.example/users/ann", "https://a.example/inbox", "accepted")
	e.follow("https://a.example/users/bob", "https://a.example/inbox", "accepted")
	e.follow("https://b.example/users/cy", "https://b.example/inbox", "pending")
	f := e.activity("/ap/actor/followers", 200)
	if f["type"] != "OrderedCollection" || f["totalItems"] != float64(2) {
		t.Errorf("followers %v", f)
	}
	raw, _ := json.Marshal(f)
	siteLacks(t, "followers", string(raw), "ann", "a.example")
	if g := e.activity("/ap/actor/following", 200); g["totalItems"] != float64(0) {
		t.Errorf("following %v", g)
	}
}

func TestFederationAuthorizedFetchOfArticlesAndActivities(t *testing.T) {
	e := newFedEnv(t, fedSetup{on: true})
	srv := e.remote()
	alice := srv.Actor("alice")
	e.follow(alice.ID, alice.SharedInbox, "accepted")
	p := e.publish("Members only")
	create := waitReceived(t, srv, 1)[0].Activity["id"].(string)
	blocked := e.remote()
	carl := blocked.Actor("carl")
	e.block("domain", blocked.Host)
	get := func(path string, signer *fedtest.Actor) int {
		t.Helper()
		r, err := http.NewRequest(http.MethodGet, e.origin+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Accept", activitypub.ContentType)
		if signer != nil {
			if err := (httpsig.Signer{KeyID: signer.KeyID, Key: signer.Key, Now: e.clock.now}).Sign(r, nil); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	paths := []string{"/posts/" + p.Slug, strings.TrimPrefix(create, e.origin), "/ap/actor/outbox?page=1"}
	for _, path := range paths {
		if got := get(path, nil); got != 200 {
			t.Errorf("authorized fetch off: unsigned GET %s: %d", path, got)
		}
	}
	e.federation(map[string]any{"authorized_fetch": true})
	for _, path := range paths {
		for _, c := range []struct {
			name   string
			signer *fedtest.Actor
			status int
		}{
			{"unsigned", nil, 401},
			{"signed by a fediverse actor", alice, 200},
			{"signed by an actor of a blocked domain", carl, 403},
		} {
			if got := get(path, c.signer); got != c.status {
				t.Errorf("GET %s %s: %d, want %d", path, c.name, got, c.status)
			}
		}
	}
	// The actor stays public: servers need its key.
	if got := get("/ap/actor", nil); got != 200 {
		t.Errorf("unsigned GET of the actor: %d", got)
	}
}
