package blog

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"folio/blog/ai"
	"folio/sqlstore"
)

// The background AI work: few workers, since each job mostly waits on the
// provider, and a backlog large enough for a bulk import's burst.
const (
	aiWorkers   = 2
	aiQueueSize = 64
	// aiCloseGrace is how long Close still waits, once it has cancelled
	// the running jobs, for them to return, so that none touches the
	// database after the caller closes it.
	aiCloseGrace = 5 * time.Second
	// aiExistingTags bounds the existing tag names offered to the model.
	aiExistingTags = 200
)

// aiJobs runs the summary and tag jobs queued after posts are saved.
type aiJobs struct {
	queue   *ai.Queue
	http    *http.Client // nil: the ai package's default client
	logger  *slog.Logger
	metrics AIMetrics // nil: none

	// pending holds the posts with a job waiting in the queue: saving a
	// post again before its job starts adds no second job, since the job
	// reads the post as it is when it runs.
	mu      sync.Mutex
	pending map[string]bool
}

func newAIJobs(hc *http.Client, logger *slog.Logger) *aiJobs {
	return &aiJobs{
		queue:   ai.NewQueue(aiWorkers, aiQueueSize, logger),
		http:    hc,
		logger:  logger,
		pending: map[string]bool{},
	}
}

// submit queues run for the post unless a job for it is already waiting.
// It never blocks.
func (j *aiJobs) submit(postID string, run func(ctx context.Context, postID string)) {
	j.mu.Lock()
	if j.pending[postID] {
		j.mu.Unlock()
		return
	}
	j.pending[postID] = true
	j.mu.Unlock()
	ok := j.queue.Submit(func(ctx context.Context) {
		j.done(postID)
		run(ctx, postID)
	})
	if !ok {
		j.done(postID)
		j.logger.Warn("ai: post left without a generated summary or tags", "post_id", postID)
	}
}

func (j *aiJobs) done(postID string) {
	j.mu.Lock()
	delete(j.pending, postID)
	j.mu.Unlock()
}

// close stops the queue, waiting for its jobs until ctx ends; then it
// cancels them and waits a short grace for them to return.
func (j *aiJobs) close(ctx context.Context) error {
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
	b.ai.submit(postID, b.runAIJob)
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
