package main

import (
	"net/http"

	"folio/auth"
	"folio/blog"
	"folio/httpx"
)

// routes registers the system surface: what belongs to the process rather
// than to the blog or the file host. The health check and the OpenAPI
// document are public reads, so they follow render.enable_cors as the
// blog's public reads do. The document is checked against the route table
// once every route is registered (newApp), and made on its first request.
func (a *app) routes(rt *httpx.Router, b *blog.Blog) {
	sys := rt.API("system", httpx.BlogAPI)
	sys.Handle("GET /api/v1/health", b.PublicRead(http.HandlerFunc(a.health)))
	sys.Handle("OPTIONS /api/v1/health", http.HandlerFunc(b.Preflight))
	sys.Fallback("/api/v1/health")
	sys.Fallback("/api/v1/health/")
	sys.Handle("GET /api/v1/openapi.json", b.PublicRead(&a.openapi))
	sys.Handle("OPTIONS /api/v1/openapi.json", http.HandlerFunc(b.Preflight))
	sys.Fallback("/api/v1/openapi.json")
	sys.Fallback("/api/v1/openapi.json/")

	admin := a.auth.RequireAdmin(httpx.BlogAPI)
	sys.Handle("GET /api/v1/admin/audit-log", admin(httpx.BlogAPI.Handle(a.listAuditLog)))
	sys.Fallback("/api/v1/admin/audit-log", admin)
	sys.Fallback("/api/v1/admin/audit-log/", admin)
}

// listAuditLog is GET /api/v1/admin/audit-log: the audit log newest first,
// paged as the blog's admin lists, filtered by user (name or id), method
// and action (docs/observability.md#audit-log).
func (a *app) listAuditLog(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "page_size", 10, 100)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := auth.AuditFilter{User: q.Get("user"), Method: q.Get("method"), Action: q.Get("action")}
	switch f.Action {
	case "", auth.AuditWrite, auth.AuditLogin, auth.AuditLoginFailed, auth.AuditLogout, auth.AuditCommand,
		auth.AuditFactorLocked, auth.AuditFactorUnlocked:
	default:
		return httpx.BadRequest("invalid query parameter action: want write, login, login_failed, logout, command, factor_locked or factor_unlocked")
	}
	items, total, err := a.auth.ListAudit(r.Context(), f, p.Size, p.Offset())
	if err != nil {
		return err
	}
	httpx.BlogAPI.OK(w, http.StatusOK, httpx.NewBlogAPIPage(items, total, p))
	return nil
}
