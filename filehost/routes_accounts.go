package filehost

import (
	"net/http"

	"folio/httpx"
)

// accountRoutes registers accounts, tokens, albums, public and admin routes.
func (s *Service) accountRoutes(mux *http.ServeMux) {
	user := s.auth.RequireUser(httpx.FileAPI)
	admin := s.auth.RequireAdmin(httpx.FileAPI)
	lsky := s.auth.RequireUser(httpx.Lsky)

	mux.Handle("POST /api/v1/auth/register", s.registerLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleRegister)))
	mux.Handle("POST /api/v1/auth/login", s.loginLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleLogin)))
	mux.Handle("POST /api/v1/auth/refresh", s.refreshLimit.Middleware(httpx.FileAPI)(httpx.FileAPI.Handle(s.handleRefresh)))
	mux.Handle("POST /api/v1/auth/logout", httpx.FileAPI.Handle(s.handleLogout))
	mux.Handle("GET /api/v1/auth/me", user(httpx.FileAPI.Handle(s.handleMe)))

	mux.Handle("GET /api/v1/tokens", user(httpx.FileAPI.Handle(s.handleListTokens)))
	mux.Handle("POST /api/v1/tokens", user(httpx.FileAPI.Handle(s.handleCreateToken)))
	mux.Handle("DELETE /api/v1/tokens/{id}", user(httpx.FileAPI.Handle(s.handleRevokeToken)))

	mux.Handle("GET /api/v1/albums", user(httpx.FileAPI.Handle(s.handleListAlbums)))
	mux.Handle("POST /api/v1/albums", user(httpx.FileAPI.Handle(s.handleCreateAlbum)))
	mux.Handle("GET /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handleGetAlbum)))
	mux.Handle("PATCH /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handlePatchAlbum)))
	mux.Handle("DELETE /api/v1/albums/{id}", user(httpx.FileAPI.Handle(s.handleDeleteAlbum)))

	mux.Handle("GET /api/v1/public/stats", httpx.FileAPI.Handle(s.handlePublicStats))
	mux.Handle("GET /api/v1/public/plaza", httpx.FileAPI.Handle(s.handlePlaza))

	mux.Handle("GET /api/v1/admin/users", admin(httpx.FileAPI.Handle(s.handleAdminListUsers)))
	mux.Handle("POST /api/v1/admin/users", admin(httpx.FileAPI.Handle(s.handleAdminCreateUser)))
	mux.Handle("GET /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminGetUser)))
	mux.Handle("PATCH /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminPatchUser)))
	mux.Handle("DELETE /api/v1/admin/users/{id}", admin(httpx.FileAPI.Handle(s.handleAdminDeleteUser)))
	mux.Handle("GET /api/v1/admin/stats", admin(httpx.FileAPI.Handle(s.handleAdminStats)))

	// Lsky Pro 2.x compatibility, in the upload shape.
	mux.Handle("GET /api/v1/strategies", lsky(httpx.Lsky.Handle(s.handleLskyStrategies)))
	mux.Handle("GET /api/v1/profile", lsky(httpx.Lsky.Handle(s.handleLskyProfile)))
}
