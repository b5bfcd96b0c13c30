package blog

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"folio/blog/ai"
	"folio/httpx"
	"folio/sqlstore"
)

// Settings are the blog's runtime settings groups. They start from the
// configuration file; PUT /api/v1/admin/settings stores overrides in the
// database that win from then on.
type Settings struct {
	Site   SiteSettings   `json:"site"`
	Post   PostSettings   `json:"post"`
	Render RenderSettings `json:"render"`
	AI     ai.Settings    `json:"ai"`
	// Federation is docs/federation.md's group.
	Federation FederationSettings `json:"federation"`
}

type SiteSettings struct {
	SiteName    string `json:"site_name"`
	SiteURL     string `json:"site_url"`
	Description string `json:"description"`
	Keywords    string `json:"keywords"`
	Favicon     string `json:"favicon"`
	Logo        string `json:"logo"`
	ICP         string `json:"icp"`
	Footer      string `json:"footer"`
}

type PostSettings struct {
	PostsPerPage    int    `json:"posts_per_page"`
	EnableComment   bool   `json:"enable_comment"`
	EnableTOC       bool   `json:"enable_toc"`
	SummaryLength   int    `json:"summary_length"`
	DefaultCoverURL string `json:"default_cover_url"`
	// RevisionsKept is how many replaced versions of each post and page
	// are kept; 0 keeps none (docs/blog-api.md#revisions).
	RevisionsKept int `json:"revisions_kept"`
}

type RenderSettings struct {
	RenderMode string `json:"render_mode"`
	APIPrefix  string `json:"api_prefix"`
	EnableCORS bool   `json:"enable_cors"`
}

// DefaultSettings are the built-in values, before any configuration.
func DefaultSettings() Settings {
	return Settings{
		Site: SiteSettings{SiteName: "Folio", Description: "A blog and file host"},
		Post: PostSettings{PostsPerPage: 10, EnableComment: true, EnableTOC: true, SummaryLength: 200, RevisionsKept: 20},
		Render: RenderSettings{
			RenderMode: "classic",
			APIPrefix:  "/api/v1",
		},
		AI:         ai.DefaultSettings(),
		Federation: DefaultFederationSettings(),
	}
}

// Validate checks every group; the error is a *sqlstore.FieldError naming
// the first offending key.
func (s Settings) Validate() error {
	for _, check := range []func() error{s.Render.Validate, s.Post.Validate, s.AI.Validate, s.Federation.Validate} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the post group; the error is a *sqlstore.FieldError.
func (p PostSettings) Validate() error {
	switch {
	case p.PostsPerPage < 1 || p.PostsPerPage > 100:
		return &sqlstore.FieldError{Key: "post.posts_per_page", Msg: "must be between 1 and 100"}
	case p.SummaryLength < 1 || p.SummaryLength > 10000:
		return &sqlstore.FieldError{Key: "post.summary_length", Msg: "must be between 1 and 10000"}
	case p.RevisionsKept < 0 || p.RevisionsKept > maxRevisionsKept:
		return &sqlstore.FieldError{Key: "post.revisions_kept", Msg: "must be between 0 and 1000"}
	}
	return nil
}

// Validate checks the render group; the error is a *sqlstore.FieldError.
func (r RenderSettings) Validate() error {
	switch {
	case r.RenderMode != "classic" && r.RenderMode != "headless":
		return &sqlstore.FieldError{Key: "render.render_mode", Msg: "must be classic or headless"}
	case r.APIPrefix != "/api/v1":
		return &sqlstore.FieldError{Key: "render.api_prefix", Msg: "must be /api/v1"}
	}
	return nil
}

// SettingsGroups are the blog's groups in a settings registry. The settings
// API serves the registry's whole document, groups of other owners included.
type SettingsGroups struct {
	Registry   *sqlstore.Registry
	Site       *sqlstore.Group[SiteSettings]
	Post       *sqlstore.Group[PostSettings]
	Render     *sqlstore.Group[RenderSettings]
	AI         *sqlstore.Group[ai.Settings]
	Federation *sqlstore.Group[FederationSettings]
}

// RegisterSettings registers the site, post, render, ai and federation
// groups, in that order, with base as their configured values.
func RegisterSettings(reg *sqlstore.Registry, base Settings) SettingsGroups {
	return SettingsGroups{
		Registry:   reg,
		Site:       sqlstore.Register(reg, "site", base.Site, nil),
		Post:       sqlstore.Register(reg, "post", base.Post, PostSettings.Validate),
		Render:     sqlstore.Register(reg, "render", base.Render, RenderSettings.Validate),
		AI:         sqlstore.Register(reg, "ai", base.AI, ai.Settings.Validate),
		Federation: sqlstore.Register(reg, "federation", base.Federation, FederationSettings.Validate),
	}
}

// Get returns the blog's current settings.
func (g SettingsGroups) Get(ctx context.Context) Settings {
	return Settings{Site: g.Site.Get(ctx), Post: g.Post.Get(ctx), Render: g.Render.Get(ctx), AI: g.AI.Get(ctx), Federation: g.Federation.Get(ctx)}
}

// Base returns the blog's configured settings, before stored overrides.
func (g SettingsGroups) Base() Settings {
	return Settings{Site: g.Site.Base(), Post: g.Post.Base(), Render: g.Render.Base(), AI: g.AI.Base(), Federation: g.Federation.Base()}
}

// Put validates s and stores the blog's groups in one transaction.
func (g SettingsGroups) Put(ctx context.Context, s Settings) error {
	d := g.Registry.Document(ctx)
	d = g.Site.With(d, s.Site)
	d = g.Post.With(d, s.Post)
	d = g.Render.With(d, s.Render)
	d = g.AI.With(d, s.AI)
	d = g.Federation.With(d, s.Federation)
	return g.Registry.Put(ctx, d)
}

// maskPrefix starts a masked API key. A PUT that sends a value starting with
// it sends back what it read, so the stored key stays.
const maskPrefix = "****"

// maskKey shows at most the last four characters of a secret; short keys
// are not shown at all.
func maskKey(key string) string {
	if key == "" {
		return ""
	}
	r := []rune(key)
	if len(r) <= 8 {
		return maskPrefix
	}
	return maskPrefix + string(r[len(r)-4:])
}

func (b *Blog) masked(d sqlstore.Document) sqlstore.Document {
	s := b.settings.AI.In(d)
	s.APIKey = maskKey(s.APIKey)
	return b.settings.AI.With(d, s)
}

func (b *Blog) handleGetSettings(w http.ResponseWriter, r *http.Request) error {
	httpx.BlogAPI.OK(w, http.StatusOK, b.masked(b.settings.Registry.Document(r.Context())))
	return nil
}

// handlePutSettings decodes the body onto the current settings document, so
// fields left out keep their values, then validates and stores every group.
func (b *Blog) handlePutSettings(w http.ResponseWriter, r *http.Request) error {
	cur := b.settings.Registry.Document(r.Context())
	next := cur
	if err := httpx.DecodeJSON(w, r, &next); err != nil {
		return err
	}
	if s := b.settings.AI.In(next); strings.HasPrefix(s.APIKey, maskPrefix) {
		s.APIKey = b.settings.AI.In(cur).APIKey
		next = b.settings.AI.With(next, s)
	}
	wasOn := b.settings.Federation.In(cur).Enabled
	err := b.settings.Registry.Put(r.Context(), next)
	var fe *sqlstore.FieldError
	if errors.As(err, &fe) {
		return httpx.Unprocessable(fe.Key, fe.Msg)
	}
	if err != nil {
		return err
	}
	if b.settings.Federation.In(next).Enabled && !wasOn {
		// The address this request came by is the blog's from now on for
		// work outside requests (docs/federation.md#addresses).
		b.noteFedOriginLogged(r.Context())
	}
	httpx.BlogAPI.OK(w, http.StatusOK, b.masked(b.settings.Registry.Document(r.Context())))
	return nil
}
