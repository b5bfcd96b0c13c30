package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"folio/auth"
)

func TestAuditRouteIsThePatternAndResourceTheLastWildcard(t *testing.T) {
	for _, tt := range []struct {
		pattern, path, route, resource string
	}{
		{"DELETE /api/v1/posts/{id}", "/api/v1/posts/42", "/api/v1/posts/{id}", "42"},
		{"DELETE /api/v1/files/{id}/shares/{share_id}", "/api/v1/files/1/shares/2", "/api/v1/files/{id}/shares/{share_id}", "2"},
		{"DELETE /api/v1/images/{key...}", "/api/v1/images/2026/11/a.png", "/api/v1/images/{key...}", "2026/11/a.png"},
		{"POST /api/v1/admin/posts", "/api/v1/admin/posts", "/api/v1/admin/posts", ""},
		{"POST /x/{$}", "/x/", "/x/{$}", ""},
	} {
		var route, resource string
		mux := http.NewServeMux()
		mux.HandleFunc(tt.pattern, func(_ http.ResponseWriter, r *http.Request) { route, resource = auth.RouteOf(r) })
		method, _, _ := strings.Cut(tt.pattern, " ")
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, tt.path, nil))
		if route != tt.route || resource != tt.resource {
			t.Errorf("%s %s: route %q resource %q, want %q %q", tt.pattern, tt.path, route, resource, tt.route, tt.resource)
		}
	}
}

func TestAuditFieldsAreBoundedValidText(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes
	for _, in := range []string{long, "/a\xffb", "/plain"} {
		got := auth.TrimField(in)
		if len(got) > 512 || !utf8.ValidString(got) || !strings.HasPrefix(in, got[:min(len(got), 2)]) {
			t.Errorf("TrimField(%.20q) = %.20q (%d bytes)", in, got, len(got))
		}
	}
	if got := auth.TrimField("/plain"); got != "/plain" {
		t.Errorf("a short valid text changed: %q", got)
	}
}
