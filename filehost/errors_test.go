package filehost

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
)

func TestHTTPErrorMapsDomainErrorsToTheirAnswers(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   int
		msg    string
	}{
		{"invalid input", invalid("permission must be 0 or 1"), http.StatusBadRequest, 40000, "permission must be 0 or 1"},
		{"forbidden extension", &forbiddenType{".exe"}, http.StatusUnsupportedMediaType, 41500, "file type not allowed: .exe"},
		{"forbidden type", &forbiddenType{"text/html"}, http.StatusUnsupportedMediaType, 41500, "file type not allowed: text/html"},
		{"no file", errNoFile, http.StatusBadRequest, 40000, "file is required"},
		{"bad album, wrapped", fmt.Errorf("filehost: record upload: %w", errBadAlbum), http.StatusBadRequest, 40000, "album_id is not one of your albums"},
		{"guest upload off", errGuestOff, http.StatusForbidden, 40300, "guest upload is disabled"},
		{"file too large", errFileTooLarge, http.StatusRequestEntityTooLarge, 41300, "file is larger than the maximum file size"},
		{"quota full", errQuotaFull, http.StatusInsufficientStorage, 50700, "storage quota exceeded"},
		{"content gone", errContentGone, http.StatusConflict, 40900, "the same content was being deleted meanwhile; upload it again"},
		{"auth field error", &auth.FieldError{Field: "username", Msg: "must be 3-32 characters"}, http.StatusBadRequest, 40000,
			"username must be 3-32 characters"},
		{"username taken", auth.ErrUsernameTaken, http.StatusConflict, 40900, "username is already taken"},
		{"email taken", fmt.Errorf("auth: create user: %w", auth.ErrEmailTaken), http.StatusConflict, 40900, "email is already taken"},
		{"protected user", auth.ErrProtectedUser, http.StatusForbidden, 40300, "the administrator and the guest cannot be deleted, disabled or demoted"},
		{"bad credentials", auth.ErrInvalidCredentials, http.StatusUnauthorized, 40100, "invalid username or password"},
		{"disabled account", auth.ErrDisabled, http.StatusForbidden, 40300, "account is disabled"},
		{"administrator login off", auth.ErrAdminDisabled, http.StatusForbidden, 40300, "administrator login is disabled"},
		{"spent refresh token", auth.ErrInvalidToken, http.StatusUnauthorized, 40100, "invalid or expired refresh token"},
		{"not found passes through", fmt.Errorf("filehost: load album: %w", sqlstore.ErrNotFound), http.StatusNotFound, 40400, "resource not found"},
		{"httpx error passes through", httpx.BadRequest("invalid query parameter order"), http.StatusBadRequest, 40000, "invalid query parameter order"},
		{"anything else is internal", errors.New("disk on fire"), http.StatusInternalServerError, 50000, "internal server error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			he := httpx.AsError(httpError(tt.err))
			if he.Status != tt.status || he.FileAPICode() != tt.code || he.Msg != tt.msg {
				t.Fatalf("got %d %d %q, want %d %d %q", he.Status, he.FileAPICode(), he.Msg, tt.status, tt.code, tt.msg)
			}
		})
	}
	if httpError(nil) != nil {
		t.Fatal("httpError(nil) is not nil")
	}
}
