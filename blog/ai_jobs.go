package blog

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"folio/blog/ai"
	"folio/sqlstore"
)

// The background AI work: few workers, since each job mostly waits on the
// provider. Jobs are rows (sqlstore.Jobs), so they survive the process that
// queued them (docs/design.md#background-work).
const (
	aiWorkers = 2
	aiJobKind = "blog.ai"
	// aiClaimFor is how long a claim holds: past the job's time limit, so
	// a live worker never loses its job to the deadline.
	aiClaimFor = ai.DefaultJobTimeout + time.Minute
	// aiPruneEvery sweeps (sqlstore.JobWaiter), the exhausted and old
	// failed jobs are pruned.
	aiPruneEvery = 20
	// aiCloseGrace is how long Close still waits, once it has cancelled
	// the running jobs, for them to return, so that none touches the
	// database after the caller closes it.
	aiCloseGrace = 5 * time.Second
	// aiExistingTags bounds the existing tag names offered to the model.
	aiExistingTags = 200
)

// aiJobs runs the summary and tag jobs queued after posts are saved. A
// dispatcher claims a job whenever one of the queue's workers is free; it
// looks when this process queued a job (wake), when the queue's change
// counter says another did, and at the waiter's sweeps, which stop while
// the AI integration is off.
type aiJobs struct {
	queue     *ai.Queue
	jobs      *sqlstore.Jobs
	instances *sqlstore.Instances // nil: no registry, take over by deadline only
	http      *http.Client        // nil: the ai package's default client
	logger    *slog.Logger
	metrics   AIMetrics // nil: none

	wake   chan struct{}
	waiter *sqlstore.JobWaiter
	slots  chan struct{} // one per busy worker
	stop   context.CancelFunc
	done   chan struct{} // closed when the dispatcher returns; nil: none runs
}

func newAIJobs(d Deps) *aiJobs {
	instance := d.Instance
	if instance == "" {
		instance = sqlstore.NewID()
	}
	j := &aiJobs{
		jobs:      sqlstore.NewJobs(d.DB, aiJobKind, instance, aiClaimFor),
		instances: d.Instances,
		http:      d.AIHTTPClient,
		logger:    d.Logger,
		metrics:   d.AIMetrics,
		wake:      make(chan struct{}, 1),
	}
	j.waiter = sqlstore.NewJobWaiter(j.jobs, j.wake)
	// The jobs keep real time, not d.Now: a claim's deadline bounds how
	// long a job really runs.
	return j
}

// start runs the workers and their dispatcher until close.
func (j *aiJobs) start(run func(ctx context.Context, postID string)) {
	j.queue = ai.NewQueue(aiWorkers, aiWorkers, j.logger)
	j.slots = make(chan struct{}, aiWorkers)
	ctx, stop := context.WithCancel(context.Background())
	j.stop, j.done = stop, make(chan struct{})
	go func() {
		defer close(j.done)
		j.dispatch(ctx, run)
	}()
}

// submit queues a job for the post; a job for it that has not started yet
// makes this a no-op, since a job reads the post as it is when it runs.
// It wakes this process's workers, never waiting for them.
func (j *aiJobs) submit(ctx context.Context, postID string) {
	if err := j.jobs.Enqueue(ctx, postID); err != nil {
		j.logger.Warn("ai: post left without a generated summary or tags", "post_id", postID, "err", err)
		return
	}
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// dispatch claims jobs while a worker is free. A wake claims only pending
// jobs (no registry read); a poll also takes over the jobs of dead
// processes and lapsed claims, and now and then prunes.
func (j *aiJobs) dispatch(ctx context.Context, run func(ctx context.Context, postID string)) {
	polls := 0
	for {
		sweep, ok := j.waiter.Wait(ctx)
		if !ok {
			return
		}
		var alive []string
		if sweep {
			alive = j.alive(ctx)
			if polls++; polls%aiPruneEvery == 1 {
				if n, err := j.jobs.Prune(ctx, alive); err != nil && ctx.Err() == nil {
					j.logger.Warn("ai: prune jobs", "err", err)
				} else if n > 0 {
					j.logger.Warn("ai: jobs given up after repeated lost claims", "jobs", n, "attempts", sqlstore.JobAttempts)
				}
			}
		}
		for {
			select {
			case j.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			job, err := j.jobs.Claim(ctx, alive)
			if err != nil && ctx.Err() == nil {
				j.logger.Warn("ai: claim a job", "err", err)
			}
			if job == nil {
				<-j.slots
				break
			}
			j.waiter.Found()
			j.queue.Submit(func(jctx context.Context) {
				defer func() { <-j.slots }()
				j.runJob(jctx, job, run)
			})
		}
	}
}

// alive lists the live processes, so that a poll may take over the jobs
// of the others; without a registry, claims lapse by deadline only.
func (j *aiJobs) alive(ctx context.Context) []string {
	if j.instances == nil {
		return []string{}
	}
	live, err := j.instances.Live(ctx)
	if err != nil {
		if ctx.Err() == nil {
			j.logger.Warn("ai: instance registry", "err", err)
		}
		return []string{}
	}
	return live.AliveIDs()
}

// runJob runs one claimed job and settles its row: done, or handed back
// when shutdown cancelled it, so another process runs it at once.
func (j *aiJobs) runJob(ctx context.Context, job *sqlstore.Job, run func(ctx context.Context, postID string)) {
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), aiCloseGrace)
		defer cancel()
		settle := j.jobs.Done
		if errors.Is(ctx.Err(), context.Canceled) {
			settle = j.jobs.Release
		}
		if err := settle(sctx, job); err != nil {
			j.logger.Warn("ai: settle job", "post_id", job.Subject, "err", err)
		}
	}()
	run(ctx, job.Subject)
}

// close stops claiming, then stops the queue, waiting for its jobs until
// ctx ends; then it cancels them and waits a short grace for them to
// return. Jobs not yet claimed stay queued in the database.
func (j *aiJobs) close(ctx context.Context) error {
	if j.done == nil {
		return nil
	}
	j.stop()
	<-j.done
	err := j.queue.Close(ctx)
	if err == nil {
		return nil
	}
	grace, cancel := context.WithTimeout(context.Background(), aiCloseGrace)
	defer cancel()
	if gerr := j.queue.Close(grace); gerr != nil {
		j.logger.Warn("ai: background jobs still running after cancellation", "grace", aiCloseGrace)
	}
	return err
}

// enqueueAI queues the AI job of a post that was just saved, when the
// settings ask for automatic work. A slow or absent provider delays only
// the job, never the caller.
func (b *Blog) enqueueAI(postID string) {
	s := b.settings.Get(context.Background()).AI
	if !s.Enabled || (!s.AutoSummary && !s.AutoTag) {
		return
	}
	b.ai.submit(context.Background(), postID)
}

// runAIJob generates the summary and the tags of one post. It works on the
// post and the settings as they are when it runs, not when it was queued.
// Its writes (setGeneratedSummary, attachTags) do not call postSaved, so a
// job never queues another.
//
// The summary is generated only while the post's summary is the derived
// one ('auto'): savePost turns an AI summary back into 'auto' when the
// content changes, so an 'ai' summary is still current and saving the post
// for another reason does not ask again. Tags are suggested only for a post
// without tags, so that repeated saves do not keep adding more.
func (b *Blog) runAIJob(ctx context.Context, postID string) {
	s := b.settings.Get(ctx)
	if !s.AI.Enabled || (!s.AI.AutoSummary && !s.AI.AutoTag) {
		return
	}
	log := b.logger.With("post_id", postID)
	p, err := b.postBy(ctx, "id", postID, false)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return // deleted meanwhile
	}
	if err != nil {
		log.Error("ai: load post", "err", err)
		return
	}
	wantSummary := s.AI.AutoSummary && p.SummarySource == summaryAuto
	wantTags := s.AI.AutoTag && len(p.Tags) == 0
	if !wantSummary && !wantTags {
		return
	}
	c, err := ai.NewFromSettings(s.AI, b.ai.http)
	if err != nil {
		// The message names the setting at fault, never the key.
		log.Warn("ai: background job not run", "err", err)
		return
	}
	log = log.With("provider", c.Provider(), "model", c.Model())
	if wantSummary {
		b.generateSummary(ctx, log, c, p, s.Post.SummaryLength)
	}
	if wantTags {
		b.generateTags(ctx, log, c, p)
	}
}

// generateSummary stores a generated summary of p unless the post changed
// while the provider was working: then the save that changed it has queued
// a job of its own, and this summary describes an older text.
func (b *Blog) generateSummary(ctx context.Context, log *slog.Logger, c *ai.Client, p *Post, length int) {
	summary, err := b.ai.summarize(ctx, c, p.Title, p.ContentMarkdown, length)
	if err != nil {
		log.Warn("ai: summary not generated", "err", err)
		return
	}
	cur, err := b.postBy(ctx, "id", p.ID, false)
	if err != nil {
		if !errors.Is(err, sqlstore.ErrNotFound) {
			log.Error("ai: reload post", "err", err)
		}
		return
	}
	if cur.SummarySource != summaryAuto || cur.Title != p.Title || cur.ContentMarkdown != p.ContentMarkdown {
		log.Info("ai: generated summary dropped: the post changed meanwhile")
		return
	}
	// setGeneratedSummary itself refuses to replace a hand-written summary,
	// which closes the gap between the check above and this write.
	if err := b.setGeneratedSummary(ctx, p.ID, summary); err != nil {
		log.Error("ai: store summary", "err", err)
		return
	}
	b.markSiteChanged(ctx)
	log.Info("ai: summary generated")
}

// generateTags attaches suggested tags to p unless it was tagged meanwhile.
func (b *Blog) generateTags(ctx context.Context, log *slog.Logger, c *ai.Client, p *Post) {
	existing, err := b.tagNames(ctx)
	if err != nil {
		log.Error("ai: list tags", "err", err)
		return
	}
	names, err := b.ai.suggestTags(ctx, c, p.Title, p.ContentMarkdown, existing)
	if err != nil {
		log.Warn("ai: tags not suggested", "err", err)
		return
	}
	cur, err := b.postBy(ctx, "id", p.ID, false)
	if err != nil {
		if !errors.Is(err, sqlstore.ErrNotFound) {
			log.Error("ai: reload post", "err", err)
		}
		return
	}
	if len(cur.Tags) > 0 {
		log.Info("ai: suggested tags dropped: the post was tagged meanwhile")
		return
	}
	if err := b.attachTags(ctx, p.ID, names); err != nil {
		log.Error("ai: attach tags", "err", err)
		return
	}
	b.markSiteChanged(ctx)
	log.Info("ai: tags attached", "tags", names)
}

// tagNames lists the live tags' names, oldest first, for the model to reuse.
func (b *Blog) tagNames(ctx context.Context) ([]string, error) {
	terms, _, err := b.listTerms(ctx, tags, "", span{limit: aiExistingTags})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(terms))
	for i, t := range terms {
		names[i] = t.Name
	}
	return names, nil
}

// summarize asks c for a summary, telling the metrics.
func (j *aiJobs) summarize(ctx context.Context, c *ai.Client, title, markdown string, length int) (string, error) {
	start := time.Now()
	s, err := c.Summarize(ctx, title, markdown, length)
	if j.metrics != nil {
		j.metrics.AICall("summary", err != nil, time.Since(start))
	}
	return s, err
}

// suggestTags asks c for tags, telling the metrics.
func (j *aiJobs) suggestTags(ctx context.Context, c *ai.Client, title, markdown string, existing []string) ([]string, error) {
	start := time.Now()
	names, err := c.SuggestTags(ctx, title, markdown, existing, maxAutoTags)
	if j.metrics != nil {
		j.metrics.AICall("tags", err != nil, time.Since(start))
	}
	return names, err
}
