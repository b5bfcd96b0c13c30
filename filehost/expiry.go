package filehost

import (
	"context"
	"time"
)

// Expired records are invisible from their expiry instant on (liveFile);
// the sweep then deletes them like their owner would, bytes included when
// no other record uses them (docs/filehost.md#expiring-files).
const (
	sweepPeriod = time.Minute
	sweepLease  = "filehost.expiry"
	sweepBatch  = 100
)

// RunSweeper deletes expired file records at start and then every minute
// until ctx ends. Of the processes sharing a database, the one holding the
// sweep's lease does it; when it dies, another takes the lease over at its
// next pass, as soon as the instance registry judges the holder dead.
func (s *Service) RunSweeper(ctx context.Context) {
	tick := time.NewTicker(sweepPeriod)
	defer tick.Stop()
	for {
		n, err := s.sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Error("expiry sweep", "err", err)
		case n > 0:
			s.log.Info("expiry sweep: deleted expired files", "files", n)
		}
		select {
		case <-ctx.Done():
			// Hand the lease on at once rather than when it runs out.
			if err := s.db.ReleaseLease(context.WithoutCancel(ctx), sweepLease, s.instance); err != nil {
				s.log.Warn("expiry sweep: release lease", "err", err)
			}
			return
		case <-tick.C:
		}
	}
}

// sweep deletes the expired records if this process has (or takes) the
// lease, and reports how many it deleted.
func (s *Service) sweep(ctx context.Context) (int, error) {
	live, err := s.instances.Live(ctx)
	if err != nil {
		return 0, err
	}
	ok, err := s.takeLease(ctx, sweepLease, live, 2*sweepPeriod)
	if err != nil || !ok {
		return 0, err
	}
	return s.deleteExpired(ctx)
}

// deleteExpired deletes every record expired by now, a batch per
// transaction. Each delete acts only on a row still there, so two sweeps at
// once (a lease taken over mid-sweep) still delete each record once.
func (s *Service) deleteExpired(ctx context.Context) (int, error) {
	total := 0
	for {
		ids, err := s.expiredIDs(ctx, sweepBatch)
		if err != nil || len(ids) == 0 {
			return total, err
		}
		n, err := s.removeFiles(ctx, "", ids, 0)
		total += n
		if err != nil || len(ids) < sweepBatch {
			return total, err
		}
		if n == 0 {
			// Another sweep is deleting the same rows: let it.
			return total, nil
		}
	}
}
