package filehost

import (
	"context"
	"time"

	"folio/sqlstore"
	"folio/storage"
)

// The janitor settles what processes that died left half done
// (docs/filehost.md#crash-consistency): 'delete' intents whose bytes may
// still be there, 'place' intents whose bytes may belong to no record, and
// temporary uploads no live process is writing. It never deletes bytes a
// record points at: each delete is preceded by a check.
const (
	janitorPeriod = time.Minute
	janitorLease  = "filehost.janitor"
	// deleteRetryAfter: a live process deletes the bytes right after the
	// transaction that recorded a 'delete' intent; one older than this
	// failed (the storage refused) and the janitor tries again.
	deleteRetryAfter = 5 * time.Minute
	// staleUntagged: temporary files of versions that did not tag them
	// with their writer are stale once unmodified this long.
	staleUntagged = time.Hour
	intentBatch   = 500
)

// JanitorReport says what a janitor pass did.
type JanitorReport struct {
	// Ran is false when another live process holds the janitor's lease.
	Ran bool
	// RolledBack counts 'place' intents of dead processes undone.
	RolledBack int
	// Settled counts intents finished (rolled-back places included).
	Settled int
	// Deleted lists the keys whose bytes were deleted.
	Deleted []string
	// Kept counts intents whose bytes stayed because a record points at
	// them.
	Kept int
	// Temps lists the temporary files removed.
	Temps []string
	// Spools lists the spool files of dead processes removed.
	Spools []string
	// Forgotten counts registry rows of dead processes removed.
	Forgotten int
	// TusExpired counts expired resumable uploads removed.
	TusExpired int
}

func (r JanitorReport) empty() bool {
	return r.Settled == 0 && len(r.Temps) == 0 && len(r.Spools) == 0 && r.Forgotten == 0 && r.TusExpired == 0
}

// RunJanitor runs a janitor pass every minute until ctx ends (cmd/folio
// runs the first one itself, before serving), then hands its lease on.
func (s *Service) RunJanitor(ctx context.Context) {
	tick := time.NewTicker(janitorPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := s.db.ReleaseLease(context.WithoutCancel(ctx), janitorLease, s.instance); err != nil {
				s.log.Warn("janitor: release lease", "err", err)
			}
			return
		case <-tick.C:
		}
		if _, err := s.JanitorPass(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("janitor", "err", err)
		}
	}
}

// JanitorPass does the janitor's work once if this process has, or can
// take, the janitor's lease. A lease held by a dead process is taken over
// at once instead of when it runs out, so that a restart right after a
// crash cleans up before it serves.
func (s *Service) JanitorPass(ctx context.Context) (JanitorReport, error) {
	live, err := s.instances.Live(ctx)
	if err != nil {
		return JanitorReport{}, err
	}
	ok, err := s.takeLease(ctx, janitorLease, live, 2*janitorPeriod)
	if err != nil || !ok {
		return JanitorReport{}, err
	}
	rep, err := s.tidy(ctx, live)
	rep.Ran = true
	if !rep.empty() {
		s.log.Info("janitor: settled what dead processes left", "intents", rep.Settled, "rolled_back", rep.RolledBack,
			"deleted", len(rep.Deleted), "kept_referenced", rep.Kept, "temps", len(rep.Temps), "spools", len(rep.Spools), "instances", rep.Forgotten, "tus_expired", rep.TusExpired)
	}
	return rep, err
}

// takeLease takes the lease called name for this process, or renews it,
// until ttl from now. A lease whose holder live does not count alive is
// taken over at once instead of when it runs out, so that background work
// moves on as soon as the registry knows its process died
// (docs/design.md#background-work).
func (s *Service) takeLease(ctx context.Context, name string, live sqlstore.Liveness, ttl time.Duration) (bool, error) {
	holder, err := s.db.LeaseHolder(ctx, name)
	if err != nil {
		return false, err
	}
	if holder != "" && holder != s.instance && !live.Alive(holder) {
		if err := s.db.ReleaseLease(ctx, name, holder); err != nil {
			return false, err
		}
	}
	return s.db.TryLease(ctx, name, s.instance, s.now(), ttl)
}

// tidy is the janitor's work, given who is alive. Two at once (a lease
// taken over mid-pass, or fsck -fix beside a server) do no harm: each step
// acts only on what is still in the state it expects.
func (s *Service) tidy(ctx context.Context, live sqlstore.Liveness) (JanitorReport, error) {
	var rep JanitorReport
	now := s.now()
	after := ""
	for {
		batch, err := s.intentsAfter(ctx, after, intentBatch)
		if err != nil {
			return rep, err
		}
		for _, in := range batch {
			if !actionable(in, live, now) {
				continue
			}
			if err := s.settleIntent(ctx, in, &rep); err != nil {
				return rep, err
			}
		}
		if len(batch) < intentBatch {
			break
		}
		after = batch[len(batch)-1].ID
	}
	// Expired resumable uploads first: their parts' 'delete' intents are
	// settled by this process at once.
	if err := s.sweepTus(ctx, now, &rep); err != nil {
		return rep, err
	}
	temps, err := s.store.Temps(ctx)
	if err != nil {
		return rep, err
	}
	for _, t := range temps {
		if !staleTemp(t.Instance, t.ModTime, live, now) {
			continue
		}
		if err := s.store.RemoveTemp(ctx, t.Name); err != nil {
			return rep, err
		}
		s.log.Info("janitor: removed a temporary upload no live process writes", "name", t.Name, "instance", t.Instance, "size", t.Size)
		rep.Temps = append(rep.Temps, t.Name)
	}
	// Before the dead are forgotten: their rows are how their spool files
	// are known to be theirs.
	if err := s.sweepSpools(live, now, &rep); err != nil {
		return rep, err
	}
	for _, in := range live.Dead() {
		if err := s.instances.Forget(ctx, in); err != nil {
			return rep, err
		}
		rep.Forgotten++
	}
	return rep, nil
}

// actionable reports whether the janitor settles in now: a 'place' of a
// dead process, or a 'delete' of a dead process or one that a live
// process failed to finish.
func actionable(in Intent, live sqlstore.Liveness, now time.Time) bool {
	if live.Alive(in.Instance) {
		return in.Op == opDelete && now.Sub(in.CreatedAt) > deleteRetryAfter
	}
	return true
}

// staleTemp reports whether a temporary upload is no live process's: its
// writer is dead, or, untagged, it has not changed for staleUntagged.
func staleTemp(instance string, modified time.Time, live sqlstore.Liveness, now time.Time) bool {
	if instance == "" {
		return now.Sub(modified) > staleUntagged
	}
	return !live.Alive(instance)
}

// sweepSpools removes the spool files other parts of Folio write (the
// blog's import) that no live process will remove: those of a process the
// registry holds dead, and any unmodified for storage.StaleSpool. A tag
// the registry does not know may be another site's on the same machine,
// so it is left to age.
func (s *Service) sweepSpools(live sqlstore.Liveness, now time.Time, rep *JanitorReport) error {
	spools, err := storage.Spools(s.spoolDir)
	if err != nil {
		return err
	}
	dead := map[string]bool{}
	for _, in := range live.Dead() {
		dead[in.ID] = true
	}
	for _, sp := range spools {
		if !dead[sp.Instance] && now.Sub(sp.ModTime) <= storage.StaleSpool {
			continue
		}
		if err := storage.RemoveSpool(s.spoolDir, sp.Name); err != nil {
			return err
		}
		s.log.Info("janitor: removed a spool file no live process writes", "name", sp.Name, "instance", sp.Instance)
		rep.Spools = append(rep.Spools, sp.Name)
	}
	return nil
}
