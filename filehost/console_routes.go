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
	p.SetNotFoundPage(auth.ConsoleHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.console.Fail(w, r, httpx.E(http.StatusNotFound, "There is no such page."))
	})))

	p.Handle("GET /console/static/{file}", auth.ConsoleHeaders(http.HandlerFunc(s.console.ServeAsset)))
	p.Handle("GET /console", http.RedirectHandler("/console/", http.StatusMovedPermanently))
	p.Handle("GET /console/{$}", p.user(s.handleConsoleHome))

	// Sign-in (console_signin_http.go).
	p.Handle("GET /console/login", p.open(s.handleConsoleLoginPage))
	p.Handle("POST /console/login", p.open(s.handleConsoleLogin))
	p.Handle("POST /console/login/code", p.open(s.handleConsoleLoginCode))
	p.Handle("POST /console/logout", p.user(s.handleConsoleLogout))
	p.Handle("GET /console/register", p.open(s.handleConsoleRegisterPage))
	p.Handle("POST /console/register", p.open(s.handleConsoleRegister))

	// Upload (console_upload_http.go).
	p.Handle("GET /console/upload", p.user(s.handleConsoleUploadPage))
	p.HandleBody("POST /console/upload", s.uploadBodyLimit(consoleMaxFiles, httpx.FileAPI), p.user(s.handleConsoleUpload))
	p.Handle("GET /upload", p.open(s.handleConsoleGuestPage))
	p.HandleBody("POST /upload", s.uploadBodyLimit(1, httpx.FileAPI), p.open(s.handleConsoleGuestUpload))
	p.Fallback("/upload")
	p.Fallback("/upload/")

	// Files and albums (console_files_http.go, console_albums_http.go).
	p.Handle("GET /console/files", p.user(s.handleConsoleFiles))
	p.Handle("POST /console/files/delete", p.user(s.handleConsoleDeleteFiles))
	p.Handle("GET /console/files/{id}", p.user(s.handleConsoleFile))
	p.Handle("POST /console/files/{id}", p.user(s.handleConsoleUpdateFile))
	p.Handle("POST /console/files/{id}/delete", p.user(s.handleConsoleDeleteFile))
	p.Handle("POST /console/files/{id}/shares", p.user(s.handleConsoleCreateShare))
	p.Handle("POST /console/files/{id}/shares/{share_id}/delete", p.user(s.handleConsoleRevokeShare))
	p.Handle("GET /console/albums", p.user(s.handleConsoleAlbums))
	p.Handle("POST /console/albums", p.user(s.handleConsoleCreateAlbum))
	p.Handle("GET /console/albums/{id}", p.user(s.handleConsoleAlbum))
	p.Handle("POST /console/albums/{id}", p.user(s.handleConsoleUpdateAlbum))
	p.Handle("POST /console/albums/{id}/delete", p.user(s.handleConsoleDeleteAlbum))

	// Tokens and clients (console_tokens_http.go).
	p.Handle("GET /console/tokens", p.user(s.handleConsoleTokens))
	p.Handle("POST /console/tokens", p.user(s.handleConsoleCreateToken))
	p.Handle("POST /console/tokens/sxcu", p.user(s.handleConsoleShareX))
	p.Handle("POST /console/tokens/{id}/revoke", p.user(s.handleConsoleRevokeToken))

	// Account (console_account_http.go).
	p.Handle("GET /console/account", p.user(s.handleConsoleAccount))
	p.Handle("POST /console/account/password", p.user(s.handleConsolePassword))
	p.Handle("POST /console/account/email", p.user(s.handleConsoleEmail))
	p.Handle("POST /console/account/visibility", p.user(s.handleConsoleVisibility))
	p.Handle("GET /console/account/totp", p.user(s.handleConsoleTOTPSetup))
	p.Handle("POST /console/account/totp", p.user(s.handleConsoleTOTPBegin))
	p.Handle("POST /console/account/totp/enable", p.user(s.handleConsoleTOTPEnable))
	p.Handle("POST /console/account/totp/disable", p.user(s.handleConsoleTOTPDisable))
	p.Handle("POST /console/account/recovery", p.user(s.handleConsoleRecoveryCodes))
	p.Handle("POST /console/account/sessions/revoke-others", p.user(s.handleConsoleRevokeOthers))
	p.Handle("POST /console/account/sessions/{id}/revoke", p.user(s.handleConsoleRevokeSession))

	// Administration (console_admin_http.go, console_dashboard_http.go).
	p.Handle("GET /console/admin", p.admin(s.handleConsoleDashboard))
	p.Handle("GET /console/admin/users", p.admin(s.handleConsoleAdminUsers))
	p.Handle("POST /console/admin/users", p.admin(s.handleConsoleAdminCreateUser))
	p.Handle("GET /console/admin/users/{id}", p.admin(s.handleConsoleAdminUser))
	p.Handle("POST /console/admin/users/{id}", p.admin(s.handleConsoleAdminUpdateUser))
	p.Handle("POST /console/admin/users/{id}/delete", p.admin(s.handleConsoleAdminDeleteUser))
	p.Handle("GET /console/admin/files", p.admin(s.handleConsoleAdminFiles))
	p.Handle("POST /console/admin/files/delete", p.admin(s.handleConsoleAdminDeleteFiles))
	p.Handle("GET /console/admin/settings", p.admin(s.handleConsoleAdminSettings))
	p.Handle("POST /console/admin/settings", p.admin(s.handleConsoleAdminSaveSettings))

	p.Fallback("/console")
	p.Fallback("/console/")
}
