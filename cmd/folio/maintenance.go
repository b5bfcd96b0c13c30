package main

import (
	"context"
	"log/slog"

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
	instances := sqlstore.NewInstances(a.db)
	if instances.Host == "" {
		logger.Warn("no host identity (/proc unreadable): dead processes are recognised by their heartbeat only, after 45 seconds")
	}
	inst, err := instances.Register(ctx)
	if err != nil {
		return nil, nil, err
	}
	beatCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		instances.RunHeartbeat(beatCtx, inst, func(err error) { logger.Warn("instance heartbeat", "err", err) })
	}()
	a.closers = append(a.closers, func(ctx context.Context) {
		stop()
		<-done
		if err := instances.Unregister(ctx, inst); err != nil {
			logger.Warn("unregister instance", "err", err)
		}
	})
	return instances, inst, nil
}

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
