package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// mayImport is the package map of docs/design.md#package-map: for each
// package, the Folio packages its non-test code may import. Dependencies
// point one way, and the two domains never import each other.
var mayImport = map[string][]string{
	"storage":               {},
	"storage/storagetest":   {"storage"},
	"templates":             {},
	"sqlstore":              {},
	"sqlstore/sqlstoretest": {"sqlstore"},
	"httpx":                 {"sqlstore"},
	"httpx/httpxtest":       {"httpx", "sqlstore"},
	"auth/qr":               {},
	"auth":                  {"auth/qr", "httpx", "sqlstore", "templates"},
	"auth/authtest":         {"auth", "auth/qr", "httpx", "sqlstore", "templates"},
	"blog/ai":               {"httpx", "sqlstore"},
	"blog/htmltomd":         {},
	"blog/linediff":         {},
	"blog":                  {"auth", "blog/ai", "blog/htmltomd", "blog/linediff", "httpx", "sqlstore", "storage", "templates"},
	"filehost/imagemeta":    {},
	"filehost":              {"auth", "filehost/imagemeta", "httpx", "sqlstore", "storage", "templates"},
	"cmd/folio":             {"auth", "blog", "blog/ai", "filehost", "httpx", "sqlstore", "storage", "templates"},
	"cmd/folio-bench":       {"auth", "blog", "blog/ai", "filehost", "httpx", "sqlstore", "storage", "templates"},

	// Made files for the tests of filehost/imagemeta and of the uploads
	// that strip them.
	"filehost/imagemeta/imagemetatest": {},
}

// TestPackagesImportOnlyWhatTheMapAllows reads every package's imports and
// fails on one the map does not list, and on a package the map does not know,
// so the map in docs/design.md cannot drift from the code.
func TestPackagesImportOnlyWhatTheMapAllows(t *testing.T) {
	root := filepath.Join("..", "..")
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		found[pkg] = true
		allowed, known := mayImport[pkg]
		if !known {
			t.Errorf("package %s is not in the package map (docs/design.md#package-map)", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			dep, ok := strings.CutPrefix(p, "folio/")
			if !ok {
				continue
			}
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s; the package map allows %v", path, p, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var gone []string
	for pkg := range mayImport {
		if !found[pkg] {
			gone = append(gone, pkg)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		t.Errorf("the package map lists packages that do not exist: %v", gone)
	}
}
