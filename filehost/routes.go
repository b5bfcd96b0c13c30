package filehost

import (
	"net/http"

	"folio/httpx"
)

// Routes registers every file-hosting route on rt, in two surfaces: the
// JSON API under /api/v1 in envelope A, and the short links, pages whose
// unknown paths are the site's 404 page but whose other errors are in
// envelope A too. Each surface owns the subtrees of its groups, so what
// their routes do not match answers here (docs/design.md, HTTP).
func (s *Service) Routes(rt *httpx.Router) {
	api := rt.API("files", httpx.FileAPI)
	user := s.auth.RequireUser(httpx.FileAPI)
	admin := s.auth.RequireAdmin(httpx.FileAPI)
	lsky := s.auth.RequireUser(httpx.Lsky)

	api.HandleBody("POST /api/v1/upload", s.uploadBodyLimit(1, httpx.Lsky), lsky(httpx.Lsky.Handle(s.handleUpload)))
	api.HandleBody("POST /api/v1/public/upload", s.uploadBodyLimit(1, httpx.Lsky), httpx.Lsky.Handle(s.handleGuestUpload))

	// Resumable uploads (docs/filehost.md#resumable-uploads-tus).
	tusUser := func(h httpx.HandlerFunc) http.Handler {
		return tusResumable(s.auth.RequireUser(httpx.FileAPI)(tusVersion(tusHandle(h))))
	}
	api.Handle("OPTIONS /api/v1/tus/{$}", tusResumable(http.HandlerFunc(s.handleTusOptions)))
	api.Handle("OPTIONS /api/v1/tus/{id}", tusResumable(http.HandlerFunc(s.handleTusOptions)))
	api.HandleBody("POST /api/v1/tus/{$}", s.tusBodyLimit(), tusUser(s.handleTusCreate))
	api.HandleBody("PATCH /api/v1/tus/{id}", s.tusBodyLimit(), tusUser(s.handleTusPatch))
	api.HandleBody("POST /api/v1/tus/{id}", s.tusBodyLimit(), tusUser(s.handleTusOverride))
	api.Handle("GET /api/v1/tus/{id}", tusUser(s.handleTusGet)) // and HEAD
	api.Handle("DELETE /api/v1/tus/{id}", tusUser(s.handleTusDelete))

	api.Handle("GET /api/v1/files", user(httpx.FileAPI.Handle(s.handleListFiles)))
	api.Handle("POST /api/v1/files/batch-delete", user(httpx.FileAPI.Handle(s.handleBatchDelete)))
	api.Handle("GET /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handleGetFile)))
	api.Handle("PATCH /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handlePatchFile)))
	api.Handle("DELETE /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handleDeleteFile)))
	api.Handle("POST /api/v1/files/{id}/shares", user(httpx.FileAPI.Handle(s.handleCreateShare)))
	api.Handle("GET /api/v1/files/{id}/shares", user(httpx.FileAPI.Handle(s.handleListShares)))
	api.Handle("DELETE /api/v1/files/{id}/shares/{share_id}", user(httpx.FileAPI.Handle(s.handleRevokeShare)))

	api.Handle("POST /api/v1/auth/register", s.registerLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleRegister)))
	api.Handle("POST /api/v1/auth/login", s.loginLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleLogin)))
	api.Handle("POST /api/v1/auth/refresh", s.refreshLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleRefresh)))
	api.Handle("POST /api/v1/auth/logout", httpx.FileAPI.Handle(s.handleLogout))
	api.Handle("GET /api/v1/auth/me", user(httpx.FileAPI.Handle(s.handleMe)))
	api.Handle("PATCH /api/v1/auth/me", user(httpx.FileAPI.Handle(s.handlePatchMe)))

	api.Handle("GET /api/v1/tokens", user(httpx.FileAPI.Handle(s.handleListTokens)))
	api.Handle("POST /api/v1/tokens", user(httpx.FileAPI.Handle(s.handleCreateToken)))
	api.Handle("DELETE /api/v1/tokens/{id}", user(httpx.FileAPI.Handle(s.handleRevokeToken)))

	api.Handle("GET /api/v1/albums", user(httpx.FileAPI.Handle(s.handleListAlbums)))
	api.Handle("POST /api/v1/albums", user(httpx.FileAPI.Handle(s.handleCreateAlbum)))
	api.Handle("GET /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handleGetAlbum)))
	api.Handle("PATCH /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handlePatchAlbum)))
	api.Handle("DELETE /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handleDeleteAlbum)))

	api.Handle("GET /api/v1/public/stats", httpx.FileAPI.Handle(s.handlePublicStats))
	api.Handle("GET /api/v1/public/plaza", httpx.FileAPI.Handle(s.handlePlaza))

	api.Handle("GET /api/v1/admin/users", admin(httpx.FileAPI.Handle(s.handleAdminListUsers)))
	api.Handle("POST /api/v1/admin/users", admin(httpx.FileAPI.Handle(s.handleAdminCreateUser)))
	api.Handle("GET /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminGetUser)))
	api.Handle("PATCH /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminPatchUser)))
	api.Handle("DELETE /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminDeleteUser)))
	api.Handle("GET /api/v1/admin/files", admin(httpx.FileAPI.Handle(s.handleAdminListFiles)))
	api.Handle("DELETE /api/v1/admin/files/{id}", admin(httpx.FileAPI.Handle(s.handleAdminDeleteFile)))
	api.Handle("GET /api/v1/admin/stats", admin(httpx.FileAPI.Handle(s.handleAdminStats)))

	// Lsky Pro 2.x compatibility, in the upload shape.
	api.Handle("GET /api/v1/strategies", lsky(httpx.Lsky.Handle(s.handleLskyStrategies)))
	api.Handle("GET /api/v1/profile", lsky(httpx.Lsky.Handle(s.handleLskyProfile)))
	api.Handle("GET /api/v1/images", lsky(httpx.Lsky.Handle(s.handleLskyImages)))
	api.Handle("DELETE /api/v1/images/{key...}", lsky(httpx.Lsky.Handle(s.handleLskyDeleteImage)))

	api.Fallback("/api/v1/upload")
	api.Fallback("/api/v1/upload/")
	api.Fallback("/api/v1/tus")
	api.Fallback("/api/v1/tus/")
	api.Fallback("/api/v1/files")
	api.Fallback("/api/v1/files/")
	api.Fallback("/api/v1/auth")
	api.Fallback("/api/v1/auth/")
	api.Fallback("/api/v1/tokens")
	api.Fallback("/api/v1/tokens/")
	api.Fallback("/api/v1/albums")
	api.Fallback("/api/v1/albums/")
	api.Fallback("/api/v1/public")
	api.Fallback("/api/v1/public/")
	// Within the admin area, credentials come first, as for every admin
	// path.
	api.Fallback("/api/v1/admin/users", admin)
	api.Fallback("/api/v1/admin/users/", admin)
	api.Fallback("/api/v1/admin/files", admin)
	api.Fallback("/api/v1/admin/files/", admin)
	api.Fallback("/api/v1/admin/stats", admin)
	api.Fallback("/api/v1/admin/stats/", admin)
	api.Fallback("/api/v1/strategies")
	api.Fallback("/api/v1/strategies/")
	api.Fallback("/api/v1/profile")
	api.Fallback("/api/v1/profile/")
	api.Fallback("/api/v1/images")
	api.Fallback("/api/v1/images/")

	// Short links, outside /api/v1; GET patterns answer HEAD too.
	links := rt.Pages("links", httpx.FileAPI)
	links.Handle("GET /i/{hash}", s.shortLink("i"))
	links.Handle("GET /v/{hash}", s.shortLink("v"))
	links.Handle("GET /a/{hash}", s.shortLink("a"))
	links.Handle("GET /f/{hash}", s.shortLink("f"))
	links.Handle("GET /t/{hash}", http.HandlerFunc(s.handleThumb))
	links.Fallback("/i")
	links.Fallback("/i/")
	links.Fallback("/v")
	links.Fallback("/v/")
	links.Fallback("/a")
	links.Fallback("/a/")
	links.Fallback("/f")
	links.Fallback("/f/")
	links.Fallback("/t")
	links.Fallback("/t/")

	// Share links (docs/filehost.md#share-links), pages for anyone.
	shares := rt.Pages("shares", httpx.FileAPI)
	shares.Handle("GET /s/{token}", http.HandlerFunc(s.handleSharePage))
	shares.Handle("POST /s/{token}", http.HandlerFunc(s.handleSharePassword))
	shares.Handle("GET /s/raw/{token}", http.HandlerFunc(s.handleShareRaw))
	shares.Handle("GET /s/static/{file}", http.HandlerFunc(s.serveStatic))
	shares.Fallback("/s")
	shares.Fallback("/s/")

	if s.console != nil {
		s.consoleRoutes(rt)
	}
}

// uploadBodyLimit bounds an upload route's body before anything else runs
// (docs/api.md#limits): the bound the upload itself reads under, refused
// as a file too large, in the route's envelope.
func (s *Service) uploadBodyLimit(maxFiles int, env httpx.Envelope) httpx.BodyLimit {
	return httpx.BodyLimit{
		Max: func(r *http.Request) int64 {
			return bodyLimit(s.settings.Get(r.Context()).Upload.MaxFileSize, maxFiles)
		},
		Env: &env,
		Err: httpError(errFileTooLarge),
	}
}

// tusBodyLimit bounds a tus request's body: a chunk is at most the
// maximum file size.
func (s *Service) tusBodyLimit() httpx.BodyLimit {
	return httpx.BodyLimit{
		Max: func(r *http.Request) int64 {
			return bodyLimit(s.settings.Get(r.Context()).Upload.MaxFileSize, 1)
		},
		Err: httpError(errFileTooLarge),
	}
}
