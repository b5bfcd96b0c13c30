package filehost

import (
	"context"
	"fmt"
	"time"

	"folio/sqlstore"
)

// Check (folio fsck) compares the records with the stored bytes
// (docs/filehost.md#crash-consistency). Without Fix it only reads, so it
// may run beside a serving process.

// maxDetails caps each list of a Report; the counts are always complete.
const maxDetails = 1000

// CheckOptions say what Check may change.
type CheckOptions struct {
	// Fix repairs what was found.
	Fix bool
	// Force lets Fix remove the records of missing bytes even when more
	// than half of all objects are missing, which more likely means a
	// wrong storage folder than lost files.
	Force bool
}

// Report is what Check found. The six problem counts are complete; the
// lists in Details hold at most maxDetails entries each.
type Report struct {
	StoredKeys int `json:"stored_keys"`
	Objects    int `json:"objects"`
	// Orphans: stored keys no record points at (and that no pending
	// intent covers).
	Orphans int `json:"orphans"`
	// Missing: objects whose bytes are not in the store.
	Missing int `json:"missing"`
	// RefCountErrors: objects whose ref_count differs from the number of
	// their file records, or that have none.
	RefCountErrors int `json:"ref_count_errors"`
	// UsageErrors: users whose used_bytes or file_count differ from the
	// sums of their file records.
	UsageErrors int `json:"usage_errors"`
	// Intents: storage intents a janitor would settle (of dead processes,
	// or deletes a live one failed to finish).
	Intents int `json:"intents"`
	// Temps: temporary uploads no live process is writing.
	Temps int `json:"temps"`
	// InFlight: intents and temporary uploads of live processes, which
	// are work in progress, not problems.
	InFlight int `json:"in_flight"`
	// Problems is the sum of the six problem counts.
	Problems int `json:"problems"`
	// Fixed: repairs were made (Fix).
	Fixed bool `json:"fixed"`
	// MissingRefused: Fix kept the records of missing bytes because more
	// than half of the objects are missing and Force was not given.
	MissingRefused bool `json:"missing_refused"`
	// Remaining counts the problems left: after repairs with Fix, else
	// the problems found.
	Remaining int          `json:"remaining"`
	Details   CheckDetails `json:"details"`
}

// CheckDetails lists the problems found.
type CheckDetails struct {
	Orphans        []StoredKey     `json:"orphans"`
	Missing        []MissingObject `json:"missing"`
	RefCountErrors []RefCountError `json:"ref_count_errors"`
	UsageErrors    []UsageError    `json:"usage_errors"`
	Intents        []Intent        `json:"intents"`
	Temps          []StaleTemp     `json:"temps"`
}

// StoredKey is bytes in the store.
type StoredKey struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
}

// MissingObject is an object whose bytes are gone, and how many file
// records point at it.
type MissingObject struct {
	ObjectID string `json:"object_id"`
	Key      string `json:"key"`
	Files    int    `json:"files"`
}

// RefCountError is an object's recorded and actual number of files.
type RefCountError struct {
	ObjectID string `json:"object_id"`
	RefCount int    `json:"ref_count"`
	Files    int    `json:"files"`
}

// UsageError is a user's recorded and actual usage.
type UsageError struct {
	UserID        string `json:"user_id"`
	UsedBytes     int64  `json:"used_bytes"`
	FileCount     int64  `json:"file_count"`
	WantUsedBytes int64  `json:"want_used_bytes"`
	WantFileCount int64  `json:"want_file_count"`
}

// StaleTemp is a temporary upload no live process is writing.
type StaleTemp struct {
	Name       string    `json:"name"`
	Instance   string    `json:"instance"`
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at"`
}

func (r *Report) total() int {
	return r.Orphans + r.Missing + r.RefCountErrors + r.UsageErrors + r.Intents + r.Temps
}

func appendCapped[T any](list []T, v T) []T {
	if len(list) < maxDetails {
		return append(list, v)
	}
	return list
}

// Check reports the inconsistencies between records and stored bytes and,
// with Fix, repairs them: intents and temporary uploads of dead processes
// are settled as the janitor does, orphans deleted (each checked again
// right before), counts recomputed from the file records, and the records
// of missing bytes removed, giving their usage back (unless more than half
// of the objects are missing and Force is not given).
func (s *Service) Check(ctx context.Context, opt CheckOptions) (Report, error) {
	live, err := s.instances.Live(ctx)
	if err != nil {
		return Report{}, err
	}
	found, err := s.inspect(ctx, live)
	if err != nil {
		return Report{}, err
	}
	found.Problems = found.total()
	found.Remaining = found.Problems
	if !opt.Fix || found.Problems == 0 {
		return found, nil
	}
	refused, err := s.repair(ctx, live, &found, opt.Force)
	if err != nil {
		return found, err
	}
	found.Fixed, found.MissingRefused = true, refused
	after, err := s.inspect(ctx, live)
	if err != nil {
		return found, fmt.Errorf("filehost: check after repair: %w", err)
	}
	found.Remaining = after.total()
	return found, nil
}

// repair fixes what inspect found; refused reports that missing records
// were kept (see CheckOptions.Force).
func (s *Service) repair(ctx context.Context, live sqlstore.Liveness, r *Report, force bool) (refused bool, err error) {
	if r.Intents > 0 || r.Temps > 0 {
		if _, err := s.tidy(ctx, live); err != nil {
			return false, err
		}
	}
	orphans, err := s.orphanKeys(ctx)
	if err != nil {
		return false, err
	}
	for _, k := range orphans {
		// One file the storage will not delete (a name it refuses) must
		// not stop the other repairs: it stays, and counts as remaining.
		if err := s.deleteOrphan(ctx, k.Key); err != nil {
			if ctx.Err() != nil {
				return false, err
			}
			s.log.Error("fsck: delete orphan", "key", k.Key, "err", err)
		}
	}
	var purges []*purge
	if r.Missing > 0 {
		if 2*r.Missing > r.Objects && !force {
			refused = true
		} else {
			missing, err := s.missingObjects(ctx)
			if err != nil {
				return false, err
			}
			for _, m := range missing {
				p, err := s.dropObject(ctx, m.ObjectID)
				if err != nil {
					return false, err
				}
				purges = append(purges, p)
			}
		}
	}
	refs, err := s.refCountErrors(ctx)
	if err != nil {
		return refused, err
	}
	for _, e := range refs {
		p, err := s.fixRefCount(ctx, e.ObjectID)
		if err != nil {
			return refused, err
		}
		purges = append(purges, p)
	}
	s.purgeContent(ctx, purges)
	usage, err := s.usageErrors(ctx)
	if err != nil {
		return refused, err
	}
	for _, u := range usage {
		if err := s.fixUsage(ctx, u.UserID); err != nil {
			return refused, err
		}
	}
	return refused, nil
}

// inspect gathers every problem.
func (s *Service) inspect(ctx context.Context, live sqlstore.Liveness) (Report, error) {
	var r Report
	now := s.now()
	// Order matters with a server running: keys are listed before the
	// intents and the objects are read, so that a key placed during the
	// listing is seen either under its intent or under its object row.
	stored, err := s.storedKeys(ctx)
	if err != nil {
		return r, err
	}
	r.StoredKeys = len(stored)
	orphans, err := s.orphansOf(ctx, stored)
	if err != nil {
		return r, err
	}
	r.Orphans = len(orphans)
	for _, o := range orphans {
		r.Details.Orphans = appendCapped(r.Details.Orphans, o)
	}
	if r.Objects, err = s.countObjects(ctx); err != nil {
		return r, err
	}
	missing, err := s.missingIn(ctx, stored)
	if err != nil {
		return r, err
	}
	r.Missing = len(missing)
	for _, m := range missing {
		r.Details.Missing = appendCapped(r.Details.Missing, m)
	}
	refs, err := s.refCountErrors(ctx)
	if err != nil {
		return r, err
	}
	r.RefCountErrors = len(refs)
	for _, e := range refs {
		r.Details.RefCountErrors = appendCapped(r.Details.RefCountErrors, e)
	}
	usage, err := s.usageErrors(ctx)
	if err != nil {
		return r, err
	}
	r.UsageErrors = len(usage)
	for _, u := range usage {
		r.Details.UsageErrors = appendCapped(r.Details.UsageErrors, u)
	}
	for after := ""; ; {
		batch, err := s.intentsAfter(ctx, after, intentBatch)
		if err != nil {
			return r, err
		}
		for _, in := range batch {
			if actionable(in, live, now) {
				r.Intents++
				r.Details.Intents = appendCapped(r.Details.Intents, in)
			} else {
				r.InFlight++
			}
		}
		if len(batch) < intentBatch {
			break
		}
		after = batch[len(batch)-1].ID
	}
	temps, err := s.store.Temps(ctx)
	if err != nil {
		return r, err
	}
	for _, t := range temps {
		if staleTemp(t.Instance, t.ModTime, live, now) {
			r.Temps++
			r.Details.Temps = appendCapped(r.Details.Temps, StaleTemp{Name: t.Name, Instance: t.Instance, Size: t.Size, ModifiedAt: t.ModTime.UTC()})
		} else {
			r.InFlight++
		}
	}
	r.Details.fill()
	return r, nil
}

// fill turns nil lists into empty ones, so that JSON shows [] not null.
func (d *CheckDetails) fill() {
	if d.Orphans == nil {
		d.Orphans = []StoredKey{}
	}
	if d.Missing == nil {
		d.Missing = []MissingObject{}
	}
	if d.RefCountErrors == nil {
		d.RefCountErrors = []RefCountError{}
	}
	if d.UsageErrors == nil {
		d.UsageErrors = []UsageError{}
	}
	if d.Intents == nil {
		d.Intents = []Intent{}
	}
	if d.Temps == nil {
		d.Temps = []StaleTemp{}
	}
}
