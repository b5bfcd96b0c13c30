package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"math"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// servedOpenAPI fetches the document as clients do and decodes it.
func servedOpenAPI(t *testing.T, c *httpxtest.Client) map[string]any {
	t.Helper()
	res := c.Do("GET", "/api/v1/openapi.json", nil).Expect(200)
	var doc map[string]any
	if err := json.Unmarshal(res.Body, &doc); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	return doc
}

var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// documentOperations lists the document's operations as "METHOD /path".
func documentOperations(doc map[string]any) map[string]map[string]any {
	ops := map[string]map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if slices.Contains(openAPIMethods, method) {
				ops[strings.ToUpper(method)+" "+path] = op.(map[string]any)
			}
		}
	}
	return ops
}

// TestOpenAPIDocumentsEveryRouteAndNoOther holds the document to the route
// table both ways: every registered pattern (but the fallbacks) is an
// operation, every operation is a registered pattern, and the operation
// table has no entry that no route uses.
func TestOpenAPIDocumentsEveryRouteAndNoOther(t *testing.T) {
	a, c := newTestApp(t)
	ops := documentOperations(servedOpenAPI(t, c))
	want := map[string]string{} // operation -> the pattern serving it
	for _, r := range a.router.Routes() {
		if r.Fallback {
			continue
		}
		for _, op := range documentedOps(r.Pattern) {
			want[op] = r.Pattern
		}
	}
	for op, pattern := range want {
		if ops[op] == nil {
			t.Errorf("route %q: the document has no operation %q", pattern, op)
		}
	}
	for op := range ops {
		if _, ok := want[op]; !ok {
			t.Errorf("the document's operation %q is no registered route", op)
		}
	}
	for op := range operations() {
		if _, ok := want[op]; !ok {
			t.Errorf("openapi_ops.go describes %q, which no route serves", op)
		}
	}
	if len(ops) < 170 {
		t.Errorf("only %d operations", len(ops))
	}
}

func TestOpenAPIDocumentedOpsMapsMuxSyntax(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{"GET /{$}", []string{"GET /"}},
		{"GET /console/{$}", []string{"GET /console/"}},
		{"DELETE /api/v1/images/{key...}", []string{"DELETE /api/v1/images/{key}"}},
		{"GET /api/v1/posts/{id}/{sub}", []string{"GET /api/v1/posts/slug/{slug}", "GET /api/v1/posts/{id}/comments"}},
		{"POST /api/v1/files/{id}/shares", []string{"POST /api/v1/files/{id}/shares"}},
	}
	for _, tt := range tests {
		if got := documentedOps(tt.pattern); !slices.Equal(got, tt.want) {
			t.Errorf("documentedOps(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

// A route without an operation stops start-up, so a new route cannot be
// served undocumented.
func TestOpenAPIRefusesARouteWithoutOperation(t *testing.T) {
	a, _ := newTestApp(t)
	routes := a.router.Routes()
	extra := routes[0]
	extra.Pattern = "GET /api/v1/not-in-the-table"
	var d openAPIDoc
	err := d.prepare(append(routes, extra), "test")
	if err == nil || !strings.Contains(err.Error(), "GET /api/v1/not-in-the-table") {
		t.Fatalf("build = %v, want an error naming the route", err)
	}
}

var pathWildcard = regexp.MustCompile(`\{([^}]+)\}`)

// TestOpenAPIDocumentIsWellFormed checks what a validator might let pass:
// the version, unique operation ids, resolving references, declared path
// parameters, known tags, stated security and a success for everything.
func TestOpenAPIDocumentIsWellFormed(t *testing.T) {
	_, c := newTestApp(t)
	doc := servedOpenAPI(t, c)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", doc["openapi"])
	}
	tags := map[string]bool{}
	for _, tg := range doc["tags"].([]any) {
		name := tg.(map[string]any)["name"].(string)
		if _, dup := tags[name]; dup {
			t.Errorf("tag %q is declared twice", name)
		}
		tags[name] = false
	}
	ids := map[string]string{}
	for key, op := range documentOperations(doc) {
		id, _ := op["operationId"].(string)
		if id == "" {
			t.Errorf("%s: no operationId", key)
		} else if other, dup := ids[id]; dup {
			t.Errorf("operationId %q of both %s and %s", id, key, other)
		}
		ids[id] = key
		if s, _ := op["summary"].(string); s == "" {
			t.Errorf("%s: no summary", key)
		}
		for _, tg := range op["tags"].([]any) {
			if _, ok := tags[tg.(string)]; !ok {
				t.Errorf("%s: tag %q is not in the document's tags", key, tg)
			}
			tags[tg.(string)] = true
		}
		if _, ok := op["security"]; !ok {
			t.Errorf("%s: security not stated", key)
		}
		_, path, _ := strings.Cut(key, " ")
		var inPath []string
		for _, m := range pathWildcard.FindAllStringSubmatch(path, -1) {
			inPath = append(inPath, m[1])
		}
		var declared []string
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			p := p.(map[string]any)
			if p["in"] == "path" {
				declared = append(declared, p["name"].(string))
				if p["required"] != true {
					t.Errorf("%s: path parameter %v not required", key, p["name"])
				}
			}
		}
		if !slices.Equal(inPath, declared) {
			t.Errorf("%s: path parameters %q, declared %q", key, inPath, declared)
		}
		success := false
		for st := range op["responses"].(map[string]any) {
			if n, err := strconv.Atoi(st); err == nil && n >= 200 && n < 400 {
				success = true
			}
		}
		if !success {
			t.Errorf("%s: no 2xx or 3xx answer", key)
		}
	}
	for tg, used := range tags {
		if !used {
			t.Errorf("tag %q is on no operation", tg)
		}
	}
	var walk func(at string, v any)
	refs := 0
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok {
				refs++
				if resolve(doc, r) == nil {
					t.Errorf("%s: $ref %q does not resolve", at, r)
				}
			}
			for k, x := range v {
				walk(at+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(at+"/"+strconv.Itoa(i), x)
			}
		}
	}
	walk("#", doc)
	if refs < 100 {
		t.Errorf("only %d references", refs)
	}
}

// resolve follows a local reference, or returns nil.
func resolve(doc map[string]any, ref string) map[string]any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = doc
	for _, part := range strings.Split(rest, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	m, _ := cur.(map[string]any)
	return m
}

func TestOpenAPIIsServedCacheable(t *testing.T) {
	_, c := newTestAppOn(t, sqlstoretest.NewConfig(t), "FOLIO_RENDER_ENABLE_CORS=true")
	res := c.Do("GET", "/api/v1/openapi.json", nil, "Accept-Encoding", "identity").Expect(200)
	if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if !json.Valid(res.Body) || res.Header.Get("Content-Length") != strconv.Itoa(len(res.Body)) {
		t.Errorf("%d bytes, Content-Length %q, valid JSON %v", len(res.Body), res.Header.Get("Content-Length"), json.Valid(res.Body))
	}
	etag := res.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		t.Fatalf("ETag %q", etag)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "public, no-cache" {
		t.Errorf("Cache-Control %q", cc)
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("no CORS header with render.enable_cors on")
	}

	// Gzipped, as most clients take it: the same document.
	gz := c.Do("GET", "/api/v1/openapi.json", nil, "Accept-Encoding", "br, gzip").Expect(200)
	gzTag := gz.Header.Get("ETag")
	if gz.Header.Get("Content-Encoding") != "gzip" || gzTag == etag || gz.Header.Get("Content-Length") != strconv.Itoa(len(gz.Body)) {
		t.Errorf("gzip: Content-Encoding %q, ETag %q, Content-Length %q for %d bytes", gz.Header.Get("Content-Encoding"), gzTag, gz.Header.Get("Content-Length"), len(gz.Body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inflated, res.Body) {
		t.Errorf("the gzipped document differs (%v)", err)
	}
	if len(gz.Body)*4 > len(res.Body) {
		t.Errorf("gzip: %d bytes of %d", len(gz.Body), len(res.Body))
	}
	c.Do("GET", "/api/v1/openapi.json", nil, "Accept-Encoding", "gzip;q=0").Expect(200)
	if again := c.Do("GET", "/api/v1/openapi.json", nil, "Accept-Encoding", "gzip;q=0"); again.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client refusing it")
	}

	for _, tag := range []string{etag, gzTag, "W/" + etag, `"other", ` + gzTag, "*"} {
		if nm := c.Do("GET", "/api/v1/openapi.json", nil, "If-None-Match", tag, "Accept-Encoding", "identity").Expect(304); len(nm.Body) != 0 {
			t.Errorf("304 with a body: %q", nm.Body)
		}
	}
	c.Do("GET", "/api/v1/openapi.json", nil, "If-None-Match", `"other"`).Expect(200)
	head := c.Do("HEAD", "/api/v1/openapi.json", nil, "Accept-Encoding", "identity").Expect(200)
	if len(head.Body) != 0 || head.Header.Get("ETag") != etag || head.Header.Get("Content-Length") != strconv.Itoa(len(res.Body)) {
		t.Errorf("HEAD: body %d bytes, ETag %q, Content-Length %q", len(head.Body), head.Header.Get("ETag"), head.Header.Get("Content-Length"))
	}
	pre := c.Do("OPTIONS", "/api/v1/openapi.json", nil).Expect(204)
	if pre.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("preflight Allow %q", pre.Header.Get("Allow"))
	}
	c.Do("POST", "/api/v1/openapi.json", nil).Expect(405)
}

func TestOpenAPIAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"deflate, gzip;q=1.0, *;q=0.5", true},
		{"GZIP ; q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"identity", false},
		{"x-gzip", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v", tt.header, got)
		}
	}
}

// TestOpenAPISecurityMatchesTheRoutes asks every GET the document calls
// public without credentials (never 401), and every /api/ operation it
// guards without them (always 401).
func TestOpenAPISecurityMatchesTheRoutes(t *testing.T) {
	_, c := newTestApp(t)
	doc := servedOpenAPI(t, c)
	anon := c.Clone()
	for key, op := range documentOperations(doc) {
		method, path, _ := strings.Cut(key, " ")
		url := pathWildcard.ReplaceAllString(path, "x")
		security, _ := op["security"].([]any)
		switch {
		case len(security) == 0 && method == "GET":
			if res := anon.Do(method, url, nil); res.Status == 401 {
				t.Errorf("%s is documented public but answers 401", key)
			}
		case len(security) > 0 && strings.HasPrefix(path, "/api/"):
			if res := anon.Do(method, url, nil); res.Status != 401 {
				t.Errorf("%s is documented guarded but answers %d without credentials", key, res.Status)
			}
		}
	}
}

// TestOpenAPIResponsesMatchTheDocument drives the API through a day of use
// and holds every answer to the document: its status must be documented
// for the operation, in the media type it came in, and a JSON body must
// match the schema.
func TestOpenAPIResponsesMatchTheDocument(t *testing.T) {
	_, c := newTestAppOn(t, sqlstoretest.NewConfig(t), "FOLIO_UPLOAD_ALLOW_GUEST_UPLOAD=true", "FOLIO_UPLOAD_ALLOW_REGISTER=true")
	doc := servedOpenAPI(t, c)
	v := &docValidator{t: t, doc: doc}
	admin := c.Clone()
	admin.Header.Set("Origin", c.Base)
	anon := c.Clone()

	// check sends a request as who and holds the answer to op.
	check := func(who *httpxtest.Client, op, url string, body any, headers ...string) *httpxtest.Response {
		t.Helper()
		method, _, _ := strings.Cut(op, " ")
		res := who.Do(method, url, body, headers...)
		v.response(op, url, res)
		return res
	}
	id := func(res *httpxtest.Response, field string) string {
		t.Helper()
		var env struct{ Data map[string]any }
		if err := json.Unmarshal(res.Body, &env); err != nil {
			t.Fatalf("%s", res.Body)
		}
		s, _ := env.Data[field].(string)
		if s == "" {
			t.Fatalf("no %s in %s", field, res.Body)
		}
		return s
	}

	check(anon, "GET /api/v1/health", "/api/v1/health", nil)
	check(anon, "OPTIONS /api/v1/health", "/api/v1/health", nil)
	check(admin, "POST /api/v1/admin/auth/login", "/api/v1/admin/auth/login", map[string]string{"username": "admin", "password": "wrong"})
	check(admin, "POST /api/v1/admin/auth/login", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	check(admin, "GET /api/v1/admin/auth/me", "/api/v1/admin/auth/me", nil)
	check(anon, "GET /api/v1/admin/auth/me", "/api/v1/admin/auth/me", nil)

	cat := id(check(admin, "POST /api/v1/admin/categories", "/api/v1/admin/categories", map[string]string{"name": "Notes", "slug": "notes"}).Expect(201), "id")
	check(admin, "POST /api/v1/admin/categories", "/api/v1/admin/categories", map[string]string{"name": "Notes", "slug": "notes"}).Expect(409)
	tag := id(check(admin, "POST /api/v1/admin/tags", "/api/v1/admin/tags", map[string]string{"name": "go"}).Expect(201), "id")
	check(admin, "PATCH /api/v1/admin/tags/{id}", "/api/v1/admin/tags/"+tag, map[string]string{"slug": "golang"})
	post := id(check(admin, "POST /api/v1/admin/posts", "/api/v1/admin/posts", map[string]any{"title": "Hello", "status": "published",
		"content_markdown": "Text\n\n## Part\n\nMore.", "category_id": cat, "tag_ids": []string{tag}}).Expect(201), "id")
	check(admin, "POST /api/v1/admin/posts", "/api/v1/admin/posts", map[string]any{"title": ""}).Expect(422)
	check(admin, "POST /api/v1/admin/posts", "/api/v1/admin/posts", "{").Expect(400)
	draft := id(check(admin, "POST /api/v1/admin/posts", "/api/v1/admin/posts", map[string]any{"title": "Draft"}).Expect(201), "id")
	check(admin, "PATCH /api/v1/admin/posts/{id}", "/api/v1/admin/posts/"+draft, map[string]any{"summary": "S"})
	check(admin, "PUT /api/v1/admin/posts/{id}", "/api/v1/admin/posts/"+draft, map[string]any{"title": "Draft 2"})
	check(admin, "GET /api/v1/admin/posts", "/api/v1/admin/posts?status=draft", nil)
	check(admin, "GET /api/v1/admin/posts/{id}", "/api/v1/admin/posts/"+draft, nil)
	check(admin, "GET /api/v1/admin/posts/slug/{slug}", "/api/v1/admin/posts/slug/hello", nil)
	check(anon, "GET /api/v1/posts", "/api/v1/posts", nil)
	check(anon, "GET /api/v1/posts", "/api/v1/posts?page=x", nil).Expect(400)
	check(anon, "GET /api/v1/posts/{id}", "/api/v1/posts/"+post, nil).Expect(200)
	check(anon, "GET /api/v1/posts/{id}", "/api/v1/posts/"+draft, nil).Expect(404)
	check(anon, "GET /api/v1/posts/slug/{slug}", "/api/v1/posts/slug/hello", nil).Expect(200)
	check(anon, "OPTIONS /api/v1/posts/slug/{slug}", "/api/v1/posts/slug/hello", nil)
	check(anon, "POST /api/v1/posts/{id}/comments", "/api/v1/posts/"+post+"/comments", map[string]string{"author": "Ann", "email": "ann@example.org", "content": "Nice."}).Expect(201)
	check(anon, "POST /api/v1/posts/{id}/comments", "/api/v1/posts/"+post+"/comments", map[string]string{"author": ""}).Expect(422)
	comment := ""
	{
		res := check(admin, "GET /api/v1/admin/comments", "/api/v1/admin/comments", nil)
		var env struct {
			Data struct{ Items []struct{ ID string } }
		}
		_ = json.Unmarshal(res.Body, &env)
		if len(env.Data.Items) > 0 {
			comment = env.Data.Items[0].ID
		}
	}
	check(admin, "PATCH /api/v1/admin/comments/{id}", "/api/v1/admin/comments/"+comment, map[string]string{"status": "approved"}).Expect(200)
	check(anon, "GET /api/v1/posts/{id}/comments", "/api/v1/posts/"+post+"/comments", nil)
	check(admin, "GET /api/v1/admin/comments/stats", "/api/v1/admin/comments/stats", nil)
	check(admin, "DELETE /api/v1/admin/comments/{id}", "/api/v1/admin/comments/"+comment, nil).Expect(200)
	check(anon, "GET /api/v1/categories", "/api/v1/categories", nil)
	check(anon, "GET /api/v1/categories/{id}", "/api/v1/categories/"+cat, nil)
	check(anon, "GET /api/v1/tags/{id}", "/api/v1/tags/nope", nil).Expect(404)
	page := id(check(admin, "POST /api/v1/admin/pages", "/api/v1/admin/pages", map[string]any{"title": "About", "status": "published", "config": "{}"}).Expect(201), "id")
	check(admin, "GET /api/v1/admin/pages/{id}", "/api/v1/admin/pages/"+page, nil)
	check(anon, "GET /api/v1/pages", "/api/v1/pages", nil)
	check(anon, "GET /api/v1/pages/slug/{slug}", "/api/v1/pages/slug/about", nil)
	link := id(check(admin, "POST /api/v1/admin/friend-links", "/api/v1/admin/friend-links", map[string]any{"name": "Go", "url": "https://go.dev/"}).Expect(201), "id")
	check(admin, "GET /api/v1/admin/friend-links", "/api/v1/admin/friend-links", nil)
	check(anon, "GET /api/v1/friend-links/{id}", "/api/v1/friend-links/"+link, nil)
	check(admin, "GET /api/v1/admin/settings", "/api/v1/admin/settings", nil)
	check(admin, "PUT /api/v1/admin/settings", "/api/v1/admin/settings", map[string]any{"site": map[string]any{"site_name": "Mine"}}).Expect(200)
	check(admin, "PUT /api/v1/admin/settings", "/api/v1/admin/settings", map[string]any{"render": map[string]any{"render_mode": "nope"}}).Expect(422)
	check(admin, "POST /api/v1/admin/ai/summary", "/api/v1/admin/ai/summary", map[string]any{"post_id": post}).Expect(422)
	check(admin, "DELETE /api/v1/admin/posts/{id}", "/api/v1/admin/posts/"+draft, nil).Expect(200)

	// The file host, as the administrator's account and a new user.
	check(anon, "POST /api/v1/auth/register", "/api/v1/auth/register", map[string]string{"username": "bob", "email": "bob@example.org", "password": "bob-password"}).Expect(201)
	check(anon, "POST /api/v1/auth/register", "/api/v1/auth/register", map[string]string{"username": "bob", "email": "bob2@example.org", "password": "bob-password"}).Expect(409)
	login := check(anon, "POST /api/v1/auth/login", "/api/v1/auth/login", map[string]string{"username": "bob", "password": "bob-password"}).Expect(200)
	var tokens struct {
		Data struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		}
	}
	_ = json.Unmarshal(login.Body, &tokens)
	bob := c.Clone()
	bob.Header.Set("Authorization", "Bearer "+tokens.Data.Access)
	check(anon, "POST /api/v1/auth/login", "/api/v1/auth/login", map[string]string{"username": "bob", "password": "wrong-password"}).Expect(401)
	check(anon, "POST /api/v1/auth/refresh", "/api/v1/auth/refresh", map[string]string{"refresh_token": tokens.Data.Refresh}).Expect(200)
	check(bob, "GET /api/v1/auth/me", "/api/v1/auth/me", nil).Expect(200)
	album := id(check(bob, "POST /api/v1/albums", "/api/v1/albums", map[string]any{"name": "Trip"}).Expect(201), "id")
	check(bob, "POST /api/v1/albums", "/api/v1/albums", map[string]any{"name": ""}).Expect(400)
	check(bob, "GET /api/v1/albums", "/api/v1/albums", nil)
	check(bob, "PATCH /api/v1/albums/{id}", "/api/v1/albums/"+album, map[string]any{"is_public": true})
	img := pngBytes(t)
	up := bob.Upload("/api/v1/upload", "file", "a.png", img, "album_id", album, "permission", "1")
	v.response("POST /api/v1/upload", "/api/v1/upload", up.Expect(200))
	file := id(up, "id")
	v.response("POST /api/v1/upload", "/api/v1/upload", bob.Upload("/api/v1/upload", "", "", nil, "permission", "1").Expect(400))
	v.response("POST /api/v1/upload", "/api/v1/upload", c.Clone().Upload("/api/v1/upload", "file", "a.png", img).Expect(401))
	v.response("POST /api/v1/public/upload", "/api/v1/public/upload", anon.Upload("/api/v1/public/upload", "file", "b.png", pngBytes(t, 2)).Expect(200))
	var uploaded struct {
		Data struct {
			MD5 string `json:"md5"`
		}
	}
	if err := json.Unmarshal(up.Body, &uploaded); err != nil || len(uploaded.Data.MD5) < 8 {
		t.Fatalf("upload: %s", up.Body)
	}
	hash := uploaded.Data.MD5[:8]
	check(anon, "GET /i/{hash}", "/i/"+hash, nil).Expect(200)
	check(anon, "GET /i/{hash}", "/i/"+hash+"?w=160", nil).Expect(200)
	check(anon, "GET /i/{hash}", "/i/"+hash+"?w=abc", nil).Expect(400)
	check(anon, "GET /i/{hash}", "/i/"+hash+"?w=100", nil, "Accept", "text/html").Expect(400)
	check(anon, "GET /f/{hash}", "/f/"+hash+".png", nil, "Range", "bytes=0-3").Expect(206)
	check(anon, "GET /t/{hash}", "/t/"+hash, nil).Expect(200)
	locked := check(bob, "POST /api/v1/files/{id}/shares", "/api/v1/files/"+file+"/shares", map[string]any{"password": "open sesame"}).Expect(201)
	var lockedShare struct {
		Data struct {
			URL string `json:"url"`
		}
	}
	_ = json.Unmarshal(locked.Body, &lockedShare)
	sharePath := strings.TrimPrefix(lockedShare.Data.URL, c.Base)
	visitor := c.Clone()
	form := check(visitor, "GET /s/{token}", sharePath, nil).Expect(200)
	v.response("POST /s/{token}", sharePath, visitor.PostForm(sharePath, "form_token", form.FormToken(), "password", "wrong").Expect(401))
	v.response("POST /s/{token}", sharePath, visitor.PostForm(sharePath, "form_token", form.FormToken(), "password", "open sesame").Expect(303))
	opened := check(visitor, "GET /s/{token}", sharePath, nil).Expect(200)
	if m := regexp.MustCompile(`/s/raw/[^"]+`).Find(opened.Body); m != nil {
		raw := strings.ReplaceAll(string(m), "&amp;", "&")
		check(visitor, "GET /s/raw/{token}", raw, nil).Expect(200)
	} else {
		t.Errorf("no raw link on the share page: %.300s", opened.Body)
	}
	check(visitor, "GET /s/raw/{token}", strings.Replace(sharePath, "/s/", "/s/raw/", 1)+"?t=stale", nil).Expect(404)
	check(bob, "GET /api/v1/files", "/api/v1/files?file_type=image", nil)
	check(bob, "GET /api/v1/files", "/api/v1/files?order_by=nope", nil).Expect(400)
	check(bob, "GET /api/v1/files/{id}", "/api/v1/files/"+file, nil).Expect(200)
	check(bob, "PATCH /api/v1/files/{id}", "/api/v1/files/"+file, map[string]any{"origin_name": "b.png"}).Expect(200)
	share := id(check(bob, "POST /api/v1/files/{id}/shares", "/api/v1/files/"+file+"/shares", map[string]any{"max_views": 3}).Expect(201), "id")
	check(bob, "GET /api/v1/files/{id}/shares", "/api/v1/files/"+file+"/shares", nil).Expect(200)
	check(bob, "DELETE /api/v1/files/{id}/shares/{share_id}", "/api/v1/files/"+file+"/shares/"+share, nil).Expect(200)
	tok := id(check(bob, "POST /api/v1/tokens", "/api/v1/tokens", map[string]any{"name": "PicGo"}).Expect(201), "id")
	check(bob, "GET /api/v1/tokens", "/api/v1/tokens", nil)
	check(bob, "DELETE /api/v1/tokens/{id}", "/api/v1/tokens/"+tok, nil).Expect(200)
	check(bob, "GET /api/v1/images", "/api/v1/images", nil).Expect(200)
	check(bob, "GET /api/v1/profile", "/api/v1/profile", nil).Expect(200)
	check(bob, "GET /api/v1/strategies", "/api/v1/strategies", nil).Expect(200)
	check(bob, "DELETE /api/v1/images/{key}", "/api/v1/images/no/such/key", nil).Expect(404)
	check(anon, "GET /api/v1/public/stats", "/api/v1/public/stats", nil)
	check(anon, "GET /api/v1/public/plaza", "/api/v1/public/plaza", nil)
	check(bob, "GET /api/v1/admin/users", "/api/v1/admin/users", nil).Expect(403)
	check(admin, "GET /api/v1/admin/users", "/api/v1/admin/users", nil).Expect(200)
	check(admin, "GET /api/v1/admin/files", "/api/v1/admin/files", nil).Expect(200)
	check(admin, "GET /api/v1/admin/stats", "/api/v1/admin/stats", nil).Expect(200)
	user := id(check(admin, "POST /api/v1/admin/users", "/api/v1/admin/users", map[string]any{"username": "carol", "email": "carol@example.org", "password": "carol-password", "role": "user"}).Expect(201), "id")
	check(admin, "PATCH /api/v1/admin/users/{id}", "/api/v1/admin/users/"+user, map[string]any{"status": "disabled"}).Expect(200)
	check(admin, "DELETE /api/v1/admin/users/{id}", "/api/v1/admin/users/"+user, nil).Expect(200)
	check(bob, "POST /api/v1/files/batch-delete", "/api/v1/files/batch-delete", map[string]any{"ids": []string{file}}).Expect(200)
	check(bob, "DELETE /api/v1/albums/{id}", "/api/v1/albums/"+album, nil).Expect(200)
	check(anon, "POST /api/v1/auth/logout", "/api/v1/auth/logout", map[string]any{}).Expect(200)
	check(admin, "POST /api/v1/admin/auth/logout", "/api/v1/admin/auth/logout", nil).Expect(200)

	// Pages answer in the media types the document names.
	check(anon, "GET /", "/", nil)
	site := check(anon, "GET /posts/{slug}", "/posts/hello", nil).Expect(200)
	check(anon, "GET /posts/{slug}", "/posts/hello", nil, "If-None-Match", site.Header.Get("ETag")).Expect(304)
	v.response("POST /posts/{slug}/comments", "/posts/hello/comments", anon.PostForm("/posts/hello/comments", "author", "Ann", "email", "ann@example.org", "content", "Hi").Expect(303))
	v.response("POST /posts/{slug}/comments", "/posts/hello/comments", anon.PostForm("/posts/hello/comments", "author", "", "email", "x", "content", "").Expect(422))
	browser := consoleAdmin(t, c)
	check(browser, "GET /console/upload", "/console/upload", nil).Expect(200)
	check(browser, "GET /console/admin", "/console/admin", nil).Expect(200)
	check(browser, "GET /console/tokens", "/console/tokens", nil).Expect(200)
	check(browser, "GET /console/files", "/console/files", nil).Expect(200)
	check(anon, "GET /posts/{slug}", "/posts/nope", nil, "Accept", "text/html").Expect(404)
	check(anon, "GET /feed.xml", "/feed.xml", nil)
	check(anon, "GET /sitemap.xml", "/sitemap.xml", nil)
	check(anon, "GET /robots.txt", "/robots.txt", nil)
	check(anon, "GET /i/{hash}", "/i/00000000", nil).Expect(404)
	check(anon, "GET /i/{hash}", "/i/00000000", nil, "Accept", "text/html").Expect(404)
	check(anon, "GET /console", "/console", nil).Expect(301)
	check(anon, "GET /console/", "/console/", nil).Expect(303)
	check(anon, "GET /console/login", "/console/login", nil).Expect(200)
	check(anon, "GET /console/files", "/console/files", nil).Expect(303)
	check(anon, "GET /console/files", "/console/files?q=%00", nil).Expect(400)
	if v.checked < 90 {
		t.Errorf("only %d answers checked", v.checked)
	}
}

// pngBytes is a small PNG, different for each seed.
func pngBytes(t *testing.T, seed ...int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	s := 1
	if len(seed) > 0 {
		s = seed[0]
	}
	img.Set(0, 0, color.RGBA{R: uint8(s), A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docValidator holds answers to the document: a small JSON Schema checker
// for the keywords the document uses.
type docValidator struct {
	t       *testing.T
	doc     map[string]any
	checked int
}

func (v *docValidator) response(op, url string, res *httpxtest.Response) {
	v.t.Helper()
	v.checked++
	method, path, _ := strings.Cut(op, " ")
	item, _ := v.doc["paths"].(map[string]any)[path].(map[string]any)
	o, _ := item[strings.ToLower(method)].(map[string]any)
	if o == nil {
		v.t.Errorf("%s: not in the document", op)
		return
	}
	r, _ := o["responses"].(map[string]any)[strconv.Itoa(res.Status)].(map[string]any)
	if r == nil {
		v.t.Errorf("%s %s: status %d is not documented; body %.300s", op, url, res.Status, res.Body)
		return
	}
	if ref, ok := r["$ref"].(string); ok {
		r = resolve(v.doc, ref)
	}
	content, _ := r["content"].(map[string]any)
	if len(res.Body) == 0 || res.Status >= 300 && res.Status < 400 {
		return // a redirect's body is a courtesy of net/http
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	media, _ := content[mt].(map[string]any)
	if media == nil {
		media, _ = content["*/*"].(map[string]any)
	}
	if media == nil {
		v.t.Errorf("%s %s: %d in %q, documented %v", op, url, res.Status, mt, slices.Sorted(maps.Keys(content)))
		return
	}
	if mt != "application/json" {
		return
	}
	var body any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		v.t.Errorf("%s %s: not JSON: %v", op, url, err)
		return
	}
	if err := v.validate(media["schema"].(map[string]any), body, "body"); err != "" {
		v.t.Errorf("%s %s (%d): %s; body %.500s", op, url, res.Status, err, res.Body)
	}
}

// validate says what is wrong with x under s, or "".
func (v *docValidator) validate(s map[string]any, x any, at string) string {
	if r, ok := s["$ref"].(string); ok {
		target := resolve(v.doc, r)
		if target == nil {
			return at + ": unresolved " + r
		}
		return v.validate(target, x, at)
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if e := v.validate(sub.(map[string]any), x, at); e != "" {
				return e
			}
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		var errs []string
		for _, sub := range alts {
			e := v.validate(sub.(map[string]any), x, at)
			if e == "" {
				errs = nil
				break
			}
			errs = append(errs, e)
		}
		if errs != nil {
			return strings.Join(errs, " | ")
		}
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(x) {
		return fmt.Sprintf("%s: %v, want %v", at, x, c)
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(y any) bool { return y == x }) {
		return fmt.Sprintf("%s: %v not in %v", at, x, e)
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, y := range t {
				types = append(types, y.(string))
			}
		}
		if !slices.Contains(types, jsonType(x)) && !(jsonType(x) == "integer" && slices.Contains(types, "number")) {
			return fmt.Sprintf("%s: %s, want %v", at, jsonType(x), types)
		}
	}
	switch x := x.(type) {
	case map[string]any:
		for _, req := range asStrings(s["required"]) {
			if _, ok := x[req]; !ok {
				return at + ": no " + req
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, ps := range props {
			if y, ok := x[k]; ok {
				if e := v.validate(ps.(map[string]any), y, at+"."+k); e != "" {
					return e
				}
			}
		}
		if m, ok := s["maxProperties"].(float64); ok && float64(len(x)) > m {
			return fmt.Sprintf("%s: %d properties", at, len(x))
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, y := range x {
				if e := v.validate(items, y, at+"["+strconv.Itoa(i)+"]"); e != "" {
					return e
				}
			}
		}
	case string:
		if s["format"] == "date-time" && !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`).MatchString(x) {
			return at + ": not a date-time: " + x
		}
	}
	return ""
}

func jsonType(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func asStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, x.(string))
		}
	}
	return out
}

// TestOpenAPIDocumentsEveryAnswerToASweep sends every operation, bodiless
// and with placeholder path values, as a stranger, as the administrator's
// API token and as the administrator's console session, and holds each
// answer to the document.
func TestOpenAPIDocumentsEveryAnswerToASweep(t *testing.T) {
	_, c := newTestApp(t)
	doc := servedOpenAPI(t, c)
	v := &docValidator{t: t, doc: doc}
	var login struct {
		Data struct {
			Access string `json:"access_token"`
		}
	}
	res := c.Clone().Do("POST", "/api/v1/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	if err := json.Unmarshal(res.Body, &login); err != nil {
		t.Fatal(err)
	}
	bearer := c.Clone()
	bearer.Header.Set("Authorization", "Bearer "+login.Data.Access)
	browser := consoleAdmin(t, c)
	browser.Header.Set("Origin", c.Base)
	browser.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	ops := slices.Sorted(maps.Keys(documentOperations(doc)))
	for _, who := range []*httpxtest.Client{c.Clone(), bearer, browser} {
		for _, op := range ops {
			method, path, _ := strings.Cut(op, " ")
			url := pathWildcard.ReplaceAllString(path, "0190aaaa-0000-7000-8000-000000000000")
			if op == "POST /console/logout" || op == "POST /api/v1/admin/auth/logout" || op == "POST /console/account/sessions/revoke-others" {
				continue // would end the sweep's own session
			}
			v.response(op, url, who.Do(method, url, nil))
		}
	}
}
