package filehost

import (
	"net/http"

	"folio/httpx"
)

// contentRoutes registers uploads, short links, files and the Lsky image
// routes.
func (s *Service) contentRoutes(mux *http.ServeMux) {
	uploader := s.auth.RequireUser(httpx.Upload)
	user := s.auth.RequireUser(httpx.A)
	admin := s.auth.RequireAdmin(httpx.A)

	mux.Handle("POST /api/v1/upload", uploader(httpx.Upload.Handle(s.handleUpload)))
	mux.Handle("POST /api/v1/public/upload", httpx.Upload.Handle(s.handleGuestUpload))

	// Short links, outside /api/v1; GET patterns answer HEAD too.
	for _, p := range []string{"i", "v", "a", "f"} {
		mux.Handle("GET /"+p+"/{hash}", s.shortLink(p))
	}
	mux.HandleFunc("GET /t/{hash}", s.handleThumb)

	mux.Handle("GET /api/v1/files", user(httpx.A.Handle(s.handleListFiles)))
	mux.Handle("POST /api/v1/files/batch-delete", user(httpx.A.Handle(s.handleBatchDelete)))
	mux.Handle("GET /api/v1/files/{id}", user(httpx.A.Handle(s.handleGetFile)))
	mux.Handle("PATCH /api/v1/files/{id}", user(httpx.A.Handle(s.handlePatchFile)))
	mux.Handle("DELETE /api/v1/files/{id}", user(httpx.A.Handle(s.handleDeleteFile)))

	mux.Handle("GET /api/v1/admin/files", admin(httpx.A.Handle(s.handleAdminListFiles)))
	mux.Handle("DELETE /api/v1/admin/files/{id}", admin(httpx.A.Handle(s.handleAdminDeleteFile)))

	// Lsky Pro 2.x compatibility, in the upload shape.
	mux.Handle("GET /api/v1/images", uploader(httpx.Upload.Handle(s.handleLskyImages)))
	mux.Handle("DELETE /api/v1/images/{key...}", uploader(httpx.Upload.Handle(s.handleLskyDeleteImage)))
}
