// Package importtest stands in, for the tests of the blog's import and of
// the folio command, for the old site an export comes from: a web server
// that serves the export's pictures and files, misbehaves as old sites do
// on a few known paths, and counts the requests for each path, so that a
// test can tell what an import brought home and that a second import
// downloaded nothing (docs/export-import.md#bringing-images-home).
package importtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// The paths on which the old site misbehaves, whatever its files.
const (
	// SoftNotFound answers a web page with status 200, as an old site
	// does for a picture it lost.
	SoftNotFound = "/wp-content/uploads/soft-404.jpg"
	// Loop redirects to itself.
	Loop = "/wp-content/uploads/loop.jpg"
	// Moved arrives at MovedHere after two redirects.
	Moved     = "/wp-content/uploads/moved.jpg"
	MovedHere = "/wp-content/uploads/moved-here.jpg"
)

// OldSite is the old site: Files by path; any other path is 404.
type OldSite struct {
	*httptest.Server
	Files map[string][]byte
	mu    sync.Mutex
	hits  map[string]int
}

// NewOldSite serves files until the test ends.
func NewOldSite(t testing.TB, files map[string][]byte) *OldSite {
	t.Helper()
	s := &OldSite{Files: files, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch r.URL.Path {
		case SoftNotFound:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<!doctype html><title>Not found</title><p>Nothing here.")
			return
		case Loop:
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
			return
		case Moved:
			http.Redirect(w, r, "/r/moved", http.StatusMovedPermanently)
			return
		case "/r/moved":
			http.Redirect(w, r, MovedHere, http.StatusFound)
			return
		}
		b, ok := s.Files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// Hits is how many requests path has had.
func (s *OldSite) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Total is how many requests the site has had.
func (s *OldSite) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}
