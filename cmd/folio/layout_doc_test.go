package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fileName is a Go file named in a package comment: a name or a glob
// (console_*_http.go). Names with a capital are the placeholders of
// docs/design.md#inside-a-domain (R.go, R_store.go) and name no file.
var fileName = regexp.MustCompile(`[A-Za-z0-9_*]+\.go\b`)

// TestPackageMapsNameFilesThatExist reads the doc.go of every package that
// has one (blog's and filehost's are the maps of their rooms) and fails on
// a file name, or a pattern, that no file of the package answers, so that
// a renamed or moved file cannot leave the map pointing at nothing.
func TestPackageMapsNameFilesThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "*", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	deeper, err := filepath.Glob(filepath.Join(root, "*", "*", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, deeper...)
	mapped := map[string]bool{}
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		mapped[filepath.ToSlash(filepath.Dir(rel))] = true
		for _, name := range fileName.FindAllString(string(src), -1) {
			if strings.ToLower(name) != name {
				continue
			}
			found, err := filepath.Glob(filepath.Join(filepath.Dir(doc), name))
			if err != nil {
				t.Fatalf("%s: %q: %v", rel, name, err)
			}
			if len(found) == 0 {
				t.Errorf("%s names %s, which no file of the package is", rel, name)
			}
		}
	}
	for _, pkg := range []string{"blog", "filehost"} {
		if !mapped[pkg] {
			t.Errorf("%s has no doc.go mapping its surfaces to its files", pkg)
		}
	}
}
