package blog

import (
	"errors"

	"folio/httpx"
)

// The blog's domain errors. Validation and the stores return these, never
// httpx errors, so that a store can be used outside a request and a
// transaction body only ever reports what went wrong; httpError alone
// decides how a client sees it.
var (
	// errDuplicateSlug: the slug asked for belongs to another live row, or
	// no derived slug was free.
	errDuplicateSlug = errors.New("duplicate slug")
	// errDuplicateURL: another live friend link has this URL.
	errDuplicateURL = errors.New("duplicate url")
	// errCommentsClosed: the post, or the whole blog, takes no comments.
	errCommentsClosed = errors.New("comments are closed")
)

// fieldError is a value the client sent that the blog cannot accept, found
// by the pure checks or inside a transaction (a category that does not
// exist). Msg completes the sentence that starts with Field.
type fieldError struct {
	Field string
	Msg   string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Msg }

// invalid reports a value of field that cannot be accepted.
func invalid(field, msg string) error { return &fieldError{Field: field, Msg: msg} }

// httpError turns the blog's domain errors into what the API answers;
// anything else goes on unchanged, for httpx to map (sqlstore.ErrNotFound
// is a 404) or to log as a 500.
func httpError(err error) error {
	var fe *fieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return httpx.Unprocessable(fe.Field, fe.Msg)
	case errors.Is(err, errDuplicateSlug):
		return httpx.Conflict("duplicate slug")
	case errors.Is(err, errDuplicateURL):
		return httpx.Conflict("duplicate url")
	case errors.Is(err, errCommentsClosed):
		return httpx.Forbidden("comments are closed")
	}
	return err
}
