package main

import (
	"context"
	"log/slog"
	"time"

	"folio/auth"
	"folio/filehost"
	"folio/sqlstore"
)

// Crash consistency (docs/filehost.md#crash-consistency): each serving
// process registers itself, beats every 15 seconds, and runs the file
// host's janitor, which settles what dead processes left half done.

// registerInstance registers this process and keeps its heartbeat going
// until Close, which then deletes its row: a clean stop is seen as one at
// once, not 45 seconds later.
func (a *app) registerInstance(ctx context.Context, logger *slog.Logger) (*sqlstore.Instances, *sqlstore.Instance, error) {
	instances, inst, unregister, err := registerProcess(ctx, a.db, logger)
	if err != nil {
		return nil, nil, err
	}
	a.closers = append(a.closers, unregister)
	return instances, inst, nil
}

// registerProcess registers this process in db's instance registry and
// keeps its heartbeat going until unregister, which stops it and deletes
// the row: a server's, and a command's that stores files (folio import
// -media), whose storage intents a janitor must not take for a dead
// process's.
func registerProcess(ctx context.Context, db *sqlstore.DB, logger *slog.Logger) (_ *sqlstore.Instances, _ *sqlstore.Instance, unregister func(context.Context), _ error) {
	instances := sqlstore.NewInstances(db)
	if instances.Host == "" {
		logger.Warn("no host identity (/proc unreadable): dead processes are recognised by their heartbeat only, after 45 seconds")
	}
	inst, err := instances.Register(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := waitForScope(ctx, db, instances, logger); err != nil {
		instances.Unregister(context.WithoutCancel(ctx), inst)
		return nil, nil, nil, err
	}
	beatCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		instances.RunHeartbeat(beatCtx, inst, func(err error) { logger.Warn("instance heartbeat", "err", err) })
	}()
	return instances, inst, func(ctx context.Context) {
		stop()
		<-done
		if err := instances.Unregister(ctx, inst); err != nil {
			logger.Warn("unregister instance", "err", err)
		}
	}, nil
}

// waitForScope holds the start of a PostgreSQL process that finds a live
// process announcing its changes elsewhere (another machine, or another
// changes file) until every such process has seen this one registered:
// those trust their in-memory counters for at most sqlstore.ScopeValid
// after a registry read, and must not trust them past this process's
// first write (docs/design.md#caches-across-processes).
func waitForScope(ctx context.Context, db *sqlstore.DB, instances *sqlstore.Instances, logger *slog.Logger) error {
	if db.Dialect() != sqlstore.Postgres {
		return nil
	}
	l, err := instances.Live(ctx)
	if err != nil {
		return err
	}
	if l.AllIn(instances.Scope) {
		return nil
	}
	wait := sqlstore.ScopeValid + 500*time.Millisecond
	logger.Info("a process on another machine or with another changes file shares the database: caches ask the database, and start-up waits for the others to notice",
		"wait", wait)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// scopeWatch reads the instance registry every scopeEvery. While every
// live process shares this one's changes file, the counters in it are
// authoritative (sqlstore.Changes.ConfirmShared); and when a process
// disappears, every counter is bumped, since it may have died between a
// commit and its announcement.
type scopeWatch struct {
	db        *sqlstore.DB
	instances *sqlstore.Instances
	logger    *slog.Logger
	alive     map[string]bool // as of the last check
	// quiet, when not nil, slows the watch to scopeQuietEvery while the
	// site is quiet, and ends the wait at its next request.
	quiet *quietSignal
}

// check reads the registry once.
func (w *scopeWatch) check(ctx context.Context) {
	changes := w.db.Changes()
	checked := time.Now()
	l, err := w.instances.Live(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.logger.Warn("instance registry", "err", err)
		}
		return
	}
	for id := range w.alive {
		if !l.Alive(id) {
			changes.BumpAll()
			break
		}
	}
	w.alive = map[string]bool{}
	for _, id := range l.AliveIDs() {
		w.alive[id] = true
	}
	if l.AllIn(w.instances.Scope) {
		changes.ConfirmShared(checked)
	} else {
		changes.RevokeShared()
	}
}

// run checks until ctx ends: every scopeEvery, or while the site is quiet
// every scopeQuietEvery and at once when a request ends the quiet.
func (w *scopeWatch) run(ctx context.Context) {
	for {
		wait, woken := scopeEvery, w.quiet.ended()
		if woken != nil {
			wait = scopeQuietEvery
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-woken:
			t.Stop()
		}
		w.check(ctx)
	}
}

// scopeEvery is how often watchScope reads the registry: well inside
// sqlstore.ScopeValid, so that a healthy process never stops trusting its
// counters.
const scopeEvery = time.Second

// scopeQuietEvery is how often the registry is read while the site is quiet
// (docs/design.md#memory). On PostgreSQL the counters then lapse between
// reads, and the background loops' few reads ask the database; on SQLite,
// where they never lapse, a process's death is noticed, and every counter
// bumped, this much later, which is the heartbeat's own period.
const scopeQuietEvery = sqlstore.HeartbeatEvery

// startJanitor runs one janitor pass now, before the server accepts a
// request, and then every minute until Close. The first pass is cheap (it
// reads the intents and the temporary folder, not the whole store), and
// running it first means a restart after a crash is clean by the time it
// says it is ready.
func (a *app) startJanitor(ctx context.Context, files *filehost.Service, logger *slog.Logger) {
	if _, err := files.JanitorPass(ctx); err != nil {
		logger.Error("janitor at start-up", "err", err)
	}
	a.background(ctx, files.RunJanitor)
}

// background runs run for the app's life: Close cancels its context and
// waits for it to return before the database closes.
func (a *app) background(ctx context.Context, run func(context.Context)) {
	bctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(bctx)
	}()
	a.closers = append(a.closers, func(context.Context) {
		stop()
		<-done
	})
}

// auditRetention is how long the audit log keeps an entry
// (docs/observability.md#audit-log).
const auditRetention = 365 * 24 * time.Hour

// auditLease names the lease of audit-log pruning: one process of a site
// prunes, and when it dies the next to try takes over.
const auditLease = "audit.prune"

// auditPruner deletes audit entries past auditRetention, at start and then
// every hour, in the process holding auditLease.
type auditPruner struct {
	db        *sqlstore.DB
	instances *sqlstore.Instances
	holder    string // this process's instance id
	auth      *auth.Service
	logger    *slog.Logger
}

// run prunes now and every hour until ctx ends, then hands the lease on.
func (p *auditPruner) run(ctx context.Context) {
	for {
		if _, err := p.pass(ctx); err != nil && ctx.Err() == nil {
			p.logger.Warn("audit log not pruned", "err", err)
		}
		select {
		case <-ctx.Done():
			if err := p.db.ReleaseLease(context.WithoutCancel(ctx), auditLease, p.holder); err != nil {
				p.logger.Warn("audit log: release lease", "err", err)
			}
			return
		case <-time.After(time.Hour):
		}
	}
}

// pass prunes once if this process holds, or can take, the lease, and
// reports whether it did.
func (p *auditPruner) pass(ctx context.Context) (bool, error) {
	live, err := p.instances.Live(ctx)
	if err != nil {
		return false, err
	}
	// The lease outlives the hour between passes, so a live holder keeps it.
	ok, err := p.db.TakeLease(ctx, auditLease, p.holder, live, time.Now(), 2*time.Hour)
	if err != nil || !ok {
		return false, err
	}
	n, err := p.auth.PruneAudit(ctx, time.Now().Add(-auditRetention))
	if n > 0 {
		p.logger.Info("audit log pruned", "entries", n, "older_than", auditRetention)
	}
	return true, err
}
