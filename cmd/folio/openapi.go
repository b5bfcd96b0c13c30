package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"folio/httpx"
)

// The OpenAPI document (docs/api.md#openapi) is made from the router's own
// route table and the operation table of openapi_ops.go: a route without an
// operation stops start-up, and the tests of openapi_test.go fail on an
// operation without a route, so the two cannot drift apart.

// schema is a JSON Schema (OpenAPI 3.1 uses JSON Schema 2020-12 as is).
type schema = map[string]any

// operation is one method on one documented path.
type operation struct {
	id, summary, tag string
	description      string
	auth             authKind
	params           []schema // query parameters; path parameters come from the path
	body             *requestBody
	responses        []response
}

// authKind is who may call an operation.
type authKind int

const (
	public  authKind = iota
	user             // any active user's credentials
	admin            // the administrator's session or an admin user's token
	console          // a console session (the folio_session cookie) alone
)

// requestBody is an operation's body: its media type and schema.
type requestBody struct {
	mediaType string
	schema    schema
	required  bool
}

// response is one status of an operation, possibly in several media types.
type response struct {
	status      int
	description string
	content     map[string]schema
	headers     map[string]any
	// ref, when set, names the same response in components.responses,
	// where the document keeps the error answers most operations share.
	ref string
}

// openAPIDoc serves the document: the same bytes for every request, with an
// ETag, so a client revalidates instead of downloading it again. It is made
// on first request, to keep start-up fast, and only the gzipped bytes are
// kept (about a tenth of the text): a client that does not take gzip gets
// them inflated as they are sent.
type openAPIDoc struct {
	routes  []httpx.Route
	version string

	once sync.Once
	err  error
	gz   []byte // the document, gzipped
	size int    // its length inflated
	etag string // of the inflated document; the gzipped one's adds -gzip
}

// prepare takes the routes the document describes. Its error names a route
// without an operation, so that start-up fails on one.
func (d *openAPIDoc) prepare(routes []httpx.Route, version string) error {
	if err := missingOperations(routes, operations()); err != nil {
		return err
	}
	d.routes, d.version = routes, version
	return nil
}

// missingOperations names the routes that ops does not describe.
func missingOperations(routes []httpx.Route, ops map[string]operation) error {
	var missing []string
	for _, rt := range routes {
		if rt.Fallback {
			continue
		}
		for _, key := range documentedOps(rt.Pattern) {
			if _, ok := ops[key]; !ok {
				missing = append(missing, key+" (route "+rt.Pattern+")")
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("openapi: no operation in cmd/folio/openapi_ops.go for %s", strings.Join(missing, ", "))
	}
	return nil
}

// load makes the document once.
func (d *openAPIDoc) load() error {
	d.once.Do(func() { d.err = d.build() })
	return d.err
}

func (d *openAPIDoc) build() error {
	doc, err := openAPIDocument(d.routes, d.version)
	if err != nil {
		return err
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("openapi: encode: %w", err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("openapi: compress: %w", err)
	}
	if _, err := zw.Write(body); err != nil {
		return fmt.Errorf("openapi: compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("openapi: compress: %w", err)
	}
	sum := sha256.Sum256(body)
	d.gz = bytes.Clone(buf.Bytes())
	d.size = len(body)
	d.etag = base64.RawURLEncoding.EncodeToString(sum[:16])
	return nil
}

func (d *openAPIDoc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := d.load(); err != nil {
		httpx.BlogAPI.Error(w, r, err)
		return
	}
	gzipped := acceptsGzip(r.Header.Get("Accept-Encoding"))
	etag := `"` + d.etag + `"`
	if gzipped {
		etag = `"` + d.etag + `-gzip"`
	}
	h := w.Header()
	h.Set("ETag", etag)
	// Cacheable, but revalidated: the document changes with the binary.
	h.Set("Cache-Control", "public, no-cache")
	h.Set("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && d.matches(inm) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	if gzipped {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(d.gz)))
	} else {
		h.Set("Content-Length", strconv.Itoa(d.size))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if gzipped {
		_, _ = w.Write(d.gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(d.gz))
	if err != nil {
		httpx.Logger(r).Error("openapi: inflate the document", "err", err)
		return
	}
	_, _ = io.Copy(w, zr) // a failed write is the client gone
}

// matches reports whether an If-None-Match list names either form of the
// document (weak comparison, RFC 9110 section 13.1.2).
func (d *openAPIDoc) matches(list string) bool {
	for _, tag := range strings.Split(list, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == `"`+d.etag+`"` || tag == `"`+d.etag+`-gzip"` {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding value takes gzip.
func acceptsGzip(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		return !ok || strings.Trim(q, "0.") != ""
	}
	return false
}

// documentedAs maps a registered pattern to the operations, "METHOD /path",
// that the document shows for it where they differ from the pattern. One
// mux pattern serves two paths whose patterns would overlap
// (blog/routes.go): the document shows both paths.
func documentedAs() map[string][]string {
	return map[string][]string{
		"GET /api/v1/posts/{id}/{sub}":       {"GET /api/v1/posts/slug/{slug}", "GET /api/v1/posts/{id}/comments"},
		"OPTIONS /api/v1/posts/{id}/{sub}":   {"OPTIONS /api/v1/posts/slug/{slug}", "OPTIONS /api/v1/posts/{id}/comments"},
		"GET /api/v1/admin/posts/{id}/{sub}": {"GET /api/v1/admin/posts/slug/{slug}", "GET /api/v1/admin/posts/{id}/revisions"},
		// tus clients are given the endpoint with its slash; the document
		// names paths without one (docs/filehost.md#resumable-uploads-tus).
		"POST /api/v1/tus/{$}":    {"POST /api/v1/tus"},
		"OPTIONS /api/v1/tus/{$}": {"OPTIONS /api/v1/tus"},
	}
}

var (
	restWildcard = regexp.MustCompile(`\{([A-Za-z0-9_]+)\.\.\.\}`)
	pathParam    = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)
)

// documentedOps is the operations the document shows for a registered,
// non-fallback pattern: the mux's "{name...}" and "/{$}" become OpenAPI's
// "{name}" and "/".
func documentedOps(pattern string) []string {
	if ops, ok := documentedAs()[pattern]; ok {
		return ops
	}
	method, path, _ := strings.Cut(pattern, " ")
	path = restWildcard.ReplaceAllString(path, "{$1}")
	if p, ok := strings.CutSuffix(path, "/{$}"); ok {
		path = p + "/"
	}
	return []string{method + " " + path}
}

// openAPIDocument assembles the document of routes.
func openAPIDocument(routes []httpx.Route, version string) (schema, error) {
	ops := operations()
	if err := missingOperations(routes, ops); err != nil {
		return nil, err
	}
	paths := map[string]schema{}
	shared := map[string]schema{} // components.responses that operations use
	for _, rt := range routes {
		if rt.Fallback {
			continue
		}
		for _, key := range documentedOps(rt.Pattern) {
			op := ops[key]
			method, path, _ := strings.Cut(key, " ")
			item := paths[path]
			if item == nil {
				item = schema{}
				paths[path] = item
			}
			item[strings.ToLower(method)] = op.render(path, rt, shared)
		}
	}
	return schema{
		"openapi": "3.1.0",
		"info": schema{
			"title":   "Folio",
			"version": version,
			"summary": "A blog engine and an image and file host in one binary.",
			"description": "Every route Folio serves: the blog API (envelope B, `{code, data, msg}`), " +
				"the file host API (envelope A, `{code, message, data}`, and the Lsky Pro shape " +
				"`{status, message, data}` for upload clients), the classic site, short links, " +
				"share links and the web console. The reference in prose is docs/api.md.",
		},
		"servers":    []schema{{"url": "/", "description": "The server answering this document."}},
		"tags":       openAPITags(),
		"paths":      paths,
		"components": components(shared),
	}, nil
}

// render writes op as an OpenAPI operation object on path, served by rt,
// adding the shared responses it refers to to shared.
func (op operation) render(path string, rt httpx.Route, shared map[string]schema) schema {
	out := schema{
		"operationId": op.id,
		"summary":     op.summary,
		"tags":        []string{op.tag},
	}
	if op.description != "" {
		out["description"] = op.description
	}
	params := []schema{}
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		params = append(params, pathParameter(m[1]))
	}
	params = append(params, op.params...)
	if len(params) > 0 {
		out["parameters"] = params
	}
	switch op.auth {
	case public:
		out["security"] = []schema{}
	case user, admin:
		out["security"] = []schema{{"bearerToken": []string{}}, {"sessionCookie": []string{}}, {"accessTokenCookie": []string{}}}
	case console:
		out["security"] = []schema{{"sessionCookie": []string{}}}
	}
	if op.body != nil {
		out["requestBody"] = schema{
			"required": op.body.required,
			"content":  schema{op.body.mediaType: schema{"schema": op.body.schema}},
		}
	}
	responses := schema{}
	withLimit := op
	withLimit.responses = op.withBodyLimit(rt)
	for _, r := range withLimit.withQueryError(rt) {
		obj := schema{"description": r.description}
		if len(r.content) > 0 {
			content := schema{}
			for mt, s := range r.content {
				content[mt] = schema{"schema": s}
			}
			obj["content"] = content
		}
		if len(r.headers) > 0 {
			obj["headers"] = r.headers
		}
		if r.ref != "" {
			shared[r.ref] = obj
			obj = schema{"$ref": "#/components/responses/" + r.ref}
		}
		responses[strconv.Itoa(r.status)] = obj
	}
	out["responses"] = responses
	return out
}

// withBodyLimit adds the 413 that the router gives every body over its
// route's bound (docs/api.md#limits), in the route's envelope, to an
// operation that takes a body and documents no 413 of its own.
func (op operation) withBodyLimit(rt httpx.Route) []response {
	if op.body == nil || slices.ContainsFunc(op.responses, func(r response) bool { return r.status == http.StatusRequestEntityTooLarge }) {
		return op.responses
	}
	name := "ErrorB"
	if rt.Envelope == httpx.FileAPI {
		name = "ErrorA"
	}
	return append(slices.Clone(op.responses), errs(name, []int{http.StatusRequestEntityTooLarge})...)
}

// withQueryError adds the 400 that every route gives a query string no
// database can store (docs/api.md#errors): plain text on pages, the
// surface's envelope on an API, beside the operation's own 400 if it has
// one.
func (op operation) withQueryError(rt httpx.Route) []response {
	mediaType, s := "application/json", ref("ErrorB")
	switch {
	case rt.Pages:
		mediaType, s = "text/plain", stringOf("")
	case rt.Envelope == httpx.FileAPI:
		s = ref("ErrorA")
	}
	rs := slices.Clone(op.responses)
	for i, r := range rs {
		if r.status != http.StatusBadRequest {
			continue
		}
		own, ok := r.content[mediaType]
		if ok && reflect.DeepEqual(own, s) {
			return rs
		}
		content := maps.Clone(r.content)
		if content == nil {
			content = map[string]schema{}
		}
		content[mediaType] = s
		if ok {
			content[mediaType] = schema{"anyOf": []schema{own, s}}
		}
		rs[i].content, rs[i].ref = content, ""
		return rs
	}
	if rt.Pages {
		rs = append(rs, response{status: http.StatusBadRequest, description: "The query string holds text no database can store (`invalid query string`).",
			content: map[string]schema{mediaType: s}})
	} else {
		name := strings.TrimPrefix(s["$ref"].(string), "#/components/schemas/")
		rs = append(rs, errs(name, []int{http.StatusBadRequest})...)
	}
	slices.SortFunc(rs, func(a, b response) int { return a.status - b.status })
	return rs
}

// pathParameter declares a path wildcard; what each holds is told by name.
func pathParameter(name string) schema {
	desc := map[string]string{
		"id":       "The resource's id (a UUID; a malformed one is 404).",
		"share_id": "The share link's id.",
		"slug":     "The slug.",
		"key":      "The storage key, slashes and all.",
		"hash":     "A prefix of the content's MD5, at least 8 characters, optionally followed by `.ext`.",
		"token":    "The share link's token.",
		"file":     "An asset's file name, carrying a content hash.",
	}[name]
	if desc == "" {
		desc = "The " + name + "."
	}
	return schema{"name": name, "in": "path", "required": true, "description": desc, "schema": schema{"type": "string"}}
}
