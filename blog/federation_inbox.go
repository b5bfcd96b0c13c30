package blog

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"folio/blog/activitypub"
	"folio/blog/htmltomd"
	"folio/blog/httpsig"
	"folio/httpx"
	"folio/sqlstore"
)

// Bounds of the inbox (docs/federation.md#the-inbox).
const (
	// inboxMaxBody: a Create of a long Note with its tags and @context
	// takes a few KiB; a quarter MiB is far beyond any real activity.
	inboxMaxBody = 256 << 10
	// inboxPerMinute is each remote host's allowance (the host of the
	// signature's keyId): a busy server delivering every reaction of its
	// users stays well below it.
	inboxPerMinute = 300
	// inboxSeenFor is how long an activity's id is remembered: servers
	// retry a failed delivery for about that long at most.
	inboxSeenFor = 48 * time.Hour
	// The bounds of any comment (commentInput.validate): a fediverse reply
	// is cut to them rather than refused.
	maxCommentAuthor  = 50
	maxCommentContent = 5000
)

// The states of a follower (ap_followers.status).
const (
	followAccepted = "accepted"
	followPending  = "pending"
)

// The kinds of reaction (ap_reactions.kind).
const (
	reactionLike     = "like"
	reactionAnnounce = "announce"
)

// noteTypes are the objects whose replies become comments: Mastodon and
// its peers send Notes, some servers Articles or Pages.
var noteTypes = map[string]bool{"Note": true, "Article": true, "Page": true}

// inboxActivity is one activity the inbox took, from a verified actor.
type inboxActivity struct {
	r      *http.Request
	origin string
	actor  *remoteActor
	act    *activitypub.Object
}

// inboxActivities is what the inbox does with each type of activity
// (docs/federation.md#the-inbox); a type not listed is accepted and
// ignored (Accept, Reject, Add, Remove, Move, Flag and any other).
var inboxActivities = map[string]func(b *Blog, ctx context.Context, in *inboxActivity) error{
	"Follow":   (*Blog).inboxFollow,
	"Undo":     (*Blog).inboxUndo,
	"Create":   (*Blog).inboxCreate,
	"Update":   (*Blog).inboxUpdate,
	"Delete":   (*Blog).inboxDelete,
	"Like":     (*Blog).inboxLike,
	"Announce": (*Blog).inboxAnnounce,
}

// serveInbox is the blog's inbox and shared inbox (POST /ap/actor/inbox,
// POST /ap/inbox): 202 Accepted with no body for an activity taken (or
// knowingly ignored), else the status of its refusal in plain text.
func (b *Blog) serveInbox(w http.ResponseWriter, r *http.Request) {
	err := b.handleInbox(w, r)
	if err == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	he := httpx.AsError(err)
	if he.Status >= 500 {
		b.logger.Error("federation inbox failed", "err", err, "ip", httpx.ClientIP(r))
	} else {
		b.logger.Debug("federation inbox refused", "status", he.Status, "err", err, "ip", httpx.ClientIP(r))
	}
	http.Error(w, he.Msg, he.Status)
}

// handleInbox checks an inbox POST in the order of
// docs/federation.md#the-inbox, cheapest refusals first, and does what
// the activity says. nil means 202.
func (b *Blog) handleInbox(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if !b.fedSettings(ctx).Enabled {
		return httpx.NotFound()
	}
	if !activitypub.IsActivityContentType(r.Header.Get("Content-Type")) {
		return httpx.E(http.StatusUnsupportedMediaType, "an activity must be sent as application/activity+json")
	}
	if err := httpx.LimitBody(w, r, inboxMaxBody); err != nil {
		return err
	}
	sig, err := httpsig.Parse(r.Header)
	if err != nil {
		return unauthorized("no readable signature", err)
	}
	host := activitypub.Host(sig.KeyID)
	if host == "" {
		return unauthorized("the signature's key id is not an http(s) URL", nil)
	}
	if ok, wait := b.inboxLimit.Allow(host); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		return httpx.E(http.StatusTooManyRequests, "too many activities from "+host+", slow down")
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return httpx.TooLarge(inboxMaxBody)
		}
		return httpx.BadRequest("the body could not be read")
	}
	actor, err := b.verifySigned(r, sig, body)
	if err != nil {
		if errors.Is(err, errRemote) && b.goneActorDelete(ctx, sig.KeyID, body) {
			return nil
		}
		return err
	}
	act, err := activitypub.Decode(body)
	if err != nil {
		return httpx.BadRequest("the body is not an activity")
	}
	if act.Actor.ID != actor.ID {
		// Nobody relays another's activity here: the signer is its actor
		// (a reply forwarded by a third server is refused).
		return unauthorized("the activity's actor is not the signer", nil)
	}
	if act.ID == "" || !activitypub.SameHost(act.ID, actor.ID) {
		return httpx.BadRequest("the activity's id must be on its actor's server")
	}
	handle, known := inboxActivities[act.Type]
	if !known {
		b.logger.Debug("federation activity ignored", "type", act.Type, "actor", actor.ID)
		return nil
	}
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	fresh, err := b.claimActivity(ctx, act.ID)
	if err != nil || !fresh {
		return err // a replay (or a second delivery) does nothing
	}
	if err := handle(b, ctx, &inboxActivity{r: r, origin: origin, actor: actor, act: act}); err != nil {
		// Forgotten, so that the sender's retry is taken.
		if uerr := b.unclaimActivity(context.WithoutCancel(ctx), act.ID); uerr != nil {
			b.logger.Error("federation inbox: forget activity", "id", act.ID, "err", uerr)
		}
		return err
	}
	return nil
}

// goneActorDelete reports whether body is an actor's Delete of itself
// whose key cannot be fetched (the actor is gone) and that the blog holds
// nothing of: such a Delete, which servers send widely, is taken and
// changes nothing. One the blog holds something of verifies with the
// stored key.
func (b *Blog) goneActorDelete(ctx context.Context, keyID string, body []byte) bool {
	act, err := activitypub.Decode(body)
	if err != nil || act.Type != "Delete" || act.Actor.ID == "" || act.Object.ID != act.Actor.ID || act.Actor.ID != keyOwnerGuess(keyID) {
		return false
	}
	_, _, err = b.loadRemoteActor(ctx, "id", act.Actor.ID)
	return errors.Is(err, sqlstore.ErrNotFound)
}

// inboxFollow takes a Follow of the blog: the follower is stored,
// accepted at once (an Accept is delivered) or pending the
// administrator's approval (federation.approve_followers). A Follow of
// anything else is ignored.
func (b *Blog) inboxFollow(ctx context.Context, in *inboxActivity) error {
	if in.act.Object.ID != actorIRI(in.origin) {
		return nil
	}
	status := followAccepted
	if b.fedSettings(ctx).ApproveFollowers {
		status = followPending
	}
	got, err := b.storeFollower(ctx, in.actor, in.act.ID, status)
	if err != nil || got != followAccepted {
		return err
	}
	if err := b.deliver(ctx, followAnswer("Accept", in.origin, in.act.ID, in.actor.ID), []string{in.actor.Inbox}); err != nil {
		b.logger.Warn("federation: queue the Accept of a Follow", "actor", in.actor.ID, "err", err)
	}
	return nil
}

// followAnswer is the blog's Accept or Reject (kind) of the Follow
// followID by follower: the console's approval sends them too.
func followAnswer(kind, origin, followID, follower string) *activitypub.Object {
	return &activitypub.Object{
		Context: activitypub.ActivityStreamsContext,
		ID:      origin + "/ap/activities/" + sqlstore.NewID(),
		Type:    kind,
		Actor:   activitypub.Ref{ID: actorIRI(origin)},
		Object: activitypub.Ref{ID: followID, Object: &activitypub.Object{
			ID: followID, Type: "Follow", Actor: activitypub.Ref{ID: follower}, Object: activitypub.Ref{ID: actorIRI(origin)},
		}},
		To: activitypub.Refs{{ID: follower}},
	}
}

// inboxUndo takes back the actor's own Follow, Like or Announce. The
// undone activity may be embedded (its type says what it was) or only
// named by its id.
func (b *Blog) inboxUndo(ctx context.Context, in *inboxActivity) error {
	inner := in.act.Object
	innerType := ""
	if inner.Object != nil {
		innerType = inner.Object.Type
		if a := inner.Object.Actor.ID; a != "" && a != in.actor.ID {
			return nil // not the actor's to undo
		}
	}
	switch innerType {
	case "Follow":
		return b.removeFollower(ctx, in.actor.ID)
	case "Like", "Announce":
		kind := reactionLike
		if innerType == "Announce" {
			kind = reactionAnnounce
		}
		n, err := b.removeReaction(ctx, in.actor.ID, inner.ID)
		if err != nil || n > 0 {
			return err
		}
		// An id the blog never saw: the reaction is found by what it was on.
		p, err := b.objectPost(ctx, in.origin, inner.Object.Object.IRI())
		if errors.Is(err, sqlstore.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return b.removeReactionOn(ctx, p.ID, kind, in.actor.ID)
	case "":
		return b.undoByID(ctx, in.actor.ID, inner.ID)
	}
	return nil
}

// inboxCreate takes a reply: a Note (or Article, Page) answering one of
// the blog's visible posts, or a comment on one, becomes a pending comment
// on that post (docs/federation.md#replies). Anything else is ignored: a
// Note that answers something else, a post whose comments are closed.
func (b *Blog) inboxCreate(ctx context.Context, in *inboxActivity) error {
	note := in.act.Object.Object
	if note == nil || !noteTypes[note.Type] {
		return nil // an object named only by its id is not fetched
	}
	if err := checkNote(note, in.actor); err != nil {
		return err
	}
	p, replyTo, err := b.replyTarget(ctx, in.origin, note.InReplyTo.IRI())
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !p.ShowComments || !b.settings.Get(ctx).Post.EnableComment {
		return nil
	}
	content := noteText(note)
	if content == "" {
		return nil
	}
	ua := in.r.UserAgent()
	if len(ua) > 512 {
		ua = strings.ToValidUTF8(ua[:512], "")
	}
	return b.insertRemoteComment(ctx, remoteComment{
		PostID: p.ID, ReplyTo: replyTo, APID: note.ID, Actor: in.actor.ID,
		Author: commentAuthor(in.actor), Handle: in.actor.Handle, URL: in.actor.URL,
		Content: content, IP: httpx.ClientIP(in.r), UserAgent: ua,
	})
}

// checkNote refuses a Note that is not the actor's: its id on another
// server, or attributed to someone else.
func checkNote(note *activitypub.Object, a *remoteActor) error {
	if !activitypub.SameHost(note.ID, a.ID) {
		return httpx.BadRequest("the note's id must be on its actor's server")
	}
	if at := note.AttributedTo.IRI(); at != "" && at != a.ID {
		return httpx.BadRequest("the note is attributed to another actor")
	}
	return nil
}

// commentAuthor is the name a fediverse reply's comment is by: the
// actor's display name, else its username, within the bound of any
// comment's author.
func commentAuthor(a *remoteActor) string {
	name := strings.TrimSpace(a.Name)
	if name == "" {
		name, _, _ = strings.Cut(a.Handle, "@")
	}
	return strings.TrimSpace(clipRunes(name, maxCommentAuthor))
}

// noteText is a Note's content as a comment's plain text (comments are
// text, escaped where shown): markup removed, scripts and styles with
// their content, paragraphs and line breaks kept as newlines, links as
// their text, entities decoded; the addresses of its attachments after
// it; cut with an ellipsis to the bound of any comment.
func noteText(note *activitypub.Object) string {
	var parts []string
	if t := htmltomd.Text(note.Text()); t != "" {
		parts = append(parts, t)
	}
	for _, at := range note.Attachment {
		u := at.ID
		if at.Object != nil {
			u = at.Object.URL.IRI()
		}
		if httpURL(u) {
			parts = append(parts, u)
		}
	}
	text := strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(strings.Join(parts, "\n\n"), "\uFFFD"), "\x00", ""))
	if utf8.RuneCountInString(text) > maxCommentContent {
		text = strings.TrimSpace(string([]rune(text)[:maxCommentContent-1])) + "…"
	}
	return text
}

// replyTarget finds what a reply answers: one of the blog's publicly
// visible posts by its canonical URL (a slug it gave up too) or by the IRI
// it was federated as, else a comment on such a post by its ap_id (then
// replyTo is that comment's id). sqlstore.ErrNotFound when it is none of
// these.
func (b *Blog) replyTarget(ctx context.Context, origin, iri string) (p *Post, replyTo string, err error) {
	if iri == "" {
		return nil, "", sqlstore.ErrNotFound
	}
	p, err = b.objectPost(ctx, origin, iri)
	if !errors.Is(err, sqlstore.ErrNotFound) {
		return p, "", err
	}
	id, postID, err := b.commentByAPID(ctx, iri)
	if err != nil {
		return nil, "", err
	}
	p, err = b.postBy(ctx, "id", postID, true)
	return p, id, err
}

// objectPost finds the publicly visible post an IRI names: its canonical
// URL under origin (or a slug it gave up), or the IRI it was federated
// as; sqlstore.ErrNotFound when none.
func (b *Blog) objectPost(ctx context.Context, origin, iri string) (*Post, error) {
	if rest, ok := strings.CutPrefix(iri, postIRI(origin, "")); ok {
		slug, err := url.PathUnescape(strings.TrimSuffix(rest, "/"))
		if err != nil || slug == "" || strings.ContainsAny(slug, "/?#") {
			return nil, sqlstore.ErrNotFound
		}
		p, err := b.postBy(ctx, "slug", slug, true)
		if !errors.Is(err, sqlstore.ErrNotFound) {
			return p, err
		}
		id, err := b.redirectTarget(ctx, kindPost, slug)
		if err != nil {
			return nil, err
		}
		return b.postBy(ctx, "id", id, true)
	}
	id, err := b.postByObject(ctx, iri)
	if err != nil {
		return nil, err
	}
	return b.postBy(ctx, "id", id, true)
}

// inboxUpdate takes an edit of the actor's reply (its comment's text is
// replaced; an approved one goes back to pending, so that the site only
// ever shows text the administrator approved) or of the actor itself
// (fetched again).
func (b *Blog) inboxUpdate(ctx context.Context, in *inboxActivity) error {
	obj := in.act.Object.Object
	switch {
	case obj == nil:
		return nil
	case actorTypes[obj.Type]:
		if obj.ID == in.actor.ID {
			if _, err := b.remoteActor(ctx, in.actor.ID, true); err != nil {
				b.logger.Debug("federation: refresh an updated actor", "actor", in.actor.ID, "err", err)
			}
		}
		return nil
	case !noteTypes[obj.Type]:
		return nil
	}
	if err := checkNote(obj, in.actor); err != nil {
		return err
	}
	content := noteText(obj)
	if content == "" {
		return nil
	}
	return b.updateRemoteComment(ctx, obj.ID, in.actor.ID, content)
}

// inboxDelete takes the deletion of the actor's reply (its comment goes)
// or of the actor itself (it stops being a follower, its likes and boosts
// and its replies still pending go; approved ones stay, as the site has
// shown them).
func (b *Blog) inboxDelete(ctx context.Context, in *inboxActivity) error {
	id := in.act.Object.ID
	if id == "" {
		return nil
	}
	if id == in.actor.ID {
		return b.forgetActor(ctx, in.actor.ID)
	}
	return b.deleteRemoteComment(ctx, id, in.actor.ID)
}

func (b *Blog) inboxLike(ctx context.Context, in *inboxActivity) error {
	return b.inboxReact(ctx, in, reactionLike)
}

func (b *Blog) inboxAnnounce(ctx context.Context, in *inboxActivity) error {
	return b.inboxReact(ctx, in, reactionAnnounce)
}

// inboxReact counts a Like or Announce (kind) of one of the blog's
// visible posts; one of anything else is ignored.
func (b *Blog) inboxReact(ctx context.Context, in *inboxActivity, kind string) error {
	p, err := b.objectPost(ctx, in.origin, in.act.Object.IRI())
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return b.addReaction(ctx, p.ID, kind, in.actor.ID, in.act.ID)
}
