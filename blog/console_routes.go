package blog

import (
	"net/http"

	"folio/auth"
	"folio/httpx"
)

// consolePages registers the blog's pages of the web console
// (docs/console.md#the-blog). Every one is the administrator's: the blog
// has one author (docs/design.md#identity), so a user's session gets 403,
// and every page sends the console's security headers.
type consolePages struct {
	*httpx.Surface
	c *auth.Console
}

func (p consolePages) admin(h httpx.HandlerFunc) http.Handler {
	return auth.ConsoleHeaders(p.c.Require(true)(p.c.Handle(h)))
}

// open is a page outside the console's sign-in: what it shows is guarded
// by its own means (a signed preview link).
func (p consolePages) open(h httpx.HandlerFunc) http.Handler {
	return auth.ConsoleHeaders(p.c.Handle(h))
}

// consoleRoutes registers the blog half of the web console, under
// /console/blog. Misses under /console/ are the file host's console
// surface's, which answers them with the console's error page.
func (b *Blog) consoleRoutes(rt *httpx.Router) {
	p := consolePages{rt.Pages("console-blog", httpx.FileAPI), b.console}
	_ = p

	// Dashboard (console_dashboard_http.go).

	// Posts and the editor (console_posts_http.go).

	// Revisions and preview links (console_revisions_http.go).
	p.Handle("GET /console/blog/posts/{id}/revisions", p.admin(b.handleConsoleRevisions(kindPost)))
	p.Handle("GET /console/blog/posts/{id}/revisions/{rev}", p.admin(b.handleConsoleRevision(kindPost)))
	p.Handle("POST /console/blog/posts/{id}/revisions/{rev}/restore", p.admin(b.handleConsoleRestoreRevision(kindPost)))
	p.Handle("GET /console/blog/pages/{id}/revisions", p.admin(b.handleConsoleRevisions(kindPage)))
	p.Handle("GET /console/blog/pages/{id}/revisions/{rev}", p.admin(b.handleConsoleRevision(kindPage)))
	p.Handle("POST /console/blog/pages/{id}/revisions/{rev}/restore", p.admin(b.handleConsoleRestoreRevision(kindPage)))

	// Pages (console_pages_http.go).

	// Categories and tags (console_terms_http.go).

	// Friend links (console_links_http.go).

	// Comments (console_comments_http.go).

	// Settings (console_settings_http.go).
}
