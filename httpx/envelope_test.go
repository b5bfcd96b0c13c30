package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"folio/sqlstore"
)

func TestEnvelopeOKShapes(t *testing.T) {
	data := map[string]any{"id": "x<y"}
	tests := []struct {
		name   string
		env    Envelope
		status int
		want   string
	}{
		{"A 200", FileAPI, 200, `{"code":0,"message":"success","data":{"id":"x\u003cy"}}`},
		{"A 201", FileAPI, 201, `{"code":0,"message":"success","data":{"id":"x\u003cy"}}`},
		{"B 200", BlogAPI, 200, `{"code":200,"data":{"id":"x\u003cy"},"msg":"ok"}`},
		{"B 201", BlogAPI, 201, `{"code":201,"data":{"id":"x\u003cy"},"msg":"created"}`},
		{"Upload 200", Lsky, 200, `{"status":true,"message":"success","data":{"id":"x\u003cy"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tt.env.OK(w, tt.status, data)
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if got := compactJSON(t, w.Body.Bytes()); got != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cl := w.Header().Get("Content-Length"); cl != fmt.Sprint(w.Body.Len()) {
				t.Errorf("Content-Length %q, body is %d bytes", cl, w.Body.Len())
			}
		})
	}
	w := httptest.NewRecorder()
	FileAPI.OK(w, 200, nil)
	if got := compactJSON(t, w.Body.Bytes()); got != `{"code":0,"message":"success","data":null}` {
		t.Errorf("A with nil data: %s", got)
	}
}

func TestEnvelopeErrorShapes(t *testing.T) {
	tests := []struct {
		name   string
		env    Envelope
		err    error
		status int
		want   string
	}{
		{"A default code", FileAPI, NotFound(), 404, `{"code":40400,"message":"resource not found","data":null}`},
		{"A custom code", FileAPI, &Error{Status: 429, Code: 42900, Msg: "slow down"}, 429, `{"code":42900,"message":"slow down","data":null}`},
		{"A 422", FileAPI, Unprocessable("title", "must not be empty"), 422, `{"code":42200,"message":"title: must not be empty","data":null}`},
		{"B code mirrors status", BlogAPI, Conflict("duplicate slug"), 409, `{"code":409,"data":null,"msg":"duplicate slug"}`},
		{"B ignores custom code", BlogAPI, &Error{Status: 413, Code: 41301, Msg: "too big"}, 413, `{"code":413,"data":null,"msg":"too big"}`},
		{"Upload default code", Lsky, BadRequest("file is required"), 400, `{"status":false,"message":"file is required","data":null,"code":40000}`},
		{"Upload custom code", Lsky, &Error{Status: 507, Code: 50700, Msg: "quota full"}, 507, `{"status":false,"message":"quota full","data":null,"code":50700}`},
		{"A unknown error", FileAPI, errors.New("pq: secret table missing"), 500, `{"code":50000,"message":"internal server error","data":null}`},
		{"B unknown error", BlogAPI, errors.New("pq: secret table missing"), 500, `{"code":500,"data":null,"msg":"internal server error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logRecorder{}
			h := AccessLog(slog.New(logs))(tt.env.Handle(func(w http.ResponseWriter, r *http.Request) error { return tt.err }))
			w := serve(h, httptest.NewRequest("GET", "/x", nil))
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if got := compactJSON(t, w.Body.Bytes()); got != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
			_, logged := logs.find("request failed")
			if logged != (tt.status >= 500) {
				t.Errorf("server error logged = %v, want %v", logged, tt.status >= 500)
			}
		})
	}
}

func TestAsError(t *testing.T) {
	secret := errors.New("dial tcp 10.0.0.5:5432: password=hunter2")
	tests := []struct {
		name   string
		err    error
		status int
		msg    string
	}{
		{"http error passes", Forbidden("no"), 403, "no"},
		{"wrapped http error passes", fmt.Errorf("ctx: %w", Conflict("duplicate slug")), 409, "duplicate slug"},
		{"not found sentinel", fmt.Errorf("load: %w", sqlstore.ErrNotFound), 404, "resource not found"},
		{"max bytes", fmt.Errorf("read: %w", &http.MaxBytesError{Limit: 10}), 413, "request body too large"},
		{"unknown", secret, 500, "internal server error"},
		{"conflict sentinel is a 409", sqlstore.ErrConflict, 409, "resource conflict"},
		{"foreign key sentinel is a 422", sqlstore.ErrForeignKey, 422, "a referenced resource does not exist"},
		{"unstorable text is a 400", fmt.Errorf("insert: %w", sqlstore.ErrInvalidText), 400, "invalid request payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			he := AsError(tt.err)
			if he.Status != tt.status || he.Msg != tt.msg {
				t.Fatalf("AsError = %d %q, want %d %q", he.Status, he.Msg, tt.status, tt.msg)
			}
			if strings.Contains(he.Msg, "hunter2") {
				t.Fatal("message leaks the cause")
			}
		})
	}
	if he := AsError(secret); !errors.Is(he, secret) {
		t.Error("internal error does not keep its cause for logs")
	}
}

func TestPages(t *testing.T) {
	p := Paging{Page: 2, Size: 5}
	w := httptest.NewRecorder()
	FileAPI.OK(w, 200, NewFileAPIPage[int](nil, 7, p))
	if got := compactJSON(t, w.Body.Bytes()); got != `{"code":0,"message":"success","data":{"items":[],"total":7,"page":2,"size":5}}` {
		t.Errorf("FileAPIPage: %s", got)
	}
	w = httptest.NewRecorder()
	BlogAPI.OK(w, 200, NewBlogAPIPage([]string{"a"}, 7, p))
	if got := compactJSON(t, w.Body.Bytes()); got != `{"code":200,"data":{"items":["a"],"pagination":{"page":2,"page_size":5,"total":7}},"msg":"ok"}` {
		t.Errorf("BlogAPIPage: %s", got)
	}
	if p.Offset() != 5 {
		t.Errorf("Offset = %d, want 5", p.Offset())
	}
}

func TestReply(t *testing.T) {
	w := httptest.NewRecorder()
	Reply(w, 503, map[string]string{"status": "down"}, "database unavailable")
	if w.Code != 503 || compactJSON(t, w.Body.Bytes()) != `{"code":503,"data":{"status":"down"},"msg":"database unavailable"}` {
		t.Errorf("Reply: %d %s", w.Code, w.Body)
	}
}

// A handler that failed because its client went away is no server failure:
// no error is logged and the access log says 499.
func TestClientGoneIsNotAServerFailure(t *testing.T) {
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, "GET", "/api/v1/posts", nil)
	h := AccessLog(slog.New(slog.NewTextHandler(&logs, nil)))(BlogAPI.Handle(func(w http.ResponseWriter, r *http.Request) error {
		cancel()
		return Internal(fmt.Errorf("query: %w", r.Context().Err()))
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != StatusClientGone {
		t.Fatalf("status %d, want %d", w.Code, StatusClientGone)
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "status=499") {
		t.Fatalf("logs:\n%s", logs.String())
	}
	// The same error while the client waits is a failure.
	logs.Reset()
	w = httptest.NewRecorder()
	AccessLog(slog.New(slog.NewTextHandler(&logs, nil)))(BlogAPI.Handle(func(w http.ResponseWriter, r *http.Request) error {
		return Internal(fmt.Errorf("query: %w", context.Canceled))
	})).ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/posts", nil))
	if w.Code != 500 || !strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("status %d, logs:\n%s", w.Code, logs.String())
	}
}
