package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"sync"
	"syscall"

	"folio/auth"
	"folio/filehost"
	"folio/sqlstore"
	"folio/storage"
)

// folio storage migrate copies every stored object from one storage driver
// to the other (docs/scaling.md#moving-to-s3). It never deletes from the
// source and never changes storage.driver: the operator switches once the
// copy is complete, so a failed or interrupted run costs nothing but time,
// and running it again copies only what is still missing.

// maxListedFailures bounds the failures a report names; the count is whole.
const maxListedFailures = 100

// migrateReport is what one run did; -json prints it as is.
type migrateReport struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Objects is how many keys the source listed (temporary uploads are
	// never listed).
	Objects int `json:"objects"`
	// Copied were copied and verified; Present were already at the
	// destination with the same MD5 (a run that resumes); Replaced held
	// other bytes at the destination and were copied again.
	Copied   int   `json:"copied"`
	Present  int   `json:"present"`
	Replaced int   `json:"replaced"`
	Bytes    int64 `json:"bytes_copied"`
	// Vanished were deleted from the source while the run went on (by a
	// server still serving it): nothing to copy.
	Vanished int `json:"vanished"`
	// Mismatched are copies of source bytes whose MD5 differs from the
	// file record's: copied as they are, and reported, since the record
	// says they were damaged before this run.
	Mismatched []string        `json:"mismatched,omitempty"`
	Failed     int             `json:"failed"`
	Failures   []migrateFailed `json:"failures,omitempty"`
}

type migrateFailed struct {
	Key   string `json:"key"`
	Error string `json:"error"`
}

// migrateOutcome is what happened to one key.
type migrateOutcome int

const (
	outcomeCopied migrateOutcome = iota
	outcomePresent
	outcomeReplaced
	outcomeVanished
)

func setupStorage(fs *flag.FlagSet) func(*invocation) int {
	to := fs.String("to", "", "the driver to copy to: `s3` (from storage.dir) or local (from the bucket)")
	jobs := fs.Int("jobs", 2, "copy `N` objects at a time (each holds at most two parts in memory)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	return func(inv *invocation) int {
		if inv.args[0] != "migrate" {
			fmt.Fprintf(inv.stderr, "folio storage: unknown subcommand %q\n", inv.args[0])
			printSynopsis(inv.stderr, mustCommand("storage"))
			return exitUsage
		}
		from, ok := migrateSource(*to)
		if !ok {
			fmt.Fprintln(inv.stderr, "folio storage migrate: -to must be "+orList(migrateTargets()))
			printSynopsis(inv.stderr, mustCommand("storage"))
			return exitUsage
		}
		if *jobs < 1 || *jobs > 16 {
			fmt.Fprintln(inv.stderr, "folio storage migrate: -jobs must be 1 to 16")
			return exitUsage
		}
		cfg, ok := inv.loadConfig()
		if !ok {
			return exitFail
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		rep, err := runMigrate(ctx, cfg, from, *to, *jobs, inv.stderr)
		if err != nil {
			fmt.Fprintln(inv.stderr, "folio storage migrate:", err)
			return exitFail
		}
		if *asJSON {
			enc := json.NewEncoder(inv.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				fmt.Fprintln(inv.stderr, "folio storage migrate:", err)
				return exitFail
			}
		} else {
			printMigrateReport(inv.stdout, rep)
		}
		if rep.Failed > 0 || len(rep.Mismatched) > 0 {
			return exitFail
		}
		return exitOK
	}
}

// migrateSource is the driver folio storage migrate -to to copies from:
// the copy goes between the folder of storage.dir and a bucket, so the
// source is the one driver of the table on the other side of to (the
// folder's for -to s3, the bucket's for -to local). False for a name the
// table does not hold, or when the other side is not one driver.
func migrateSource(to string) (string, bool) {
	dst, ok := storage.Lookup(to)
	if !ok {
		return "", false
	}
	var from []string
	for _, d := range storage.Drivers() {
		if d.Folder != dst.Folder {
			from = append(from, d.Name)
		}
	}
	if len(from) != 1 {
		return "", false
	}
	return from[0], true
}

// migrateTargets are the values -to takes: the drivers a copy goes to from
// the folder, then the folder's, the way back.
func migrateTargets() []string {
	var out, back []string
	for _, d := range storage.Drivers() {
		if _, ok := migrateSource(d.Name); !ok {
			continue
		}
		if d.Folder {
			back = append(back, d.Name)
		} else {
			out = append(out, d.Name)
		}
	}
	return append(out, back...)
}

// mustCommand is the command called name of the table.
func mustCommand(name string) command {
	c, ok := findCommand(commands(), name)
	if !ok {
		panic("folio: no command " + name)
	}
	return c
}

// runMigrate opens the database and both stores and copies. The database
// gives each original's recorded MD5 and takes the audit-log entry.
func runMigrate(ctx context.Context, cfg *Config, from, to string, jobs int, stderr io.Writer) (migrateReport, error) {
	if err := databaseExists(cfg); err != nil {
		return migrateReport{}, err
	}
	src, err := openMigrateStore(ctx, cfg, from, true)
	if err != nil {
		return migrateReport{}, fmt.Errorf("source (%s): %w", from, err)
	}
	dst, err := openMigrateStore(ctx, cfg, to, false)
	if err != nil {
		return migrateReport{}, fmt.Errorf("destination (%s): %w", to, err)
	}
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return migrateReport{}, err
	}
	defer db.Close()
	recorded := func(ctx context.Context, key string) (string, bool, error) {
		return filehost.RecordedMD5(ctx, db, key)
	}
	typeOf := func(ctx context.Context, key string) (string, error) {
		return filehost.RecordedType(ctx, db, key)
	}
	rep, err := migrateObjects(ctx, src, dst, recorded, typeOf, jobs)
	rep.From, rep.To = from, to
	if err != nil {
		return rep, err
	}
	summary := fmt.Sprintf("folio storage migrate -to %s: %d copied, %d present, %d replaced, %d failed",
		to, rep.Copied, rep.Present, rep.Replaced, rep.Failed)
	if err := auth.RecordCommand(ctx, db, "folio storage migrate", summary, ""); err != nil {
		fmt.Fprintln(stderr, "folio storage migrate: warning: audit log:", err)
	}
	return rep, nil
}

// openMigrateStore opens the store of driver as the configuration names it.
// A source folder that is not there is an error, not an empty source: the
// configuration most likely names the wrong one.
func openMigrateStore(ctx context.Context, cfg *Config, driver string, source bool) (storage.Store, error) {
	c := *cfg
	c.StorageDriver = driver
	if source {
		if err := checkLocalFolder(&c); err != nil {
			return nil, err
		}
	}
	store, err := openStore(&c, "")
	if err != nil {
		return nil, err
	}
	if err := checkBucket(ctx, store); err != nil {
		return nil, err
	}
	return store, nil
}

// migrateObjects copies every key src lists to dst with jobs workers. An
// error ends the run only when listing fails or ctx ends; a key that cannot
// be copied is counted and named in the report.
func migrateObjects(ctx context.Context, src, dst storage.Store, recorded func(context.Context, string) (string, bool, error),
	typeOf func(context.Context, string) (string, error), jobs int) (migrateReport, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		rep migrateReport
		mu  sync.Mutex
		wg  sync.WaitGroup
	)
	keys := make(chan string)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range keys {
				out, n, mismatch, err := migrateOne(ctx, src, dst, key, recorded, typeOf)
				mu.Lock()
				switch {
				case err != nil && ctx.Err() != nil:
					// Interrupted: the run reports the interruption, not
					// the keys it cut short.
				case err != nil:
					rep.Failed++
					if len(rep.Failures) < maxListedFailures {
						rep.Failures = append(rep.Failures, migrateFailed{Key: key, Error: err.Error()})
					}
				default:
					switch out {
					case outcomeCopied:
						rep.Copied++
					case outcomePresent:
						rep.Present++
					case outcomeReplaced:
						rep.Replaced++
					case outcomeVanished:
						rep.Vanished++
					}
					rep.Bytes += n
					if mismatch && len(rep.Mismatched) < maxListedFailures {
						rep.Mismatched = append(rep.Mismatched, key)
					}
				}
				mu.Unlock()
			}
		}()
	}
	listErr := src.List(ctx, func(key string, _ int64) error {
		mu.Lock()
		rep.Objects++
		mu.Unlock()
		select {
		case keys <- key:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(keys)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("interrupted: run it again to go on where it stopped")
	}
	if listErr != nil {
		return rep, fmt.Errorf("list the source: %w", listErr)
	}
	return rep, nil
}

// migrateOne brings key to dst. Bytes already there with the source's MD5
// stay; other bytes there are replaced. A copy is read back from dst and
// its MD5 compared with the source's before it counts; a copy that differs
// is deleted. mismatch reports source bytes that differ from their record.
func migrateOne(ctx context.Context, src, dst storage.Store, key string, recorded func(context.Context, string) (string, bool, error),
	typeOf func(context.Context, string) (string, error)) (out migrateOutcome, copied int64, mismatch bool, err error) {
	out = outcomeCopied
	if have, err := dst.Stat(ctx, key); err == nil {
		st, err := src.Stat(ctx, key)
		if errors.Is(err, storage.ErrNotFound) {
			return outcomeVanished, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("source: %w", err)
		}
		if st.Size() == have.Size() {
			srcSum, err := storedMD5(ctx, src, key)
			if err != nil {
				return 0, 0, false, fmt.Errorf("source: %w", err)
			}
			dstSum, err := storedMD5(ctx, dst, key)
			if err != nil {
				return 0, 0, false, fmt.Errorf("destination: %w", err)
			}
			if srcSum == dstSum {
				mismatch, err = differsFromRecord(ctx, recorded, key, srcSum)
				return outcomePresent, 0, mismatch, err
			}
		}
		if err := dst.Delete(ctx, key); err != nil {
			return 0, 0, false, fmt.Errorf("destination: replace: %w", err)
		}
		out = outcomeReplaced
	} else if !errors.Is(err, storage.ErrNotFound) {
		return 0, 0, false, fmt.Errorf("destination: %w", err)
	}

	in, err := src.Open(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return outcomeVanished, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("source: %w", err)
	}
	defer in.Close()
	mimetype, err := typeOf(ctx, key)
	if err != nil {
		return 0, 0, false, err
	}
	w, err := dst.Begin(ctx)
	if err != nil {
		return 0, 0, false, fmt.Errorf("destination: %w", err)
	}
	storage.SetContentType(w, mimetype) // objects in a bucket carry their type
	h := md5.New()
	n, err := io.Copy(io.MultiWriter(w, h), in)
	if err != nil {
		w.Abort()
		return 0, 0, false, fmt.Errorf("copy: %w", err)
	}
	if err := w.Commit(key); err != nil {
		w.Abort()
		return 0, 0, false, fmt.Errorf("destination: %w", err)
	}
	srcSum := hex.EncodeToString(h.Sum(nil))
	dstSum, err := storedMD5(ctx, dst, key)
	if err == nil && dstSum != srcSum {
		err = fmt.Errorf("the copy's MD5 %s differs from the source's %s", dstSum, srcSum)
	}
	if err != nil {
		// Only a verified copy may stay: the next run copies it again.
		if derr := dst.Delete(context.WithoutCancel(ctx), key); derr != nil {
			err = fmt.Errorf("%w (and deleting the copy failed: %v)", err, derr)
		}
		return 0, 0, false, fmt.Errorf("verify: %w", err)
	}
	mismatch, err = differsFromRecord(ctx, recorded, key, srcSum)
	return out, n, mismatch, err
}

// differsFromRecord reports whether key's file record names another MD5.
func differsFromRecord(ctx context.Context, recorded func(context.Context, string) (string, bool, error), key, sum string) (bool, error) {
	want, ok, err := recorded(ctx, key)
	if err != nil {
		return false, err
	}
	return ok && want != sum, nil
}

// storedMD5 reads the content under key and returns its MD5 in hex.
func storedMD5(ctx context.Context, s storage.Store, key string) (string, error) {
	f, err := s.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func printMigrateReport(w io.Writer, r migrateReport) {
	fmt.Fprintf(w, "from %s to %s: %d objects listed\n", r.From, r.To, r.Objects)
	fmt.Fprintf(w, "copied:    %d (%d bytes)\n", r.Copied+r.Replaced, r.Bytes)
	if r.Replaced > 0 {
		fmt.Fprintf(w, "  of which %d replaced other bytes at the destination\n", r.Replaced)
	}
	fmt.Fprintf(w, "present:   %d (already copied, same MD5)\n", r.Present)
	if r.Vanished > 0 {
		fmt.Fprintf(w, "vanished:  %d (deleted from the source during the run)\n", r.Vanished)
	}
	if len(r.Mismatched) > 0 {
		fmt.Fprintf(w, "mismatch:  %d copied, but their bytes differ from their file record's MD5 (run folio fsck):\n", len(r.Mismatched))
		for _, k := range r.Mismatched {
			fmt.Fprintln(w, "  "+k)
		}
	}
	fmt.Fprintf(w, "failed:    %d\n", r.Failed)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s: %s\n", f.Key, f.Error)
	}
	if r.Failed > len(r.Failures) {
		fmt.Fprintf(w, "  … and %d more\n", r.Failed-len(r.Failures))
	}
	if r.Failed == 0 {
		fmt.Fprintf(w, "every object is at the destination; set storage.driver = %s and restart to use it\n", r.To)
	} else {
		fmt.Fprintln(w, "run it again to retry the failed objects; storage.driver is unchanged")
	}
}
