package ai

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// DefaultJobTimeout bounds one queued job: a summary and tags, each with its
// retries, fit well inside it.
const DefaultJobTimeout = 2 * time.Minute

// Queue runs background jobs on a fixed number of workers with a bounded
// backlog. Submitting never blocks: when the backlog is full the job is
// dropped, so a slow provider can delay AI results but never the requests
// that asked for them.
type Queue struct {
	jobs       chan func(context.Context)
	jobTimeout time.Duration
	logger     *slog.Logger

	// base is the parent of every job's context; Close cancels it when its
	// own deadline passes, so running jobs give up.
	base   context.Context
	cancel context.CancelFunc

	mu     sync.RWMutex // guards closed against a Submit racing close(jobs)
	closed bool
	wg     sync.WaitGroup
}

// NewQueue starts workers goroutines with room for capacity waiting jobs,
// each job bounded by DefaultJobTimeout. A nil logger means slog.Default().
func NewQueue(workers, capacity int, logger *slog.Logger) *Queue {
	return NewQueueTimeout(workers, capacity, DefaultJobTimeout, logger)
}

// NewQueueTimeout is NewQueue with the per-job timeout given.
func NewQueueTimeout(workers, capacity int, jobTimeout time.Duration, logger *slog.Logger) *Queue {
	workers = max(workers, 1)
	capacity = max(capacity, 0)
	if jobTimeout <= 0 {
		jobTimeout = DefaultJobTimeout
	}
	if logger == nil {
		logger = slog.Default()
	}
	base, cancel := context.WithCancel(context.Background())
	q := &Queue{
		jobs:       make(chan func(context.Context), capacity),
		jobTimeout: jobTimeout,
		logger:     logger,
		base:       base,
		cancel:     cancel,
	}
	q.wg.Add(workers)
	for range workers {
		go q.work()
	}
	return q
}

// Submit queues job without blocking. It returns false, and logs a warning,
// when the queue is full or closed.
func (q *Queue) Submit(job func(ctx context.Context)) bool {
	if job == nil {
		return false
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		q.logger.Warn("ai: background job dropped: queue is closed")
		return false
	}
	select {
	case q.jobs <- job:
		return true
	default:
		q.logger.Warn("ai: background job dropped: queue is full", "capacity", cap(q.jobs))
		return false
	}
}

// Close stops accepting jobs and waits for the queued and running ones to
// finish. When ctx ends first, the jobs' contexts are cancelled, jobs not
// yet started are skipped, and ctx's error is returned; a job that ignores
// its context cannot be stopped and keeps its worker until it returns.
func (q *Queue) Close(ctx context.Context) error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.jobs)
	}
	q.mu.Unlock()

	done := make(chan struct{})
	go func() {
		q.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		q.cancel()
		return nil
	case <-ctx.Done():
		q.cancel()
		return ctx.Err()
	}
}

func (q *Queue) work() {
	defer q.wg.Done()
	for job := range q.jobs {
		if q.base.Err() != nil {
			q.logger.Warn("ai: background job skipped: queue shut down")
			continue
		}
		q.run(job)
	}
}

func (q *Queue) run(job func(context.Context)) {
	ctx, cancel := context.WithTimeout(q.base, q.jobTimeout)
	defer cancel()
	// A bug in one job must not take the server down with it.
	defer func() {
		if r := recover(); r != nil {
			q.logger.Error("ai: background job panicked", "panic", r)
		}
	}()
	job(ctx)
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		q.logger.Warn("ai: background job ran out of time", "timeout", q.jobTimeout)
	}
}
