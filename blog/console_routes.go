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

// consoleHandlers holds the console's page handlers. They are a type of
// their own so that *Blog's methods are the domain's (what the API, the site
// and the pages share) and a page's helpers cannot be called from the API.
type consoleHandlers struct{ *Blog }

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
	h := consoleHandlers{b}
	// Writes change what the classic site may show: once one succeeds the
	// site is marked changed, as after the API's (site_changed.go).
	write := func(h httpx.HandlerFunc) http.Handler { return b.changesSite(p.admin(h)) }

	// Dashboard (console_dashboard_http.go).
	p.Handle("GET /console/blog", p.admin(h.handleConsoleDashboard))

	// Posts and the editor (console_posts_http.go).
	p.Handle("GET /console/blog/posts", p.admin(h.handleConsolePosts))
	p.Handle("GET /console/blog/posts/new", p.admin(h.handleConsoleNewPost))
	p.Handle("POST /console/blog/posts", p.admin(h.handleConsoleCreatePost))
	p.Handle("GET /console/blog/posts/{id}", p.admin(h.handleConsolePost))
	p.Handle("POST /console/blog/posts/{id}", p.admin(h.handleConsoleSavePost))
	p.Handle("POST /console/blog/posts/{id}/delete", p.admin(h.handleConsoleDeletePost))
	p.Handle("POST /console/blog/preview", p.admin(h.handleConsolePreview))

	// Revisions (console_revisions_http.go).
	p.Handle("GET /console/blog/posts/{id}/revisions", p.admin(h.handleConsoleRevisions(kindPost)))
	p.Handle("GET /console/blog/posts/{id}/revisions/{rev}", p.admin(h.handleConsoleRevision(kindPost)))
	p.Handle("POST /console/blog/posts/{id}/revisions/{rev}/restore", p.admin(h.handleConsoleRestoreRevision(kindPost)))
	p.Handle("GET /console/blog/pages/{id}/revisions", p.admin(h.handleConsoleRevisions(kindPage)))
	p.Handle("GET /console/blog/pages/{id}/revisions/{rev}", p.admin(h.handleConsoleRevision(kindPage)))
	p.Handle("POST /console/blog/pages/{id}/revisions/{rev}/restore", p.admin(h.handleConsoleRestoreRevision(kindPage)))

	// Preview links (console_preview_http.go).
	p.Handle("GET /console/blog/posts/{id}/preview", p.admin(h.handleConsolePreviewLink))
	p.Handle("POST /console/blog/posts/{id}/preview", p.admin(h.handleConsoleMakePreviewLink))

	// Pages (console_pages_http.go).
	p.Handle("GET /console/blog/pages", p.admin(h.handleConsolePages))
	p.Handle("GET /console/blog/pages/new", p.admin(h.handleConsoleNewPage))
	p.Handle("POST /console/blog/pages", write(h.handleConsoleCreatePage))
	p.Handle("GET /console/blog/pages/{id}", p.admin(h.handleConsolePage))
	p.Handle("POST /console/blog/pages/{id}", write(h.handleConsoleUpdatePage))
	p.Handle("POST /console/blog/pages/{id}/delete", write(h.handleConsoleDeletePage))

	// Categories and tags (console_terms_http.go).
	for _, t := range []termTable{categories, tags} {
		base := "/console/blog/" + string(t)
		p.Handle("GET "+base, p.admin(h.handleConsoleTerms(t)))
		p.Handle("POST "+base, write(h.handleConsoleCreateTerm(t)))
		p.Handle("POST "+base+"/{id}", write(h.handleConsoleUpdateTerm(t)))
		p.Handle("POST "+base+"/{id}/delete", write(h.handleConsoleDeleteTerm(t)))
	}

	// Friend links (console_links_http.go).
	p.Handle("GET /console/blog/links", p.admin(h.handleConsoleLinks))
	p.Handle("POST /console/blog/links", write(h.handleConsoleCreateLink))
	p.Handle("GET /console/blog/links/{id}", p.admin(h.handleConsoleLink))
	p.Handle("POST /console/blog/links/{id}", write(h.handleConsoleUpdateLink))
	p.Handle("POST /console/blog/links/{id}/delete", write(h.handleConsoleDeleteLink))

	// Comments (console_comments_http.go).
	p.Handle("GET /console/blog/comments", p.admin(h.handleConsoleComments))
	p.Handle("POST /console/blog/comments/batch", write(h.handleConsoleCommentsBatch))
	p.Handle("POST /console/blog/comments/{id}/reply", write(h.handleConsoleReply))

	// Federation (console_federation_http.go); a reply from the console
	// is a comment, shown on the site (console_comments_http.go).
	p.Handle("GET /console/blog/federation", p.admin(h.handleConsoleFederation))
	p.Handle("POST /console/blog/federation", write(h.handleConsoleSaveFederation))
	p.Handle("POST /console/blog/federation/followers", p.admin(h.handleConsoleFollower))
	p.Handle("POST /console/blog/federation/blocks", p.admin(h.handleConsoleAddBlock))
	p.Handle("POST /console/blog/federation/blocks/delete", p.admin(h.handleConsoleRemoveBlock))

	// Import and export (console_import_http.go): the import's form is the
	// API's, with its body limit; the export is the API's download.
	p.Handle("GET /console/blog/import", p.admin(h.handleConsoleImport))
	p.HandleBody("POST /console/blog/import", httpx.BodyLimit{Max: b.importBodyLimit, Err: b.importTooLarge()},
		p.admin(h.handleConsoleRunImport))

	// Settings (console_settings_http.go).
	p.Handle("GET /console/blog/settings", p.admin(h.handleConsoleSettings))
	p.Handle("POST /console/blog/settings", write(h.handleConsoleSaveSettings))
}
