package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
)

// Routes registers the blog JSON API on rt. Besides its routes the surface
// owns every /api/ path that no other surface does, and the admin area,
// where an unknown path needs the administrator first (docs/design.md,
// HTTP).
func (b *Blog) Routes(rt *httpx.Router) {
	if b.auth == nil {
		panic("blog: Routes of a blog built without Auth")
	}
	env := httpx.BlogAPI
	api := rt.API("blog", env)
	// Public reads: CORS when render.enable_cors (never with credentials),
	// each with its preflight.
	pub := func(pattern string, h httpx.HandlerFunc) {
		api.Handle(pattern, b.PublicRead(env.Handle(h)))
	}
	preflight := func(pattern string) {
		api.Handle(pattern, http.HandlerFunc(b.Preflight))
	}
	requireAdmin := b.auth.RequireAdmin(env)
	adminHandler := func(pattern string, h httpx.HandlerFunc) http.Handler {
		var next http.Handler = env.Handle(h)
		if !strings.HasPrefix(pattern, "GET ") {
			next = b.changesSite(next)
		}
		return requireAdmin(next)
	}
	admin := func(pattern string, h httpx.HandlerFunc) {
		api.Handle(pattern, adminHandler(pattern, h))
	}

	api.Handle("POST /api/v1/admin/auth/login", b.loginLimit.Middleware(env)(env.Handle(b.handleLogin)))
	admin("GET /api/v1/admin/auth/me", b.handleMe)
	admin("POST /api/v1/admin/auth/logout", b.handleLogout)

	pub("GET /api/v1/posts", b.handleListPosts(true))
	preflight("OPTIONS /api/v1/posts")
	pub("GET /api/v1/posts/{id}", b.handleGetPost("id", true))
	preflight("OPTIONS /api/v1/posts/{id}")
	// "/api/v1/posts/slug/{slug}" and "/api/v1/posts/{id}/comments" overlap
	// as ServeMux patterns ("/api/v1/posts/slug/comments"); an id is never
	// "slug", so one pattern serves both.
	pub("GET /api/v1/posts/{id}/{sub}", b.postSubroute(b.handleGetPost("slug", true), b.handleListApprovedComments))
	preflight("OPTIONS /api/v1/posts/{id}/{sub}")
	admin("GET /api/v1/admin/posts", b.handleListPosts(false))
	admin("GET /api/v1/admin/posts/{id}", b.handleGetPost("id", false))
	// As the public one: "/admin/posts/slug/{slug}" and
	// "/admin/posts/{id}/revisions" overlap, so one pattern serves both.
	admin("GET /api/v1/admin/posts/{id}/{sub}", b.adminPostSubroute(b.handleGetPost("slug", false), b.handleListRevisions(kindPost)))
	admin("POST /api/v1/admin/posts", b.handleCreatePost)
	admin("PUT /api/v1/admin/posts/{id}", b.handleUpdatePost(false))
	admin("PATCH /api/v1/admin/posts/{id}", b.handleUpdatePost(true))
	admin("DELETE /api/v1/admin/posts/{id}", b.handleDeletePost)
	admin("GET /api/v1/admin/posts/{id}/revisions/{rev}", b.handleGetRevision(kindPost))
	admin("POST /api/v1/admin/posts/{id}/revisions/{rev}/restore", b.handleRestoreRevision(kindPost))

	api.Handle("POST /api/v1/posts/{id}/comments", b.commentLimit.Middleware(env)(env.Handle(b.handleSubmitComment)))
	admin("GET /api/v1/admin/comments", b.handleAdminListComments)
	admin("GET /api/v1/admin/comments/stats", b.handleCommentStats)
	admin("PATCH /api/v1/admin/comments/{id}", b.handleReviewComment)
	admin("DELETE /api/v1/admin/comments/{id}", b.handleDeleteComment)

	pub("GET /api/v1/pages", b.handleListPages(true))
	preflight("OPTIONS /api/v1/pages")
	pub("GET /api/v1/pages/slug/{slug}", b.handleGetPage("slug", true))
	preflight("OPTIONS /api/v1/pages/slug/{slug}")
	admin("GET /api/v1/admin/pages", b.handleListPages(false))
	admin("GET /api/v1/admin/pages/{id}", b.handleGetPage("id", false))
	admin("POST /api/v1/admin/pages", b.handleCreatePage)
	admin("PUT /api/v1/admin/pages/{id}", b.handleUpdatePage(false))
	admin("PATCH /api/v1/admin/pages/{id}", b.handleUpdatePage(true))
	admin("DELETE /api/v1/admin/pages/{id}", b.handleDeletePage)
	admin("GET /api/v1/admin/pages/{id}/revisions", b.handleListRevisions(kindPage))
	admin("GET /api/v1/admin/pages/{id}/revisions/{rev}", b.handleGetRevision(kindPage))
	admin("POST /api/v1/admin/pages/{id}/revisions/{rev}/restore", b.handleRestoreRevision(kindPage))

	pub("GET /api/v1/categories", b.handleListTerms(categories))
	preflight("OPTIONS /api/v1/categories")
	pub("GET /api/v1/categories/{id}", b.handleGetTerm(categories))
	preflight("OPTIONS /api/v1/categories/{id}")
	admin("GET /api/v1/admin/categories", b.handleListTerms(categories))
	admin("GET /api/v1/admin/categories/{id}", b.handleGetTerm(categories))
	admin("POST /api/v1/admin/categories", b.handleCreateTerm(categories))
	admin("PUT /api/v1/admin/categories/{id}", b.handleUpdateTerm(categories, false))
	admin("PATCH /api/v1/admin/categories/{id}", b.handleUpdateTerm(categories, true))
	admin("DELETE /api/v1/admin/categories/{id}", b.handleDeleteTerm(categories))

	pub("GET /api/v1/tags", b.handleListTerms(tags))
	preflight("OPTIONS /api/v1/tags")
	pub("GET /api/v1/tags/{id}", b.handleGetTerm(tags))
	preflight("OPTIONS /api/v1/tags/{id}")
	admin("GET /api/v1/admin/tags", b.handleListTerms(tags))
	admin("GET /api/v1/admin/tags/{id}", b.handleGetTerm(tags))
	admin("POST /api/v1/admin/tags", b.handleCreateTerm(tags))
	admin("PUT /api/v1/admin/tags/{id}", b.handleUpdateTerm(tags, false))
	admin("PATCH /api/v1/admin/tags/{id}", b.handleUpdateTerm(tags, true))
	admin("DELETE /api/v1/admin/tags/{id}", b.handleDeleteTerm(tags))

	pub("GET /api/v1/friend-links", b.handleListLinks(true))
	preflight("OPTIONS /api/v1/friend-links")
	pub("GET /api/v1/friend-links/{id}", b.handleGetLink(true))
	preflight("OPTIONS /api/v1/friend-links/{id}")
	admin("GET /api/v1/admin/friend-links", b.handleListLinks(false))
	admin("GET /api/v1/admin/friend-links/{id}", b.handleGetLink(false))
	admin("POST /api/v1/admin/friend-links", b.handleCreateLink)
	admin("PUT /api/v1/admin/friend-links/{id}", b.handleUpdateLink(false))
	admin("PATCH /api/v1/admin/friend-links/{id}", b.handleUpdateLink(true))
	admin("DELETE /api/v1/admin/friend-links/{id}", b.handleDeleteLink)

	admin("GET /api/v1/admin/settings", b.handleGetSettings)
	admin("PUT /api/v1/admin/settings", b.handlePutSettings)

	admin("GET /api/v1/admin/export", b.handleExport)
	api.HandleBody("POST /api/v1/admin/import", httpx.BodyLimit{Max: b.importBodyLimit, Err: b.importTooLarge()},
		adminHandler("POST /api/v1/admin/import", b.handleImport))

	admin("POST /api/v1/admin/ai/summary", b.handleAISummary)
	admin("POST /api/v1/admin/ai/tags", b.handleAITags)

	// Preview links (preview.go): making one changes nothing the site
	// shows, so it does not mark the site changed.
	api.Handle("POST /api/v1/admin/posts/{id}/preview-link", requireAdmin(env.Handle(b.handleCreatePreviewLink)))

	if b.console != nil {
		b.consoleRoutes(rt)
	}
	b.federationRoutes(rt)

	// The catch-all: an /api/ path no surface owns is the blog's, so it
	// answers in the envelope most of the API uses.
	api.Fallback("/api/")
	// Unknown admin paths answer 401 without credentials, as the routes
	// that exist do, so the admin route map cannot be probed.
	api.Fallback("/api/v1/admin", requireAdmin)
	api.Fallback("/api/v1/admin/", requireAdmin)
}

// postSubroute sends /posts/slug/{x} to bySlug and /posts/{id}/comments to
// comments, setting the path values those handlers read.
func (b *Blog) postSubroute(bySlug, comments httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		first, sub := r.PathValue("id"), r.PathValue("sub")
		switch {
		case first == "slug":
			r.SetPathValue("slug", sub)
			return bySlug(w, r)
		case sub == "comments":
			return comments(w, r)
		}
		return httpx.NotFound()
	}
}

// adminPostSubroute sends /admin/posts/slug/{x} to bySlug and
// /admin/posts/{id}/revisions to revisions.
func (b *Blog) adminPostSubroute(bySlug, revisions httpx.HandlerFunc) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		first, sub := r.PathValue("id"), r.PathValue("sub")
		switch {
		case first == "slug":
			r.SetPathValue("slug", sub)
			return bySlug(w, r)
		case sub == "revisions":
			return revisions(w, r)
		}
		return httpx.NotFound()
	}
}

// PublicRead lets any origin read h when render.enable_cors is on. No
// credentials are ever allowed: these answers are the same for all.
// cmd/folio wraps the health check with it, a public read too.
func (b *Blog) PublicRead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.settings.Get(r.Context()).Render.EnableCORS {
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		next.ServeHTTP(w, r)
	})
}

// Preflight answers CORS preflight requests of the public reads.
func (b *Blog) Preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if b.settings.Get(r.Context()).Render.EnableCORS {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept")
		h.Set("Access-Control-Max-Age", "86400")
	}
	h.Set("Allow", "GET, HEAD, OPTIONS")
	w.WriteHeader(http.StatusNoContent)
}

// maxContent bounds a Markdown text: it cannot be longer than the JSON body
// that carries it.
const maxContent = httpx.MaxJSONBody

// pathKey reads the {id} or {slug} a route matched (column names which);
// an id must be well formed.
func pathKey(r *http.Request, column string) (string, error) {
	if column == "id" {
		return httpx.PathID(r, "id")
	}
	return r.PathValue(column), nil
}

// blogPaging reads page and page_size with the blog's defaults
// (docs/api.md#envelopes, Paging).
func blogPaging(r *http.Request, def int) (httpx.Paging, error) {
	return httpx.ParsePaging(r, "page_size", def, 100)
}

// spanOf is the rows a page of p covers.
func spanOf(p httpx.Paging) span { return span{limit: p.Size, offset: p.Offset()} }
