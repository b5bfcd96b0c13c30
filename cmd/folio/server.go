package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"folio/auth"
	"folio/blog"
	"folio/filehost"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// app is a fully wired Folio: the handler and what must be closed.
type app struct {
	handler  http.Handler
	router   *httpx.Router // every route, by surface
	db       *sqlstore.DB
	settings blog.SettingsGroups
	site     *blog.Site
	openapi  openAPIDoc     // the OpenAPI document of router's routes
	obs      *observability // nil: metrics off
	auth     *auth.Service
	instance string // this process's id in the instance registry
	mem      *memoryReleaser
	closers  []func(context.Context)
}

// overlayFS serves files from top (the theme folder) when present there and
// from base (the embedded templates) otherwise.
type overlayFS struct{ top, base fs.FS }

func (o overlayFS) Open(name string) (fs.File, error) {
	if f, err := o.top.Open(name); err == nil {
		return f, nil
	}
	return o.base.Open(name)
}

// newApp opens the database, migrates it, builds every package and returns
// the handler with all routes and middleware.
func newApp(ctx context.Context, cfg *Config, logger *slog.Logger) (*app, error) {
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return nil, err
	}
	a := &app{db: db}
	fail := func(err error) (*app, error) {
		a.Close(ctx) // stops what was started, then closes the database
		return nil, err
	}
	if err := db.MigrateCore(ctx); err != nil {
		return fail(err)
	}
	var files filehost.Metrics
	var aiMetrics blog.AIMetrics
	if cfg.MetricsAddr != "" {
		a.obs = newObservability(db)
		files, aiMetrics = a.obs.files, a.obs.ai
	}
	if err := db.ShareChanges(ctx); err != nil {
		return fail(err)
	}
	instances, inst, err := a.registerInstance(ctx, logger)
	if err != nil {
		return fail(err)
	}
	a.instance = inst.ID
	// Checked once before anything is served, so that caches start out
	// trusting the counters where they may.
	quiet := &quietSignal{}
	scope := &scopeWatch{db: db, instances: instances, logger: logger, quiet: quiet}
	scope.check(ctx)
	a.background(ctx, scope.run)
	settings := cfg.Settings.register()
	settings.reg.SetLogger(logger)
	if err := settings.reg.Open(ctx, db); err != nil {
		return fail(err)
	}
	a.settings = settings.blog
	authSvc, err := auth.New(ctx, db, auth.Config{
		AdminEnabled:      cfg.AdminEnabled,
		AdminUsername:     cfg.AdminUsername,
		AdminPasswordHash: cfg.AdminPasswordHash,
		SessionSecret:     cfg.SessionSecret,
		SessionTTL:        cfg.SessionTTL,
		Profile:           cfg.Profile,
		Logger:            logger,
		SignInURL:         signInURL(cfg),
		BcryptCost:        cfg.bcryptCost,
	})
	if err != nil {
		return fail(err)
	}
	a.auth = authSvc
	a.background(ctx, (&auditPruner{db: db, instances: instances, holder: inst.ID, auth: authSvc, logger: logger}).run)
	fhDeps, err := fileHostDeps(ctx, cfg, db, authSvc, settings.upload, inst, instances, logger)
	if err != nil {
		return fail(err)
	}
	site := a.settings.Site
	siteName := func(ctx context.Context) string { return site.Get(ctx).SiteName }
	var console *auth.Console
	var consoleTmpl *templates.Console
	if cfg.ConsoleEnabled {
		tmpl, err := templates.NewConsole()
		if err != nil {
			return fail(err)
		}
		console, consoleTmpl = auth.NewConsole(authSvc, tmpl, siteName), tmpl
	}
	public, err := templates.NewPublic()
	if err != nil {
		return fail(err)
	}
	// The file host is made before the blog (the blog asks it for its
	// storage numbers), so its dashboard's view of the blog is filled in
	// once the blog exists, before anything is served.
	overview := &blogOverview{}
	fhDeps.Console, fhDeps.Public, fhDeps.SiteName, fhDeps.Metrics, fhDeps.Blog = console, public, siteName, files, overview
	fh, err := filehost.New(ctx, fhDeps)
	if err != nil {
		return fail(err)
	}
	a.startJanitor(ctx, fh, logger)
	a.background(ctx, fh.RunSweeper)
	a.background(ctx, fh.RunImageJobs)

	pages := fs.FS(templates.FS)
	if cfg.ThemeDir != "" {
		pages = overlayFS{top: os.DirFS(cfg.ThemeDir), base: templates.FS}
	}
	engine, err := templates.New(templates.Options{ThemeDir: cfg.ThemeDir, Pages: pages})
	if err != nil {
		return fail(err)
	}
	b, err := blog.New(ctx, blog.Deps{DB: db, Auth: authSvc, Settings: a.settings, Templates: pages, Logger: logger, AIMetrics: aiMetrics,
		Instance: inst.ID, Instances: instances, Console: console, Storage: storageUsage{fh}, Images: imageSizes{fh},
		Media: fh, FetchAllow: cfg.FetchAllow, FederationAllow: cfg.FederationAllow, FederationAllowHTTP: cfg.FederationAllowHTTP,
		Version: folioVersion()})
	if err != nil {
		return fail(err)
	}
	overview.b = b
	// Queued AI jobs write to the database: they finish, or are cancelled,
	// before it closes.
	a.closers = append(a.closers, func(ctx context.Context) {
		if err := b.Close(ctx); err != nil {
			logger.Warn("blog: AI jobs cancelled at shutdown", "err", err)
		}
	})
	a.site, err = blog.NewSite(b, engine)
	if err != nil {
		return fail(err)
	}

	// Each surface answers its own misses, panics and refused query
	// strings (docs/design.md, HTTP).
	a.router = httpx.NewRouter()
	if a.obs != nil {
		a.router.Observe(a.obs.http)
	}
	a.routes(a.router, b)
	fh.Routes(a.router)
	b.Routes(a.router)
	a.site.Routes(a.router)
	if err := a.openapi.prepare(a.router.Routes(), folioVersion()); err != nil {
		return fail(err)
	}

	mem := newMemoryReleaser(func(ctx context.Context) {
		a.site.DropCache()
		fh.DropCaches()
		engine.Release()
		public.Release()
		if consoleTmpl != nil {
			consoleTmpl.Release()
		}
		db.ReleaseIdle(ctx)
	}, quiet)
	a.mem = mem
	a.background(ctx, mem.run)

	a.handler = httpx.Chain(a.router,
		mem.Middleware,
		httpx.Proxies{Trusted: cfg.TrustedProxies, BaseURL: cfg.BaseURL}.Middleware,
		httpx.AccessLog(logger),
		authSvc.Audit,
		httpx.SecurityHeaders,
	)
	return a, nil
}

// Close releases what the app holds, waiting for background work up to ctx.
func (a *app) Close(ctx context.Context) {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i](ctx)
	}
	a.db.Close()
}

// health answers liveness probes: 200 when the database answers, else 503.
func (a *app) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	mode := a.settings.Render.Get(ctx).RenderMode
	if err := a.db.Ping(ctx); err != nil {
		httpx.Logger(r).Error("health: database does not answer", "err", err)
		httpx.Reply(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "render_mode": mode}, "database unavailable")
		return
	}
	httpx.Reply(w, http.StatusOK, map[string]string{"status": "ok", "render_mode": mode}, "ok")
}

// signInURL is the console's sign-in page, where a generated password is
// used; empty when the console is off or the address is not bound yet.
func signInURL(cfg *Config) string {
	if !cfg.ConsoleEnabled || cfg.BaseURL == "" && cfg.listenAddr == "" {
		return ""
	}
	_, console := startURLs(cfg.BaseURL, cfg.listenAddr, true)
	if console == "" {
		return ""
	}
	return console + "login"
}

// serve runs the HTTP server on ln until ctx ends, then drains in-flight
// requests for up to 30 seconds.
func serve(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger, ready func(addr string)) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Short: PicGo and similar uploaders wait for idle keep-alive
		// connections to close before they exit.
		IdleTimeout:    5 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// A client record per connection (docs/testing.md#folio-bench-serve).
		ConnContext: httpx.ConnContext,
	}
	logger.Info("folio listening", "addr", listenerAddr(ln), "version", buildVersion(version, readBuildInfo()))
	if ready != nil {
		ready(listenerAddr(ln))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// fileHostDeps are the file host's Deps for a process of cfg, serving or
// running a command that stores files (folio import -media): the
// configured storage, its bucket checked, tagged by the registered
// process inst. A server adds its pages and metrics.
func fileHostDeps(ctx context.Context, cfg *Config, db *sqlstore.DB, authSvc *auth.Service,
	upload *sqlstore.Group[filehost.UploadSettings], inst *sqlstore.Instance, instances *sqlstore.Instances,
	logger *slog.Logger) (filehost.Deps, error) {
	store, err := openStore(cfg, inst.ID)
	if err != nil {
		return filehost.Deps{}, err
	}
	if err := checkBucket(ctx, store); err != nil {
		return filehost.Deps{}, err
	}
	return filehost.Deps{DB: db, Auth: authSvc, Settings: upload, Store: store, Logger: logger,
		Instance: inst.ID, Instances: instances, Redirect: storeRedirects(cfg),
		AccelRedirect: cfg.AccelRedirect}, nil
}

// storageUsage hands the file host's totals to the blog's dashboard: the
// blog and the file host never import each other (docs/design.md).
type storageUsage struct{ fh *filehost.Service }

func (u storageUsage) StorageUsage(ctx context.Context) (blog.StorageStats, error) {
	st, err := u.fh.StorageUsage(ctx)
	if err != nil {
		return blog.StorageStats{}, err
	}
	return blog.StorageStats{Files: st.Files, Bytes: st.RecordBytes, StoredBytes: st.StorageBytes, Users: st.Users}, nil
}

// blogOverview hands the blog's numbers to the administrator's dashboard,
// which the file host serves: the blog and the file host never import
// each other (docs/design.md). b is nil until the blog is made.
type blogOverview struct{ b *blog.Blog }

// blogOverviewItems is how many recent comments and scheduled posts the
// dashboard lists.
const blogOverviewItems = 5

func (o *blogOverview) BlogOverview(ctx context.Context) (filehost.BlogStats, error) {
	if o.b == nil {
		return filehost.BlogStats{}, errors.New("the blog is not started")
	}
	v, err := o.b.Overview(ctx, blogOverviewItems)
	if err != nil {
		return filehost.BlogStats{}, err
	}
	out := filehost.BlogStats{Drafts: v.Posts.Draft, Scheduled: v.Posts.Scheduled, Published: v.Posts.Published,
		Archived: v.Posts.Archived, PendingComments: v.Pending}
	for _, c := range v.Recent {
		path := ""
		if c.PostSlug != "" {
			path = "/posts/" + c.PostSlug
		}
		out.RecentComments = append(out.RecentComments, filehost.BlogComment{Author: c.Author, PostTitle: c.PostTitle,
			PostPath: path, Excerpt: c.Excerpt, Status: c.Status, CreatedAt: c.CreatedAt})
	}
	for _, p := range v.Scheduled {
		out.ComingUp = append(out.ComingUp, filehost.BlogPost{Title: p.Title, EditPath: "/console/blog/posts/" + p.ID, PublishedAt: p.PublishedAt})
	}
	return out, nil
}

// imageSizes hands the file host's image sizes to the blog, which gives
// its own images srcset, width and height (docs/design.md#classic-site).
type imageSizes struct{ fh *filehost.Service }

func (s imageSizes) ImageSizes(ctx context.Context, keys []string) (map[string]blog.ImageSize, error) {
	got, err := s.fh.ImageSizes(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]blog.ImageSize, len(got))
	for k, v := range got {
		out[k] = blog.ImageSize{Width: v.Width, Height: v.Height, Widths: v.Widths}
	}
	return out, nil
}
