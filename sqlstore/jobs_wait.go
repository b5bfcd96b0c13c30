package sqlstore

import (
	"context"
	"time"
)

// How an idle dispatcher looks for work (docs/design.md#background-work).
// A dispatcher whose queue is empty sends no query until something says
// there is work: its own process's wake-up, the queue's change counter
// (every Enqueue of every process sharing the counters bumps it), the
// run_after of a job this process put off, or the sweep. The sweep is the
// one query an idle queue still sends, for what no counter announces:
// jobs queued by a process that does not share the counters (PostgreSQL
// on another machine), claims of dead processes to take over, and pruning.
// It backs off while it finds nothing, and runs not at all while the
// queue's feature is off.
const (
	// JobCheckEvery is how often an idle dispatcher loads the counter: an
	// atomic load, no query. It bounds how late a job queued by another
	// process sharing the counters starts.
	JobCheckEvery = 2 * time.Second
	// JobSweepFirst is the sweep's interval after work was found; it
	// doubles with each sweep that finds none, up to JobSweepMax.
	JobSweepFirst = 3 * time.Second
	// JobSweepMax bounds how late a job queued by a process that does not
	// share the counters starts, and how late a dead process's claim is
	// taken over, once the registry shows it dead.
	JobSweepMax = 30 * time.Second
)

// JobWaiter is the idle half of a queue's dispatcher: Wait blocks until
// the dispatcher should claim again.
type JobWaiter struct {
	q *Jobs
	// Wake is this process's wake-up, sent to after it queued a job.
	Wake <-chan struct{}
	// Enabled, when not nil, tells whether the queue's feature is on; while
	// it is off no sweep runs. Jobs announced by a counter, a wake or a
	// due time are still claimed.
	Enabled func(context.Context) bool
	// Tick, when not nil, replaces the JobCheckEvery ticker (tests).
	Tick <-chan time.Time
	// Clock is the sweep's clock (tests); nil: time.Now.
	Clock func() time.Time

	started   bool
	seen      uint64        // the counter's value when last looked at
	every     time.Duration // the sweep's next interval
	nextSweep time.Time
}

// NewJobWaiter returns the waiter of q, woken by wake. Its first Wait asks
// for a sweep at once: the jobs a restart left.
func NewJobWaiter(q *Jobs, wake <-chan struct{}) *JobWaiter {
	return &JobWaiter{q: q, Wake: wake, seen: q.queued.Load(), every: JobSweepFirst}
}

// Found tells the waiter that a claim found work: the sweep starts again
// at its shortest interval.
func (w *JobWaiter) Found() {
	w.every = JobSweepFirst
	w.nextSweep = w.clock().Add(w.every)
}

// Wait blocks until the dispatcher should claim again, or ctx ends (ok
// false). sweep says whether this is a sweep: the claim then also takes
// over lapsed claims, and the dispatcher may prune. The first Wait is a
// sweep at once, for the jobs a restart left.
func (w *JobWaiter) Wait(ctx context.Context) (sweep, ok bool) {
	if !w.started {
		w.started = true
		w.sweepDone()
		return true, true
	}
	tick := w.Tick
	for {
		if ctx.Err() != nil {
			return false, false
		}
		if w.check() {
			return false, true
		}
		if !w.clock().Before(w.nextSweep) {
			on := w.enabled(ctx)
			w.sweepDone()
			if on {
				return true, true
			}
		}
		if tick == nil {
			t := time.NewTicker(JobCheckEvery)
			defer t.Stop()
			tick = t.C
		}
		select {
		case <-ctx.Done():
			return false, false
		case <-w.Wake:
			w.seen = w.q.queued.Load()
			return false, true
		case <-tick:
		}
	}
}

// check reports whether the counter moved or a put-off job came due,
// taking note of it.
func (w *JobWaiter) check() bool {
	if v := w.q.queued.Load(); v != w.seen {
		w.seen = v
		return true
	}
	if due := w.q.due.Load(); due != 0 && w.q.Now().UnixNano() >= due {
		w.q.due.CompareAndSwap(due, 0)
		return true
	}
	return false
}

// sweepDone schedules the next sweep, further off than the last; a sweep
// skipped because the feature is off counts too, so that the check of the
// setting (a query on PostgreSQL without shared counters) backs off alike.
func (w *JobWaiter) sweepDone() {
	w.nextSweep = w.clock().Add(w.every)
	w.every = min(2*w.every, JobSweepMax)
}

func (w *JobWaiter) enabled(ctx context.Context) bool {
	return w.Enabled == nil || w.Enabled(ctx)
}

func (w *JobWaiter) clock() time.Time {
	if w.Clock != nil {
		return w.Clock()
	}
	return time.Now()
}
