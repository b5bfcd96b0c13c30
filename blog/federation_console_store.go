package blog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"folio/sqlstore"
)

// fedFollower is a follower as the console lists it: the row of
// ap_followers with what ap_actors knows of the actor (empty when the
// actor was never stored).
type fedFollower struct {
	ActorID  string
	FollowID string
	Status   string // accepted or pending
	Inbox    string // where activities for it go
	Host     string
	Since    time.Time
	Handle   string
	Name     string
	URL      string
}

const fedFollowerColumns = `f.actor_id, f.follow_id, f.status, f.inbox, f.host, f.created_at,
	COALESCE(a.handle, ''), COALESCE(a.name, ''), COALESCE(a.url, '')`

const fedFollowerFrom = ` FROM ap_followers f LEFT JOIN ap_actors a ON a.id = f.actor_id`

func scanFedFollower(row interface{ Scan(...any) error }) (fedFollower, error) {
	var f fedFollower
	var since int64
	err := row.Scan(&f.ActorID, &f.FollowID, &f.Status, &f.Inbox, &f.Host, &since, &f.Handle, &f.Name, &f.URL)
	f.Since = sqlstore.Time(since)
	return f, err
}

// fedFollowers pages through the followers: those waiting for approval
// first, then the newest.
func (b *Blog) fedFollowers(ctx context.Context, pg span) ([]fedFollower, int, error) {
	var total int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM ap_followers").Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("blog: count followers: %w", err)
	}
	if total == 0 || pg.offset >= total {
		return []fedFollower{}, total, nil
	}
	rows, err := b.db.Query(ctx, "SELECT "+fedFollowerColumns+fedFollowerFrom+
		` ORDER BY CASE WHEN f.status = 'pending' THEN 0 ELSE 1 END, f.created_at DESC, f.actor_id LIMIT $1 OFFSET $2`, pg.limit, pg.offset)
	if err != nil {
		return nil, 0, fmt.Errorf("blog: list followers: %w", err)
	}
	defer rows.Close()
	out := []fedFollower{}
	for rows.Next() {
		f, err := scanFedFollower(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("blog: list followers: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("blog: list followers: %w", err)
	}
	return out, total, nil
}

// fedFollowerCounts counts the followers by status.
func (b *Blog) fedFollowerCounts(ctx context.Context) (accepted, pending int, err error) {
	rows, err := b.db.Query(ctx, "SELECT status, COUNT(*) FROM ap_followers GROUP BY status")
	if err != nil {
		return 0, 0, fmt.Errorf("blog: count followers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return 0, 0, fmt.Errorf("blog: count followers: %w", err)
		}
		switch s {
		case followAccepted:
			accepted = n
		case followPending:
			pending = n
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("blog: count followers: %w", err)
	}
	return accepted, pending, nil
}

// fedFollowerByActor reads one follower; sqlstore.ErrNotFound when the
// actor does not follow (or asked to and was refused meanwhile).
func (b *Blog) fedFollowerByActor(ctx context.Context, actorID string) (fedFollower, error) {
	f, err := scanFedFollower(b.db.QueryRow(ctx, "SELECT "+fedFollowerColumns+fedFollowerFrom+" WHERE f.actor_id = $1", actorID))
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return f, fmt.Errorf("blog: read follower: %w", err)
	}
	return f, err
}

// acceptFollower turns a pending follower into an accepted one;
// sqlstore.ErrNotFound when it is not pending (any more).
func (b *Blog) acceptFollower(ctx context.Context, actorID string) error {
	res, err := b.db.Exec(ctx, "UPDATE ap_followers SET status = $1, updated_at = $2 WHERE actor_id = $3 AND status = $4",
		followAccepted, sqlstore.FromTime(b.now()), actorID, followPending)
	if err != nil {
		return fmt.Errorf("blog: accept follower: %w", err)
	}
	return oneRow(res, "accept follower")
}

// oneRow is nil when res changed a row, sqlstore.ErrNotFound when none.
func oneRow(res interface{ RowsAffected() (int64, error) }, op string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("blog: %s: %w", op, err)
	}
	if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// Block kinds (ap_blocks.kind): an actor by its IRI, or a domain by its
// lowercase host name without a port, which covers its subdomains
// (docs/federation.md#moderation).
const (
	blockActor  = "actor"
	blockDomain = "domain"
)

// fedBlock is a row of ap_blocks.
type fedBlock struct {
	Kind, Value string
	Since       time.Time
}

// fedBlocks lists the blocks, domains first, then by value.
func (b *Blog) fedBlocks(ctx context.Context, limit int) ([]fedBlock, error) {
	rows, err := b.db.Query(ctx, "SELECT kind, value, created_at FROM ap_blocks ORDER BY kind DESC, value LIMIT $1", limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list blocks: %w", err)
	}
	defer rows.Close()
	out := []fedBlock{}
	for rows.Next() {
		var bl fedBlock
		var since int64
		if err := rows.Scan(&bl.Kind, &bl.Value, &since); err != nil {
			return nil, fmt.Errorf("blog: list blocks: %w", err)
		}
		bl.Since = sqlstore.Time(since)
		out = append(out, bl)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list blocks: %w", err)
	}
	return out, nil
}

// addBlock blocks an actor or a domain and removes the followers it
// covers, in one transaction, returning those removed so that each can be
// told (Reject). Blocking again what is blocked removes what follows
// still and is no error.
func (b *Blog) addBlock(ctx context.Context, kind, value string) ([]fedFollower, error) {
	var gone []fedFollower
	err := b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO ap_blocks (kind, value, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
			kind, value, sqlstore.FromTime(b.now())); err != nil {
			return err
		}
		var rows *sql.Rows
		var err error
		if kind == blockActor {
			rows, err = tx.Query(ctx, "SELECT "+fedFollowerColumns+fedFollowerFrom+" WHERE f.actor_id = $1", value)
		} else {
			// Candidates by a contains match, the exact rule (the host or
			// a subdomain, any port) in blockCovers.
			rows, err = tx.Query(ctx, "SELECT "+fedFollowerColumns+fedFollowerFrom+" WHERE "+tx.Dialect().ILike("f.host", "$1"),
				sqlstore.LikePattern(value))
		}
		if err != nil {
			return err
		}
		gone, err = coveredFollowers(rows, kind, value)
		if err != nil {
			return err
		}
		for _, f := range gone {
			if _, err := tx.Exec(ctx, "DELETE FROM ap_followers WHERE actor_id = $1", f.ActorID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("blog: block %s: %w", kind, err)
	}
	return gone, nil
}

// coveredFollowers reads the candidate followers of a block and keeps
// those it covers.
func coveredFollowers(rows *sql.Rows, kind, value string) ([]fedFollower, error) {
	defer rows.Close()
	var out []fedFollower
	for rows.Next() {
		f, err := scanFedFollower(rows)
		if err != nil {
			return nil, err
		}
		if kind == blockActor || domainCovers(value, f.Host) {
			out = append(out, f)
		}
	}
	return out, rows.Err()
}

// domainCovers reports whether a domain block covers host (a follower's
// host, with its port if its IRIs name one): a block naming a port covers
// that host and port alone, one without covers the host at any port and
// its subdomains, as the inbox's check (blockedDomains) does.
func domainCovers(domain, host string) bool {
	host = strings.ToLower(host)
	if strings.Contains(domain, ":") {
		return host == domain
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return name == domain || strings.HasSuffix(name, "."+domain)
}

// removeBlock lifts a block; sqlstore.ErrNotFound when there is none.
func (b *Blog) removeBlock(ctx context.Context, kind, value string) error {
	res, err := b.db.Exec(ctx, "DELETE FROM ap_blocks WHERE kind = $1 AND value = $2", kind, value)
	if err != nil {
		return fmt.Errorf("blog: unblock: %w", err)
	}
	return oneRow(res, "unblock")
}

// fedHostHealth is an inbox host whose deliveries fail or were given up.
type fedHostHealth struct {
	Host        string
	Failures    int
	LastError   string
	LastSuccess time.Time // zero: never
	LastFailure time.Time
	GivenUp     time.Time // zero: not given up
}

// fedUnhealthyHosts lists the inbox hosts with failures or given-up
// deliveries, those given up and those failing most first.
func (b *Blog) fedUnhealthyHosts(ctx context.Context, limit int) ([]fedHostHealth, error) {
	rows, err := b.db.Query(ctx, `SELECT host, failures, last_error, last_success, last_failure, given_up FROM ap_hosts
		WHERE failures > 0 OR given_up > 0 ORDER BY given_up DESC, failures DESC, host LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list delivery hosts: %w", err)
	}
	defer rows.Close()
	out := []fedHostHealth{}
	for rows.Next() {
		var h fedHostHealth
		var ok, failed, gaveUp int64
		if err := rows.Scan(&h.Host, &h.Failures, &h.LastError, &ok, &failed, &gaveUp); err != nil {
			return nil, fmt.Errorf("blog: list delivery hosts: %w", err)
		}
		h.LastSuccess, h.LastFailure, h.GivenUp = stampOrZero(ok), stampOrZero(failed), stampOrZero(gaveUp)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list delivery hosts: %w", err)
	}
	return out, nil
}

// stampOrZero is a stored time where 0 means never.
func stampOrZero(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return sqlstore.Time(us)
}

// fedPostReactions is a federated post with its likes and boosts.
type fedPostReactions struct {
	PostID, Title, Slug string
	Likes, Boosts       int
}

// LikesText and BoostsText are the counts as the console shows them:
// "1 like", "3 boosts".
func (p fedPostReactions) LikesText() string  { return countOf(p.Likes, "like") }
func (p fedPostReactions) BoostsText() string { return countOf(p.Boosts, "boost") }

// fedRecentPosts lists the posts federated most recently (not deleted
// since); their likes and boosts are reactionCounts'.
func (b *Blog) fedRecentPosts(ctx context.Context, limit int) ([]fedPostReactions, error) {
	rows, err := b.db.Query(ctx, `SELECT p.id, p.title, p.slug FROM ap_posts a JOIN posts p ON p.id = a.post_id AND p.deleted_at IS NULL
		WHERE a.state = 'created' ORDER BY a.updated_at DESC, p.id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("blog: list federated posts: %w", err)
	}
	defer rows.Close()
	out := []fedPostReactions{}
	for rows.Next() {
		var p fedPostReactions
		if err := rows.Scan(&p.PostID, &p.Title, &p.Slug); err != nil {
			return nil, fmt.Errorf("blog: list federated posts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list federated posts: %w", err)
	}
	return out, nil
}
