package filehost

import (
	"net/http"

	"folio/httpx"
)

// contentRoutes registers uploads, short links, files and the Lsky image
// routes.
func (s *Service) contentRoutes(mux *http.ServeMux) {
	uploader := s.auth.RequireUser(httpx.Lsky)
	user := s.auth.RequireUser(httpx.FileAPI)
	admin := s.auth.RequireAdmin(httpx.FileAPI)

	mux.Handle("POST /api/v1/upload", uploader(httpx.Lsky.Handle(s.handleUpload)))
	mux.Handle("POST /api/v1/public/upload", httpx.Lsky.Handle(s.handleGuestUpload))

	// Short links, outside /api/v1; GET patterns answer HEAD too.
	for _, p := range []string{"i", "v", "a", "f"} {
		mux.Handle("GET /"+p+"/{hash}", s.shortLink(p))
	}
	mux.HandleFunc("GET /t/{hash}", s.handleThumb)

	mux.Handle("GET /api/v1/files", user(httpx.FileAPI.Handle(s.handleListFiles)))
	mux.Handle("POST /api/v1/files/batch-delete", user(httpx.FileAPI.Handle(s.handleBatchDelete)))
	mux.Handle("GET /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handleGetFile)))
	mux.Handle("PATCH /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handlePatchFile)))
	mux.Handle("DELETE /api/v1/files/{id}", user(httpx.FileAPI.Handle(s.handleDeleteFile)))

	mux.Handle("GET /api/v1/admin/files", admin(httpx.FileAPI.Handle(s.handleAdminListFiles)))
	mux.Handle("DELETE /api/v1/admin/files/{id}", admin(httpx.FileAPI.Handle(s.handleAdminDeleteFile)))

	// Lsky Pro 2.x compatibility, in the upload shape.
	mux.Handle("GET /api/v1/images", uploader(httpx.Lsky.Handle(s.handleLskyImages)))
	mux.Handle("DELETE /api/v1/images/{key...}", uploader(httpx.Lsky.Handle(s.handleLskyDeleteImage)))
}
