package blog

import (
	"net/http"

	"folio/httpx"
)

// Routes registers the classic site on rt. The site owns every path that
// no other surface does: what none of its routes matches is its 404 page,
// which also answers the misses of the other page surfaces (short links),
// and a wrong method is a 405 in the API's envelope (docs/design.md, HTTP).
func (s *Site) Routes(rt *httpx.Router) {
	site := rt.Pages("site", httpx.BlogAPI)
	// The home page and the posts answer ActivityStreams JSON to the
	// servers that ask, while federation is on (federation_http.go).
	site.Handle("GET /{$}", s.b.activityOr(s.b.handleActor, s.handle(s.home)))
	site.Handle("GET /posts/{slug}", s.b.activityOr(s.b.handlePostObject, s.handle(s.post)))
	site.Handle("POST /posts/{slug}/comments", s.handle(s.comment))
	site.Handle("GET /pages/{slug}", s.handle(s.page))
	site.Handle("GET /categories/{slug}", s.handle(s.category))
	site.Handle("GET /tags/{slug}", s.handle(s.tag))
	site.Handle("GET /search", s.handle(s.search))
	site.Handle("GET /feed.xml", s.handle(s.rss))
	site.Handle("GET /atom.xml", s.handle(s.atom))
	site.Handle("GET /sitemap.xml", s.handle(s.sitemap))
	site.Handle("GET /robots.txt", s.handle(s.robots))
	site.Handle("GET /static/{file}", http.HandlerFunc(s.static))
	// A signed preview of a post (preview.go): in both render modes, and
	// never through the page cache.
	site.Handle("GET /preview/{token}", http.HandlerFunc(s.preview))

	site.Fallback("/")
	// Only what is under /api/ is the API: the bare /api is a page path,
	// owned here so that the mux does not redirect it into the API's
	// "/api/" catch-all.
	site.Fallback("/api")
	rt.SetNotFoundPage(http.HandlerFunc(s.NotFound))
}
