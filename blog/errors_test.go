package blog

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"folio/httpx"
	"folio/sqlstore"
)

func TestHTTPErrorMapsDomainErrorsToTheirAnswers(t *testing.T) {
	internal := errors.New("disk on fire")
	for _, tt := range []struct {
		name   string
		err    error
		status int
		msg    string
	}{
		{"field error", invalid("title", "must not be empty"), http.StatusUnprocessableEntity, "title: must not be empty"},
		{"wrapped field error", fmt.Errorf("blog: save post: %w", invalid("tag_ids", "a tag does not exist")),
			http.StatusUnprocessableEntity, "tag_ids: a tag does not exist"},
		{"duplicate slug", fmt.Errorf("blog: save tags: %w", errDuplicateSlug), http.StatusConflict, "duplicate slug"},
		{"duplicate url", fmt.Errorf("blog: save friend link: %w", errDuplicateURL), http.StatusConflict, "duplicate url"},
		{"comments closed", errCommentsClosed, http.StatusForbidden, "comments are closed"},
		{"not found passes through", fmt.Errorf("blog: x: %w", sqlstore.ErrNotFound), http.StatusNotFound, "resource not found"},
		{"httpx error passes through", httpx.BadRequest("bad"), http.StatusBadRequest, "bad"},
		{"anything else is internal", internal, http.StatusInternalServerError, "internal server error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			he := httpx.AsError(httpError(tt.err))
			if he.Status != tt.status || he.Msg != tt.msg {
				t.Fatalf("got %d %q, want %d %q", he.Status, he.Msg, tt.status, tt.msg)
			}
		})
	}
	if httpError(nil) != nil {
		t.Fatal("httpError(nil) is not nil")
	}
}
