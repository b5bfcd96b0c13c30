package main

import (
	"net/http"

	"folio/blog"
	"folio/httpx"
)

// routes registers the system surface: what belongs to the process rather
// than to the blog or the file host. The health check is a public read, so
// it follows render.enable_cors as the blog's public reads do.
func (a *app) routes(rt *httpx.Router, b *blog.Blog) {
	sys := rt.API("system", httpx.BlogAPI)
	sys.Handle("GET /api/v1/health", b.PublicRead(http.HandlerFunc(a.health)))
	sys.Handle("OPTIONS /api/v1/health", http.HandlerFunc(b.Preflight))
	sys.Fallback("/api/v1/health")
	sys.Fallback("/api/v1/health/")
}
