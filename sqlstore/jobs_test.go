package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// jobQueue is the queue of kind "test" for instance, on a clock the test
// moves.
func jobQueue(db *sqlstore.DB, instance string, now *time.Time) *sqlstore.Jobs {
	q := sqlstore.NewJobs(db, "test", instance, time.Minute)
	q.Now = func() time.Time { return *now }
	return q
}

func claim(t *testing.T, q *sqlstore.Jobs, alive []string) *sqlstore.Job {
	t.Helper()
	j, err := q.Claim(context.Background(), alive)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestJobIsClaimedOnceAndTakenOverWhenItsProcessDies(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	a, b := jobQueue(db, "a", &now), jobQueue(db, "b", &now)
	for range 2 {
		if err := a.Enqueue(ctx, "post-1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs"); n != 1 {
		t.Fatalf("two enqueues of one subject left %d jobs, want 1", n)
	}
	ja := claim(t, a, nil)
	if ja == nil || ja.Subject != "post-1" || ja.Attempt != 1 {
		t.Fatalf("claim = %+v, want post-1, attempt 1", ja)
	}
	steps := []struct {
		name  string
		alive []string
		after time.Duration
		want  bool
	}{
		{"a live owner's claim is not taken", []string{"a", "b"}, 0, false},
		{"pending only: no takeover", nil, 0, false},
		{"a dead owner's claim is taken over", []string{"b"}, 0, true},
	}
	for _, s := range steps {
		now = now.Add(s.after)
		if got := claim(t, b, s.alive) != nil; got != s.want {
			t.Fatalf("%s: claimed = %v, want %v", s.name, got, s.want)
		}
	}
	// The dead owner's late finish must not delete the new claim.
	if err := a.Done(ctx, ja); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs WHERE state = 'running' AND claimed_by = 'b'"); n != 1 {
		t.Fatalf("the first owner's Done removed the job taken over (%d left)", n)
	}

	// A claim past its deadline is taken over even when its owner looks alive.
	now = now.Add(2 * time.Minute)
	jb := claim(t, a, []string{"a", "b"})
	if jb == nil || jb.Attempt != 3 {
		t.Fatalf("after the deadline: claim = %+v, want attempt 3", jb)
	}
	// The third claim is the last: once lost, the job is given up.
	now = now.Add(2 * time.Minute)
	if j := claim(t, b, []string{"a", "b"}); j != nil {
		t.Fatalf("a job past %d attempts was claimed again: %+v", sqlstore.JobAttempts, j)
	}
	if n, err := b.Prune(ctx, []string{"a", "b"}); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want the exhausted job marked failed", n, err)
	}
	now = now.Add(25 * time.Hour)
	if _, err := b.Prune(ctx, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs"); n != 0 {
		t.Fatalf("a failed job a day old is still there (%d rows)", n)
	}
}

func TestJobDoneAndReleased(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	q := jobQueue(db, "a", &now)
	tests := []struct {
		name     string
		finish   func(j *sqlstore.Job) error
		requeued bool // the subject is saved again while the job runs
		want     int  // pending jobs afterwards
	}{
		{"done deletes the job", func(j *sqlstore.Job) error { return q.Done(ctx, j) }, false, 0},
		{"done leaves a newer pending job", func(j *sqlstore.Job) error { return q.Done(ctx, j) }, true, 1},
		{"released, it is pending again", func(j *sqlstore.Job) error { return q.Release(ctx, j) }, false, 1},
		{"released beside a newer pending job, it goes", func(j *sqlstore.Job) error { return q.Release(ctx, j) }, true, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subject := fmt.Sprintf("post-%d", i)
			if err := q.Enqueue(ctx, subject); err != nil {
				t.Fatal(err)
			}
			j := claim(t, q, nil)
			if tt.requeued {
				if err := q.Enqueue(ctx, subject); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.finish(j); err != nil {
				t.Fatal(err)
			}
			if n := count(t, db, "SELECT COUNT(*) FROM jobs WHERE subject = $1 AND state = 'pending' AND attempts = 0", subject); n != tt.want {
				t.Fatalf("%d pending jobs, want %d", n, tt.want)
			}
			if n := count(t, db, "SELECT COUNT(*) FROM jobs WHERE subject = $1", subject); n != tt.want {
				t.Fatalf("%d jobs in all, want %d", n, tt.want)
			}
			// Leave the queue empty for the next case.
			for j := claim(t, q, nil); j != nil; j = claim(t, q, nil) {
				if err := q.Done(ctx, j); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestJobClaimRaceGivesEachJobOneOwner(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	// Two handles on one database, as two processes.
	dbs := []*sqlstore.DB{cfg.Open(t), cfg.Open(t)}
	ctx := context.Background()
	const jobs = 40
	for i := range jobs {
		if err := sqlstore.NewJobs(dbs[0], "test", "x", time.Minute).Enqueue(ctx, fmt.Sprint("s", i)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	owners := map[string]int{}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := sqlstore.NewJobs(dbs[w%2], "test", fmt.Sprint("w", w), time.Minute)
			for {
				j, err := q.Claim(ctx, []string{"w0", "w1", "w2", "w3", "w4", "w5"})
				if err != nil {
					t.Error(err)
					return
				}
				if j == nil {
					return
				}
				mu.Lock()
				owners[j.Subject]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(owners) != jobs {
		t.Fatalf("%d of %d jobs claimed", len(owners), jobs)
	}
	for s, n := range owners {
		if n != 1 {
			t.Fatalf("job %s claimed %d times", s, n)
		}
	}
}

func TestJobWaitsForItsTimeAndARetryCountsItsTries(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	q := jobQueue(db, "a", &now)
	if err := q.EnqueueAt(ctx, "later", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if j := claim(t, q, nil); j != nil {
		t.Fatalf("a job due in a minute was claimed at once: %+v", j)
	}
	now = now.Add(time.Minute)
	j := claim(t, q, nil)
	if j == nil || j.Subject != "later" || j.Tries != 0 {
		t.Fatalf("claim at its time = %+v, want later with 0 tries", j)
	}
	for try := 1; try <= 2; try++ {
		if err := q.Retry(ctx, j, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := claim(t, q, nil); got != nil {
			t.Fatalf("retry %d was claimed before its time: %+v", try, got)
		}
		now = now.Add(time.Hour)
		if j = claim(t, q, nil); j == nil || j.Tries != try || j.Attempt != 1 {
			t.Fatalf("retry %d claimed as %+v, want tries %d and a fresh attempt 1", try, j, try)
		}
	}
	// A retry of a job whose subject was queued again meanwhile gives way
	// to the newer one.
	if err := q.Enqueue(ctx, "later"); err != nil {
		t.Fatal(err)
	}
	if err := q.Retry(ctx, j, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs"); n != 1 {
		t.Fatalf("a retry beside a newer pending job left %d jobs, want 1", n)
	}
}

func TestJobsEnqueuedInBatchesSkipThePendingOnes(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	q := jobQueue(db, "a", &now)
	if err := q.Enqueue(ctx, "s-0"); err != nil {
		t.Fatal(err)
	}
	// More than one statement's worth, one already pending, one twice.
	subjects := []string{"s-1"}
	for i := range 1200 {
		subjects = append(subjects, fmt.Sprintf("s-%d", i))
	}
	err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return q.EnqueueAll(ctx, tx, subjects) })
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs WHERE kind = 'test' AND state = 'pending'"); n != 1200 {
		t.Fatalf("%d pending jobs, want 1200", n)
	}
	if j := claim(t, q, nil); j == nil || j.Subject != "s-0" {
		t.Fatalf("first claim = %+v, want the job queued first", j)
	}
	if err := q.EnqueueAll(ctx, db, nil); err != nil {
		t.Fatalf("nothing to queue: %v", err)
	}
}

func TestClaimExceptLeavesThePendingJobsOfTheSubjectsNamed(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	a, b := jobQueue(db, "a", &now), jobQueue(db, "b", &now)
	subjects := []string{"act-1 http://busy.example/inbox", "act-1 http://x_y.example/inbox", "act-1 http://free.example/inbox"}
	if err := a.EnqueueAll(ctx, db, subjects); err != nil {
		t.Fatal(err)
	}
	except := []string{"://busy.example/", "://x%y.example/"}
	j, err := a.ClaimExcept(ctx, nil, except)
	if err != nil {
		t.Fatal(err)
	}
	// "%" is no wildcard: x_y is claimed, busy is not.
	if j == nil || j.Subject != subjects[1] {
		t.Fatalf("claimed %+v, want %s", j, subjects[1])
	}
	if j, err = a.ClaimExcept(ctx, nil, except); err != nil || j == nil || j.Subject != subjects[2] {
		t.Fatalf("claimed %+v, %v, want %s", j, err, subjects[2])
	}
	if j, err = a.ClaimExcept(ctx, nil, except); err != nil || j != nil {
		t.Fatalf("claimed %+v, %v, want none: the rest is excepted", j, err)
	}
	// A's claims are taken over by b when a is dead, whatever except says.
	if j, err = b.ClaimExcept(ctx, []string{"b"}, []string{"example/"}); err != nil || j == nil || j.Subject == subjects[0] {
		t.Fatalf("takeover: %+v, %v, want one of a's claims", j, err)
	}
	if j := claim(t, a, nil); j == nil || j.Subject != subjects[0] {
		t.Fatalf("Claim without except: %+v, want %s", j, subjects[0])
	}
}
