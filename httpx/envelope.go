package httpx

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
)

// Envelope is one of the three response shapes of the API; docs/api.md#envelopes
// says which routes use which.
type Envelope int

const (
	// FileAPI is {code, message, data} with code 0 on success and
	// status×100+n on failure: the file-hosting groups and short links
	// ("envelope A" in docs/api.md).
	FileAPI Envelope = iota + 1
	// BlogAPI is {code, data, msg} with code mirroring the HTTP status: the
	// blog groups, admin auth, health and settings ("envelope B").
	BlogAPI
	// Lsky is Lsky Pro's {status, message, data}, with a code field added
	// on failure: the upload endpoints and the Lsky compatibility routes.
	Lsky
)

// HandlerFunc is a handler that returns its error instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Handle adapts h, writing any returned error in this envelope.
func (e Envelope) Handle(h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			e.Error(w, r, err)
		}
	})
}

// OK writes a success response in this envelope.
func (e Envelope) OK(w http.ResponseWriter, status int, data any) {
	switch e {
	case FileAPI:
		writeJSON(w, status, struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data"`
		}{0, "success", data})
	case BlogAPI:
		msg := "ok"
		if status == http.StatusCreated {
			msg = "created"
		}
		writeJSON(w, status, struct {
			Code int    `json:"code"`
			Data any    `json:"data"`
			Msg  string `json:"msg"`
		}{status, data, msg})
	default:
		writeJSON(w, status, struct {
			Status  bool   `json:"status"`
			Message string `json:"message"`
			Data    any    `json:"data"`
		}{true, "success", data})
	}
}

// Error writes err in this envelope. Server errors are logged with the
// request's method, path and client IP; their cause never reaches the client.
func (e Envelope) Error(w http.ResponseWriter, r *http.Request, err error) {
	if ClientGone(w, r, err) {
		return
	}
	he := AsError(err)
	if he.Status >= 500 {
		Logger(r).Error("request failed", "method", r.Method, "path", r.URL.Path,
			"ip", ClientIP(r), "status", he.Status, "err", err)
	} else if he.Err != nil {
		Logger(r).Debug("request rejected", "method", r.Method, "path", r.URL.Path,
			"status", he.Status, "err", he.Err)
	}
	switch e {
	case FileAPI:
		writeJSON(w, he.Status, struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data"`
		}{he.FileAPICode(), he.Msg, nil})
	case BlogAPI:
		writeJSON(w, he.Status, struct {
			Code int    `json:"code"`
			Data any    `json:"data"`
			Msg  string `json:"msg"`
		}{he.Status, nil, he.Msg})
	default:
		writeJSON(w, he.Status, struct {
			Status  bool   `json:"status"`
			Message string `json:"message"`
			Data    any    `json:"data"`
			Code    int    `json:"code"`
		}{false, he.Msg, nil, he.FileAPICode()})
	}
}

// writeJSON encodes into a buffer first so that an encoding failure becomes a
// clean 500 rather than half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"code":500,"msg":"internal server error","message":"internal server error","data":null}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// FileAPIPage is the FileAPI envelope's paged data.
type FileAPIPage[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
	Page  int `json:"page"`
	Size  int `json:"size"`
}

// BlogAPIPage is the BlogAPI envelope's paged data.
type BlogAPIPage[T any] struct {
	Items      []T        `json:"items"`
	Pagination Pagination `json:"pagination"`
}

type Pagination struct {
	Page     int `json:"page"`
	PageSize int `json:"page_size"`
	Total    int `json:"total"`
}

// NewFileAPIPage builds FileAPI paged data; a nil slice is sent as [].
func NewFileAPIPage[T any](items []T, total int, p Paging) FileAPIPage[T] {
	if items == nil {
		items = []T{}
	}
	return FileAPIPage[T]{Items: items, Total: total, Page: p.Page, Size: p.Size}
}

// NewBlogAPIPage builds BlogAPI paged data; a nil slice is sent as [].
func NewBlogAPIPage[T any](items []T, total int, p Paging) BlogAPIPage[T] {
	if items == nil {
		items = []T{}
	}
	return BlogAPIPage[T]{Items: items, Pagination: Pagination{Page: p.Page, PageSize: p.Size, Total: total}}
}
