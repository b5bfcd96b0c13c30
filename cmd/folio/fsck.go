package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"folio/filehost"
	"folio/sqlstore"
)

// setupFsck defines the flags of `folio fsck`, which compares the file
// host's records with the stored bytes and, with -fix, repairs them
// (docs/filehost.md#crash-consistency). Exit status: 0 nothing wrong (or
// everything fixed), 1 problems remain or the check failed, 2 usage error.
func setupFsck(fs *flag.FlagSet) func(inv *invocation) int {
	fix := fs.Bool("fix", false, "repair what is found")
	force := fs.Bool("force", false, "with -fix: remove the records of missing bytes even when more than half of all objects are missing")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	return func(inv *invocation) int {
		if *force && !*fix {
			fmt.Fprintln(inv.stderr, "folio fsck: -force only goes with -fix")
			return exitUsage
		}
		return runFsck(inv.config, fsckFlags{fix: *fix, force: *force, json: *asJSON}, inv.stdout, inv.stderr)
	}
}

type fsckFlags struct{ fix, force, json bool }

func runFsck(configPath string, f fsckFlags, stdout, stderr io.Writer) int {
	cfg, err := loadConfig(configPath, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "folio: configuration:\n%v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := fsck(ctx, cfg, filehost.CheckOptions{Fix: f.fix, Force: f.force}, newLogger(cfg, stderr))
	if err != nil {
		fmt.Fprintln(stderr, "folio fsck:", err)
		return 1
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "folio fsck:", err)
			return 1
		}
	} else {
		printReport(stdout, rep)
	}
	if rep.Remaining > 0 {
		return 1
	}
	return 0
}

// fsck opens what the configuration names, without creating or migrating
// anything, and runs the check.
func fsck(ctx context.Context, cfg *Config, opt filehost.CheckOptions, logger *slog.Logger) (filehost.Report, error) {
	if err := databaseExists(cfg); err != nil {
		return filehost.Report{}, err
	}
	// A storage folder that is not there is not created either: with no
	// bytes, every record would look missing.
	if err := checkLocalFolder(cfg); err != nil {
		return filehost.Report{}, err
	}
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return filehost.Report{}, err
	}
	defer db.Close()
	if opt.Fix {
		// Repairs that delete records announce it to the running servers'
		// caches (docs/design.md#caches-across-processes).
		if err := db.ShareChanges(ctx); err != nil {
			return filehost.Report{}, err
		}
	}
	store, err := openStore(cfg, "")
	if err != nil {
		return filehost.Report{}, err
	}
	if err := checkBucket(ctx, store); err != nil {
		return filehost.Report{}, err
	}
	svc, err := filehost.Open(ctx, filehost.Deps{DB: db, Store: store, Logger: logger})
	if err != nil {
		return filehost.Report{}, err
	}
	rep, err := svc.Check(ctx, opt)
	if errors.Is(err, context.Canceled) {
		return rep, fmt.Errorf("interrupted")
	}
	return rep, err
}

// databaseExists fails for a SQLite file that is not there, which opening
// it would create: commands that work on a served site must not.
func databaseExists(cfg *Config) error {
	if cfg.DBDriver == "sqlite" || cfg.DBDriver == "sqlite3" || cfg.DBDriver == "" {
		path, _, _ := strings.Cut(strings.TrimPrefix(cfg.DBDSN, "file:"), "?")
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	return nil
}

// printReport writes the report for people.
func printReport(w io.Writer, r filehost.Report) {
	fmt.Fprintf(w, "stored keys: %d, objects: %d\n", r.StoredKeys, r.Objects)
	d := r.Details
	section := func(name string, n int, lines []string) {
		fmt.Fprintf(w, "%-17s %d\n", name+":", n)
		for _, l := range lines {
			fmt.Fprintln(w, "  "+l)
		}
		if len(lines) < n {
			fmt.Fprintf(w, "  … and %d more\n", n-len(lines))
		}
	}
	var lines []string
	for _, o := range d.Orphans {
		lines = append(lines, fmt.Sprintf("%s (%d bytes)", o.Key, o.Size))
	}
	section("orphans", r.Orphans, lines)
	lines = nil
	for _, m := range d.Missing {
		lines = append(lines, fmt.Sprintf("%s (object %s, %d files)", m.Key, m.ObjectID, m.Files))
	}
	section("missing", r.Missing, lines)
	lines = nil
	for _, e := range d.RefCountErrors {
		lines = append(lines, fmt.Sprintf("object %s: ref_count %d, %d files", e.ObjectID, e.RefCount, e.Files))
	}
	section("ref_count_errors", r.RefCountErrors, lines)
	lines = nil
	for _, e := range d.UsageErrors {
		lines = append(lines, fmt.Sprintf("user %s: %d bytes in %d files recorded, %d bytes in %d files found",
			e.UserID, e.UsedBytes, e.FileCount, e.WantUsedBytes, e.WantFileCount))
	}
	section("usage_errors", r.UsageErrors, lines)
	lines = nil
	for _, in := range d.Intents {
		lines = append(lines, fmt.Sprintf("%s %s (instance %s, %s)", in.Op, in.Key, in.Instance, in.CreatedAt.UTC().Format("2006-01-02 15:04:05")))
	}
	section("intents", r.Intents, lines)
	lines = nil
	for _, t := range d.Temps {
		lines = append(lines, fmt.Sprintf("%s (%d bytes, modified %s)", t.Name, t.Size, t.ModifiedAt.Format("2006-01-02 15:04:05")))
	}
	section("temps", r.Temps, lines)
	if r.InFlight > 0 {
		fmt.Fprintf(w, "in flight:        %d (work of live processes, not a problem)\n", r.InFlight)
	}
	switch {
	case r.Problems == 0:
		fmt.Fprintln(w, "nothing wrong")
	case !r.Fixed:
		fmt.Fprintf(w, "%d problems; run folio fsck -fix to repair them\n", r.Problems)
	default:
		if r.MissingRefused {
			fmt.Fprintf(w, "records of missing bytes kept: %d of %d objects are missing, which looks like a wrong storage.dir; add -force to remove them anyway\n", r.Missing, r.Objects)
		}
		fmt.Fprintf(w, "fixed %d problems; %d remain\n", r.Problems-r.Remaining, r.Remaining)
	}
}
