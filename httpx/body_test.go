package httpx

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// bodyRouter serves a JSON route with the default limit, a large route
// with its own, and a pages route; each counts the body bytes it read.
func bodyRouter(read *atomic.Int64) *Router {
	rt := NewRouter()
	count := func(w http.ResponseWriter, r *http.Request) error {
		n, err := io.Copy(io.Discard, r.Body)
		read.Add(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "read %d", n)
		return nil
	}
	api := rt.API("api", BlogAPI)
	api.Handle("POST /api/json", BlogAPI.Handle(count))
	api.HandleBody("POST /api/big", BodyLimit{Max: func(*http.Request) int64 { return 4 << 20 }}, BlogAPI.Handle(count))
	lsky := Lsky
	api.HandleBody("POST /api/upload", BodyLimit{Max: func(*http.Request) int64 { return 4 << 20 }, Env: &lsky,
		Err: E(http.StatusRequestEntityTooLarge, "file is larger than the maximum file size")}, Lsky.Handle(count))
	pages := rt.Pages("pages", FileAPI)
	pages.Handle("POST /form", FileAPI.Handle(count))
	return rt
}

// rawPost sends only the headers of a POST declaring length bytes and
// reads the answer: a server that waited for the body would never answer.
func rawPost(t *testing.T, addr, path string, length int64) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, length)
	// Only a guard against hanging the test: the answer comes at once.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer without the body: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestRouterRefusesADeclaredOversizedBodyBeforeReadingIt(t *testing.T) {
	var read atomic.Int64
	srv := httptest.NewServer(bodyRouter(&read))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	tests := []struct {
		name, path string
		length     int64
		msg        string
	}{
		{"JSON route over the default limit", "/api/json", 1 << 30, `"msg":"request body too large (at most 1 MiB)"`},
		{"JSON route one byte over", "/api/json", DefaultBodyLimit + 1, `"msg":"request body too large (at most 1 MiB)"`},
		{"route with its own limit", "/api/big", 1 << 30, `"msg":"request body too large (at most 4 MiB)"`},
		{"route with its own envelope and error", "/api/upload", 1 << 30, `"message":"file is larger than the maximum file size"`},
		{"pages route, in its envelope", "/form", 1 << 30, `"message":"request body too large (at most 1 MiB)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := rawPost(t, addr, tt.path, tt.length)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), tt.msg) {
				t.Fatalf("status %d %s, want 413 with %s", resp.StatusCode, body, tt.msg)
			}
			if !resp.Close {
				t.Error("the connection stays open for a body that is refused")
			}
			if n := read.Load(); n != 0 {
				t.Errorf("a handler read %d bytes", n)
			}
		})
	}
}

func TestRouterCutsUndeclaredBodiesAtTheRouteLimit(t *testing.T) {
	var read atomic.Int64
	h := bodyRouter(&read)
	tests := []struct {
		name, path string
		size       int
		status     int
	}{
		{"JSON route within the limit", "/api/json", DefaultBodyLimit, 200},
		{"JSON route over it", "/api/json", DefaultBodyLimit + 1, 413},
		{"own limit, over the default", "/api/big", 2 << 20, 200},
		{"own limit, over it", "/api/big", 4<<20 + 1, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read.Store(0)
			// A reader of unknown length makes the body chunked: no
			// Content-Length to refuse up front.
			r := httptest.NewRequest("POST", tt.path, io.MultiReader(strings.NewReader(strings.Repeat("x", tt.size))))
			r.ContentLength = -1
			w := serve(h, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %.200s", w.Code, tt.status, w.Body)
			}
			if n := read.Load(); n > int64(max(tt.size, 0)) || (tt.status == 413 && n >= int64(tt.size)) {
				t.Errorf("read %d of %d bytes", n, tt.size)
			}
		})
	}
}

func TestLimitBodyPassesSmallAndEmptyBodies(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    *http.Request
	}{
		{"no body", httptest.NewRequest("POST", "/", nil)},
		{"declared within the limit", httptest.NewRequest("POST", "/", strings.NewReader("abc"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			if err := LimitBody(w, tt.r, 3); err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(tt.r.Body); err != nil || len(b) > 3 {
				t.Fatalf("read %q, %v", b, err)
			}
			if w.Header().Get("Connection") != "" {
				t.Error("a body within the limit closes the connection")
			}
		})
	}
}
