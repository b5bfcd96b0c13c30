package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The plain reference answers with Folio's own headers besides the body,
// so that `folio-bench serve` compares like with like: Date, and the
// headers it makes itself, are not copied.
func TestPlainReferenceSendsFoliosHeaders(t *testing.T) {
	folio := http.Header{
		"Content-Type":            {"text/html; charset=utf-8"},
		"Content-Length":          {"5"},
		"Etag":                    {`"folio"`},
		"Date":                    {"Sat, 28 Nov 2026 06:00:00 GMT"},
		"Cache-Control":           {"no-cache"},
		"Content-Security-Policy": {"default-src 'self'"},
		"X-Frame-Options":         {"SAMEORIGIN"},
	}
	dir := t.TempDir()
	err := writePlain(dir, map[string]plainFile{"home": {Type: "text/html; charset=utf-8", Headers: plainHeaders(folio)}},
		map[string][]byte{"home": []byte("hello")})
	if err != nil {
		t.Fatal(err)
	}
	mux, err := plainMux(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/home", nil))
	got := rec.Header()
	for _, k := range []string{"Cache-Control", "Content-Security-Policy", "X-Frame-Options", "Content-Type"} {
		if got.Get(k) != folio.Get(k) {
			t.Errorf("%s = %q, want Folio's %q", k, got.Get(k), folio.Get(k))
		}
	}
	if got.Get("Date") != "" || got.Get("Etag") == `"folio"` || got.Get("Content-Length") != "5" || rec.Body.String() != "hello" {
		t.Errorf("headers %v, body %q: Date, ETag and Content-Length are the reference's own", got, rec.Body)
	}
}
