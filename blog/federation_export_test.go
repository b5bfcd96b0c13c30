package blog

import (
	"context"
	"time"
)

// SetFederationClock makes the federation jobs (their claims, retries and
// the delivery records) run on now, so that tests reach retries and the
// end of the retry window without waiting.
func (b *Blog) SetFederationClock(now func() time.Time) { b.fed.setClock(now) }

// ScanFederation runs the scan for scheduled posts whose time came now,
// rather than at its next minute.
func (b *Blog) ScanFederation(ctx context.Context) error { return b.scanDuePosts(ctx) }

// PruneFederation runs the delivery queue's pruning now, rather than at
// its next turn (every few minutes).
func (b *Blog) PruneFederation(ctx context.Context) { b.fed.deliver.prune(ctx, b.fed.alive(ctx)) }
