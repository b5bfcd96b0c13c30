package filehost

import (
	"net/http"

	"folio/auth"
	"folio/httpx"
)

// consolePages registers console pages on a surface: user pages need a
// signed-in account, admin pages the administrator, open pages nobody
// (sign-in, registration, the guest upload page). Every one sends the
// console's security headers.
type consolePages struct {
	*httpx.Surface
	c *auth.Console
}

// consoleHandlers holds the console's page handlers. They are a type of
// their own so that *Service's methods are the domain's (what the API, the
// short links and the pages share) and a page's helpers cannot be called
// from the API.
type consoleHandlers struct{ *Service }

func (p consolePages) user(h httpx.HandlerFunc) http.Handler {
	return auth.ConsoleHeaders(p.c.Require(false)(p.c.Handle(h)))
}

func (p consolePages) admin(h httpx.HandlerFunc) http.Handler {
	return auth.ConsoleHeaders(p.c.Require(true)(p.c.Handle(h)))
}

func (p consolePages) open(h httpx.HandlerFunc) http.Handler {
	return auth.ConsoleHeaders(p.c.Handle(h))
}

// consoleRoutes registers the web console of the file host
// (docs/console.md): every page a pattern, as in Routes.
func (s *Service) consoleRoutes(rt *httpx.Router) {
	p := consolePages{rt.Pages("console", httpx.FileAPI), s.console}
	h := consoleHandlers{s}
	p.SetNotFoundPage(auth.ConsoleHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.console.Fail(w, r, httpx.E(http.StatusNotFound, "There is no such page."))
	})))

	p.Handle("GET /console/static/{file}", auth.ConsoleHeaders(http.HandlerFunc(s.console.ServeAsset)))
	p.Handle("GET /console", http.RedirectHandler("/console/", http.StatusMovedPermanently))
	p.Handle("GET /console/{$}", p.user(h.handleConsoleHome))

	// Sign-in (console_signin_http.go).
	p.Handle("GET /console/login", p.open(h.handleConsoleLoginPage))
	p.Handle("POST /console/login", p.open(h.handleConsoleLogin))
	p.Handle("POST /console/login/code", p.open(h.handleConsoleLoginCode))
	p.Handle("POST /console/logout", p.user(h.handleConsoleLogout))
	p.Handle("GET /console/register", p.open(h.handleConsoleRegisterPage))
	p.Handle("POST /console/register", p.open(h.handleConsoleRegister))

	// Upload (console_upload_http.go).
	p.Handle("GET /console/upload", p.user(h.handleConsoleUploadPage))
	p.HandleBody("POST /console/upload", s.uploadBodyLimit(consoleMaxFiles, httpx.FileAPI), p.user(h.handleConsoleUpload))
	p.Handle("GET /upload", p.open(h.handleConsoleGuestPage))
	p.HandleBody("POST /upload", s.uploadBodyLimit(1, httpx.FileAPI), p.open(h.handleConsoleGuestUpload))
	p.Fallback("/upload")
	p.Fallback("/upload/")

	// Files and albums (console_files_http.go, console_albums_http.go).
	p.Handle("GET /console/files", p.user(h.handleConsoleFiles))
	p.Handle("POST /console/files/delete", p.user(h.handleConsoleDeleteFiles))
	p.Handle("POST /console/files/batch", p.user(h.handleConsoleBatchFiles))
	p.Handle("GET /console/files/{id}", p.user(h.handleConsoleFile))
	p.Handle("POST /console/files/{id}", p.user(h.handleConsoleUpdateFile))
	p.Handle("POST /console/files/{id}/delete", p.user(h.handleConsoleDeleteFile))
	p.Handle("POST /console/files/{id}/shares", p.user(h.handleConsoleCreateShare))
	p.Handle("POST /console/files/{id}/shares/{share_id}/delete", p.user(h.handleConsoleRevokeShare))
	p.Handle("GET /console/albums", p.user(h.handleConsoleAlbums))
	p.Handle("POST /console/albums", p.user(h.handleConsoleCreateAlbum))
	p.Handle("GET /console/albums/{id}", p.user(h.handleConsoleAlbum))
	p.Handle("POST /console/albums/{id}", p.user(h.handleConsoleUpdateAlbum))
	p.Handle("POST /console/albums/{id}/delete", p.user(h.handleConsoleDeleteAlbum))

	// Tokens and clients (console_tokens_http.go).
	p.Handle("GET /console/tokens", p.user(h.handleConsoleTokens))
	p.Handle("POST /console/tokens", p.user(h.handleConsoleCreateToken))
	p.Handle("POST /console/tokens/sxcu", p.user(h.handleConsoleShareX))
	p.Handle("POST /console/tokens/{id}/revoke", p.user(h.handleConsoleRevokeToken))

	// Account (console_account_http.go).
	p.Handle("GET /console/account", p.user(h.handleConsoleAccount))
	p.Handle("POST /console/account/password", p.user(h.handleConsolePassword))
	p.Handle("POST /console/account/email", p.user(h.handleConsoleEmail))
	p.Handle("POST /console/account/visibility", p.user(h.handleConsoleVisibility))
	p.Handle("GET /console/account/totp", p.user(h.handleConsoleTOTPSetup))
	p.Handle("POST /console/account/totp", p.user(h.handleConsoleTOTPBegin))
	p.Handle("POST /console/account/totp/enable", p.user(h.handleConsoleTOTPEnable))
	p.Handle("POST /console/account/totp/disable", p.user(h.handleConsoleTOTPDisable))
	p.Handle("POST /console/account/recovery", p.user(h.handleConsoleRecoveryCodes))
	p.Handle("POST /console/account/sessions/revoke-others", p.user(h.handleConsoleRevokeOthers))
	p.Handle("POST /console/account/sessions/{id}/revoke", p.user(h.handleConsoleRevokeSession))

	// Administration (console_admin_http.go, console_dashboard_http.go).
	p.Handle("GET /console/admin", p.admin(h.handleConsoleDashboard))
	p.Handle("GET /console/admin/users", p.admin(h.handleConsoleAdminUsers))
	p.Handle("POST /console/admin/users", p.admin(h.handleConsoleAdminCreateUser))
	p.Handle("GET /console/admin/users/{id}", p.admin(h.handleConsoleAdminUser))
	p.Handle("POST /console/admin/users/{id}", p.admin(h.handleConsoleAdminUpdateUser))
	p.Handle("POST /console/admin/users/{id}/delete", p.admin(h.handleConsoleAdminDeleteUser))
	p.Handle("GET /console/admin/files", p.admin(h.handleConsoleAdminFiles))
	p.Handle("POST /console/admin/files/delete", p.admin(h.handleConsoleAdminDeleteFiles))
	p.Handle("GET /console/admin/settings", p.admin(h.handleConsoleAdminSettings))
	p.Handle("POST /console/admin/settings", p.admin(h.handleConsoleAdminSaveSettings))

	p.Fallback("/console")
	p.Fallback("/console/")
}
