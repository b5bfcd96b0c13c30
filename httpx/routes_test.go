package httpx

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testRouter has an API surface in FileAPI ("/api/things", a guarded
// "/api/locked"), a catch-all API surface in BlogAPI for the rest of
// "/api/", and a pages surface owning everything else.
func testRouter() http.Handler {
	rt := NewRouter()
	text := func(s string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, s+r.PathValue("id")) })
	}
	boom := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	locked := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { FileAPI.Error(w, r, Unauthorized()) })
	}

	things := rt.API("things", FileAPI)
	things.Handle("GET /api/things/{id}", text("thing "))
	things.Handle("DELETE /api/things/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	things.Handle("GET /api/things/boom/now", boom)
	things.Fallback("/api/things")
	things.Fallback("/api/things/")
	things.Fallback("/api/locked", locked)
	things.Fallback("/api/locked/", locked)

	own := rt.Pages("own", FileAPI)
	own.Handle("GET /own/x", text("own"))
	own.Fallback("/own")
	own.Fallback("/own/")
	own.SetNotFoundPage(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "own 404 page", http.StatusNotFound)
	}))

	rest := rt.API("rest", BlogAPI)
	rest.Handle("GET /api/v1/posts", text("ok"))
	rest.Fallback("/api/")

	site := rt.Pages("site", BlogAPI)
	site.Handle("GET /dir/", text("dir"))
	site.Handle("GET /search", text("ok"))
	site.Handle("GET /boom", boom)
	site.Fallback("/")
	site.Fallback("/api")
	rt.SetNotFoundPage(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the 404 page", http.StatusNotFound)
	}))

	return Chain(rt, AccessLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
}

func TestRouterAnswersInTheOwningSurface(t *testing.T) {
	h := testRouter()
	tests := []struct {
		name, method, path string
		status             int
		body               string
		allow              string
	}{
		{"matched route untouched", "GET", "/api/things/7", 200, "thing 7", ""},
		{"other method on matched route", "DELETE", "/api/things/7", 204, "", ""},
		{"unknown path under a surface", "GET", "/api/things/7/x", 404, `"code":40400`, ""},
		{"unknown surface root method", "POST", "/api/things", 404, `"code":40400`, ""},
		{"unknown API path is the catch-all's", "GET", "/api/nope", 404, `"code":404,`, ""},
		{"a shared prefix is no ownership", "GET", "/api/things-nope/x", 404, `"code":404,`, ""},
		{"wrong method is a 405 with Allow", "POST", "/api/things/7", 405, `"code":40500`, "DELETE, GET, HEAD"},
		{"unknown method is a 405 too", "BREW", "/api/v1/posts", 405, `"code":405,`, "GET, HEAD"},
		{"guard first", "GET", "/api/locked/x", 401, `"code":40100`, ""},
		{"guard first on an unclean path", "GET", "/api/locked//x", 401, `"code":40100`, ""},
		{"unclean API path is a miss", "GET", "/api//things", 404, `"code":40400`, ""},
		{"dot segment in an API path is a miss", "GET", "/api/./things/7", 404, `"code":40400`, ""},
		{"unclean path with a route method is a miss", "DELETE", "/api/things//7", 404, `"code":40400`, ""},
		{"page miss is the 404 page", "GET", "/nope", 404, "the 404 page", ""},
		{"a surface's own 404 page", "GET", "/own/nope", 404, "own 404 page", ""},
		{"a surface's own 404 page keeps 405", "POST", "/own/x", 405, `"code":40500`, "GET, HEAD"},
		{"bare /api is a page path", "GET", "/api", 404, "the 404 page", ""},
		{"page 405 in the pages envelope", "POST", "/search", 405, `"code":405,`, "GET, HEAD"},
		{"subtree redirect left to the mux", "GET", "/dir", http.StatusTemporaryRedirect, "/dir/", ""},
		{"unclean page path redirected", "GET", "/dir//x", http.StatusTemporaryRedirect, "/dir/x", ""},
		{"API panic in its envelope", "GET", "/api/things/boom/now", 500, `"code":50000`, ""},
		{"page panic in its envelope", "GET", "/boom", 500, `"code":500,`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(h, httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.status || !strings.Contains(w.Body.String()+w.Header().Get("Location"), tt.body) {
				t.Fatalf("got %d %q, want %d containing %q", w.Code, w.Body, tt.status, tt.body)
			}
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestRouterRefusesUndecodableQueries(t *testing.T) {
	h := testRouter()
	tests := []struct {
		target string
		status int
		body   string
	}{
		{"/api/v1/posts?keyword=caf%C3%A9&page=2", 200, "ok"},
		{"/api/v1/posts", 200, "ok"},
		{"/api/v1/posts?page=2&keyword=go+sql", 200, "ok"},
		{"/api/v1/posts?keyword=%00", 400, `"msg":"invalid query string"`},
		{"/api/v1/posts?keyword=%ff", 400, `"code":400`},
		{"/api/v1/posts?%00=x", 400, `"code":400`},
		{"/api/v1/posts?bad=%zz&keyword=%00", 400, `"code":400`},
		{"/api/v1/posts?bad=%zz", 200, "ok"},
		{"/api/things/7?x=%00", 400, `"code":40000`},
		{"/search?q=%00", 400, "invalid query string"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			w := serve(h, httptest.NewRequest("GET", tt.target, nil))
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.body) {
				t.Fatalf("got %d %q, want %d containing %q", w.Code, w.Body, tt.status, tt.body)
			}
		})
	}
	if w := serve(h, httptest.NewRequest("GET", "/search?q=%00", nil)); strings.Contains(w.Header().Get("Content-Type"), "json") {
		t.Errorf("a page's refused query is JSON: %q", w.Body)
	}
}

func TestRouterListsEveryPatternWithItsSurface(t *testing.T) {
	rt := NewRouter()
	api := rt.API("api", FileAPI)
	api.Handle("GET /a", http.NotFoundHandler())
	api.Fallback("/a/")
	got := rt.Routes()
	want := []Route{
		{Pattern: "GET /a", Surface: "api", Envelope: FileAPI},
		{Pattern: "/a/", Surface: "api", Envelope: FileAPI, Fallback: true},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Routes() = %+v, want %+v", got, want)
	}
}

func TestRouterRefusesMisplacedPatterns(t *testing.T) {
	tests := []struct {
		name     string
		register func(s *Surface)
	}{
		{"route without a method", func(s *Surface) { s.Handle("/x", http.NotFoundHandler()) }},
		{"fallback with a method", func(s *Surface) { s.Fallback("GET /x") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("registered without a panic")
				}
			}()
			tt.register(NewRouter().API("api", FileAPI))
		})
	}
}

// TestCleanPathIsCleanForm: cleanPath's scan answers as comparing with
// cleanForm does.
func TestCleanPathIsCleanForm(t *testing.T) {
	for _, p := range []string{"", "/", "//", "/a", "/a/", "/a//", "//a", "/a//b", "/.", "/..", "/./a",
		"/a/.", "/a/..", "/a/./b", "/a/../b", "/a/.b", "/a/..b", "/a/b.", "/...", "/a/.../", "/.a/",
		"a", "a/", "./a", "../a", ".", "..", "*", "/a/b/c/", "/%2e%2e/", "/t/AbC_-9"} {
		if got, want := cleanPath(p), cleanForm(p) == p; got != want {
			t.Errorf("cleanPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, p := range []string{"/", "/a/../b", "//x", "/a/./", "x/y"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := cleanPath(p), cleanForm(p) == p; got != want {
			t.Errorf("cleanPath(%q) = %v, want %v", p, got, want)
		}
	})
}
