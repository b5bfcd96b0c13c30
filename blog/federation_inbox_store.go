package blog

import (
	"context"
	"errors"
	"fmt"

	"folio/sqlstore"
)

// claimActivity records that the inbox takes the activity id, and
// reports whether it is new: false for one taken within inboxSeenFor,
// whatever process took it. Ids older than that are forgotten on the way.
func (b *Blog) claimActivity(ctx context.Context, id string) (bool, error) {
	now := b.now()
	if _, err := b.db.Exec(ctx, "DELETE FROM ap_inbox_seen WHERE seen_at < $1", sqlstore.FromTime(now.Add(-inboxSeenFor))); err != nil {
		return false, fmt.Errorf("blog: forget old activities: %w", err)
	}
	res, err := b.db.Exec(ctx, "INSERT INTO ap_inbox_seen (activity_id, seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
		id, sqlstore.FromTime(now))
	if err != nil {
		return false, fmt.Errorf("blog: record activity: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("blog: record activity: %w", err)
	}
	return n == 1, nil
}

// unclaimActivity forgets an activity whose work failed.
func (b *Blog) unclaimActivity(ctx context.Context, id string) error {
	if _, err := b.db.Exec(ctx, "DELETE FROM ap_inbox_seen WHERE activity_id = $1", id); err != nil {
		return fmt.Errorf("blog: forget activity: %w", err)
	}
	return nil
}

// storeFollower records a's Follow followID with status, or refreshes the
// follower a already is: an accepted follower stays accepted. It returns
// the follower's status now.
func (b *Blog) storeFollower(ctx context.Context, a *remoteActor, followID, status string) (string, error) {
	var got string
	err := b.db.QueryRowWrite(ctx, `INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (actor_id) DO UPDATE SET follow_id = excluded.follow_id, inbox = excluded.inbox, host = excluded.host,
			updated_at = excluded.updated_at,
			status = CASE WHEN ap_followers.status = 'accepted' THEN 'accepted' ELSE excluded.status END
		RETURNING status`,
		a.ID, followID, status, a.deliveryInbox(), a.Host, sqlstore.FromTime(b.now())).Scan(&got)
	if err != nil {
		return "", fmt.Errorf("blog: store follower: %w", err)
	}
	return got, nil
}

// removeFollower forgets the follower actorID, if it is one.
func (b *Blog) removeFollower(ctx context.Context, actorID string) error {
	if _, err := b.db.Exec(ctx, "DELETE FROM ap_followers WHERE actor_id = $1", actorID); err != nil {
		return fmt.Errorf("blog: remove follower: %w", err)
	}
	return nil
}

// undoByID takes back the actor's activity id, whichever it was: its
// Follow, or a Like or Announce.
func (b *Blog) undoByID(ctx context.Context, actorID, id string) error {
	if id == "" {
		return nil
	}
	return b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM ap_followers WHERE actor_id = $1 AND follow_id = $2", actorID, id); err != nil {
			return fmt.Errorf("blog: undo follow: %w", err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM ap_reactions WHERE actor_id = $1 AND activity_id = $2", actorID, id); err != nil {
			return fmt.Errorf("blog: undo reaction: %w", err)
		}
		return nil
	})
}

// addReaction counts the actor's Like or Announce (kind) of a post once.
func (b *Blog) addReaction(ctx context.Context, postID, kind, actorID, activityID string) error {
	_, err := b.db.Exec(ctx, `INSERT INTO ap_reactions (post_id, kind, actor_id, activity_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, postID, kind, actorID, activityID, sqlstore.FromTime(b.now()))
	if err != nil {
		return fmt.Errorf("blog: add reaction: %w", err)
	}
	return nil
}

// removeReaction takes back the actor's reaction activityID and says how
// many it removed.
func (b *Blog) removeReaction(ctx context.Context, actorID, activityID string) (int64, error) {
	res, err := b.db.Exec(ctx, "DELETE FROM ap_reactions WHERE actor_id = $1 AND activity_id = $2", actorID, activityID)
	if err != nil {
		return 0, fmt.Errorf("blog: remove reaction: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("blog: remove reaction: %w", err)
	}
	return n, nil
}

// removeReactionOn takes back the actor's reaction of kind on a post.
func (b *Blog) removeReactionOn(ctx context.Context, postID, kind, actorID string) error {
	if _, err := b.db.Exec(ctx, "DELETE FROM ap_reactions WHERE post_id = $1 AND kind = $2 AND actor_id = $3", postID, kind, actorID); err != nil {
		return fmt.Errorf("blog: remove reaction: %w", err)
	}
	return nil
}

// reactionCounts returns, for each of postIDs that has any, its likes and
// boosts (announces) from the fediverse.
func (b *Blog) reactionCounts(ctx context.Context, postIDs []string) (map[string][2]int, error) {
	out := map[string][2]int{}
	var ids []any
	for _, id := range postIDs {
		if sqlstore.ValidID(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := b.db.Query(ctx, "SELECT post_id, kind, COUNT(*) FROM ap_reactions WHERE post_id IN ("+
		sqlstore.Placeholders(1, len(ids))+") GROUP BY post_id, kind", ids...)
	if err != nil {
		return nil, fmt.Errorf("blog: count reactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var postID, kind string
		var n int
		if err := rows.Scan(&postID, &kind, &n); err != nil {
			return nil, fmt.Errorf("blog: count reactions: %w", err)
		}
		c := out[postID]
		switch kind {
		case reactionLike:
			c[0] = n
		case reactionAnnounce:
			c[1] = n
		}
		out[postID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: count reactions: %w", err)
	}
	return out, nil
}

// postByObject returns the id of the post that was federated as the
// object iri (ap_posts); sqlstore.ErrNotFound when none was.
func (b *Blog) postByObject(ctx context.Context, iri string) (string, error) {
	var id string
	err := b.db.QueryRow(ctx, "SELECT post_id FROM ap_posts WHERE object_id = $1", iri).Scan(&id)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return "", fmt.Errorf("blog: find federated post: %w", err)
	}
	return id, err
}

// commentByAPID returns the id and post of the comment whose Note is iri;
// sqlstore.ErrNotFound when none is.
func (b *Blog) commentByAPID(ctx context.Context, iri string) (id, postID string, err error) {
	err = b.db.QueryRow(ctx, "SELECT id, post_id FROM comments WHERE ap_id = $1", iri).Scan(&id, &postID)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return "", "", fmt.Errorf("blog: find comment by its note: %w", err)
	}
	return id, postID, err
}

// remoteComment is a fediverse reply as the comment it becomes.
type remoteComment struct {
	PostID    string
	ReplyTo   string // the comment it answers, "" for the post
	APID      string // the Note's id
	Actor     string // the actor's id: whose Update and Delete count
	Author    string
	Handle    string
	URL       string
	Content   string
	IP        string
	UserAgent string
}

// insertRemoteComment adds a reply as a pending comment (never approved
// at once, whoever sends it: docs/federation.md#replies), once per Note.
func (b *Blog) insertRemoteComment(ctx context.Context, c remoteComment) error {
	_, err := b.db.Exec(ctx, `INSERT INTO comments (id, post_id, author, email, content, status, ip, user_agent, created_at, updated_at,
			ap_id, ap_actor, author_handle, author_url, reply_to)
		VALUES ($1, $2, $3, '', $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (ap_id) WHERE ap_id <> '' DO NOTHING`,
		sqlstore.NewID(), c.PostID, c.Author, c.Content, CommentPending, c.IP, c.UserAgent, sqlstore.FromTime(b.now()),
		c.APID, c.Actor, c.Handle, c.URL, c.ReplyTo)
	if err != nil {
		return fmt.Errorf("blog: add fediverse reply: %w", err)
	}
	return nil
}

// updateRemoteComment replaces the text of the actor's reply apID; an
// approved one whose text changes goes back to pending.
func (b *Blog) updateRemoteComment(ctx context.Context, apID, actorID, content string) error {
	_, err := b.db.Exec(ctx, `UPDATE comments SET content = $1, updated_at = $2,
			status = CASE WHEN status = 'approved' AND content <> $1 THEN 'pending' ELSE status END
		WHERE ap_id = $3 AND ap_actor = $4`, content, sqlstore.FromTime(b.now()), apID, actorID)
	if err != nil {
		return fmt.Errorf("blog: update fediverse reply: %w", err)
	}
	return nil
}

// deleteRemoteComment removes the actor's reply apID, if the blog has it.
func (b *Blog) deleteRemoteComment(ctx context.Context, apID, actorID string) error {
	if _, err := b.db.Exec(ctx, "DELETE FROM comments WHERE ap_id = $1 AND ap_actor = $2", apID, actorID); err != nil {
		return fmt.Errorf("blog: delete fediverse reply: %w", err)
	}
	return nil
}

// forgetActor removes what the blog holds of a deleted actor: its follow,
// its reactions, its replies still pending and its stored document.
func (b *Blog) forgetActor(ctx context.Context, actorID string) error {
	return b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for _, q := range []string{
			"DELETE FROM ap_followers WHERE actor_id = $1",
			"DELETE FROM ap_reactions WHERE actor_id = $1",
			"DELETE FROM comments WHERE ap_actor = $1 AND status = 'pending'",
			"DELETE FROM ap_actors WHERE id = $1",
		} {
			if _, err := tx.Exec(ctx, q, actorID); err != nil {
				return fmt.Errorf("blog: forget deleted actor: %w", err)
			}
		}
		return nil
	})
}
