package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Jobs is a durable queue of background work shared by every process of a
// site (docs/design.md#background-work). A job is a row: enqueued by the
// process that took the write, claimed by exactly one process (FOR UPDATE
// SKIP LOCKED on PostgreSQL; on SQLite the single statement that picks and
// claims runs under the database's one writer), which deletes it when
// done. A claim names its process and runs until a deadline: a claim whose
// process is dead, or whose deadline passed, is taken over by another
// process, at most JobAttempts claims in all; then the job is marked failed
// and pruned a day later.
type Jobs struct {
	db *DB
	// Kind names the work: one queue per kind in the one table.
	Kind string
	// Instance is the claiming process's id in the instance registry.
	Instance string
	// ClaimFor is how long a claim holds: longer than a job may run, so a live
	// process never loses a claim to the deadline.
	ClaimFor time.Duration
	Now      func() time.Time

	// queued is bumped whenever a job becomes pending, so that idle
	// dispatchers of every process sharing the counters see new work with
	// one atomic load instead of a query (JobWaiter).
	queued Counter
	// due is the earliest run_after this process set (EnqueueAt, Retry),
	// in Unix nanoseconds of Now; 0: none.
	due atomic.Int64
	// claims counts the claim statements sent: what an idle dispatcher
	// must not send (tests).
	claims atomic.Int64
}

// Job is one claimed job. Subject is what it works on (a post id); Attempt
// counts its claims, this one included.
type Job struct {
	ID      string
	Subject string
	Attempt int
	// Tries counts the times the job ran to a failure and was put back
	// for later (Retry): what a caller's backoff grows with.
	Tries int
}

// JobAttempts bounds the claims of one job: a job whose process keeps
// dying under it (a crash it causes) is given up.
const JobAttempts = 3

// jobsKeepFailed is how long a failed job's row stays, for an operator to
// see; then it is pruned.
const jobsKeepFailed = 24 * time.Hour

// NewJobs returns the queue of kind on db, claimed by instance.
func NewJobs(db *DB, kind, instance string, claim time.Duration) *Jobs {
	return &Jobs{db: db, Kind: kind, Instance: instance, ClaimFor: claim, Now: time.Now,
		queued: db.Changes().Counter("jobs." + kind)}
}

// announce tells idle dispatchers that a job is pending, or will be at
// at (zero: now).
func (q *Jobs) announce(at time.Time) {
	if !at.IsZero() && at.After(q.Now()) {
		for {
			old := q.due.Load()
			if old != 0 && old <= at.UnixNano() || q.due.CompareAndSwap(old, at.UnixNano()) {
				break
			}
		}
	}
	q.queued.Bump()
}

// Claims counts the claim statements this queue sent.
func (q *Jobs) Claims() int64 { return q.claims.Load() }

// Enqueue adds a pending job for subject. A job for subject that is still
// pending makes this a no-op: it will read the subject as it is when it
// runs, so one is enough.
func (q *Jobs) Enqueue(ctx context.Context, subject string) error {
	now := FromTime(q.Now())
	_, err := q.db.Exec(ctx, `INSERT INTO jobs (id, kind, subject, state, created_at, updated_at)
		VALUES ($1, $2, $3, 'pending', $4, $4) ON CONFLICT DO NOTHING`, NewID(), q.Kind, subject, now)
	if err != nil {
		return fmt.Errorf("sqlstore: enqueue %s job: %w", q.Kind, err)
	}
	q.announce(time.Time{})
	return nil
}

// EnqueueAt adds a pending job for subject that no claim takes before
// at; like Enqueue, a pending job for subject makes it a no-op.
func (q *Jobs) EnqueueAt(ctx context.Context, subject string, at time.Time) error {
	now := FromTime(q.Now())
	_, err := q.db.Exec(ctx, `INSERT INTO jobs (id, kind, subject, state, created_at, updated_at, run_after)
		VALUES ($1, $2, $3, 'pending', $4, $4, $5) ON CONFLICT DO NOTHING`, NewID(), q.Kind, subject, now, FromTime(at))
	if err != nil {
		return fmt.Errorf("sqlstore: enqueue %s job: %w", q.Kind, err)
	}
	q.announce(at)
	return nil
}

// enqueueBatch bounds the rows of one INSERT of EnqueueAll: four
// parameters each, far below both databases' limits.
const enqueueBatch = 500

// EnqueueAll adds a pending job for each of subjects, as Enqueue does one
// (a subject already pending is skipped), in statements of many rows: the
// path of a fan-out that queues thousands. q may be a transaction, so
// that the jobs are queued together with what they stand for; the caller
// then calls Announce once it committed.
func (q *Jobs) EnqueueAll(ctx context.Context, db Querier, subjects []string) error {
	now := FromTime(q.Now())
	for len(subjects) > 0 {
		n := min(len(subjects), enqueueBatch)
		var sb strings.Builder
		args := make([]any, 0, 4*n)
		for i, s := range subjects[:n] {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "($%d, $%d, $%d, 'pending', $%d, $%d)", 4*i+1, 4*i+2, 4*i+3, 4*i+4, 4*i+4)
			args = append(args, NewID(), q.Kind, s, now)
		}
		if _, err := db.Exec(ctx, `INSERT INTO jobs (id, kind, subject, state, created_at, updated_at)
			VALUES `+sb.String()+` ON CONFLICT DO NOTHING`, args...); err != nil {
			return fmt.Errorf("sqlstore: enqueue %s jobs: %w", q.Kind, err)
		}
		subjects = subjects[n:]
	}
	q.announce(time.Time{})
	return nil
}

// Announce tells the idle dispatchers of every process sharing the change
// counters that jobs are pending: for jobs EnqueueAll queued in a
// transaction, once it committed (its own announcement may come first).
func (q *Jobs) Announce() { q.announce(time.Time{}) }

// Retry puts a job that failed back in the queue, not to be claimed
// before at, with its Tries one higher and its claims counted afresh: a
// clean failure is not a crash. When a newer pending job for the same
// subject exists, that one will do and this one is deleted.
func (q *Jobs) Retry(ctx context.Context, j *Job, at time.Time) error {
	err := q.db.Tx(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE jobs SET state = 'pending', claimed_by = '', claim_until = 0,
			attempts = 0, tries = tries + 1, run_after = $4, updated_at = $5
			WHERE id = $1 AND claimed_by = $2 AND attempts = $3 AND NOT EXISTS (
				SELECT 1 FROM jobs p WHERE p.kind = jobs.kind AND p.subject = jobs.subject AND p.state = 'pending')`,
			j.ID, q.Instance, j.Attempt, FromTime(at), FromTime(q.Now()))
		if err != nil {
			return fmt.Errorf("sqlstore: retry %s job: %w", q.Kind, err)
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM jobs WHERE id = $1 AND claimed_by = $2 AND attempts = $3",
			j.ID, q.Instance, j.Attempt)
		return err
	})
	if err == nil {
		q.announce(at)
	}
	return err
}

// Claim claims the oldest pending job, and when alive is not nil also the
// oldest running one whose process is not among alive (nor this one) or
// whose claim's deadline passed. A pending job waits for its run_after
// (EnqueueAt, Retry). It returns nil when there is none.
// Without alive it costs no registry read: the path of a process waking
// its own workers right after an enqueue.
func (q *Jobs) Claim(ctx context.Context, alive []string) (*Job, error) {
	return q.ClaimExcept(ctx, alive, nil)
}

// ClaimExcept is Claim, but a pending job whose subject contains one of
// except is left for a later claim: the caller cannot run those now (a
// delivery to a host already at its bound). Jobs taken over from dead
// processes are claimed whatever their subject.
func (q *Jobs) ClaimExcept(ctx context.Context, alive, except []string) (*Job, error) {
	now := q.Now()
	args := []any{q.Instance, FromTime(now.Add(q.ClaimFor)), FromTime(now), q.Kind, JobAttempts}
	skip := ""
	for _, e := range except {
		args = append(args, LikePattern(e))
		skip += " AND NOT " + q.db.Dialect().ILike("subject", fmt.Sprintf("$%d", len(args)))
	}
	takeover := ""
	if alive != nil {
		ids := append([]any{q.Instance}, stringsAny(alive)...)
		takeover = fmt.Sprintf(` OR state = 'running' AND (claim_until <= $3 OR claimed_by NOT IN (%s))`,
			Placeholders(len(args)+1, len(ids)))
		args = append(args, ids...)
	}
	lock := ""
	if q.db.Dialect() == Postgres {
		// Of processes claiming at once each gets another row, none waits.
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var j Job
	q.claims.Add(1)
	err := q.db.QueryRowWrite(ctx, `UPDATE jobs SET state = 'running', claimed_by = $1, claim_until = $2,
		attempts = attempts + 1, updated_at = $3
		WHERE id = (SELECT id FROM jobs WHERE kind = $4 AND attempts < $5 AND (state = 'pending' AND run_after <= $3`+skip+takeover+`)
			ORDER BY created_at, id LIMIT 1`+lock+`)
		RETURNING id, subject, attempts, tries`, args...).Scan(&j.ID, &j.Subject, &j.Attempt, &j.Tries)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: claim %s job: %w", q.Kind, err)
	}
	return &j, nil
}

// Done deletes a finished job, if the claim is still this process's: a job
// taken over meanwhile belongs to its new claimant.
func (q *Jobs) Done(ctx context.Context, j *Job) error {
	if _, err := q.db.Exec(ctx, "DELETE FROM jobs WHERE id = $1 AND claimed_by = $2 AND attempts = $3",
		j.ID, q.Instance, j.Attempt); err != nil {
		return fmt.Errorf("sqlstore: finish %s job: %w", q.Kind, err)
	}
	return nil
}

// Release hands an unfinished job back (a clean shutdown cancelled it), so
// that another process runs it at once and the attempt does not count.
// When a newer pending job for the same subject exists, that one will do
// and this one is deleted.
func (q *Jobs) Release(ctx context.Context, j *Job) error {
	err := q.db.Tx(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE jobs SET state = 'pending', claimed_by = '', claim_until = 0,
			attempts = attempts - 1, updated_at = $4
			WHERE id = $1 AND claimed_by = $2 AND attempts = $3 AND NOT EXISTS (
				SELECT 1 FROM jobs p WHERE p.kind = jobs.kind AND p.subject = jobs.subject AND p.state = 'pending')`,
			j.ID, q.Instance, j.Attempt, FromTime(q.Now()))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM jobs WHERE id = $1 AND claimed_by = $2 AND attempts = $3",
			j.ID, q.Instance, j.Attempt)
		return err
	})
	if err == nil {
		q.announce(time.Time{})
	}
	return err
}

// Prune marks failed the jobs whose last allowed claim was lost (their
// process died, or the deadline passed) and deletes failed jobs older than
// a day. It reports how many it marked failed.
func (q *Jobs) Prune(ctx context.Context, alive []string) (int, error) {
	now := q.Now()
	ids := append([]any{q.Instance}, stringsAny(alive)...)
	args := append([]any{FromTime(now), q.Kind, JobAttempts}, ids...)
	res, err := q.db.Exec(ctx, fmt.Sprintf(`UPDATE jobs SET state = 'failed', updated_at = $1
		WHERE kind = $2 AND state = 'running' AND attempts >= $3
		AND (claim_until <= $1 OR claimed_by NOT IN (%s))`, Placeholders(4, len(ids))), args...)
	if err != nil {
		return 0, fmt.Errorf("sqlstore: prune %s jobs: %w", q.Kind, err)
	}
	failed, _ := res.RowsAffected()
	if _, err := q.db.Exec(ctx, "DELETE FROM jobs WHERE kind = $1 AND state = 'failed' AND updated_at < $2",
		q.Kind, FromTime(now.Add(-jobsKeepFailed))); err != nil {
		return int(failed), fmt.Errorf("sqlstore: prune %s jobs: %w", q.Kind, err)
	}
	return int(failed), nil
}

// JobCounts counts kind's jobs by state, for tests and the operator.
func (q *Jobs) JobCounts(ctx context.Context) (map[string]int, error) {
	rows, err := q.db.Query(ctx, "SELECT state, COUNT(*) FROM jobs WHERE kind = $1 GROUP BY state", q.Kind)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: count %s jobs: %w", q.Kind, err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("sqlstore: count %s jobs: %w", q.Kind, err)
		}
		counts[state] = n
	}
	return counts, rows.Err()
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
