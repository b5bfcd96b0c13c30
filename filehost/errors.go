package filehost

import (
	"errors"
	"net/http"

	"folio/auth"
	"folio/httpx"
)

// The file host's domain errors. Validation, uploads and the stores return
// these, never httpx errors, so that a transaction body only reports what
// went wrong and httpError alone decides what a client sees: the statuses
// and codes of docs/api.md#uploads and docs/api.md#errors. Each text is
// the message the client gets.
var (
	errNoFile       = errors.New("file is required")
	errBadAlbum     = errors.New("album_id is not one of your albums")
	errGuestOff     = errors.New("guest upload is disabled")
	errFileTooLarge = errors.New("file is larger than the maximum file size")
	errQuotaFull    = errors.New("storage quota exceeded")
	// errContentGone: the stored content this upload was to share was
	// deleted while it was being shared, and its own copy is gone too.
	errContentGone = errors.New("the same content was being deleted meanwhile; upload it again")
)

// invalidInput is a value the client sent that the file host cannot
// accept; the message names the field and is the client's whole answer.
type invalidInput struct{ msg string }

func (e *invalidInput) Error() string { return e.msg }

// invalid reports input that cannot be accepted.
func invalid(msg string) error { return &invalidInput{msg: msg} }

// forbiddenType is an upload whose extension or type the upload settings
// refuse; what names it (".exe", "text/html").
type forbiddenType struct{ what string }

func (e *forbiddenType) Error() string { return "file type not allowed: " + e.what }

// httpError turns the file host's domain errors, and the errors of the
// account calls it makes to auth, into what the API answers. Anything else
// goes on unchanged, for httpx to map (sqlstore.ErrNotFound is a 404) or to
// log as a 500. The upload codes are explicit because Lsky clients read
// them.
func httpError(err error) error {
	var ii *invalidInput
	var ft *forbiddenType
	var fe *auth.FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ii):
		return coded(http.StatusBadRequest, 40000, ii.msg)
	case errors.As(err, &ft):
		return coded(http.StatusUnsupportedMediaType, 41500, ft.Error())
	case errors.Is(err, errNoFile):
		return coded(http.StatusBadRequest, 40000, errNoFile.Error())
	case errors.Is(err, errBadAlbum):
		return coded(http.StatusBadRequest, 40000, errBadAlbum.Error())
	case errors.Is(err, errGuestOff):
		return coded(http.StatusForbidden, 40300, errGuestOff.Error())
	case errors.Is(err, errFileTooLarge):
		return coded(http.StatusRequestEntityTooLarge, 41300, errFileTooLarge.Error())
	case errors.Is(err, errQuotaFull):
		return coded(http.StatusInsufficientStorage, 50700, errQuotaFull.Error())
	case errors.Is(err, errContentGone):
		return httpx.Conflict(errContentGone.Error())

	case errors.As(err, &fe):
		return httpx.BadRequest(fe.Error())
	case errors.Is(err, auth.ErrUsernameTaken):
		return httpx.Conflict("username is already taken")
	case errors.Is(err, auth.ErrEmailTaken):
		return httpx.Conflict("email is already taken")
	case errors.Is(err, auth.ErrProtectedUser):
		return httpx.Forbidden("the administrator and the guest cannot be deleted, disabled or demoted")
	case errors.Is(err, auth.ErrInvalidCredentials):
		return &httpx.Error{Status: http.StatusUnauthorized, Msg: "invalid username or password"}
	case errors.Is(err, auth.ErrOTPRequired):
		return coded(http.StatusUnauthorized, 40100, "two-factor code required")
	case errors.Is(err, auth.ErrInvalidOTP):
		return coded(http.StatusUnauthorized, 40100, "invalid two-factor code")
	case errors.Is(err, auth.ErrDisabled):
		return httpx.Forbidden("account is disabled")
	case errors.Is(err, auth.ErrAdminDisabled):
		return httpx.Forbidden("administrator login is disabled")
	case errors.Is(err, auth.ErrInvalidToken):
		// Only a refresh token reaches a handler as this error: access
		// and API tokens are checked by auth's middleware.
		return &httpx.Error{Status: http.StatusUnauthorized, Msg: "invalid or expired refresh token"}
	}
	return err
}

// coded is an error answer with its FileAPI/Lsky code.
func coded(status, code int, msg string) *httpx.Error {
	return &httpx.Error{Status: status, Code: code, Msg: msg}
}
