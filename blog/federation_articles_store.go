package blog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"folio/sqlstore"
)

// fedSinceKey names, in the meta table, when federation was first turned
// on: posts published before are not sent as new (docs/federation.md#what-is-sent).
const fedSinceKey = "federation_since"

// loadFedSince reads when federation was first turned on; zero when it
// never was.
func (b *Blog) loadFedSince(ctx context.Context) (time.Time, error) {
	var v string
	err := b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", fedSinceKey).Scan(&v)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("blog: read when federation began: %w", err)
	}
	us, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("blog: read when federation began: %q: %w", v, err)
	}
	return sqlstore.Time(us), nil
}

// insertFedSince records at as when federation was first turned on,
// unless a time is recorded already: the first one stays.
func (b *Blog) insertFedSince(ctx context.Context, at time.Time) error {
	_, err := b.db.Exec(ctx, "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
		fedSinceKey, strconv.FormatInt(sqlstore.FromTime(at), 10))
	if err != nil {
		return fmt.Errorf("blog: record when federation began: %w", err)
	}
	return nil
}

// Federated states of a post (ap_posts.state).
const (
	apCreated = "created"
	apDeleted = "deleted"
)

// apPost is what a post was last federated as.
type apPost struct {
	ObjectID   string
	State      string
	Hash       string
	ActivityID string // its latest Create or Update, while created
}

// loadAPPost reads a post's federated state; ok is false when the post
// was never federated.
func (b *Blog) loadAPPost(ctx context.Context, postID string) (row apPost, ok bool, err error) {
	err = b.db.QueryRow(ctx, "SELECT object_id, state, hash, activity_id FROM ap_posts WHERE post_id = $1", postID).
		Scan(&row.ObjectID, &row.State, &row.Hash, &row.ActivityID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return row, false, nil
	}
	if err != nil {
		return row, false, fmt.Errorf("blog: load federated post: %w", err)
	}
	return row, true, nil
}

// saveAPPost moves a post's federated state from prev (nil: none) to
// next inside tx, and reports whether it did: false when another process
// moved it first, so that the activity is sent once.
func saveAPPost(ctx context.Context, tx *sqlstore.Tx, postID string, prev *apPost, next apPost, at time.Time) (bool, error) {
	var err error
	var res interface{ RowsAffected() (int64, error) }
	if prev == nil {
		res, err = tx.Exec(ctx, `INSERT INTO ap_posts (post_id, object_id, state, hash, activity_id, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
			postID, next.ObjectID, next.State, next.Hash, next.ActivityID, sqlstore.FromTime(at))
	} else {
		res, err = tx.Exec(ctx, `UPDATE ap_posts SET object_id = $2, state = $3, hash = $4, activity_id = $5, updated_at = $6
			WHERE post_id = $1 AND state = $7 AND hash = $8`,
			postID, next.ObjectID, next.State, next.Hash, next.ActivityID, sqlstore.FromTime(at), prev.State, prev.Hash)
	}
	if err != nil {
		return false, fmt.Errorf("blog: save federated post: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("blog: save federated post: %w", err)
	}
	return n == 1, nil
}

// postIDByObject finds the post whose Article was first sent as objectID
// (its slug changed since); sqlstore.ErrNotFound when none was.
func (b *Blog) postIDByObject(ctx context.Context, objectID string) (string, error) {
	var id string
	err := b.db.QueryRow(ctx, "SELECT post_id FROM ap_posts WHERE object_id = $1 AND state = $2", objectID, apCreated).Scan(&id)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return "", fmt.Errorf("blog: find federated post: %w", err)
	}
	return id, err
}

// duePosts lists up to limit posts that became visible from since to now
// and were never federated: scheduled posts whose time came. The range on
// published_at is one of the posts_public_* indexes.
func (b *Blog) duePosts(ctx context.Context, since, now time.Time, limit int) ([]string, error) {
	rows, err := b.db.Query(ctx, `SELECT p.id FROM posts p
		WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at <= $1 AND p.published_at >= $2
		AND NOT EXISTS (SELECT 1 FROM ap_posts a WHERE a.post_id = p.id)
		ORDER BY p.published_at LIMIT $3`, sqlstore.FromTime(now), sqlstore.FromTime(since), limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list posts due to federate: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("blog: list posts due to federate: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list posts due to federate: %w", err)
	}
	return ids, nil
}

// vanishedPosts lists up to limit posts federated as created that are no
// longer visible (deleted, unpublished, scheduled later) while no job
// brought the followers a Delete: their change came while federation was
// off, and a post's save queues nothing then.
func (b *Blog) vanishedPosts(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := b.db.Query(ctx, `SELECT a.post_id FROM ap_posts a LEFT JOIN posts p ON p.id = a.post_id
		WHERE a.state = $1 AND (p.id IS NULL OR p.deleted_at IS NOT NULL OR p.status <> 'published' OR p.published_at > $2)
		ORDER BY a.post_id LIMIT $3`, apCreated, sqlstore.FromTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list vanished federated posts: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("blog: list vanished federated posts: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list vanished federated posts: %w", err)
	}
	return ids, nil
}

// acceptedFollowers counts the followers whose Follow was accepted.
func (b *Blog) acceptedFollowers(ctx context.Context) (int, error) {
	var n int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM ap_followers WHERE status = 'accepted'").Scan(&n); err != nil {
		return 0, fmt.Errorf("blog: count followers: %w", err)
	}
	return n, nil
}

// objectGone reports whether objectID is the Article of a post that was
// federated and then deleted or unpublished: its id answers 410.
func (b *Blog) objectGone(ctx context.Context, objectID string) (bool, error) {
	var n int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM ap_posts WHERE object_id = $1 AND state = $2", objectID, apDeleted).Scan(&n); err != nil {
		return false, fmt.Errorf("blog: find deleted article: %w", err)
	}
	return n > 0, nil
}
