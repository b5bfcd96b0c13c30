package blog

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"folio/blog/activitypub"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// The federation page's bounds: followers a page, blocks, hosts and posts
// shown (docs/console.md#federation).
const (
	followersPageSize = 50
	fedBlocksShown    = 500
	fedHostsShown     = 100
	fedPostsShown     = 20
)

// federationForm is the switch and settings as typed, and the field a
// refusal names.
type federationForm struct {
	FederationSettings
	Field string
}

// followerView is a follower's row: its handle (or actor IRI) linked to
// its profile when that is an http(s) URL, and its host name, which a
// domain block names.
type followerView struct {
	fedFollower
	Label   string
	Profile string
	Domain  string
}

// blockForm is the block form as typed.
type blockForm struct {
	Kind, Value string
	Field       string
}

type federationView struct {
	Form federationForm
	// Handle (@user@host) and ActorURL are what readers follow; "" when
	// the site's address is not known.
	Handle   string
	ActorURL string
	// Accepted and Pending count the followers.
	Accepted, Pending int
	Followers         []followerView
	Pager             *templates.ConsolePager
	Page              int
	Blocks            []fedBlock
	Block             blockForm
	Hosts             []fedHostHealth
	Posts             []fedPostReactions
}

// handleConsoleFederation is GET /console/blog/federation: the switch,
// the blog's handle, followers, blocks, delivery health and reactions.
func (b consoleHandlers) handleConsoleFederation(w http.ResponseWriter, r *http.Request) error {
	return b.renderFederation(w, r, http.StatusOK, federationForm{FederationSettings: b.fedSettings(r.Context())}, blockForm{Kind: blockDomain}, "")
}

func (b consoleHandlers) renderFederation(w http.ResponseWriter, r *http.Request, status int, form federationForm, block blockForm, problem string) error {
	pg, err := httpx.ParsePaging(r, "size", followersPageSize, 100)
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := federationView{Form: form, Block: block, Page: pg.Page}
	if origin, err := b.fedOrigin(ctx); err == nil {
		d.ActorURL = actorIRI(origin)
		d.Handle = "@" + b.fedSettings(ctx).Username + "@" + activitypub.Host(origin)
	}
	if d.Accepted, d.Pending, err = b.fedFollowerCounts(ctx); err != nil {
		return err
	}
	followers, total, err := b.fedFollowers(ctx, spanOf(pg))
	if err != nil {
		return err
	}
	for _, f := range followers {
		d.Followers = append(d.Followers, newFollowerView(f))
	}
	d.Pager = templates.NewConsolePager("/console/blog/federation", r.URL.Query(), pg.Page, pg.Size, total)
	if d.Blocks, err = b.fedBlocks(ctx, fedBlocksShown); err != nil {
		return err
	}
	if d.Hosts, err = b.fedUnhealthyHosts(ctx, fedHostsShown); err != nil {
		return err
	}
	if d.Posts, err = b.fedRecentPosts(ctx, fedPostsShown); err != nil {
		return err
	}
	ids := make([]string, len(d.Posts))
	for i, p := range d.Posts {
		ids[i] = p.PostID
	}
	counts, err := b.reactionCounts(ctx, ids)
	if err != nil {
		return err
	}
	for i, p := range d.Posts {
		d.Posts[i].Likes, d.Posts[i].Boosts = counts[p.PostID][0], counts[p.PostID][1]
	}
	v := b.console.View(w, r, "Federation", "blog-federation")
	v.Error = problem
	v.Data = d
	b.console.Render(w, r, status, "blog-federation", v)
	return nil
}

func newFollowerView(f fedFollower) followerView {
	v := followerView{fedFollower: f, Label: f.ActorID, Profile: webURL(f.URL), Domain: f.Host}
	if f.Handle != "" {
		v.Label = "@" + f.Handle
	}
	if v.Profile == "" {
		v.Profile = webURL(f.ActorID)
	}
	return v
}

// handleConsoleSaveFederation is POST /console/blog/federation: fields
// federation.enabled, federation.username, federation.approve_followers
// and federation.authorized_fetch (an unticked box is off), stored as PUT
// /api/v1/admin/settings stores the group. Turning federation on records
// the address of the request as the blog's (docs/federation.md#addresses).
func (b consoleHandlers) handleConsoleSaveFederation(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	cur := b.fedSettings(ctx)
	on := func(k string) bool { return r.PostFormValue(k) != "" }
	next := FederationSettings{Enabled: on("federation.enabled"), Username: strings.TrimSpace(r.PostFormValue("federation.username")),
		ApproveFollowers: on("federation.approve_followers"), AuthorizedFetch: on("federation.authorized_fetch")}
	err := b.settings.Federation.Put(ctx, next)
	if f, ok := refusal(err); ok {
		return b.renderFederation(w, r, f.Status, federationForm{FederationSettings: next, Field: f.Field}, blockForm{Kind: blockDomain}, f.Msg)
	}
	if err != nil {
		return err
	}
	msg := "Federation settings saved."
	if next.Enabled && !cur.Enabled {
		b.noteFedOriginLogged(ctx)
		msg = "Federation is on: the blog can be followed."
	} else if !next.Enabled && cur.Enabled {
		msg = "Federation is off: nothing is sent or answered."
	}
	b.console.Redirect(w, r, "/console/blog/federation", msg)
	return nil
}

// noteFedOriginLogged records the request's origin for background work;
// a failure is logged, not the request's: the settings are saved, and the
// origin is recorded again the next time federation is turned on.
func (b *Blog) noteFedOriginLogged(ctx context.Context) {
	if err := b.noteFedOrigin(ctx); err != nil {
		b.logger.Error("blog: federation turned on: record the origin", "err", err)
	}
}

// followerAction is what the followers form does to one follower.
var followerActions = map[string]bool{"approve": true, "reject": true, "remove": true, "block-actor": true, "block-domain": true}

// handleConsoleFollower is POST /console/blog/federation/followers:
// fields actor (the follower's actor IRI), action (approve, reject,
// remove, block-actor, block-domain) and page (the list's page to go back
// to). Approving sends Accept{Follow}; rejecting, removing and blocking
// send Reject{Follow}, which is what servers take as "removed from the
// followers" (docs/federation.md#moderation).
func (b consoleHandlers) handleConsoleFollower(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	back := "/console/blog/federation"
	if page, err := strconv.Atoi(r.PostFormValue("page")); err == nil && page > 1 {
		back += "?page=" + strconv.Itoa(page)
	}
	action := r.PostFormValue("action")
	if !followerActions[action] {
		return httpx.E(http.StatusUnprocessableEntity, "action must be approve, reject, remove, block-actor or block-domain")
	}
	refuse := func(status int, msg string) error {
		return b.renderFederation(w, r, status, federationForm{FederationSettings: b.fedSettings(ctx)}, blockForm{Kind: blockDomain}, msg)
	}
	f, err := b.fedFollowerByActor(ctx, r.PostFormValue("actor"))
	if errors.Is(err, sqlstore.ErrNotFound) {
		return refuse(http.StatusNotFound, "That account does not follow the blog (any more).")
	}
	if err != nil {
		return err
	}
	label := newFollowerView(f).Label
	var msg string
	switch action {
	case "approve":
		if err = b.acceptFollower(ctx, f.ActorID); errors.Is(err, sqlstore.ErrNotFound) {
			return refuse(http.StatusConflict, label+" is not waiting for approval.")
		}
		if err != nil {
			return err
		}
		b.answerFollow(ctx, "Accept", f)
		msg = "Approved " + label + "."
	case "reject", "remove":
		if err = b.unfollow(ctx, f.ActorID); err != nil {
			return err
		}
		b.answerFollow(ctx, "Reject", f)
		msg = "Removed " + label + " from the followers."
		if action == "reject" {
			msg = "Rejected " + label + "."
		}
	case "block-actor", "block-domain":
		kind, value := blockActor, f.ActorID
		if action == "block-domain" {
			kind, value = blockDomain, f.Host
		}
		if value, err = checkBlock(kind, value); err != nil {
			return refuse(http.StatusUnprocessableEntity, "Not blocked: "+err.Error()+".")
		}
		msg, err = b.block(ctx, kind, value)
		if err != nil {
			return err
		}
	}
	b.console.Redirect(w, r, back, msg)
	return nil
}

// block blocks an actor or a domain, rejects the followers it covers, and
// says what was done.
func (b consoleHandlers) block(ctx context.Context, kind, value string) (string, error) {
	gone, err := b.addBlock(ctx, kind, value)
	if err != nil {
		return "", err
	}
	for _, f := range gone {
		b.answerFollow(ctx, "Reject", f)
	}
	what := value
	if kind == blockDomain {
		what = "the domain " + value
	}
	msg := "Blocked " + what + "."
	if len(gone) > 0 {
		msg = "Blocked " + what + " and removed " + countOf(len(gone), "follower") + "."
	}
	return msg, nil
}

// domainPattern is a host name a domain block may name: letters, digits,
// hyphens and dots, as DNS names are, and a port when it names one.
var domainPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$`)

// checkBlock checks and normalises a block: an actor is an absolute http(s)
// IRI; a domain a host name (of a URL or a handle, @user@host, the host
// is taken), lowercased. A domain with a port blocks that server alone;
// without, the host at any port and its subdomains.
func checkBlock(kind, value string) (string, error) {
	value = strings.TrimSpace(value)
	switch kind {
	case blockActor:
		if webURL(value) == "" || len(value) > 2048 {
			return "", errors.New("an actor is its address, an http or https URL")
		}
		return value, nil
	case blockDomain:
		v := strings.ToLower(value)
		if u, err := url.Parse(v); err == nil && u.Host != "" {
			v = u.Host
		}
		if i := strings.LastIndexByte(v, '@'); i >= 0 {
			v = v[i+1:]
		}
		if len(v) > 253 || !domainPattern.MatchString(v) {
			return "", errors.New("a domain is a host name such as social.example")
		}
		return v, nil
	}
	return "", errors.New("kind must be actor or domain")
}

// handleConsoleAddBlock is POST /console/blog/federation/blocks: fields
// kind (actor or domain) and value. Blocking removes the followers the
// block covers and sends each a Reject.
func (b consoleHandlers) handleConsoleAddBlock(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	form := blockForm{Kind: r.PostFormValue("kind"), Value: r.PostFormValue("value")}
	value, err := checkBlock(form.Kind, form.Value)
	if err != nil {
		form.Field = "value"
		if form.Kind != blockActor && form.Kind != blockDomain {
			form.Kind, form.Field = blockDomain, "kind"
		}
		return b.renderFederation(w, r, http.StatusUnprocessableEntity, federationForm{FederationSettings: b.fedSettings(ctx)}, form,
			"Not blocked: "+err.Error()+".")
	}
	msg, err := b.block(ctx, form.Kind, value)
	if err != nil {
		return err
	}
	b.console.Redirect(w, r, "/console/blog/federation#blocks", msg)
	return nil
}

// handleConsoleRemoveBlock is POST /console/blog/federation/blocks/delete:
// fields kind and value of the block to lift.
func (b consoleHandlers) handleConsoleRemoveBlock(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	kind, value := r.PostFormValue("kind"), r.PostFormValue("value")
	if err := b.removeBlock(ctx, kind, value); errors.Is(err, sqlstore.ErrNotFound) {
		return b.renderFederation(w, r, http.StatusNotFound, federationForm{FederationSettings: b.fedSettings(ctx)}, blockForm{Kind: blockDomain},
			"There is no such block.")
	} else if err != nil {
		return err
	}
	b.console.Redirect(w, r, "/console/blog/federation#blocks", "Unblocked "+value+".")
	return nil
}

// answerFollow sends Accept or Reject of f's Follow to f's inbox. The
// Follow is rebuilt from what was kept of it, which is what the receiving
// server matches. Nothing is sent while federation is off; a failure to
// queue is logged: the console's change stands.
func (b *Blog) answerFollow(ctx context.Context, kind string, f fedFollower) {
	if !b.fedSettings(ctx).Enabled || f.Inbox == "" {
		return
	}
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		b.logger.Error("blog: federation: answer a follow", "kind", kind, "actor", f.ActorID, "err", err)
		return
	}
	act := followAnswer(kind, origin, f.FollowID, f.ActorID)
	if err := b.deliver(ctx, act, []string{f.Inbox}); err != nil {
		b.logger.Error("blog: federation: answer a follow", "kind", kind, "actor", f.ActorID, "err", err)
	}
}

// activityIRI is a new outgoing activity's id (docs/federation.md#delivery).
func activityIRI(origin string) string { return origin + "/ap/activities/" + sqlstore.NewID() }
