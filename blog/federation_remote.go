package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
	"folio/httpx"
	"folio/sqlstore"
)

// Bounds of what the blog believes of other servers
// (docs/federation.md#what-is-verified).
const (
	// actorTTL: a stored actor is fetched again after a day, so that a
	// changed name, inbox or key is seen without a fetch per activity.
	actorTTL = 24 * time.Hour
	// fedClockSkew: a signed request dated further from the blog's clock,
	// either way, is refused: it may be a replay.
	fedClockSkew = 12 * time.Hour
)

// actorTypes are the ActivityStreams types of an actor the blog talks to.
var actorTypes = map[string]bool{"Person": true, "Service": true, "Application": true, "Group": true, "Organization": true}

// errRemote is what a remote document failed: the fetch, or one of the
// checks a document must pass. Its message names the rule broken, for the
// log; the client is told less.
var errRemote = errors.New("blog: remote document refused")

func remoteErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errRemote}, args...)...)
}

// remoteActor returns the actor id names, from ap_actors when fetched less
// than actorTTL ago, else fetched with a signed GET (servers with
// authorized fetch want one) and stored; refresh fetches it whatever is
// stored.
func (b *Blog) remoteActor(ctx context.Context, id string, refresh bool) (*remoteActor, error) {
	if activitypub.Host(id) == "" || strings.Contains(id, "#") {
		return nil, remoteErr("%.200q is not an actor's address", id)
	}
	var stale *remoteActor
	if !refresh {
		a, fetched, err := b.loadRemoteActor(ctx, "id", id)
		if err == nil && b.now().Sub(fetched) < actorTTL {
			return a, nil
		}
		if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
			return nil, err
		}
		stale = a
	}
	doc, _, err := b.fetchDocument(ctx, id)
	if err != nil {
		if stale != nil {
			// Its server is unreachable for now: what was true yesterday
			// serves until it answers again.
			return stale, nil
		}
		return nil, err
	}
	a, err := actorOf(doc, id)
	if err != nil {
		return nil, err
	}
	if err := b.saveRemoteActor(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// actorByKey returns the actor whose key keyID names: stored, or fetched.
// The keyId is usually the actor's IRI and a fragment (actor#main-key),
// sometimes a document of its own that names its owner (actor/main-key);
// either way the owner's document is the authority, and its publicKey.id
// must be keyID.
func (b *Blog) actorByKey(ctx context.Context, keyID string, refresh bool) (*remoteActor, error) {
	var stale *remoteActor
	if !refresh {
		a, fetched, err := b.loadRemoteActor(ctx, "key_id", keyID)
		if err == nil && b.now().Sub(fetched) < actorTTL {
			return a, nil
		}
		if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
			return nil, err
		}
		stale = a
	}
	keyURL, _, _ := strings.Cut(keyID, "#")
	if activitypub.Host(keyURL) == "" {
		return nil, remoteErr("the key id %.200q is not an http(s) URL", keyID)
	}
	doc, raw, err := b.fetchDocument(ctx, keyURL)
	if err != nil {
		if stale != nil {
			return stale, nil // as remoteActor: the stored key serves meanwhile
		}
		return nil, err
	}
	var a *remoteActor
	switch {
	case actorTypes[doc.Type] && doc.ID == keyURL:
		// The key lives in the actor's own document: one fetch.
		if a, err = actorOf(doc, keyURL); err != nil {
			return nil, err
		}
		if err := b.saveRemoteActor(ctx, a); err != nil {
			return nil, err
		}
	default:
		owner := doc.ID
		if !actorTypes[doc.Type] {
			// A key document: {id, owner, publicKeyPem}.
			var k activitypub.PublicKey
			if err := json.Unmarshal(raw, &k); err != nil || k.ID != keyID || k.Owner == "" {
				return nil, remoteErr("%.200q is neither an actor nor the key %.200q", keyURL, keyID)
			}
			owner = k.Owner
		}
		if !activitypub.SameHost(owner, keyID) {
			return nil, remoteErr("the key %.200q names an owner on another host, %.200q", keyID, owner)
		}
		if a, err = b.remoteActor(ctx, owner, true); err != nil {
			return nil, err
		}
	}
	if a.KeyID != keyID {
		return nil, remoteErr("the actor %.200q has the key %.200q, not %.200q", a.ID, a.KeyID, keyID)
	}
	return a, nil
}

// fetchDocument GETs an ActivityStreams document, signed, and decodes it.
// Its id must be iri, the address asked for, whatever redirects were
// followed: a server answers for its own documents only.
func (b *Blog) fetchDocument(ctx context.Context, iri string) (*activitypub.Object, []byte, error) {
	resp, err := b.fedRequest(ctx, http.MethodGet, iri, nil)
	if err != nil {
		return nil, nil, remoteErr("fetch %.200q: %v", iri, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, remoteErr("fetch %.200q: status %d", iri, resp.StatusCode)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !activitypub.IsActivityContentType(mt) && mt != "application/json" {
		return nil, nil, remoteErr("fetch %.200q: content type %.80q is not ActivityStreams", iri, mt)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, remoteErr("fetch %.200q: %v", iri, err)
	}
	doc, err := activitypub.Decode(raw)
	if err != nil {
		return nil, nil, remoteErr("fetch %.200q: %v", iri, err)
	}
	if doc.ID != iri {
		return nil, nil, remoteErr("the document at %.200q says it is %.200q", iri, doc.ID)
	}
	return doc, raw, nil
}

// maxActorField bounds the texts of an actor the blog keeps.
const maxActorField = 2048

// actorOf checks an actor's document fetched from id and returns what the
// blog keeps of it.
func actorOf(doc *activitypub.Object, id string) (*remoteActor, error) {
	switch {
	case doc.ID != id:
		return nil, remoteErr("the actor at %.200q says it is %.200q", id, doc.ID)
	case !actorTypes[doc.Type]:
		return nil, remoteErr("%.200q is a %.40q, not an actor", id, doc.Type)
	case !httpURL(doc.Inbox):
		return nil, remoteErr("the actor %.200q has no http(s) inbox", id)
	case doc.PublicKey == nil || doc.PublicKey.PublicKeyPem == "":
		return nil, remoteErr("the actor %.200q has no public key", id)
	case doc.PublicKey.Owner != id:
		return nil, remoteErr("the key of %.200q is owned by %.200q", id, doc.PublicKey.Owner)
	case !activitypub.SameHost(doc.PublicKey.ID, id):
		return nil, remoteErr("the key %.200q of %.200q is on another host", doc.PublicKey.ID, id)
	}
	if _, err := httpsig.ParsePublicKey(doc.PublicKey.PublicKeyPem); err != nil {
		return nil, remoteErr("the key of %.200q: %v", id, err)
	}
	a := &remoteActor{
		ID:        id,
		KeyID:     doc.PublicKey.ID,
		PublicPEM: doc.PublicKey.PublicKeyPem,
		Inbox:     doc.Inbox,
		Host:      activitypub.Host(id),
		Name:      clipRunes(strings.TrimSpace(doc.Name), 200),
		URL:       id,
	}
	if doc.Endpoints != nil && httpURL(doc.Endpoints.SharedInbox) {
		a.SharedInbox = doc.Endpoints.SharedInbox
	}
	if u := doc.URL.IRI(); httpURL(u) {
		a.URL = u
	}
	if doc.Icon != nil && httpURL(doc.Icon.URL) {
		a.Icon = doc.Icon.URL
	}
	user := strings.TrimSpace(doc.PreferredUsername)
	if user == "" {
		// No username: the last segment of the actor's path stands in.
		p, _ := url.Parse(id)
		user = p.Path[strings.LastIndexByte(p.Path, '/')+1:]
	}
	a.Handle = clipRunes(user, 200) + "@" + a.Host
	for _, s := range []string{a.KeyID, a.Inbox, a.SharedInbox, a.URL, a.Icon} {
		if len(s) > maxActorField {
			return nil, remoteErr("the actor %.200q has an address longer than %d bytes", id, maxActorField)
		}
	}
	return a, nil
}

// httpURL reports whether s is an absolute http(s) URL.
func httpURL(s string) bool {
	return activitypub.Host(s) != ""
}

// clipRunes cuts s to at most n runes, valid UTF-8 without NUL.
func clipRunes(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// signedGetHeaders are what a signed GET must cover; an inbox POST also
// covers its digest.
var (
	signedGetHeaders  = []string{"(request-target)", "host", "date"}
	signedPostHeaders = []string{"(request-target)", "host", "date", "digest"}
)

// verifyFetch lets a GET of an ActivityStreams document through, or says
// why not (an *httpx.Error: 401 unsigned or mis-signed, 403 blocked) when
// federation.authorized_fetch is on.
func (b *Blog) verifyFetch(r *http.Request) error {
	if !b.fedSettings(r.Context()).AuthorizedFetch {
		return nil
	}
	sig, err := httpsig.Parse(r.Header)
	if err != nil {
		return unauthorized("no readable signature", err)
	}
	_, err = b.verifySigned(r, sig, nil)
	return err
}

// verifySigned checks a request's signature sig, as httpsig.Parse read it
// (docs/federation.md#what-is-verified): dated within fedClockSkew, covering signedGetHeaders (and the
// digest of body when body is not nil, which must match), by a key whose
// actor and domain are not blocked, valid with the stored key or, failing
// that, with the key fetched again (its owner may have rotated it). It
// returns the signing actor, or an *httpx.Error.
func (b *Blog) verifySigned(r *http.Request, sig *httpsig.Signature, body []byte) (*remoteActor, error) {
	ctx := r.Context()
	if err := b.refuseBlocked(ctx, keyOwnerGuess(sig.KeyID), activitypub.Host(sig.KeyID)); err != nil {
		return nil, err
	}
	if err := httpsig.CheckDate(r.Header, b.now(), fedClockSkew); err != nil {
		return nil, unauthorized("the request's date is missing or too far from now", err)
	}
	required := signedGetHeaders
	if body != nil {
		if err := httpsig.CheckDigest(r.Header, body); err != nil {
			return nil, unauthorized("the digest is missing or does not match the body", err)
		}
		required = signedPostHeaders
	}
	a, err := b.actorByKey(ctx, sig.KeyID, false)
	if err != nil {
		return nil, unauthorized("the signing key could not be read", err)
	}
	err = verifyWith(r, sig, a, required)
	if errors.Is(err, httpsig.ErrBadSignature) {
		// The stored key may be one its owner has since replaced.
		if a, err = b.actorByKey(ctx, sig.KeyID, true); err != nil {
			return nil, unauthorized("the signing key could not be read", err)
		}
		err = verifyWith(r, sig, a, required)
	}
	if err != nil {
		return nil, unauthorized("the signature does not verify", err)
	}
	if err := b.refuseBlocked(ctx, a.ID, a.Host); err != nil {
		return nil, err
	}
	return a, nil
}

// verifyWith checks sig over r with the actor's key.
func verifyWith(r *http.Request, sig *httpsig.Signature, a *remoteActor, required []string) error {
	pub, err := httpsig.ParsePublicKey(a.PublicPEM)
	if err != nil {
		return err
	}
	return sig.Verify(r, pub, required)
}

// keyOwnerGuess is the actor a key id most likely belongs to, before
// anything is fetched: the key id without its fragment.
func keyOwnerGuess(keyID string) string {
	id, _, _ := strings.Cut(keyID, "#")
	return id
}

// unauthorized is the 401 of a request whose signature does not hold; the
// cause is logged, not told.
func unauthorized(msg string, cause error) *httpx.Error {
	return &httpx.Error{Status: http.StatusUnauthorized, Msg: msg, Err: cause}
}

// refuseBlocked is the 403 of an actor or domain the administrator
// blocked (docs/federation.md#blocks), nil otherwise.
func (b *Blog) refuseBlocked(ctx context.Context, actorID, host string) error {
	blocked, err := b.isBlocked(ctx, actorID, host)
	if err != nil {
		return httpx.Internal(err)
	}
	if blocked {
		return httpx.Forbidden("blocked")
	}
	return nil
}

// blockedDomains are the ap_blocks values of kind 'domain' that block
// host: the host itself (with and without its port) and each domain it
// is under, so that blocking example.com blocks a.example.com too.
func blockedDomains(host string) []string {
	host = strings.ToLower(host)
	if host == "" {
		return nil
	}
	out := []string{host}
	name := host
	if h, _, err := splitHostPort(host); err == nil {
		name = h
		out = append(out, name)
	}
	if strings.Trim(name, "0123456789.") == "" || strings.Contains(name, ":") {
		return out // an address has no parent domains
	}
	for i := strings.IndexByte(name, '.'); i >= 0; i = strings.IndexByte(name, '.') {
		name = name[i+1:]
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// splitHostPort splits "host:port" (and "[v6]:port"); an error when there
// is no port.
func splitHostPort(hostport string) (host, port string, err error) {
	u := url.URL{Host: hostport}
	if u.Port() == "" {
		return "", "", errors.New("no port")
	}
	return u.Hostname(), u.Port(), nil
}
