package filehost

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/storage"
	"folio/templates"
)

// Deps are what the file host is built from; cmd/folio fills them.
type Deps struct {
	DB       *sqlstore.DB
	Auth     *auth.Service
	Settings *sqlstore.Group[UploadSettings]
	Store    storage.Store
	Logger   *slog.Logger
	// Console, when not nil, is the web console's frame: the file host
	// then serves its console pages, the sign-in pages and the guest
	// upload page (docs/console.md). Nil turns them off.
	Console *auth.Console
	// Public renders the pages the file host shows to anyone: share links
	// and, for browsers, the 404 page of a missing link. Nil answers those
	// in JSON only (tests of other parts).
	Public *templates.Public
	// SiteName names the site on the public pages; nil: "Folio".
	SiteName func(context.Context) string
	// Instance is the id under which this process is registered in
	// Instances; the storage intents it records carry it, so that a
	// janitor can tell whether their writer still lives. Empty: a random id
	// that is registered nowhere, which other processes' janitors judge
	// dead (only tests of other parts leave it empty).
	Instance string
	// Instances judges which processes are alive; nil: the registry of DB.
	Instances *sqlstore.Instances
	// Metrics, when its counters are set, counts uploads and served bytes.
	Metrics Metrics
	// Redirect answers short-link and share downloads with a 302 to a
	// presigned URL of the bytes when the store can make one
	// (storage.s3.redirect, docs/filehost.md#s3).
	Redirect bool
	// AccelRedirect, when not empty, is the internal location of the
	// proxy in front under which it sends the store's files: downloads
	// are answered with X-Accel-Redirect and no body
	// (storage.local.accel_redirect, docs/operating.md#nginx-sends-the-files).
	// Only a store of files (storage.Local) has them; with any other it
	// is ignored.
	AccelRedirect string
	// SpoolDir is the folder of the spool files other parts write (the
	// blog's import, its Deps.SpoolDir), which the janitor sweeps;
	// empty: the system's temporary folder.
	SpoolDir string
	// Blog, when not nil, tells the administrator's dashboard how the blog
	// is doing (cmd/folio supplies the blog's numbers; the file host never
	// imports it). Without it the dashboard shows the file host alone.
	Blog BlogOverview
}

// BlogOverview reports the blog at a glance, cheaply enough for the
// administrator's dashboard (docs/console.md#the-dashboard).
type BlogOverview interface {
	BlogOverview(ctx context.Context) (BlogStats, error)
}

// BlogStats are the blog's side of the dashboard: its live posts by
// status (a published post whose time has not come is scheduled), the
// comments waiting for moderation, the newest comments and the next
// scheduled posts.
type BlogStats struct {
	Drafts, Scheduled, Published, Archived int
	PendingComments                        int
	RecentComments                         []BlogComment
	ComingUp                               []BlogPost
}

// BlogComment is a recent comment: who wrote it, on which post (PostPath
// is the post's address on the site, "" when it has none), its start on
// one line and its status.
type BlogComment struct {
	Author, PostTitle, PostPath, Excerpt, Status string
	CreatedAt                                    time.Time
}

// BlogPost is a scheduled post: EditPath opens it in the console's
// editor.
type BlogPost struct {
	Title, EditPath string
	PublishedAt     time.Time
}

// Service serves the file-hosting routes.
type Service struct {
	db       *sqlstore.DB
	auth     *auth.Service
	settings settings
	store    storage.Store
	// presign is the store's presigned URLs when downloads redirect to
	// them; nil serves the bytes.
	presign presigner
	log     *slog.Logger
	now     func() time.Time
	links   *linkCache // short-link targets and small files' bytes
	changes *sqlstore.Changes
	// filesChanged is bumped after every commit that deletes or renames
	// file records (docs/design.md#caches-across-processes).
	filesChanged sqlstore.Counter
	// uploads group-commits the transactions of concurrent uploads: their
	// placement intents and their records (docs/design.md#group-commit).
	uploads  *sqlstore.TxGroup
	thumbs   *thumbMaker
	images   *imageJobs // the background making of sizes
	console  *auth.Console
	public   *templates.Public
	siteName func(context.Context) string
	// instance, instances and spoolDir: see Deps
	// (docs/filehost.md#crash-consistency).
	instance  string
	instances *sqlstore.Instances
	spoolDir  string
	blog      BlogOverview // Deps.Blog; nil: no blog panel

	// Per-IP limits (docs/api.md#limits).
	loginLimit    *httpx.RateLimiter
	registerLimit *httpx.RateLimiter
	refreshLimit  *httpx.RateLimiter
	guestLimit    *httpx.RateLimiter
	shareLimit    *httpx.RateLimiter // wrong share-link passwords
	// missLimit counts each address's misses of short links and share
	// links, which is what a client walking prefixes collects.
	missLimit *httpx.RateLimiter

	metrics Metrics
	fixed   *fixedValues // header values serveBytes shares

	// accelerator hands file downloads to the proxy in front; nil: Folio
	// sends them.
	accelerator *accelerator

	// importMu makes ImportMedia's files one at a time past their
	// download, so that identical ones find each other.
	importMu sync.Mutex
}

// New migrates the file host's tables and returns the service. The auth
// tables must already exist (auth.New runs first).
func New(ctx context.Context, d Deps) (*Service, error) {
	if err := d.DB.Migrate(ctx, "filehost", migrations()); err != nil {
		return nil, err
	}
	return newService(d), nil
}

// Open returns the service over a database that serving processes have
// migrated, without migrating it: folio fsck must not change a database it
// was asked only to read. A schema at another version is refused.
func Open(ctx context.Context, d Deps) (*Service, error) {
	v, err := d.DB.SchemaVersion(ctx, "filehost")
	if err != nil {
		return nil, fmt.Errorf("filehost: schema version: %w", err)
	}
	if want := len(migrations()); v != want {
		return nil, fmt.Errorf("filehost: the database schema is at version %d, this binary's at %d: start folio serve of this version once", v, want)
	}
	return newService(d), nil
}

func newService(d Deps) *Service {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Instance == "" {
		d.Instance = sqlstore.NewID()
	}
	if d.Instances == nil {
		d.Instances = sqlstore.NewInstances(d.DB)
	}
	var presign presigner
	if p, ok := d.Store.(presigner); ok && d.Redirect {
		presign = p
	}
	return &Service{
		presign:     presign,
		accelerator: newAccelerator(d.AccelRedirect, d.Store),
		db:          d.DB, auth: d.Auth, settings: settings{d.Settings}, store: d.Store, log: d.Logger, now: time.Now,
		links:         newLinkCache(),
		changes:       d.DB.Changes(),
		filesChanged:  d.DB.Changes().Counter(filesCounter),
		uploads:       d.DB.NewGroup(uploadGroupSize),
		thumbs:        newThumbMaker(pixelBudget),
		images:        newImageJobs(d.DB, d.Instance),
		console:       d.Console,
		public:        d.Public,
		siteName:      d.SiteName,
		instance:      d.Instance,
		instances:     d.Instances,
		spoolDir:      d.SpoolDir,
		blog:          d.Blog,
		loginLimit:    httpx.NewRateLimiter(20, time.Minute),
		registerLimit: httpx.NewRateLimiter(20, time.Minute),
		refreshLimit:  httpx.NewRateLimiter(20, time.Minute),
		guestLimit:    httpx.NewRateLimiter(guestPerMinute, time.Minute),
		shareLimit:    httpx.NewRateLimiter(5, time.Minute),
		missLimit:     httpx.NewRateLimiter(missesPerMinute, time.Minute),
		metrics:       d.Metrics,
		fixed:         newFixedValues(),
	}
}
