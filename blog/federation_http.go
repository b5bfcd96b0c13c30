package blog

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"folio/blog/activitypub"
	"folio/httpx"
	"folio/sqlstore"
)

// federationRoutes registers what other servers of the fediverse read
// and post (docs/federation.md): discovery (WebFinger, NodeInfo), the
// blog's actor and its collections, its activities, and the inboxes
// (federation_inbox.go). Every one of them answers 404 while
// federation.enabled is off. The home page and the posts' pages answer
// ActivityStreams JSON too (Blog.activityOr, in site_routes.go).
func (b *Blog) federationRoutes(rt *httpx.Router) {
	env := httpx.BlogAPI
	fed := rt.API("federation", env)
	get := func(pattern string, h httpx.HandlerFunc) {
		fed.Handle(pattern, b.fedOnly(env.Handle(h)))
	}
	get("GET /.well-known/webfinger", b.handleWebFinger)
	get("GET /.well-known/nodeinfo", b.handleNodeInfoLinks)
	get("GET /nodeinfo/2.1", b.handleNodeInfo)
	get("GET /ap/actor", b.handleActor)
	get("GET /ap/actor/outbox", b.handleOutbox)
	get("GET /ap/actor/followers", b.handleFollowers)
	get("GET /ap/actor/following", b.handleFollowing)
	get("GET /ap/activities/{id}", b.handleActivity)
	// The administrator's replies as the fediverse reads them
	// (federation_comments_http.go).
	b.federationCommentRoutes(fed, env)
	// An activity is small; the outbound client's bound is the inbound one.
	inboxLimit := httpx.BodyLimit{Max: func(*http.Request) int64 { return fedMaxBytes }}
	fed.HandleBody("POST /ap/actor/inbox", inboxLimit, b.fedOnly(http.HandlerFunc(b.serveInbox)))
	fed.HandleBody("POST /ap/inbox", inboxLimit, b.fedOnly(http.HandlerFunc(b.serveInbox)))

	for _, p := range []string{"/ap", "/.well-known/webfinger", "/.well-known/nodeinfo", "/nodeinfo"} {
		fed.Fallback(p)
		fed.Fallback(p + "/")
	}
}

// fedOnly answers 404 in the API's envelope while federation is off.
func (b *Blog) fedOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !b.fedSettings(r.Context()).Enabled {
			httpx.BlogAPI.Error(w, r, httpx.NotFound())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// activityOr serves as, an ActivityStreams document, to a client whose
// Accept asks for one while federation is on, and page otherwise. While
// federation is on both answers vary by Accept, so that no cache hands
// the JSON to a browser or the page to a server; the JSON never goes
// through the page cache (it is answered before the page's handler).
func (b *Blog) activityOr(as httpx.HandlerFunc, page http.Handler) http.Handler {
	doc := httpx.BlogAPI.Handle(as)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !b.fedSettings(r.Context()).Enabled {
			page.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Accept")
		if activitypub.Wants(r.Header.Get("Accept")) {
			doc.ServeHTTP(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// fedContentType is the Content-Type of every ActivityStreams answer.
const fedContentType = activitypub.ContentType + "; charset=utf-8"

// writeFed writes v as JSON of contentType.
func writeFed(w http.ResponseWriter, status int, contentType string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}

// handleWebFinger is GET /.well-known/webfinger: the blog's account,
// asked for as acct:{username}@{host}, or by the actor's IRI or the home
// page's URL.
func (b *Blog) handleWebFinger(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	resource := strings.TrimSpace(r.URL.Query().Get("resource"))
	if resource == "" {
		return httpx.BadRequest("resource is required")
	}
	ctx := r.Context()
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	username := b.fedSettings(ctx).Username
	host := activitypub.Host(origin)
	actor := actorIRI(origin)
	switch resource {
	case actor, origin, origin + "/":
	default:
		user, h, err := activitypub.ParseAcct(resource)
		if err != nil {
			return httpx.NotFound()
		}
		if !strings.EqualFold(user, username) || !activitypub.SameHost("https://"+h, "https://"+host) {
			return httpx.NotFound()
		}
	}
	return writeFed(w, http.StatusOK, "application/jrd+json; charset=utf-8", activitypub.JRD{
		Subject: "acct:" + username + "@" + host,
		Aliases: []string{actor, origin + "/"},
		Links: []activitypub.Link{
			{Rel: "self", Type: activitypub.ContentType, Href: actor},
			{Rel: "http://webfinger.net/rel/profile-page", Type: "text/html", Href: origin + "/"},
		},
	})
}

// handleNodeInfoLinks is GET /.well-known/nodeinfo.
func (b *Blog) handleNodeInfoLinks(w http.ResponseWriter, r *http.Request) error {
	origin, err := b.fedOrigin(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	return writeFed(w, http.StatusOK, "application/json; charset=utf-8", activitypub.NodeInfoLinks{
		Links: []activitypub.Link{{Rel: activitypub.NodeInfoSchema21, Href: origin + "/nodeinfo/2.1"}},
	})
}

// handleNodeInfo is GET /nodeinfo/2.1: Folio, one user, its posts.
func (b *Blog) handleNodeInfo(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	posts, err := b.visiblePosts(ctx)
	if err != nil {
		return err
	}
	ni := activitypub.NewNodeInfo("folio", nodeInfoVersion(b.version))
	ni.Usage.Users = activitypub.NodeInfoUsers{Total: 1, ActiveMonth: 1, ActiveHalfyear: 1}
	ni.Usage.LocalPosts = posts
	ni.Metadata = map[string]any{"nodeName": b.settings.Site.Get(ctx).SiteName}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	return writeFed(w, http.StatusOK, activitypub.NodeInfoProfile21, ni)
}

// semVer is a semantic version (2.0.0), with its pre-release and build
// parts.
var semVer = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// nodeInfoVersion is the version NodeInfo gives: NodeInfo allows any
// text, but servers that read it strictly (Fedify, and what is built on it)
// refuse one that is not a semantic version, so a build without one ("dev",
// a pseudo-version) says 0.0.0 with what it is as a pre-release.
func nodeInfoVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if semVer.MatchString(v) {
		return v
	}
	pre := strings.Trim(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, v), ".-")
	if v = "0.0.0-" + pre; pre == "" || !semVer.MatchString(v) {
		return "0.0.0-unknown"
	}
	return v
}

// visiblePosts counts the posts the public sees now.
func (b *Blog) visiblePosts(ctx context.Context) (int, error) {
	return b.countPosts(ctx, b.postWhere(postFilter{Public: true}, b.now(), nil))
}

// handleActor is GET /ap/actor, and the home page asked for
// ActivityStreams: the blog as a Person, with its public key. It stays
// public whatever federation.authorized_fetch says: servers need its key
// to check the blog's signatures.
func (b *Blog) handleActor(w http.ResponseWriter, r *http.Request) error {
	a, err := b.actorDocument(r.Context())
	if err != nil {
		return err
	}
	return writeFed(w, http.StatusOK, fedContentType, a)
}

// actorDocument is the blog's actor.
func (b *Blog) actorDocument(ctx context.Context) (*activitypub.Object, error) {
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return nil, err
	}
	key, err := b.federationKey(ctx)
	if err != nil {
		return nil, err
	}
	since, err := b.fedSince(ctx)
	if err != nil {
		return nil, err
	}
	set := b.settings.Get(ctx)
	actor := actorIRI(origin)
	name := set.Site.SiteName
	if name == "" {
		name = set.Federation.Username
	}
	discoverable := true
	a := &activitypub.Object{
		Context:                   []any{activitypub.ActivityStreamsContext, activitypub.SecurityContext},
		ID:                        actor,
		Type:                      "Person",
		PreferredUsername:         set.Federation.Username,
		Name:                      name,
		URL:                       activitypub.Ref{ID: origin + "/"},
		Inbox:                     actorInbox(origin),
		Outbox:                    actorOutbox(origin),
		Followers:                 actorFollowers(origin),
		Following:                 actorFollowing(origin),
		Endpoints:                 &activitypub.Endpoints{SharedInbox: sharedInbox(origin)},
		PublicKey:                 &activitypub.PublicKey{ID: actorKeyID(origin), Owner: actor, PublicKeyPem: key.PublicPEM},
		ManuallyApprovesFollowers: set.Federation.ApproveFollowers,
		Discoverable:              &discoverable,
	}
	if set.Site.Description != "" {
		// An actor's summary is HTML; the site's description is text.
		a.Summary = "<p>" + html.EscapeString(set.Site.Description) + "</p>"
	}
	if !since.IsZero() {
		a.Published = fedTime(since)
	}
	for _, icon := range []string{set.Site.Logo, set.Site.Favicon} {
		if u := absoluteURL(origin, icon); u != "" {
			a.Icon = &activitypub.Image{Type: "Image", URL: u, MediaType: imageMediaType(u)}
			break
		}
	}
	return a, nil
}

// handlePostObject is a post's canonical URL asked for as
// ActivityStreams: its Article; the Article of a post whose slug changed
// since it was sent, under its first id; a Tombstone (410) for a post sent
// and then deleted or unpublished.
func (b *Blog) handlePostObject(w http.ResponseWriter, r *http.Request) error {
	if err := b.verifyFetch(r); err != nil {
		return err
	}
	ctx := r.Context()
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	iri := postIRI(origin, r.PathValue("slug"))
	p, err := b.postBy(ctx, "slug", r.PathValue("slug"), true)
	if errors.Is(err, sqlstore.ErrNotFound) {
		p, err = b.postByObject(ctx, iri)
	}
	if errors.Is(err, sqlstore.ErrNotFound) {
		gone, gerr := b.objectGone(ctx, iri)
		if gerr != nil {
			return gerr
		}
		if gone {
			return writeFed(w, http.StatusGone, fedContentType, &activitypub.Object{
				Context: activitypub.ActivityStreamsContext, ID: iri, Type: "Tombstone"})
		}
		return httpx.NotFound()
	}
	if err != nil {
		return err
	}
	art, err := b.articleWithDates(ctx, origin, p)
	if err != nil {
		return err
	}
	return writeFed(w, http.StatusOK, fedContentType, art)
}

// postByObject is the visible post whose Article was sent as iri.
func (b *Blog) postByObject(ctx context.Context, iri string) (*Post, error) {
	id, err := b.postIDByObject(ctx, iri)
	if err != nil {
		return nil, err
	}
	return b.postBy(ctx, "id", id, true)
}

// handleOutbox is GET /ap/actor/outbox: the collection, and with ?page=N
// its pages of fedOutboxPage Creates of the visible posts, newest first.
func (b *Blog) handleOutbox(w http.ResponseWriter, r *http.Request) error {
	if err := b.verifyFetch(r); err != nil {
		return err
	}
	ctx := r.Context()
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	outbox := actorOutbox(origin)
	raw := r.URL.Query().Get("page")
	if raw == "" {
		total, err := b.visiblePosts(ctx)
		if err != nil {
			return err
		}
		return writeFed(w, http.StatusOK, fedContentType, &activitypub.Object{
			Context: activitypub.ActivityStreamsContext, ID: outbox, Type: "OrderedCollection",
			TotalItems: &total, First: activitypub.Ref{ID: outbox + "?page=1"}})
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 1_000_000 {
		return httpx.BadRequest("page must be a whole number from 1")
	}
	items, total, err := b.listPosts(ctx, postFilter{Public: true}, span{limit: fedOutboxPage, offset: (n - 1) * fedOutboxPage})
	if err != nil {
		return err
	}
	page := &activitypub.Object{
		Context: activitypub.Context(), ID: outbox + "?page=" + strconv.Itoa(n), Type: "OrderedCollectionPage",
		TotalItems: &total, PartOf: activitypub.Ref{ID: outbox}, OrderedItems: activitypub.Refs{},
	}
	if n > 1 {
		page.Prev = activitypub.Ref{ID: outbox + "?page=" + strconv.Itoa(n-1)}
	}
	if n*fedOutboxPage < total {
		page.Next = activitypub.Ref{ID: outbox + "?page=" + strconv.Itoa(n+1)}
	}
	for _, it := range items {
		p, err := b.postBy(ctx, "id", it.ID, true)
		if errors.Is(err, sqlstore.ErrNotFound) {
			continue // unpublished meanwhile
		}
		if err != nil {
			return err
		}
		art, err := b.articleWithDates(ctx, origin, p)
		if err != nil {
			return err
		}
		art.Context = nil
		// A Create in the outbox is named after its Article: the one
		// delivered had an id of its own, and a post published before
		// federation never had one.
		create := wrapActivity(origin, "Create", *p.PublishedAt, &activitypub.Ref{Object: art})
		create.Context = nil
		create.ID = art.ID + "#create"
		page.OrderedItems = append(page.OrderedItems, activitypub.Ref{Object: create})
	}
	return writeFed(w, http.StatusOK, fedContentType, page)
}

// handleFollowers is GET /ap/actor/followers: how many accepted
// followers the blog has, and not who they are. Like servers that hide
// their followers, the blog keeps its readers' names to itself; other
// servers need only the count.
func (b *Blog) handleFollowers(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	n, err := b.acceptedFollowers(ctx)
	if err != nil {
		return err
	}
	return writeFed(w, http.StatusOK, fedContentType, &activitypub.Object{
		Context: activitypub.ActivityStreamsContext, ID: actorFollowers(origin), Type: "OrderedCollection", TotalItems: &n})
}

// handleFollowing is GET /ap/actor/following: the blog follows no one.
func (b *Blog) handleFollowing(w http.ResponseWriter, r *http.Request) error {
	origin, err := b.fedOrigin(r.Context())
	if err != nil {
		return err
	}
	zero := 0
	return writeFed(w, http.StatusOK, fedContentType, &activitypub.Object{
		Context: activitypub.ActivityStreamsContext, ID: actorFollowing(origin), Type: "OrderedCollection",
		TotalItems: &zero, OrderedItems: activitypub.Refs{}})
}

// handleActivity is GET /ap/activities/{id}: an activity the blog sent,
// while it is kept and when it was public; 404 otherwise. Under
// authorized fetch it is answered only to signed requests, as the
// Article it carries is.
func (b *Blog) handleActivity(w http.ResponseWriter, r *http.Request) error {
	if err := b.verifyFetch(r); err != nil {
		return err
	}
	act, err := b.loadActivity(r.Context(), r.PathValue("id"))
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.NotFound()
	}
	if err != nil {
		return err
	}
	o, err := activitypub.Decode(act.Body)
	if err != nil || !slices.Contains(append(o.To.IDs(), o.Cc.IDs()...), activitypub.Public) {
		return httpx.NotFound()
	}
	w.Header().Set("Content-Type", fedContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(act.Body)))
	_, _ = w.Write(act.Body)
	return nil
}
