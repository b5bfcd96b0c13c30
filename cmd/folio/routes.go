package main

import (
	"net/http"

	"folio/blog"
	"folio/httpx"
)

// routes registers the system surface: what belongs to the process rather
// than to the blog or the file host. The health check and the OpenAPI
// document are public reads, so they follow render.enable_cors as the
// blog's public reads do. The document is checked against the route table
// once every route is registered (newApp), and made on its first request.
func (a *app) routes(rt *httpx.Router, b *blog.Blog) {
	sys := rt.API("system", httpx.BlogAPI)
	sys.Handle("GET /api/v1/health", b.PublicRead(http.HandlerFunc(a.health)))
	sys.Handle("OPTIONS /api/v1/health", http.HandlerFunc(b.Preflight))
	sys.Fallback("/api/v1/health")
	sys.Fallback("/api/v1/health/")
	sys.Handle("GET /api/v1/openapi.json", b.PublicRead(&a.openapi))
	sys.Handle("OPTIONS /api/v1/openapi.json", http.HandlerFunc(b.Preflight))
	sys.Fallback("/api/v1/openapi.json")
	sys.Fallback("/api/v1/openapi.json/")
}
