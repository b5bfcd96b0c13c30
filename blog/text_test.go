package blog_test

import (
	"net/http"
	"net/url"
	"testing"
)

// Text no database can store (NUL, invalid UTF-8) is the client's error:
// PostgreSQL refuses it, and SQLite should not keep what PostgreSQL would
// refuse.
func TestUnstorableTextIsAClientError(t *testing.T) {
	e := newSiteEnv(t)
	p := e.publish("Open", "slug", "open")
	for _, tt := range []struct {
		name, method, path string
		body               any
	}{
		{"NUL in a post title", "POST", "/api/v1/admin/posts", `{"title": "a\u0000b"}`},
		{"NUL in a tag name", "POST", "/api/v1/admin/tags", `{"name": "x\u0000"}`},
		{"NUL in a comment", "POST", "/api/v1/posts/" + p.ID + "/comments", `{"author": "a", "email": "a@b.test", "content": "\u0000"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Do(tt.method, tt.path, tt.body), http.StatusBadRequest, "invalid request payload")
		})
	}
	// An escaped backslash before "u0000" is text, not a NUL.
	got := e.createPost(map[string]any{"title": `C:\u0000 is a path`})
	if got.Title != `C:\u0000 is a path` {
		t.Fatalf("title = %q", got.Title)
	}

	// The comment form is checked like the API (422, shown in the form).
	r := e.form("/posts/open/comments", url.Values{"author": {"a\x00"}, "email": {"a@b.test"}, "content": {"hi"}})
	r.Expect(http.StatusUnprocessableEntity)
	siteHas(t, "form with a NUL", string(r.Body), "must not contain NUL characters")

	// The blog's surface refuses such query strings on every backend,
	// before any query (PostgreSQL's own refusal, should such text get
	// through, is a 400 too: sqlstore.ErrInvalidText).
	for _, q := range []string{"keyword=%00", "keyword=%ff%fe"} {
		expectError(t, e.admin.Do("GET", "/api/v1/admin/posts?"+q, nil), http.StatusBadRequest, "invalid query string")
	}
}
