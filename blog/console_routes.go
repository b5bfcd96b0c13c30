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

// consoleRoutes registers the blog half of the web console, under
// /console/blog. Misses under /console/ are the file host's console
// surface's, which answers them with the console's error page, and a 405
// in envelope A: the surface declares that envelope too, so that all of
// /console/ answers alike.
func (b *Blog) consoleRoutes(rt *httpx.Router) {
	p := consolePages{rt.Pages("console-blog", httpx.FileAPI), b.console}
	// Writes change what the classic site may show: once one succeeds the
	// site is marked changed, as after the API's (site_changed.go).
	write := func(h httpx.HandlerFunc) http.Handler { return b.changesSite(p.admin(h)) }

	// Dashboard (console_dashboard_http.go).
	p.Handle("GET /console/blog", p.admin(b.handleConsoleDashboard))

	// Posts and the editor (console_posts_http.go).
	p.Handle("GET /console/blog/posts", p.admin(b.handleConsolePosts))
	p.Handle("GET /console/blog/posts/new", p.admin(b.handleConsoleNewPost))
	p.Handle("POST /console/blog/posts", p.admin(b.handleConsoleCreatePost))
	p.Handle("GET /console/blog/posts/{id}", p.admin(b.handleConsolePost))
	p.Handle("POST /console/blog/posts/{id}", p.admin(b.handleConsoleSavePost))
	p.Handle("POST /console/blog/posts/{id}/delete", p.admin(b.handleConsoleDeletePost))
	p.Handle("POST /console/blog/preview", p.admin(b.handleConsolePreview))

	// Revisions (console_revisions_http.go).
	p.Handle("GET /console/blog/posts/{id}/revisions", p.admin(b.handleConsoleRevisions(kindPost)))
	p.Handle("GET /console/blog/posts/{id}/revisions/{rev}", p.admin(b.handleConsoleRevision(kindPost)))
	p.Handle("POST /console/blog/posts/{id}/revisions/{rev}/restore", p.admin(b.handleConsoleRestoreRevision(kindPost)))
	p.Handle("GET /console/blog/pages/{id}/revisions", p.admin(b.handleConsoleRevisions(kindPage)))
	p.Handle("GET /console/blog/pages/{id}/revisions/{rev}", p.admin(b.handleConsoleRevision(kindPage)))
	p.Handle("POST /console/blog/pages/{id}/revisions/{rev}/restore", p.admin(b.handleConsoleRestoreRevision(kindPage)))

	// Preview links (console_preview_http.go).
	p.Handle("GET /console/blog/posts/{id}/preview", p.admin(b.handleConsolePreviewLink))
	p.Handle("POST /console/blog/posts/{id}/preview", p.admin(b.handleConsoleMakePreviewLink))

	// Pages (console_pages_http.go).
	p.Handle("GET /console/blog/pages", p.admin(b.handleConsolePages))
	p.Handle("GET /console/blog/pages/new", p.admin(b.handleConsoleNewPage))
	p.Handle("POST /console/blog/pages", write(b.handleConsoleCreatePage))
	p.Handle("GET /console/blog/pages/{id}", p.admin(b.handleConsolePage))
	p.Handle("POST /console/blog/pages/{id}", write(b.handleConsoleUpdatePage))
	p.Handle("POST /console/blog/pages/{id}/delete", write(b.handleConsoleDeletePage))

	// Categories and tags (console_terms_http.go).
	for _, t := range []termTable{categories, tags} {
		base := "/console/blog/" + string(t)
		p.Handle("GET "+base, p.admin(b.handleConsoleTerms(t)))
		p.Handle("POST "+base, write(b.handleConsoleCreateTerm(t)))
		p.Handle("POST "+base+"/{id}", write(b.handleConsoleUpdateTerm(t)))
		p.Handle("POST "+base+"/{id}/delete", write(b.handleConsoleDeleteTerm(t)))
	}

	// Friend links (console_links_http.go).
	p.Handle("GET /console/blog/links", p.admin(b.handleConsoleLinks))
	p.Handle("POST /console/blog/links", write(b.handleConsoleCreateLink))
	p.Handle("GET /console/blog/links/{id}", p.admin(b.handleConsoleLink))
	p.Handle("POST /console/blog/links/{id}", write(b.handleConsoleUpdateLink))
	p.Handle("POST /console/blog/links/{id}/delete", write(b.handleConsoleDeleteLink))

	// Comments (console_comments_http.go).
	p.Handle("GET /console/blog/comments", p.admin(b.handleConsoleComments))
	p.Handle("POST /console/blog/comments/batch", write(b.handleConsoleCommentsBatch))

	// Settings (console_settings_http.go).
	p.Handle("GET /console/blog/settings", p.admin(b.handleConsoleSettings))
	p.Handle("POST /console/blog/settings", write(b.handleConsoleSaveSettings))
}
