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
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

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
	media := defineMediaFlags(fs)
	return func(inv *invocation) int {
		switch *format {
		case "", blog.FormatFolio, blog.FormatGhost, blog.FormatWXR, blog.FormatMarkdown:
		default:
			fmt.Fprintf(inv.stderr, "folio import: unknown -format %q (want folio, ghost, wxr or markdown)\n", *format)
			return exitUsage
		}
		if _, err := media.check(); err != nil {
			fmt.Fprintln(inv.stderr, "folio import:", err)
			return exitUsage
		}
		return runImport(inv, *format, media)
	}
}

func runImport(inv *invocation, format string, media importMediaFlags) int {
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
	logger := newLogger(cfg, stderr)
	opts := blog.ImportOptions{Format: format, Media: *media.media, MediaOrigin: *media.from}
	var extras blogExtras
	if opts.Media {
		allow, _ := media.check() // checked by setupImport
		extras = mediaExtras(cfg, logger, *media.owner, allow, &opts.MediaOwner)
	}
	b, db, closeBlog, err := openBlogWith(ctx, cfg, true, logger, extras)
	if err != nil {
		fmt.Fprintln(stderr, "folio import:", err)
		return 1
	}
	defer closeBlog()
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

// printImport writes an import's report for people
// (docs/export-import.md#the-imports-result): a table of what was
// imported, skipped and changed per kind, redirects and media only when
// the import met some; the settings; what the conversion lost, by kind;
// then every warning, each naming its item.
func printImport(w io.Writer, path string, r *blog.ImportResult) {
	fmt.Fprintf(w, "imported %s (%s)\n", path, r.Format)
	const row = "  %-14s%9s%9s%9s\n"
	fmt.Fprintf(w, row, "", "imported", "skipped", "changed")
	media := false
	for _, k := range r.Rows() {
		fmt.Fprintf(w, row, k.Kind, strconv.Itoa(k.Created), strconv.Itoa(k.Skipped), strconv.Itoa(k.Changed))
		media = media || k.Kind == "media"
	}
	fmt.Fprintf(w, "  %-14s%d updated, %d skipped\n", "settings", r.Settings.Updated, r.Settings.Skipped)
	if media {
		fmt.Fprintln(w, "  (media: imported = brought home, skipped = already home, changed = left at the old address)")
	}
	if losses := r.LossList(); len(losses) > 0 {
		width := 0
		for _, l := range losses {
			width = max(width, utf8.RuneCountInString(l.Kind))
		}
		fmt.Fprintln(w, "lost in conversion, by kind:")
		for _, l := range losses {
			fmt.Fprintf(w, "  %-*s  %d\n", width, l.Kind, l.Count)
		}
	}
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
	return openBlogWith(ctx, cfg, create, logger, nil)
}

// blogExtras adds to a command's blog what it needs besides (folio import
// -media: the file host); what it returns runs before the database
// closes.
type blogExtras func(ctx context.Context, db *sqlstore.DB, settings settingsGroups, d *blog.Deps) (func(), error)

// openBlogWith is openBlog with extras, which may be nil.
func openBlogWith(ctx context.Context, cfg *Config, create bool, logger *slog.Logger, extras blogExtras) (*blog.Blog, *sqlstore.DB, func(), error) {
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
	deps := blog.Deps{DB: db, Settings: settings.blog, Templates: pages, Logger: logger, EnqueueOnly: true}
	closeExtras := func() {}
	if extras != nil {
		c, err := extras(ctx, db, settings, &deps)
		if err != nil {
			return fail(err)
		}
		closeExtras = c
	}
	b, err := blog.New(ctx, deps)
	if err != nil {
		closeExtras()
		return fail(err)
	}
	return b, db, func() {
		_ = b.Close(context.Background()) // runs no AI job (EnqueueOnly)
		closeExtras()
		db.Close()
	}, nil
}
