package blog

import (
	"net/http"
	"strings"

	"folio/httpx"
)

// Routes registers every blog API route.
func (b *Blog) Routes(mux *http.ServeMux) {
	env := httpx.BlogAPI
	// Public reads: CORS when render.enable_cors (never with credentials).
	pub := func(pattern string, h httpx.HandlerFunc) {
		b.PublicGET(mux, pattern, env.Handle(h))
	}
	admin := func(pattern string, h httpx.HandlerFunc) {
		var next http.Handler = env.Handle(h)
		if !strings.HasPrefix(pattern, "GET ") {
			next = b.changesSite(next)
		}
		mux.Handle(pattern, b.auth.RequireAdmin(env)(next))
	}

	mux.Handle("POST /api/v1/admin/auth/login", b.loginLimit.Middleware(env)(env.Handle(b.handleLogin)))
	admin("GET /api/v1/admin/auth/me", b.handleMe)
	admin("POST /api/v1/admin/auth/logout", b.handleLogout)

	pub("/api/v1/posts", b.handleListPosts(true))
	pub("/api/v1/posts/{id}", b.handleGetPost("id", true))
	// "/api/v1/posts/slug/{slug}" and "/api/v1/posts/{id}/comments" overlap
	// as ServeMux patterns ("/api/v1/posts/slug/comments"); an id is never
	// "slug", so one pattern serves both.
	pub("/api/v1/posts/{id}/{sub}", b.postSubroute(b.handleGetPost("slug", true), b.handleListApprovedComments))
	admin("GET /api/v1/admin/posts", b.handleListPosts(false))
	admin("GET /api/v1/admin/posts/{id}", b.handleGetPost("id", false))
	admin("GET /api/v1/admin/posts/slug/{slug}", b.handleGetPost("slug", false))
	admin("POST /api/v1/admin/posts", b.handleCreatePost)
	admin("PUT /api/v1/admin/posts/{id}", b.handleUpdatePost(false))
	admin("PATCH /api/v1/admin/posts/{id}", b.handleUpdatePost(true))
	admin("DELETE /api/v1/admin/posts/{id}", b.handleDeletePost)

	mux.Handle("POST /api/v1/posts/{id}/comments", b.commentLimit.Middleware(env)(env.Handle(b.handleSubmitComment)))
	admin("GET /api/v1/admin/comments", b.handleAdminListComments)
	admin("GET /api/v1/admin/comments/stats", b.handleCommentStats)
	admin("PATCH /api/v1/admin/comments/{id}", b.handleReviewComment)
	admin("DELETE /api/v1/admin/comments/{id}", b.handleDeleteComment)

	pub("/api/v1/pages", b.handleListPages(true))
	pub("/api/v1/pages/slug/{slug}", b.handleGetPage("slug", true))
	admin("GET /api/v1/admin/pages", b.handleListPages(false))
	admin("GET /api/v1/admin/pages/{id}", b.handleGetPage("id", false))
	admin("POST /api/v1/admin/pages", b.handleCreatePage)
	admin("PUT /api/v1/admin/pages/{id}", b.handleUpdatePage(false))
	admin("PATCH /api/v1/admin/pages/{id}", b.handleUpdatePage(true))
	admin("DELETE /api/v1/admin/pages/{id}", b.handleDeletePage)

	for _, t := range []termTable{categories, tags} {
		res := string(t)
		pub("/api/v1/"+res, b.handleListTerms(t))
		pub("/api/v1/"+res+"/{id}", b.handleGetTerm(t))
		admin("GET /api/v1/admin/"+res, b.handleListTerms(t))
		admin("GET /api/v1/admin/"+res+"/{id}", b.handleGetTerm(t))
		admin("POST /api/v1/admin/"+res, b.handleCreateTerm(t))
		admin("PUT /api/v1/admin/"+res+"/{id}", b.handleUpdateTerm(t, false))
		admin("PATCH /api/v1/admin/"+res+"/{id}", b.handleUpdateTerm(t, true))
		admin("DELETE /api/v1/admin/"+res+"/{id}", b.handleDeleteTerm(t))
	}

	pub("/api/v1/friend-links", b.handleListLinks(true))
	pub("/api/v1/friend-links/{id}", b.handleGetLink(true))
	admin("GET /api/v1/admin/friend-links", b.handleListLinks(false))
	admin("GET /api/v1/admin/friend-links/{id}", b.handleGetLink(false))
	admin("POST /api/v1/admin/friend-links", b.handleCreateLink)
	admin("PUT /api/v1/admin/friend-links/{id}", b.handleUpdateLink(false))
	admin("PATCH /api/v1/admin/friend-links/{id}", b.handleUpdateLink(true))
	admin("DELETE /api/v1/admin/friend-links/{id}", b.handleDeleteLink)

	admin("GET /api/v1/admin/settings", b.handleGetSettings)
	admin("PUT /api/v1/admin/settings", b.handlePutSettings)

	admin("POST /api/v1/admin/ai/summary", b.handleAISummary)
	admin("POST /api/v1/admin/ai/tags", b.handleAITags)
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

// cors lets any origin read a public endpoint when render.enable_cors is
// on. No credentials are ever allowed: these answers are the same for all.
// PublicGET registers a public read at path: GET (and HEAD) carrying the
// CORS header when render.enable_cors is on, and its preflight. cmd/folio
// registers the health check with it, a public read too.
func (b *Blog) PublicGET(mux *http.ServeMux, path string, h http.Handler) {
	mux.Handle("GET "+path, b.cors(h))
	mux.Handle("OPTIONS "+path, http.HandlerFunc(b.preflight))
}

func (b *Blog) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.settings.Get(r.Context()).Render.EnableCORS {
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		next.ServeHTTP(w, r)
	})
}

// preflight answers CORS preflight requests of the public reads.
func (b *Blog) preflight(w http.ResponseWriter, r *http.Request) {
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
