package blog

import (
	"context"
	"errors"

	"folio/blog/activitypub"
)

// errNoDelivery: delivery is not built yet in this branch.
var errNoDelivery = errors.New("blog: federation delivery is not built yet")

// deliver stores activity and queues one signed delivery of it to each
// of inboxes (duplicates once).
func (b *Blog) deliver(ctx context.Context, activity *activitypub.Object, inboxes []string) error {
	return errNoDelivery
}

// deliverToFollowers stores activity and queues its delivery to every
// accepted follower: one per shared inbox.
func (b *Blog) deliverToFollowers(ctx context.Context, activity *activitypub.Object) error {
	return errNoDelivery
}
