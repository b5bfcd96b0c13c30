package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"folio/blog/activitypub"
	"folio/httpx/outbound"
	"folio/sqlstore"
)

// Delivery (docs/federation.md#delivery): an outgoing activity is stored
// once (ap_activities) and delivered by jobs in the database
// (sqlstore.Jobs), which any process sharing it runs, each job once. A
// post's change queues a reconciliation job (blog.ap.post), which queues
// one fan-out job (blog.ap.fanout), which pages through the followers'
// distinct inboxes and queues one delivery job per inbox
// (blog.ap.deliver): whatever the number of followers, memory holds one
// page of them.
const (
	fedPostKind    = "blog.ap.post"
	fedFanoutKind  = "blog.ap.fanout"
	fedDeliverKind = "blog.ap.deliver"

	// Workers per process: deliveries mostly wait on other servers.
	fedDeliverWorkers = 8
	fedPostWorkers    = 2
	fedFanoutWorkers  = 1
	// fedPerHost bounds this process's deliveries to one host at once,
	// so that a slow server cannot hold every worker.
	fedPerHost = 2
	// fedHostBusyWait is how long a delivery to a host already at
	// fedPerHost waits before it is claimed again (one claimed just as
	// another worker took the host's last turn).
	fedHostBusyWait = 3 * time.Second
	// fedFanoutPage is how many inboxes a fan-out reads and queues at a
	// time.
	fedFanoutPage = 500
	// fedClaimFor is how long a claim holds: longer than one request
	// (fedTimeout) or one page of a fan-out takes.
	fedClaimFor = fedTimeout + 2*time.Minute
	// fedPruneEvery sweeps (sqlstore.JobWaiter), lost jobs are marked failed and old
	// activities pruned.
	fedPruneEvery = 100
	// fedGiveUpAfter is how long a delivery is retried, from its first
	// try; a host failing longer than that gets one try per activity.
	fedGiveUpAfter = 4 * 24 * time.Hour
	// fedKeepActivities is how long an activity is kept once no job reads
	// it (the latest Create or Update of a post is kept while the post
	// is federated).
	fedKeepActivities = 5 * 24 * time.Hour
	// fedCloseGrace is how long close waits for cancelled jobs.
	fedCloseGrace = 5 * time.Second
)

// fedRetryDelay is the wait before retry n (from 0) of a delivery: 1 min,
// 5 min, 30 min, 2 h, 6 h, 12 h, then every 24 h.
func fedRetryDelay(n int) time.Duration {
	switch n {
	case 0:
		return time.Minute
	case 1:
		return 5 * time.Minute
	case 2:
		return 30 * time.Minute
	case 3:
		return 2 * time.Hour
	case 4:
		return 6 * time.Hour
	case 5:
		return 12 * time.Hour
	}
	return 24 * time.Hour
}

// fedNextTry is when a delivery first tried at first and failed at now is
// tried again: the first step of the schedule (fedRetryDelay, counted
// from first) after now; ok is false once that falls past fedGiveUpAfter.
// The schedule counts from the first try, not from the tries made, so
// that a delivery put back because its host was busy loses nothing: about
// ten tries in four days.
func fedNextTry(first, now time.Time) (time.Time, bool) {
	at := first
	for n := 0; ; n++ {
		at = at.Add(fedRetryDelay(n))
		if at.Sub(first) > fedGiveUpAfter {
			return time.Time{}, false
		}
		if at.After(now) {
			return at, true
		}
	}
}

// fedWork runs the federation jobs of this process.
type fedWork struct {
	post, fanout, deliver *fedQueue
	instances             *sqlstore.Instances
	instance              string
	logger                *slog.Logger
	// clock is the jobs' clock: real time (a claim's deadline bounds how
	// long a job really runs); tests move it to reach retries.
	clock atomic.Pointer[func() time.Time]

	// pruneActivities deletes the activities no job reads, older than
	// its argument (Blog.pruneActivities).
	pruneActivities func(ctx context.Context, before time.Time) (int, error)

	mu    sync.Mutex
	hosts map[string]int // deliveries running per host

	stop context.CancelFunc
	done chan struct{} // the scan's; nil: none runs
}

func newFedWork(b *Blog, d Deps) *fedWork {
	instance := d.Instance
	if instance == "" {
		instance = sqlstore.NewID()
	}
	w := &fedWork{instances: d.Instances, instance: instance, logger: d.Logger, hosts: map[string]int{},
		pruneActivities: b.pruneActivities}
	w.setClock(time.Now)
	q := func(kind string, workers int, run func(context.Context, *sqlstore.Job) time.Time) *fedQueue {
		j := sqlstore.NewJobs(d.DB, kind, instance, fedClaimFor)
		j.Now = w.now
		fq := &fedQueue{work: w, jobs: j, workers: workers, run: run, wake: make(chan struct{}, 1)}
		fq.waiter = sqlstore.NewJobWaiter(j, fq.wake)
		fq.waiter.Enabled = func(ctx context.Context) bool { return b.fedSettings(ctx).Enabled }
		return fq
	}
	w.post = q(fedPostKind, fedPostWorkers, b.runFederatePost)
	w.fanout = q(fedFanoutKind, fedFanoutWorkers, b.runFanout)
	w.deliver = q(fedDeliverKind, fedDeliverWorkers, b.runDelivery)
	w.deliver.except = w.busyHosts
	w.deliver.hold = w.holdHost
	return w
}

// now is the jobs' time.
func (w *fedWork) now() time.Time { return (*w.clock.Load())() }

// setClock changes the jobs' clock, even while they run.
func (w *fedWork) setClock(now func() time.Time) { w.clock.Store(&now) }

// start runs the queues' dispatchers and the scan for posts whose time
// came (federation_articles.go).
func (w *fedWork) start(scan func(ctx context.Context)) {
	for _, q := range []*fedQueue{w.post, w.fanout, w.deliver} {
		q.start()
	}
	ctx, stop := context.WithCancel(context.Background())
	w.stop, w.done = stop, make(chan struct{})
	go func() {
		defer close(w.done)
		scan(ctx)
	}()
}

// close stops claiming and waits for running jobs until ctx ends, then
// cancels them (they are handed back) and waits a short grace.
func (w *fedWork) close(ctx context.Context) error {
	if w.done == nil {
		return nil
	}
	w.stop()
	<-w.done
	var errs []error
	for _, q := range []*fedQueue{w.post, w.fanout, w.deliver} {
		errs = append(errs, q.close(ctx))
	}
	return errors.Join(errs...)
}

// alive lists the live processes, so that a poll may take over the jobs
// of the others. Without a registry it is nil: no job is taken over,
// since another process's claim cannot be told from a dead one's and a
// delivery taken over from a live process would be sent twice.
func (w *fedWork) alive(ctx context.Context) []string {
	if w.instances == nil {
		return nil
	}
	live, err := w.instances.Live(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.logger.Warn("federation: instance registry", "err", err)
		}
		return []string{}
	}
	return live.AliveIDs()
}

// holdHost takes a turn of the host of a delivery job's subject
// ("{activity} {inbox}"); a subject without one runs (and is given up).
func (w *fedWork) holdHost(subject string) (func(), bool) {
	_, inbox, _ := strings.Cut(subject, " ")
	host := activitypub.Host(inbox)
	if host == "" {
		return func() {}, true
	}
	if !w.takeHost(host) {
		return nil, false
	}
	return func() { w.releaseHost(host) }, true
}

// takeHost counts a delivery to host, unless fedPerHost already run.
func (w *fedWork) takeHost(host string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hosts[host] >= fedPerHost {
		return false
	}
	w.hosts[host]++
	return true
}

// releaseHost ends a delivery to host; when the host was at its bound,
// the deliveries to it that claims left aside (busyHosts) may be claimed
// again: the dispatcher is woken.
func (w *fedWork) releaseHost(host string) {
	w.mu.Lock()
	full := w.hosts[host] >= fedPerHost
	if w.hosts[host]--; w.hosts[host] <= 0 {
		delete(w.hosts, host)
	}
	w.mu.Unlock()
	if full {
		w.deliver.notify()
	}
}

// busyHosts are the hosts at their bound, as parts of the delivery jobs'
// subjects ("{activity} {inbox}") that claims leave aside: a worker that
// claimed a job of such a host could only put it back, and the workers
// would go through a long run of one host's deliveries (the personal
// inboxes of a server without a shared inbox) doing nothing else.
func (w *fedWork) busyHosts() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var busy []string
	for h, n := range w.hosts {
		if n >= fedPerHost {
			busy = append(busy, "://"+h+"/")
		}
	}
	return busy
}

// fedQueue is one kind of federation job with its workers. run returns
// zero when the job is done, else when to run it again.
type fedQueue struct {
	work    *fedWork
	jobs    *sqlstore.Jobs
	workers int
	run     func(ctx context.Context, j *sqlstore.Job) time.Time
	// except, when not nil, names the jobs a claim leaves aside now
	// (sqlstore.Jobs.ClaimExcept).
	except func() []string
	// hold, when not nil, takes what a claimed job needs before it runs
	// (its host's turn), in the dispatcher, so that the next claim knows;
	// release gives it back once the job ran. ok false: the job is put
	// back for fedHostBusyWait.
	hold func(subject string) (release func(), ok bool)

	wake    chan struct{}
	waiter  *sqlstore.JobWaiter
	slots   chan struct{} // one per busy worker
	running sync.WaitGroup
	// jobsCtx is the running jobs' context: cancelled when close gives
	// up waiting.
	jobsCtx    context.Context
	cancelJobs context.CancelFunc
	stop       context.CancelFunc
	done       chan struct{} // closed when the dispatcher returns
}

func (q *fedQueue) start() {
	q.slots = make(chan struct{}, q.workers)
	q.jobsCtx, q.cancelJobs = context.WithCancel(context.Background())
	ctx, stop := context.WithCancel(context.Background())
	q.stop, q.done = stop, make(chan struct{})
	go func() {
		defer close(q.done)
		q.dispatch(ctx)
	}()
}

// notify wakes the dispatcher after this process queued jobs, and tells
// the other processes' dispatchers too: jobs EnqueueAll queued in a
// transaction are announced only now that it committed.
func (q *fedQueue) notify() {
	q.jobs.Announce()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// dispatch claims jobs while a worker is free, as aiJobs.dispatch does:
// a wake claims pending jobs only; a sweep also takes over the jobs of
// dead processes, and now and then prunes. No sweep runs while federation
// is off.
func (q *fedQueue) dispatch(ctx context.Context) {
	polls := 0
	for {
		sweep, ok := q.waiter.Wait(ctx)
		if !ok {
			return
		}
		var alive []string
		if sweep {
			alive = q.work.alive(ctx)
			if polls++; polls%fedPruneEvery == 1 {
				q.prune(ctx, alive)
			}
		}
		for q.claimOne(ctx, alive) {
		}
	}
}

// claimOne waits for a free worker, claims a job and starts it; it
// reports whether it found one.
func (q *fedQueue) claimOne(ctx context.Context, alive []string) bool {
	select {
	case q.slots <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	var except []string
	if q.except != nil {
		except = q.except()
	}
	job, err := q.jobs.ClaimExcept(ctx, alive, except)
	if err != nil && ctx.Err() == nil {
		q.work.logger.Warn("federation: claim a job", "kind", q.jobs.Kind, "err", err)
	}
	if job == nil {
		<-q.slots
		return false
	}
	q.waiter.Found()
	release, ok := func() {}, true
	if q.hold != nil {
		release, ok = q.hold(job.Subject)
	}
	if !ok {
		q.putBack(ctx, job)
		<-q.slots
		return true
	}
	q.running.Add(1)
	go func() {
		defer func() { release(); <-q.slots; q.running.Done() }()
		q.runJob(job)
	}()
	return true
}

// prune marks failed the jobs whose claims kept being lost and, on the
// delivery queue, deletes the activities nothing reads any more.
func (q *fedQueue) prune(ctx context.Context, alive []string) {
	log := q.work.logger
	if alive == nil {
		// No registry: nothing is known lost.
	} else if n, err := q.jobs.Prune(ctx, alive); err != nil && ctx.Err() == nil {
		log.Warn("federation: prune jobs", "kind", q.jobs.Kind, "err", err)
	} else if n > 0 {
		log.Warn("federation: jobs given up after repeated lost claims", "kind", q.jobs.Kind, "jobs", n)
	}
	if q != q.work.deliver || q.work.pruneActivities == nil {
		return
	}
	if n, err := q.work.pruneActivities(ctx, q.work.now().Add(-fedKeepActivities)); err != nil && ctx.Err() == nil {
		log.Warn("federation: prune activities", "err", err)
	} else if n > 0 {
		log.Info("federation: old activities pruned", "activities", n)
	}
}

// putBack hands a claimed job back to the queue, not to be claimed for
// fedHostBusyWait: its host is busy in this process.
func (q *fedQueue) putBack(ctx context.Context, job *sqlstore.Job) {
	if err := q.jobs.Retry(context.WithoutCancel(ctx), job, q.work.now().Add(fedHostBusyWait)); err != nil {
		q.work.logger.Warn("federation: settle job", "kind", q.jobs.Kind, "subject", job.Subject, "err", err)
	}
}

// runJob runs one claimed job and settles its row: done, put back for
// later, or handed back when shutdown cancelled it.
func (q *fedQueue) runJob(job *sqlstore.Job) {
	ctx := q.jobsCtx
	again := q.run(ctx, job)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fedCloseGrace)
	defer cancel()
	var err error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		err = q.jobs.Release(sctx, job)
	case !again.IsZero():
		err = q.jobs.Retry(sctx, job, again)
	default:
		err = q.jobs.Done(sctx, job)
	}
	if err != nil {
		q.work.logger.Warn("federation: settle job", "kind", q.jobs.Kind, "subject", job.Subject, "err", err)
	}
}

// close stops claiming and waits for the running jobs until ctx ends;
// then it cancels them and waits fedCloseGrace.
func (q *fedQueue) close(ctx context.Context) error {
	if q.done == nil {
		return nil
	}
	q.stop()
	<-q.done
	finished := make(chan struct{})
	go func() {
		q.running.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		q.cancelJobs()
		return nil
	case <-ctx.Done():
	}
	q.cancelJobs()
	select {
	case <-finished:
	case <-time.After(fedCloseGrace):
		q.work.logger.Warn("federation: jobs still running after cancellation", "kind", q.jobs.Kind, "grace", fedCloseGrace)
	}
	return fmt.Errorf("blog: federation %s jobs cancelled: %w", q.jobs.Kind, ctx.Err())
}

// deliver stores activity and queues one signed delivery of it to each
// of inboxes (duplicates once). It never waits on the network.
func (b *Blog) deliver(ctx context.Context, activity *activitypub.Object, inboxes []string) error {
	seen := map[string]bool{}
	var subjects []string
	id, body, err := b.prepareActivity(ctx, activity)
	if err != nil {
		return err
	}
	for _, in := range inboxes {
		if in != "" && !seen[in] {
			seen[in] = true
			subjects = append(subjects, id+" "+in)
		}
	}
	err = b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if err := storeActivity(ctx, tx, id, body, b.fed.now()); err != nil {
			return err
		}
		return b.fed.deliver.jobs.EnqueueAll(ctx, tx, subjects)
	})
	if err != nil {
		return err
	}
	b.fed.deliver.notify()
	return nil
}

// deliverWithFollowers stores activity and queues its delivery to each
// of inboxes and to every accepted follower, one per distinct inbox (a
// server's shared inbox serves all its followers), through one fan-out
// job: what a reply addressed to its author, cc the followers, needs. An
// inbox that is also a follower's is queued once while both are pending.
func (b *Blog) deliverWithFollowers(ctx context.Context, activity *activitypub.Object, inboxes []string) error {
	id, body, err := b.prepareActivity(ctx, activity)
	if err != nil {
		return err
	}
	var subjects []string
	for _, in := range inboxes {
		if in != "" && !slices.Contains(subjects, id+" "+in) {
			subjects = append(subjects, id+" "+in)
		}
	}
	err = b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if err := b.queueToFollowers(ctx, tx, id, body); err != nil {
			return err
		}
		return b.fed.deliver.jobs.EnqueueAll(ctx, tx, subjects)
	})
	if err != nil {
		return err
	}
	b.fed.deliver.notify()
	b.fed.fanout.notify()
	return nil
}

// queueToFollowers stores an activity and queues its fan-out inside tx;
// the caller wakes the fan-out (b.fed.fanout.notify) once tx committed.
func (b *Blog) queueToFollowers(ctx context.Context, tx *sqlstore.Tx, id string, body []byte) error {
	if err := storeActivity(ctx, tx, id, body, b.fed.now()); err != nil {
		return err
	}
	return b.fed.fanout.jobs.EnqueueAll(ctx, tx, []string{id})
}

// prepareActivity gives activity an id under /ap/activities/ when it has
// none, and the ActivityStreams context, and returns the id's uuid and
// the JSON body. An id of another shape is refused: GET
// /ap/activities/{id} and the jobs name activities by uuid.
func (b *Blog) prepareActivity(ctx context.Context, activity *activitypub.Object) (string, []byte, error) {
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return "", nil, err
	}
	prefix := origin + "/ap/activities/"
	if activity.ID == "" {
		activity.ID = prefix + sqlstore.NewID()
	}
	id, ok := strings.CutPrefix(activity.ID, prefix)
	if !ok || !sqlstore.ValidID(id) {
		return "", nil, fmt.Errorf("blog: activity id %q is not %s{uuid}", activity.ID, prefix)
	}
	if activity.Context == nil {
		activity.Context = activitypub.Context()
	}
	body, err := json.Marshal(activity)
	if err != nil {
		return "", nil, fmt.Errorf("blog: encode activity: %w", err)
	}
	return id, body, nil
}

// runFanout queues the deliveries of one activity to the followers'
// inboxes, a page at a time, each page with its progress in one
// transaction: a fan-out run again after a crash starts where it was.
func (b *Blog) runFanout(ctx context.Context, job *sqlstore.Job) time.Time {
	log := b.logger.With("activity", job.Subject)
	act, err := b.loadActivity(ctx, job.Subject)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return time.Time{}
	}
	if err != nil {
		log.Warn("federation: fan-out", "err", err)
		return b.fed.now().Add(time.Minute)
	}
	after := act.FanoutAfter
	for {
		if ctx.Err() != nil {
			return time.Time{}
		}
		var n int
		err := b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
			inboxes, err := followerInboxesAfter(ctx, tx, after, fedFanoutPage)
			if err != nil || len(inboxes) == 0 {
				return err
			}
			n = len(inboxes)
			subjects := make([]string, n)
			for i, in := range inboxes {
				subjects[i] = job.Subject + " " + in
			}
			if err := b.fed.deliver.jobs.EnqueueAll(ctx, tx, subjects); err != nil {
				return err
			}
			if err := setFanoutAfter(ctx, tx, job.Subject, inboxes[n-1]); err != nil {
				return err
			}
			after = inboxes[n-1]
			return nil
		})
		if err != nil {
			log.Warn("federation: fan-out", "err", err)
			return b.fed.now().Add(time.Minute)
		}
		if n == 0 {
			return time.Time{}
		}
		b.fed.deliver.notify()
		if n < fedFanoutPage {
			return time.Time{}
		}
	}
}

// runDelivery sends one activity to one inbox, signed. A 2xx is done; a
// 4xx other than 408 and 429 is the other server's final no; anything
// else is tried again on the schedule of fedNextTry, then given up.
// Every end is recorded in the host's ap_hosts row.
func (b *Blog) runDelivery(ctx context.Context, job *sqlstore.Job) time.Time {
	id, inbox, ok := strings.Cut(job.Subject, " ")
	if !ok || !b.fedSettings(ctx).Enabled {
		return time.Time{} // federation was turned off: nothing more goes out
	}
	log := b.logger.With("activity", id, "inbox", inbox)
	act, err := b.loadActivity(ctx, id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return time.Time{}
	}
	if err != nil {
		log.Warn("federation: delivery", "err", err)
		return b.fed.now().Add(time.Minute)
	}
	host := activitypub.Host(inbox)
	if host == "" {
		log.Warn("federation: delivery given up: not an inbox URL")
		return time.Time{}
	}
	if gone, err := b.sendsDeletedArticle(ctx, act.Body); err != nil {
		log.Warn("federation: delivery", "err", err)
		return b.fed.now().Add(time.Minute)
	} else if gone {
		// Sent now, it would arrive after (or overtake) the post's
		// Delete and bring the post back on the other server.
		log.Info("federation: delivery dropped: its post was deleted since")
		return time.Time{}
	}
	rec, err := b.loadHost(ctx, host)
	if err != nil {
		log.Warn("federation: delivery", "err", err)
		return b.fed.now().Add(time.Minute)
	}

	status, err := b.fedPost(ctx, inbox, act.Body)
	now := b.fed.now()
	if ctx.Err() != nil {
		return time.Time{} // shutdown: handed back
	}
	if err == nil && status/100 == 2 {
		if err := b.hostDelivered(ctx, host, now); err != nil {
			log.Warn("federation: delivery", "err", err)
		}
		return time.Time{}
	}
	why := fmt.Sprintf("HTTP %d", status)
	if err != nil {
		why = err.Error()
	}
	final := err == nil && status/100 == 4 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests ||
		errors.Is(err, outbound.ErrScheme) || errors.Is(err, outbound.ErrCredentials)
	// A host failing for longer than the retry window gets one try per
	// activity, no retries, until it answers again.
	dead := !rec.FailingSince.IsZero() && now.Sub(rec.FailingSince) > fedGiveUpAfter
	next, more := fedNextTry(act.CreatedAt, now)
	giveUp := final || dead || !more
	if err := b.hostFailed(ctx, host, now, why, giveUp); err != nil {
		log.Warn("federation: delivery", "err", err)
	}
	if giveUp {
		log.Warn("federation: delivery given up", "reason", why, "final_answer", final, "host_down_since", rec.FailingSince)
		return time.Time{}
	}
	log.Info("federation: delivery failed, will retry", "reason", why, "at", next)
	return next
}

// sendsDeletedArticle reports whether an activity is the Create or Update
// of an Article whose post was deleted or unpublished since (its Delete
// is queued).
func (b *Blog) sendsDeletedArticle(ctx context.Context, body []byte) (bool, error) {
	var head struct {
		Type   string `json:"type"`
		Object struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"object"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return false, nil // not of the blog's making: sent as it is
	}
	if head.Type != "Create" && head.Type != "Update" || head.Object.Type != "Article" {
		return false, nil
	}
	return b.objectGone(ctx, head.Object.ID)
}

// fedPost sends body to inbox, signed, and returns the answer's status.
func (b *Blog) fedPost(ctx context.Context, inbox string, body []byte) (int, error) {
	resp, err := b.fedRequest(ctx, http.MethodPost, inbox, body)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
