package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"folio/sqlstore"
)

// waitHarness drives a JobWaiter on a clock and ticker the test moves.
type waitHarness struct {
	t      *testing.T
	w      *sqlstore.JobWaiter
	q      *sqlstore.Jobs
	wake   chan struct{}
	tick   chan time.Time
	mu     sync.Mutex
	now    time.Time
	ctx    context.Context
	cancel context.CancelFunc
}

type waitResult struct{ sweep, ok bool }

func newWaitHarness(t *testing.T, db *sqlstore.DB, enabled func(context.Context) bool) *waitHarness {
	h := &waitHarness{t: t, wake: make(chan struct{}, 1), tick: make(chan time.Time),
		now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	h.q = sqlstore.NewJobs(db, "test", "a", time.Minute)
	h.q.Now = h.clock
	h.w = sqlstore.NewJobWaiter(h.q, h.wake)
	h.w.Tick, h.w.Clock, h.w.Enabled = h.tick, h.clock, enabled
	h.ctx, h.cancel = context.WithCancel(context.Background())
	t.Cleanup(h.cancel)
	// The first wait is the start-up sweep, at once.
	if sweep, ok := h.w.Wait(h.ctx); !sweep || !ok {
		t.Fatalf("first Wait = %v, %v; want the start-up sweep", sweep, ok)
	}
	return h
}

func (h *waitHarness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

func (h *waitHarness) advance(d time.Duration) {
	h.mu.Lock()
	h.now = h.now.Add(d)
	h.mu.Unlock()
}

// wait starts a Wait.
func (h *waitHarness) wait() <-chan waitResult {
	res := make(chan waitResult, 1)
	go func() {
		sweep, ok := h.w.Wait(h.ctx)
		res <- waitResult{sweep, ok}
	}()
	return res
}

// tickQuiet sends a tick and fails if the Wait returns instead. The send
// is taken only by a Wait back in its select, that is done with the tick
// before.
func (h *waitHarness) tickQuiet(res <-chan waitResult) {
	h.t.Helper()
	select {
	case h.tick <- h.clock():
	case r := <-res:
		h.t.Fatalf("Wait returned %+v while there was nothing to do", r)
	}
}

// tickUntilReturn ticks until the Wait returns, within a generous bound.
func (h *waitHarness) tickUntilReturn(res <-chan waitResult) waitResult {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case h.tick <- h.clock():
		case r := <-res:
			return r
		case <-deadline:
			h.t.Fatal("Wait did not return")
		}
	}
}

// finish cancels a Wait left waiting and checks that it says so.
func (h *waitHarness) finish(res <-chan waitResult) {
	h.t.Helper()
	h.cancel()
	if r := <-res; r.ok {
		h.t.Fatalf("Wait after cancel = %+v, want not ok", r)
	}
}

func TestJobWaiterOfAFeatureThatIsOffNeverAsksTheDatabase(t *testing.T) {
	h := newWaitHarness(t, openDB(t), func(context.Context) bool { return false })
	res := h.wait()
	for range 50 {
		h.advance(time.Hour) // every sweep long due
		h.tickQuiet(res)
	}
	h.finish(res)
}

func TestJobWaiterReturnsForAJobAnotherProcessQueued(t *testing.T) {
	db := openDB(t)
	h := newWaitHarness(t, db, func(context.Context) bool { return false })
	other := sqlstore.NewJobs(db, "test", "b", time.Minute)
	res := h.wait()
	h.tickQuiet(res)
	if err := other.Enqueue(context.Background(), "post-1"); err != nil {
		t.Fatal(err)
	}
	if r := h.tickUntilReturn(res); r != (waitResult{false, true}) {
		t.Fatalf("Wait = %+v, want a claim of pending jobs", r)
	}
	if j, err := h.q.Claim(context.Background(), nil); err != nil || j == nil || j.Subject != "post-1" {
		t.Fatalf("Claim = %+v, %v; want the job queued by the other process", j, err)
	}
}

func TestJobWaiterReturnsAtOnceWhenItsProcessWakesIt(t *testing.T) {
	h := newWaitHarness(t, openDB(t), nil)
	res := h.wait()
	if err := h.q.Enqueue(context.Background(), "post-1"); err != nil {
		t.Fatal(err)
	}
	h.wake <- struct{}{}
	select {
	case r := <-res:
		if r != (waitResult{false, true}) {
			t.Fatalf("Wait = %+v, want a claim of pending jobs", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return on its wake-up")
	}
}

func TestJobWaiterSweepsLessOftenWhileItFindsNothing(t *testing.T) {
	h := newWaitHarness(t, openDB(t), nil)
	want := sqlstore.JobSweepFirst
	for range 6 {
		res := h.wait()
		h.advance(want - time.Millisecond)
		h.tickQuiet(res)
		h.advance(time.Millisecond)
		if r := h.tickUntilReturn(res); r != (waitResult{true, true}) {
			t.Fatalf("Wait = %+v, want a sweep after %s", r, want)
		}
		want = min(2*want, sqlstore.JobSweepMax)
	}
	// Work found: the next sweep comes soon again.
	h.w.Found()
	res := h.wait()
	h.advance(sqlstore.JobSweepFirst)
	if r := h.tickUntilReturn(res); r != (waitResult{true, true}) {
		t.Fatalf("Wait = %+v, want a sweep %s after work was found", r, sqlstore.JobSweepFirst)
	}
}

func TestJobWaiterReturnsWhenAJobItPutOffComesDue(t *testing.T) {
	h := newWaitHarness(t, openDB(t), func(context.Context) bool { return false })
	if err := h.q.EnqueueAt(context.Background(), "post-1", h.clock().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The enqueue itself is announced; the claim finds nothing due yet.
	if r := h.tickUntilReturn(h.wait()); r != (waitResult{false, true}) {
		t.Fatalf("Wait = %+v, want a claim after the enqueue", r)
	}
	if j, err := h.q.Claim(context.Background(), nil); err != nil || j != nil {
		t.Fatalf("Claim = %+v, %v; want nothing before the job is due", j, err)
	}
	res := h.wait()
	h.advance(59 * time.Second)
	h.tickQuiet(res)
	h.advance(time.Second)
	if r := h.tickUntilReturn(res); r != (waitResult{false, true}) {
		t.Fatalf("Wait = %+v, want a claim once the job is due", r)
	}
	if j, err := h.q.Claim(context.Background(), nil); err != nil || j == nil {
		t.Fatalf("Claim = %+v, %v; want the job now due", j, err)
	}
}
