package filehost

import (
	"context"
	"errors"
	"time"

	"folio/sqlstore"
)

// The background making of an upload's thumbnail and first variants
// (docs/filehost.md#sizes): a job per new object, a row of sqlstore.Jobs,
// so any process may run it, once, and one that dies leaves it to another
// (docs/design.md#background-work).
const (
	imageJobKind = "filehost.images"
	// imageClaimFor is how long a claim holds: far past what decoding the
	// largest image takes while waiting for the pixel budget.
	imageClaimFor = 10 * time.Minute
	// imagePruneEvery sweeps (sqlstore.JobWaiter), the exhausted and old
	// failed jobs are pruned.
	imagePruneEvery = 20
)

// imageJobs is the queue and the wake-up of this process's worker.
type imageJobs struct {
	jobs *sqlstore.Jobs
	wake chan struct{}
}

func newImageJobs(db *sqlstore.DB, instance string) *imageJobs {
	return &imageJobs{jobs: sqlstore.NewJobs(db, imageJobKind, instance, imageClaimFor), wake: make(chan struct{}, 1)}
}

// queueImages queues the making of an object's thumbnail and pregenWidths
// variants when it is an image they can be made of; an upload (form, tus,
// import) calls it once it stored a new object. A failure is logged: the
// first requests make them instead.
func (s *Service) queueImages(ctx context.Context, objectID string) {
	ctx = context.WithoutCancel(ctx) // the object is stored: queue it even if the client left
	_, mimetype, width, height, err := s.imageSource(ctx, objectID)
	if err == nil && !canThumbnail(mimetype, width, height) {
		return
	}
	if err == nil {
		err = s.images.jobs.Enqueue(ctx, objectID)
	}
	if err != nil {
		s.log.Warn("queue the making of an image's sizes", "object", objectID, "err", err)
		return
	}
	select {
	case s.images.wake <- struct{}{}:
	default:
	}
}

// RunImageJobs makes the queued thumbnails and variants, one image at a
// time (decoding is bounded by the pixel budget anyway), until ctx ends;
// a job it was running then goes back to the queue.
func (s *Service) RunImageJobs(ctx context.Context) {
	polls := 0
	// A process wakes its own worker at once when it queues a job; jobs
	// of other processes show through the queue's change counter or the
	// sweep (sqlstore.JobWaiter).
	w := sqlstore.NewJobWaiter(s.images.jobs, s.images.wake)
	for {
		sweep, ok := w.Wait(ctx)
		if !ok {
			return
		}
		var alive []string
		if sweep {
			alive = s.aliveInstances(ctx)
			if polls++; polls%imagePruneEvery == 1 {
				if _, err := s.images.jobs.Prune(ctx, alive); err != nil && ctx.Err() == nil {
					s.log.Warn("images: prune jobs", "err", err)
				}
			}
		}
		for {
			job, err := s.images.jobs.Claim(ctx, alive)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("images: claim a job", "err", err)
			}
			if job == nil {
				break
			}
			w.Found()
			s.runImageJob(ctx, job)
		}
	}
}

// aliveInstances lists the live processes, whose claims stand.
func (s *Service) aliveInstances(ctx context.Context) []string {
	live, err := s.instances.Live(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("images: instance registry", "err", err)
		}
		return []string{}
	}
	return live.AliveIDs()
}

// runImageJob runs one claimed job and settles its row: done (a failure
// is logged; the first request tries again), or handed back when shutdown
// cancelled it.
func (s *Service) runImageJob(ctx context.Context, job *sqlstore.Job) {
	err := s.makeImages(ctx, job.Subject)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("images: make sizes", "object", job.Subject, "err", err)
	}
	settle := s.images.jobs.Done
	if ctx.Err() != nil {
		settle = s.images.jobs.Release
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := settle(sctx, job); err != nil {
		s.log.Warn("images: settle job", "object", job.Subject, "err", err)
	}
}

// makeImages makes an object's thumbnail and its pregenWidths variants
// narrower than it, each unless stored, sharing the makings of
// requests that ask at the same time.
func (s *Service) makeImages(ctx context.Context, objectID string) error {
	key, mimetype, width, height, err := s.imageSource(ctx, objectID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	isJPEG := thumbJPEG(mimetype)
	thumb := thumbKey(objectID, isJPEG)
	if _, err := s.store.Stat(ctx, thumb); err != nil {
		err = s.thumbs.once(ctx, thumb, func() error { return s.makeThumb(ctx, objectID, key, thumb, mimetype, isJPEG) })
		if errors.Is(err, errNoThumb) {
			return nil // nothing can be made of it
		}
		if err != nil {
			return err
		}
	}
	for _, n := range pregenWidths {
		if n >= max(width, height) {
			break
		}
		err := s.ensureVariant(ctx, objectID, key, mimetype, n)
		if errors.Is(err, errServeOriginal) || errors.Is(err, errNoThumb) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}
