package blog

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/yuin/goldmark"

	"folio/auth"
	"folio/httpx"
	"folio/httpx/outbound"
	"folio/sqlstore"
)

// Deps is what the blog needs from the rest of Folio.
type Deps struct {
	DB *sqlstore.DB
	// Auth guards the admin routes. A blog that is not served (the export
	// and import commands) has none; its Routes must not be called.
	Auth     *auth.Service
	Settings SettingsGroups
	// Templates holds pages/{name}.html and the manifests pages/{name}.json
	// (templates.FS, possibly overlaid by theme.dir).
	Templates fs.FS
	Logger    *slog.Logger
	// AIHTTPClient sends the requests to the AI provider; nil means a client
	// on http.DefaultTransport.
	AIHTTPClient *http.Client
	// Now is the blog's clock; nil means time.Now. Tests move it forward.
	Now func() time.Time
	// AIMetrics, when not nil, hears of every call to the AI provider.
	AIMetrics AIMetrics
	// Instance is this process's id in Instances, the registry that tells
	// which processes live: a job claimed by a dead one is taken over
	// (docs/design.md#background-work). Empty: a private id, and claims
	// are taken over only when their deadline passes.
	Instance  string
	Instances *sqlstore.Instances
	// EnqueueOnly queues AI jobs without running them: a command's blog,
	// whose jobs a serving process picks up.
	EnqueueOnly bool
	// Console, when not nil, is the web console's frame: the blog then
	// serves its console pages under /console/blog (docs/console.md).
	Console *auth.Console
	// Storage, when not nil, tells the console's blog dashboard what the
	// file host stores (cmd/folio supplies the file host's numbers; the
	// blog never imports it). Without it the panel is left out.
	Storage StorageUsage
	// Images, when not nil, knows the pixel sizes of Folio's own uploads:
	// images in posts and pages that link to them get width and height
	// (docs/design.md#classic-site).
	Images ImageSizer
	// SpoolDir is the folder of the import's spool files, which the file
	// host's janitor sweeps (its Deps.SpoolDir); empty: the system's
	// temporary folder.
	SpoolDir string
	// Media, when not nil, keeps the files an import brings home
	// (ImportOptions.Media): cmd/folio supplies the file host's upload
	// pipeline. Without it such an import is refused.
	Media MediaStore
	// FetchAllow names the hosts and networks an import may download
	// from although they are not of the open internet
	// (import.fetch_allow, docs/export-import.md#bringing-images-home).
	FetchAllow outbound.Allowlist
	// FederationAllow names the hosts and networks federation may reach
	// although they are not of the open internet, and FederationAllowHTTP
	// lets it use plain http (federation.allow_private_addresses,
	// federation.allow_http: for tests, docs/federation.md).
	FederationAllow     outbound.Allowlist
	FederationAllowHTTP bool
	// Version is Folio's version, which NodeInfo tells other servers;
	// empty: "unknown".
	Version string
}

// StorageUsage reports what the file host stores, cheaply enough for a
// dashboard.
type StorageUsage interface {
	StorageUsage(ctx context.Context) (StorageStats, error)
}

// StorageStats are the file host's totals: its files, the bytes they add
// up to, the bytes actually stored once identical content is shared, and
// its accounts.
type StorageStats struct {
	Files       int64
	Bytes       int64
	StoredBytes int64
	Users       int64
}

// ImageSizer tells the sizes of uploaded images by the key of their short
// link (/i/{key}); keys it does not know are left out of the answer.
type ImageSizer interface {
	ImageSizes(ctx context.Context, keys []string) (map[string]ImageSize, error)
}

// ImageSize is one uploaded image as the file host describes it: its
// pixel size, and the narrower widths it serves at /i/{key}?w=N, smallest
// first (docs/filehost.md#sizes). Widths is empty for a picture served
// only whole, such as a GIF, which may be animated.
type ImageSize struct {
	Width, Height int
	Widths        []int
}

// AIMetrics is told of each call to the AI provider, background or on
// demand: its kind ("summary" or "tags"), whether it failed and how long
// it took (docs/observability.md).
type AIMetrics interface {
	AICall(kind string, failed bool, took time.Duration)
}

// Blog serves the blog API.
type Blog struct {
	db        *sqlstore.DB
	auth      *auth.Service
	console   *auth.Console
	storage   StorageUsage
	images    ImageSizer
	settings  SettingsGroups
	templates fs.FS
	logger    *slog.Logger
	ai        *aiJobs

	md            goldmark.Markdown
	loginLimit    *httpx.RateLimiter
	commentLimit  *httpx.RateLimiter
	now           func() time.Time
	counts        postCounts    // what the post lists cost in proportion to their length
	anchorEvery   int           // postAnchorEvery; smaller in tests
	importLimit   int64         // MaxImportSize; smaller in tests
	importTimeout time.Duration // ImportTimeout; shorter in tests
	instance      string        // tags the import's spool files (Deps.Instance)
	spoolDir      string        // Deps.SpoolDir

	// What imports bring home (import_media.go).
	media       MediaStore         // Deps.Media
	fetch       *outbound.Client   // made of mediaLimits and fetchAllow
	fetchAllow  outbound.Allowlist // Deps.FetchAllow
	mediaLimits mediaLimits        // smaller in tests

	// Federation (federation*.go).
	fedAllow     outbound.Allowlist // Deps.FederationAllow
	fedAllowHTTP bool               // Deps.FederationAllowHTTP
	fedClient    *outbound.Client   // made of the two above
	fedMu        sync.Mutex         // guards fedKeyCache
	fedKeyCache  *fedKey            // nil until first read
	inboxLimit   *httpx.RateLimiter // per remote host (federation_inbox.go)
	fed          *fedWork           // its jobs (federation_delivery.go)
	version      string             // Deps.Version

	// Change counters shared with the other processes
	// (docs/design.md#caches-across-processes).
	siteChanges     sqlstore.Counter
	settingsChanges sqlstore.Counter
}

// Per-IP limits of the blog (docs/api.md#limits).
const (
	loginsPerMinute   = 20
	commentsPerMinute = 5
)

// New migrates the blog's tables and returns the blog.
func New(ctx context.Context, d Deps) (*Blog, error) {
	if d.DB == nil || d.Settings.Registry == nil || d.Templates == nil {
		return nil, errors.New("blog: DB, Settings and Templates are required")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if err := d.DB.Migrate(ctx, "blog", migrations()); err != nil {
		return nil, err
	}
	b := &Blog{
		db:            d.DB,
		auth:          d.Auth,
		console:       d.Console,
		storage:       d.Storage,
		images:        d.Images,
		settings:      d.Settings,
		templates:     d.Templates,
		logger:        d.Logger,
		md:            newMarkdown(),
		loginLimit:    httpx.NewRateLimiter(loginsPerMinute, time.Minute),
		commentLimit:  httpx.NewRateLimiter(commentsPerMinute, time.Minute),
		now:           d.Now,
		anchorEvery:   postAnchorEvery,
		importLimit:   MaxImportSize,
		importTimeout: ImportTimeout,
		instance:      d.Instance,
		spoolDir:      d.SpoolDir,
		media:         d.Media,
		fetchAllow:    d.FetchAllow,
		mediaLimits:   defaultMediaLimits(),
		fedAllow:      d.FederationAllow,
		fedAllowHTTP:  d.FederationAllowHTTP,
		version:       d.Version,
	}
	b.fetch = b.mediaLimits.client(b.fetchAllow)
	b.fedClient = newFedClient(b.fedAllow, b.fedAllowHTTP)
	b.inboxLimit = httpx.NewRateLimiter(inboxPerMinute, time.Minute)
	b.siteChanges = d.DB.Changes().Counter(siteCounter)
	b.settingsChanges = d.DB.Changes().Counter(sqlstore.SettingsCounter)
	if err := b.rerender(ctx); err != nil {
		return nil, err
	}
	b.ai = newAIJobs(d)
	b.ai.waiter.Enabled = func(ctx context.Context) bool { return b.settings.Get(ctx).AI.Enabled }
	b.fed = newFedWork(b, d)
	if !d.EnqueueOnly {
		b.ai.start(b.runAIJob)
		b.fed.start(b.runFederationScan)
	}
	return b, nil
}

// Close stops the blog's background work, AI and federation: queued and
// running jobs get until ctx ends, then they are cancelled. Call it before
// closing the database.
func (b *Blog) Close(ctx context.Context) error {
	return errors.Join(b.ai.close(ctx), b.fed.close(ctx))
}

// postSaved tells the AI integration and federation that a post changed.
func (b *Blog) postSaved(id string) {
	b.enqueueAI(id)
	b.queueFederatePost(id)
}
