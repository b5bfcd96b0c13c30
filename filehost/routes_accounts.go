package filehost

import (
	"net/http"

	"folio/httpx"
)

// accountRoutes registers accounts, tokens, albums, public and admin routes.
func (s *Service) accountRoutes(mux *http.ServeMux) {
	user := s.auth.RequireUser(httpx.A)
	admin := s.auth.RequireAdmin(httpx.A)
	lsky := s.auth.RequireUser(httpx.Upload)

	mux.Handle("POST /api/v1/auth/register", s.registerLimit.Middleware(httpx.A)(httpx.A.Handle(s.handleRegister)))
	mux.Handle("POST /api/v1/auth/login", s.loginLimit.Middleware(httpx.A)(httpx.A.Handle(s.handleLogin)))
	mux.Handle("POST /api/v1/auth/refresh", s.refreshLimit.Middleware(httpx.A)(httpx.A.Handle(s.handleRefresh)))
	mux.Handle("POST /api/v1/auth/logout", httpx.A.Handle(s.handleLogout))
	mux.Handle("GET /api/v1/auth/me", user(httpx.A.Handle(s.handleMe)))

	mux.Handle("GET /api/v1/tokens", user(httpx.A.Handle(s.handleListTokens)))
	mux.Handle("POST /api/v1/tokens", user(httpx.A.Handle(s.handleCreateToken)))
	mux.Handle("DELETE /api/v1/tokens/{id}", user(httpx.A.Handle(s.handleRevokeToken)))

	mux.Handle("GET /api/v1/albums", user(httpx.A.Handle(s.handleListAlbums)))
	mux.Handle("POST /api/v1/albums", user(httpx.A.Handle(s.handleCreateAlbum)))
	mux.Handle("GET /api/v1/albums/{id}", user(httpx.A.Handle(s.handleGetAlbum)))
	mux.Handle("PATCH /api/v1/albums/{id}", user(httpx.A.Handle(s.handlePatchAlbum)))
	mux.Handle("DELETE /api/v1/albums/{id}", user(httpx.A.Handle(s.handleDeleteAlbum)))

	mux.Handle("GET /api/v1/public/stats", httpx.A.Handle(s.handlePublicStats))
	mux.Handle("GET /api/v1/public/plaza", httpx.A.Handle(s.handlePlaza))

	mux.Handle("GET /api/v1/admin/users", admin(httpx.A.Handle(s.handleAdminListUsers)))
	mux.Handle("POST /api/v1/admin/users", admin(httpx.A.Handle(s.handleAdminCreateUser)))
	mux.Handle("GET /api/v1/admin/users/{id}", admin(httpx.A.Handle(s.handleAdminGetUser)))
	mux.Handle("PATCH /api/v1/admin/users/{id}", admin(httpx.A.Handle(s.handleAdminPatchUser)))
	mux.Handle("DELETE /api/v1/admin/users/{id}", admin(httpx.A.Handle(s.handleAdminDeleteUser)))
	mux.Handle("GET /api/v1/admin/stats", admin(httpx.A.Handle(s.handleAdminStats)))

	// Lsky Pro 2.x compatibility, in the upload shape.
	mux.Handle("GET /api/v1/strategies", lsky(httpx.Upload.Handle(s.handleLskyStrategies)))
	mux.Handle("GET /api/v1/profile", lsky(httpx.Upload.Handle(s.handleLskyProfile)))
}
