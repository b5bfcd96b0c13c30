// Package httpx owns Folio's HTTP conventions: the three response envelopes
// (FileAPI for the file-hosting groups, BlogAPI for the blog groups, and
// Lsky for the upload endpoints), the error type handlers return and the one place that turns
// it into a response, strict JSON decoding, paging parameters, the client IP
// and base URL behind trusted proxies, per-IP rate limiting, the route
// table whose surfaces answer their own misses (Router), and the
// middleware every request passes through. It knows no domain path.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"folio/sqlstore"
)

// Error is what handlers return for anything but success. Msg is safe to show
// to clients; Err is the internal cause, logged but never sent.
type Error struct {
	Status int    // HTTP status
	Code   int    // FileAPI business code; 0 means Status*100
	Msg    string // client-safe message
	Err    error  // internal cause, for logs
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// FileAPICode is the FileAPI (envelope A) code: HTTP status × 100 unless
// set.
func (e *Error) FileAPICode() int {
	if e.Code != 0 {
		return e.Code
	}
	return e.Status * 100
}

// E returns an error with a status and a client-safe message.
func E(status int, msg string) *Error { return &Error{Status: status, Msg: msg} }

// Internal wraps an unexpected error as a 500 whose cause is only logged.
func Internal(err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Msg: "internal server error", Err: err}
}

// Common errors with the messages clients see (docs/api.md#errors).
func BadRequest(msg string) *Error { return E(http.StatusBadRequest, msg) }
func InvalidPayload() *Error       { return E(http.StatusBadRequest, "invalid request payload") }
func NotFound() *Error             { return E(http.StatusNotFound, "resource not found") }
func Unauthorized() *Error         { return E(http.StatusUnauthorized, "unauthorized") }
func Forbidden(msg string) *Error  { return E(http.StatusForbidden, msg) }
func Conflict(msg string) *Error   { return E(http.StatusConflict, msg) }
func Unprocessable(field, msg string) *Error {
	return E(http.StatusUnprocessableEntity, field+": "+msg)
}

// AsError turns any error into an *Error: known sentinels get their status,
// anything else is an internal error.
func AsError(err error) *Error {
	var he *Error
	if errors.As(err, &he) {
		return he
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return &Error{Status: http.StatusRequestEntityTooLarge, Msg: "request body too large", Err: err}
	case errors.Is(err, sqlstore.ErrNotFound):
		return &Error{Status: http.StatusNotFound, Msg: "resource not found", Err: err}
	case errors.Is(err, sqlstore.ErrConflict):
		return &Error{Status: http.StatusConflict, Msg: "resource conflict", Err: err}
	case errors.Is(err, sqlstore.ErrForeignKey):
		return &Error{Status: http.StatusUnprocessableEntity, Msg: "a referenced resource does not exist", Err: err}
	case errors.Is(err, sqlstore.ErrInvalidText):
		return &Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
	}
	return Internal(err)
}

// Sentence makes an error message read as a sentence on a page: a capital
// first letter and a full stop ("file too large" → "File too large.").
func Sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// StatusClientGone is the status logged for a request whose client went
// away before its answer was ready (nginx's 499): nothing reaches the
// client, and it is no server failure.
const StatusClientGone = 499

// ClientGone answers a request whose handler failed only because its
// client went away: it logs that at Info, not as a failure, and writes
// StatusClientGone for the access log. It reports whether it answered.
func ClientGone(w http.ResponseWriter, r *http.Request, err error) bool {
	if r.Context().Err() == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	Logger(r).Info("client went away", "method", r.Method, "path", r.URL.Path, "ip", ClientIP(r))
	w.WriteHeader(StatusClientGone)
	return true
}
