package blog

import (
	"bytes"
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
	"folio/httpx"
	"folio/httpx/outbound"
	"folio/sqlstore"
)

// FederationSettings are the federation group (docs/federation.md): off
// until the administrator turns it on. The addresses Folio may reach that
// are not of the open internet, and plain http, are the operator's
// configuration (Deps.FederationAllow, Deps.FederationAllowHTTP), not
// runtime settings: they are about the operator's network.
type FederationSettings struct {
	Enabled bool `json:"enabled"`
	// Username is the blog's actor: acct:{username}@{host}.
	Username string `json:"username"`
	// ApproveFollowers holds each Follow for the administrator's approval
	// instead of accepting it.
	ApproveFollowers bool `json:"approve_followers"`
	// AuthorizedFetch answers the actor's and the posts' ActivityStreams
	// documents only to signed requests of servers that are not blocked
	// (the actor's own document stays public: servers need its key).
	AuthorizedFetch bool `json:"authorized_fetch"`
}

// DefaultFederationSettings: off, as the actor "blog".
func DefaultFederationSettings() FederationSettings {
	return FederationSettings{Username: "blog"}
}

// usernamePattern is what Mastodon and its peers take as a local part of
// a handle.
var usernamePattern = regexp.MustCompile(`^[a-z0-9_]{1,30}$`)

// Validate checks the federation group; the error is a *sqlstore.FieldError.
func (f FederationSettings) Validate() error {
	if !usernamePattern.MatchString(f.Username) {
		return &sqlstore.FieldError{Key: "federation.username", Msg: "must be 1-30 lowercase letters, digits or underscores"}
	}
	return nil
}

// fedSettings are the federation settings now.
func (b *Blog) fedSettings(ctx context.Context) FederationSettings {
	return b.settings.Federation.Get(ctx)
}

// fedKey is the blog's key pair, made once for the site and kept in the
// database, so that restarts, backups and every process share it.
type fedKey struct {
	Private   *rsa.PrivateKey
	PublicPEM string
	// Origin is the origin recorded when the key was made or federation
	// was last turned on: what work outside a request builds IRIs of.
	Origin string
}

// federationKey returns the key pair, making it on first use. A key made
// by another process at the same moment wins: the insert does nothing and
// the stored one is read back.
func (b *Blog) federationKey(ctx context.Context) (*fedKey, error) {
	b.fedMu.Lock()
	defer b.fedMu.Unlock()
	if b.fedKeyCache != nil {
		return b.fedKeyCache, nil
	}
	row, err := b.loadFedKey(ctx)
	if errors.Is(err, sqlstore.ErrNotFound) {
		priv, gerr := httpsig.GenerateKey()
		if gerr != nil {
			return nil, fmt.Errorf("blog: make the federation key: %w", gerr)
		}
		row = fedKeyRow{Origin: b.currentOrigin(ctx), PublicPEM: httpsig.MarshalPublicKey(&priv.PublicKey), PrivatePEM: httpsig.MarshalPrivateKey(priv)}
		if err = b.insertFedKey(ctx, row); err == nil {
			row, err = b.loadFedKey(ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	priv, err := httpsig.ParsePrivateKey(row.PrivatePEM)
	if err != nil {
		return nil, fmt.Errorf("blog: read the federation key: %w", err)
	}
	b.fedKeyCache = &fedKey{Private: priv, PublicPEM: row.PublicPEM, Origin: row.Origin}
	return b.fedKeyCache, nil
}

// currentOrigin is the origin of absolute links as the site builds them
// (site.site_url, else the request's), "" outside a request without
// site.site_url.
func (b *Blog) currentOrigin(ctx context.Context) string {
	if u := b.siteURL(ctx); u != "" {
		return u
	}
	return httpx.BaseURLOf(ctx)
}

// siteURL is site.site_url without its trailing slash when it is an
// absolute http(s) URL, the origin of absolute links; "" otherwise.
func (b *Blog) siteURL(ctx context.Context) string {
	u := strings.TrimRight(b.settings.Site.Get(ctx).SiteURL, "/")
	if p, err := url.Parse(u); u == "" || err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" {
		return ""
	}
	return u
}

// fedOrigin is the origin the blog's IRIs are built of: the site's, or in
// background work without site.site_url the one recorded with the key
// (docs/federation.md#addresses).
func (b *Blog) fedOrigin(ctx context.Context) (string, error) {
	if o := b.currentOrigin(ctx); o != "" {
		return o, nil
	}
	k, err := b.federationKey(ctx)
	if err != nil {
		return "", err
	}
	if k.Origin == "" {
		return "", errors.New("blog: federation has no origin: set site.site_url or server.base_url")
	}
	return k.Origin, nil
}

// noteFedOrigin records the origin of the request that turned federation
// on, for the work that runs outside requests, and, the first time, when
// federation began (fedSince).
func (b *Blog) noteFedOrigin(ctx context.Context) error {
	if _, err := b.fedSince(ctx); err != nil {
		return err
	}
	o := b.currentOrigin(ctx)
	if o == "" {
		return nil
	}
	k, err := b.federationKey(ctx)
	if err != nil || k.Origin == o {
		return err
	}
	if err := b.setFedOrigin(ctx, o); err != nil {
		return err
	}
	b.fedMu.Lock()
	b.fedKeyCache = nil
	b.fedMu.Unlock()
	return nil
}

// The blog's IRIs under an origin (docs/federation.md#addresses: everything under /ap/;
// a post's object is its canonical URL).
func actorIRI(origin string) string       { return origin + "/ap/actor" }
func actorKeyID(origin string) string     { return actorIRI(origin) + "#main-key" }
func actorInbox(origin string) string     { return origin + "/ap/actor/inbox" }
func actorOutbox(origin string) string    { return origin + "/ap/actor/outbox" }
func actorFollowers(origin string) string { return origin + "/ap/actor/followers" }
func actorFollowing(origin string) string { return origin + "/ap/actor/following" }
func sharedInbox(origin string) string    { return origin + "/ap/inbox" }
func postIRI(origin, slug string) string  { return origin + "/posts/" + url.PathEscape(slug) }

// fedClient is the outbound client of every fetch and delivery:
// loopback, private and link-local addresses are refused unless
// Deps.FederationAllow names them, plain http unless
// Deps.FederationAllowHTTP (docs/federation.md#limits), with small bounds.
func newFedClient(allow outbound.Allowlist, allowHTTP bool) *outbound.Client {
	return outbound.New(outbound.Options{
		Allow:        allow,
		MaxRedirects: fedMaxRedirects,
		MaxBytes:     fedMaxBytes,
		Timeout:      fedTimeout,
		UserAgent:    "Folio (+federation)",
		HTTPSOnly:    !allowHTTP,
	})
}

// Bounds of one outgoing fetch or delivery.
const (
	fedMaxRedirects = 3
	fedMaxBytes     = 1 << 20
	fedTimeout      = 15 * time.Second
)

// fedRequest sends a request signed with the blog's key (docs/federation.md#signatures):
// a POST of body to an inbox, or a GET (body nil) of a document, which
// servers with authorized fetch ask to be signed. The caller closes the
// answer's body.
func (b *Blog) fedRequest(ctx context.Context, method, target string, body []byte) (*http.Response, error) {
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return nil, err
	}
	key, err := b.federationKey(ctx)
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("blog: federation request to %q: %w", target, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", activitypub.ContentType)
	}
	req.Header.Set("Accept", activitypub.ContentType+", "+activitypub.LDContentType)
	signer := httpsig.Signer{KeyID: actorKeyID(origin), Key: key.Private, Now: b.now}
	if err := signer.Sign(req, body); err != nil {
		return nil, fmt.Errorf("blog: sign the request to %q: %w", target, err)
	}
	return b.fedClient.Do(req)
}

// remoteActor is another server's actor as the blog keeps it (ap_actors):
// what verifying its signatures, delivering to it and naming it in a
// comment need.
type remoteActor struct {
	ID          string
	KeyID       string
	PublicPEM   string
	Inbox       string
	SharedInbox string
	Handle      string // user@host
	Name        string
	URL         string // its profile page
	Icon        string
	Host        string
}

// deliveryInbox is where activities for the actor go: its server's shared
// inbox when it has one, so that one request serves every follower there.
func (a *remoteActor) deliveryInbox() string {
	if a.SharedInbox != "" {
		return a.SharedInbox
	}
	return a.Inbox
}
