package ai

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds or a generous limit passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func closeQueue(t *testing.T, q *Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestQueueSubmitFailsWhenFull(t *testing.T) {
	logger, logs := testLogger()
	q := NewQueue(1, 2, logger)
	release := make(chan struct{})
	started := make(chan struct{})
	var ran atomic.Int32
	if !q.Submit(func(context.Context) { close(started); <-release; ran.Add(1) }) {
		t.Fatal("first Submit refused")
	}
	<-started // the only worker is busy; the backlog is empty
	for i := range 2 {
		if !q.Submit(func(context.Context) { ran.Add(1) }) {
			t.Fatalf("Submit %d refused with room in the backlog", i+2)
		}
	}
	if q.Submit(func(context.Context) { ran.Add(1) }) {
		t.Fatal("Submit accepted a job beyond workers + capacity")
	}
	if !strings.Contains(logs.String(), "queue is full") {
		t.Errorf("no warning logged for the dropped job; logs: %s", logs)
	}
	close(release)
	closeQueue(t, q)
	if n := ran.Load(); n != 3 {
		t.Errorf("jobs run = %d, want the 3 accepted", n)
	}
}

func TestQueueCloseWaitsForRunningAndQueuedJobs(t *testing.T) {
	q := NewQueue(2, 10, nil)
	var done atomic.Int32
	for range 6 {
		q.Submit(func(ctx context.Context) {
			select {
			case <-time.After(50 * time.Millisecond):
				done.Add(1)
			case <-ctx.Done():
			}
		})
	}
	closeQueue(t, q)
	if n := done.Load(); n != 6 {
		t.Errorf("Close returned with %d of 6 jobs finished", n)
	}
	if q.Submit(func(context.Context) {}) {
		t.Error("Submit accepted a job after Close")
	}
}

func TestQueueCloseDeadlineCancelsJobs(t *testing.T) {
	q := NewQueue(1, 5, nil)
	started := make(chan struct{})
	jobErr := make(chan error, 1)
	var skippedRan atomic.Bool
	q.Submit(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		jobErr <- ctx.Err()
	})
	q.Submit(func(context.Context) { skippedRan.Store(true) })
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := q.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want DeadlineExceeded", err)
	}
	select {
	case err := <-jobErr:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("running job saw %v, want Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("running job was not cancelled")
	}
	// Once cancelled the queue skips what had not started.
	closeQueue(t, q)
	if skippedRan.Load() {
		t.Error("a job still waiting at the deadline was run")
	}
}

func TestQueueJobsHaveATimeout(t *testing.T) {
	q := NewQueueTimeout(1, 1, 50*time.Millisecond, nil)
	got := make(chan error, 1)
	q.Submit(func(ctx context.Context) {
		if _, ok := ctx.Deadline(); !ok {
			got <- errors.New("job context has no deadline")
			return
		}
		<-ctx.Done()
		got <- ctx.Err()
	})
	select {
	case err := <-got:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("job ended with %v, want DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("job timeout never fired")
	}
	closeQueue(t, q)
}

func TestQueueSurvivesAPanickingJob(t *testing.T) {
	logger, logs := testLogger()
	q := NewQueue(1, 2, logger)
	var after atomic.Bool
	q.Submit(func(context.Context) { panic("boom") })
	q.Submit(func(context.Context) { after.Store(true) })
	closeQueue(t, q)
	if !after.Load() {
		t.Error("the job after a panic did not run")
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged; logs: %s", logs)
	}
}

func TestQueueLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		q := NewQueueTimeout(4, 8, time.Second, nil)
		for range 20 {
			q.Submit(func(ctx context.Context) {
				select {
				case <-time.After(time.Millisecond):
				case <-ctx.Done():
				}
			})
		}
		closeQueue(t, q)
	}
	// Also after a Close that hit its deadline, once the jobs have given up.
	q := NewQueue(2, 2, nil)
	q.Submit(func(ctx context.Context) { <-ctx.Done() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_ = q.Close(ctx)
	waitFor(t, "goroutines to return to the baseline", func() bool { return runtime.NumGoroutine() <= before })
}
