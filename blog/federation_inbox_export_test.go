package blog

import (
	"context"
	"net/http"
	"time"

	"folio/httpx"
)

// RemoteActor is remoteActor, for the tests of the actor cache.
func (b *Blog) RemoteActor(ctx context.Context, id string, refresh bool) (*remoteActor, error) {
	return b.remoteActor(ctx, id, refresh)
}

// VerifyFetch is verifyFetch, for the tests of authorized fetch.
func (b *Blog) VerifyFetch(r *http.Request) error { return b.verifyFetch(r) }

// ReactionCounts is reactionCounts: each post's likes and boosts.
func (b *Blog) ReactionCounts(ctx context.Context, postIDs []string) (map[string][2]int, error) {
	return b.reactionCounts(ctx, postIDs)
}

// SetInboxLimit allows each remote host n activities an hour, so that
// tests reach the limit with a few.
func (b *Blog) SetInboxLimit(n int) { b.inboxLimit = httpx.NewRateLimiter(n, time.Hour) }
