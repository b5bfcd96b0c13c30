package blog

import (
	"net/http"

	"folio/httpx"
)

// maxContent bounds a Markdown text: it cannot be longer than the JSON body
// that carries it.
const maxContent = httpx.MaxJSONBody

// pathKey reads the {id} or {slug} a route matched (column names which);
// an id must be well formed.
func pathKey(r *http.Request, column string) (string, error) {
	if column == "id" {
		return httpx.PathID(r, "id")
	}
	return r.PathValue(column), nil
}

// blogPaging reads page and page_size with the blog's defaults
// (docs/api.md#envelopes, Paging).
func blogPaging(r *http.Request, def int) (httpx.Paging, error) {
	return httpx.ParsePaging(r, "page_size", def, 100)
}

// spanOf is the rows a page of p covers.
func spanOf(p httpx.Paging) span { return span{limit: p.Size, offset: p.Offset()} }
