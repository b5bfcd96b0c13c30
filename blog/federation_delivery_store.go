package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// storeActivity keeps an outgoing activity's body for its delivery jobs
// and for GET /ap/activities/{id}; q may be the transaction that queues
// them.
func storeActivity(ctx context.Context, q sqlstore.Querier, id string, body []byte, at time.Time) error {
	if _, err := q.Exec(ctx, "INSERT INTO ap_activities (id, body, created_at) VALUES ($1, $2, $3)",
		id, string(body), sqlstore.FromTime(at)); err != nil {
		return fmt.Errorf("blog: store activity: %w", err)
	}
	return nil
}

// storedActivity is an outgoing activity as kept.
type storedActivity struct {
	Body        []byte
	CreatedAt   time.Time
	FanoutAfter string // the last inbox its fan-out queued
}

// loadActivity reads an activity; sqlstore.ErrNotFound when there is none
// (or id is not an id).
func (b *Blog) loadActivity(ctx context.Context, id string) (storedActivity, error) {
	var a storedActivity
	if !sqlstore.ValidID(id) {
		return a, sqlstore.ErrNotFound
	}
	var body string
	var created int64
	err := b.db.QueryRow(ctx, "SELECT body, created_at, fanout_after FROM ap_activities WHERE id = $1", id).
		Scan(&body, &created, &a.FanoutAfter)
	if err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return a, err
		}
		return a, fmt.Errorf("blog: load activity: %w", err)
	}
	a.Body, a.CreatedAt = []byte(body), sqlstore.Time(created)
	return a, nil
}

// followerInboxesAfter is the next page of the distinct delivery inboxes
// of the accepted followers, in order, after the inbox after: a keyset
// page, which the index ap_followers_inbox answers.
func followerInboxesAfter(ctx context.Context, q sqlstore.Querier, after string, limit int) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT inbox FROM ap_followers WHERE status = 'accepted' AND inbox > $1
		ORDER BY inbox LIMIT $2`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list follower inboxes: %w", err)
	}
	defer rows.Close()
	var inboxes []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("blog: list follower inboxes: %w", err)
		}
		inboxes = append(inboxes, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list follower inboxes: %w", err)
	}
	return inboxes, nil
}

// setFanoutAfter records how far an activity's fan-out got, in the
// transaction that queued that far.
func setFanoutAfter(ctx context.Context, q sqlstore.Querier, id, after string) error {
	if _, err := q.Exec(ctx, "UPDATE ap_activities SET fanout_after = $1 WHERE id = $2", after, id); err != nil {
		return fmt.Errorf("blog: record fan-out progress: %w", err)
	}
	return nil
}

// hostRecord is an inbox host's delivery record (ap_hosts).
type hostRecord struct {
	LastSuccess  time.Time
	FailingSince time.Time // zero while it is not failing
}

// loadHost reads host's record; a host never delivered to has a zero one.
func (b *Blog) loadHost(ctx context.Context, host string) (hostRecord, error) {
	var h hostRecord
	var success, since int64
	err := b.db.QueryRow(ctx, "SELECT last_success, failing_since FROM ap_hosts WHERE host = $1", host).Scan(&success, &since)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("blog: load inbox host: %w", err)
	}
	if success > 0 {
		h.LastSuccess = sqlstore.Time(success)
	}
	if since > 0 {
		h.FailingSince = sqlstore.Time(since)
	}
	return h, nil
}

// hostDelivered records a delivery host accepted: it is failing no more.
func (b *Blog) hostDelivered(ctx context.Context, host string, at time.Time) error {
	_, err := b.db.Exec(ctx, `INSERT INTO ap_hosts (host, last_success) VALUES ($1, $2)
		ON CONFLICT (host) DO UPDATE SET last_success = excluded.last_success, failures = 0, failing_since = 0`,
		host, sqlstore.FromTime(at))
	if err != nil {
		return fmt.Errorf("blog: record delivery: %w", err)
	}
	return nil
}

// hostFailed records a failed try; gaveUp when the delivery is given up
// for good. failing_since keeps the first failure since the last success.
func (b *Blog) hostFailed(ctx context.Context, host string, at time.Time, why string, gaveUp bool) error {
	given := 0
	if gaveUp {
		given = 1
	}
	if len(why) > 500 {
		why = why[:500]
	}
	t := sqlstore.FromTime(at)
	_, err := b.db.Exec(ctx, `INSERT INTO ap_hosts (host, last_failure, failures, given_up, last_error, failing_since)
		VALUES ($1, $2, 1, $3, $4, $2)
		ON CONFLICT (host) DO UPDATE SET last_failure = excluded.last_failure, failures = ap_hosts.failures + 1,
			given_up = ap_hosts.given_up + excluded.given_up, last_error = excluded.last_error,
			failing_since = CASE WHEN ap_hosts.failing_since = 0 THEN excluded.failing_since ELSE ap_hosts.failing_since END`,
		host, t, given, why)
	if err != nil {
		return fmt.Errorf("blog: record failed delivery: %w", err)
	}
	return nil
}

// pruneActivities deletes the activities older than before that no job
// still reads and that are not the latest Create or Update of a post
// (GET /ap/activities/{id} keeps answering those).
func (b *Blog) pruneActivities(ctx context.Context, before time.Time) (int, error) {
	res, err := b.db.Exec(ctx, `DELETE FROM ap_activities WHERE created_at < $1
		AND NOT EXISTS (SELECT 1 FROM ap_posts p WHERE p.activity_id = CAST(ap_activities.id AS TEXT))
		AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind IN ($2, $3)
			AND substr(j.subject, 1, 36) = CAST(ap_activities.id AS TEXT))`,
		sqlstore.FromTime(before), fedDeliverKind, fedFanoutKind)
	if err != nil {
		return 0, fmt.Errorf("blog: prune activities: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
