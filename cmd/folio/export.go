package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"folio/auth"
	"folio/blog"
	"folio/sqlstore"
	"folio/templates"
)

// runExport is `folio export [-config PATH] FILE.zip`. Exit status: 0
// written, 1 failed, 2 usage error.
func runExport(inv *invocation) int {
	path := inv.args[0]
	cfg, ok := inv.loadConfig()
	if !ok {
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	counts, err := exportTo(ctx, cfg, path, newLogger(cfg, inv.stderr))
	if err != nil {
		fmt.Fprintln(inv.stderr, "folio export:", err)
		return exitFail
	}
	fmt.Fprintf(inv.stdout, "exported %d posts, %d pages, %d categories, %d tags, %d comments, %d friend links and the settings to %s\n",
		counts.Posts, counts.Pages, counts.Categories, counts.Tags, counts.Comments, counts.FriendLinks, path)
	return exitOK
}

// exportTo writes the archive beside path under a temporary name, then
// renames it into place.
func exportTo(ctx context.Context, cfg *Config, path string, logger *slog.Logger) (blog.ArchiveCounts, error) {
	b, _, closeBlog, err := openBlog(ctx, cfg, false, logger)
	if err != nil {
		return blog.ArchiveCounts{}, err
	}
	defer closeBlog()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".folio-export-*")
	if err != nil {
		return blog.ArchiveCounts{}, err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	counts, err := b.Export(ctx, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = errors.New("interrupted")
		}
		return counts, err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return counts, err
	}
	return counts, os.Rename(tmp.Name(), path)
}

// setupImport defines the flags of `folio import [-config PATH] [-format
// folio|ghost|wxr|markdown] FILE|DIR` and returns what runs it. Exit
// status: 0 imported (warnings included), 1 failed, 2 usage error.
func setupImport(fs *flag.FlagSet) func(*invocation) int {
	format := fs.String("format", "", "the file's `FORMAT`: folio, ghost, wxr or markdown (default: recognised from the file; a folder is markdown)")
	return func(inv *invocation) int {
		switch *format {
		case "", blog.FormatFolio, blog.FormatGhost, blog.FormatWXR, blog.FormatMarkdown:
		default:
			fmt.Fprintf(inv.stderr, "folio import: unknown -format %q (want folio, ghost, wxr or markdown)\n", *format)
			return exitUsage
		}
		return runImport(inv, *format)
	}
}

func runImport(inv *invocation, format string) int {
	stdout, stderr := inv.stdout, inv.stderr
	path := inv.args[0]
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "folio import:", err)
		return 1
	}
	defer f.Close()
	// A folder is a Hugo or Jekyll site (docs/export-import.md#hugo-and-jekyll).
	st, err := f.Stat()
	dir := err == nil && st.IsDir()
	if err != nil || !dir && !st.Mode().IsRegular() {
		fmt.Fprintf(stderr, "folio import: %s is not a regular file or a folder\n", path)
		return 1
	}
	cfg, ok := inv.loadConfig()
	if !ok {
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	b, db, closeBlog, err := openBlog(ctx, cfg, true, newLogger(cfg, stderr))
	if err != nil {
		fmt.Fprintln(stderr, "folio import:", err)
		return 1
	}
	defer closeBlog()
	opts := blog.ImportOptions{Format: format}
	var res *blog.ImportResult
	if dir {
		res, err = b.ImportDir(ctx, os.DirFS(path), opts)
	} else {
		res, err = b.Import(ctx, f, st.Size(), opts)
	}
	var ie *blog.InputError
	var se *blog.SizeError
	switch {
	case errors.As(err, &ie), errors.As(err, &se):
		fmt.Fprintf(stderr, "folio import: %s: %v\n", path, err)
		return 1
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "folio import: interrupted; nothing was imported")
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "folio import:", err)
		return 1
	}
	// The import is done: a failed entry is said, not a failure.
	if err := auth.RecordCommand(ctx, db, "folio import", "folio import "+filepath.Base(path), ""); err != nil {
		fmt.Fprintln(stderr, "folio import: warning: audit log:", err)
	}
	printImport(stdout, path, res)
	return 0
}

// printImport writes an import's result for people.
func printImport(w io.Writer, path string, r *blog.ImportResult) {
	fmt.Fprintf(w, "imported %s (%s)\n", path, r.Format)
	for _, row := range []struct {
		name string
		c    blog.ImportCount
	}{{"posts", r.Posts}, {"pages", r.Pages}, {"categories", r.Categories}, {"tags", r.Tags},
		{"comments", r.Comments}, {"friend links", r.FriendLinks}} {
		fmt.Fprintf(w, "  %-13s %d created, %d skipped\n", row.name+":", row.c.Created, row.c.Skipped)
	}
	fmt.Fprintf(w, "  %-13s %d updated, %d skipped\n", "settings:", r.Settings.Updated, r.Settings.Skipped)
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "warnings:\n  %s\n", strings.Join(r.Warnings, "\n  "))
	}
}

// openBlog opens the blog of the configuration for a command: the
// database (a SQLite file must exist unless create), migrated, with the
// change counters shared with running servers so that they see the
// command's writes (docs/design.md#caches-across-processes), and the
// settings and page templates the server would use. No administrator is
// set up: the command serves nothing.
func openBlog(ctx context.Context, cfg *Config, create bool, logger *slog.Logger) (*blog.Blog, *sqlstore.DB, func(), error) {
	if !create && (cfg.DBDriver == "sqlite" || cfg.DBDriver == "sqlite3" || cfg.DBDriver == "") {
		// Opening a SQLite file that is not there would create it.
		path, _, _ := strings.Cut(strings.TrimPrefix(cfg.DBDSN, "file:"), "?")
		if _, err := os.Stat(path); err != nil {
			return nil, nil, nil, fmt.Errorf("database: %w", err)
		}
	}
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*blog.Blog, *sqlstore.DB, func(), error) {
		db.Close()
		return nil, nil, nil, err
	}
	if err := db.MigrateCore(ctx); err != nil {
		return fail(err)
	}
	if err := db.ShareChanges(ctx); err != nil {
		return fail(err)
	}
	settings := cfg.Settings.register()
	settings.reg.SetLogger(logger)
	if err := settings.reg.Open(ctx, db); err != nil {
		return fail(err)
	}
	pages := fs.FS(templates.FS)
	if cfg.ThemeDir != "" {
		pages = overlayFS{top: os.DirFS(cfg.ThemeDir), base: templates.FS}
	}
	b, err := blog.New(ctx, blog.Deps{DB: db, Settings: settings.blog, Templates: pages, Logger: logger, EnqueueOnly: true})
	if err != nil {
		return fail(err)
	}
	return b, db, func() {
		_ = b.Close(context.Background()) // runs no AI job (EnqueueOnly)
		db.Close()
	}, nil
}
