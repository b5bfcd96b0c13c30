package blog

import (
	"errors"
	"net/http"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// formRefusal is why the console shows a form again instead of saving it:
// the status of the answer, the sentence above the form, and the field to
// mark (aria-invalid), in the API's names.
type formRefusal struct {
	Status int
	Msg    string
	Field  string
}

// refusal turns a refused write into what its form shows, as the API
// answers the same write (httpError): 422 for a value, 409 for a taken slug
// or URL. ok is false for any other error, which the console's error page
// answers.
func refusal(err error) (formRefusal, bool) {
	var fe *fieldError
	var se *sqlstore.FieldError
	switch {
	case errors.As(err, &fe):
		return formRefusal{http.StatusUnprocessableEntity, "Not saved: " + fe.Field + " " + fe.Msg + ".", fe.Field}, true
	case errors.As(err, &se):
		return formRefusal{http.StatusUnprocessableEntity, "Not saved: " + se.Key + " " + se.Msg + ".", se.Key}, true
	case errors.Is(err, errDuplicateSlug):
		return formRefusal{http.StatusConflict, "Not saved: that slug is already taken.", "slug"}, true
	case errors.Is(err, errDuplicateURL):
		return formRefusal{http.StatusConflict, "Not saved: a friend link with that URL already exists.", "url"}, true
	}
	return formRefusal{}, false
}

// consoleNotFound is the console's 404 for an id that names nothing.
func consoleNotFound(what string) error {
	return httpx.E(http.StatusNotFound, "There is no such "+what+".")
}

// consoleID reads the {id} of a console path; a malformed one is a 404
// naming what.
func consoleID(r *http.Request, what string) (string, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return "", consoleNotFound(what)
	}
	return id, nil
}

// notFoundAs is err, or the console's 404 naming what when err says the
// row does not exist.
func notFoundAs(err error, what string) error {
	if errors.Is(err, sqlstore.ErrNotFound) {
		return consoleNotFound(what)
	}
	return err
}

// countOf is "1 comment", "3 comments" (templates.Plural, as the pages
// say it).
func countOf(n int, noun string) string { return templates.Plural(int64(n), noun) }
