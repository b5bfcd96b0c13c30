package blog

import (
	"context"
	"regexp"

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
