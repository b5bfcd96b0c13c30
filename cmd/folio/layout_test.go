package main

import (
	"go/parser"
	"go/token"
	"os"
	"path"
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
	"httpx/outbound":        {},
	"auth/qr":               {},
	"auth":                  {"auth/qr", "httpx", "sqlstore", "templates"},
	"auth/authtest":         {"auth", "auth/qr", "httpx", "sqlstore", "templates"},
	"blog/activitypub":      {},
	"blog/ai":               {"httpx", "sqlstore"},
	"blog/frontmatter":      {},
	"blog/ghostdoc":         {},
	"blog/highlight":        {},
	"blog/htmltomd":         {},
	"blog/httpsig":          {},
	"blog/linediff":         {},
	"blog":                  {"auth", "blog/activitypub", "blog/ai", "blog/frontmatter", "blog/ghostdoc", "blog/highlight", "blog/htmltomd", "blog/httpsig", "blog/linediff", "httpx", "httpx/outbound", "sqlstore", "storage", "templates"},
	"filehost/imagemeta":    {},
	"filehost/tus":          {},
	"filehost":              {"auth", "filehost/imagemeta", "filehost/tus", "httpx", "sqlstore", "storage", "templates"},
	"cmd/folio":             {"auth", "blog", "blog/ai", "filehost", "httpx", "httpx/outbound", "sqlstore", "storage", "templates"},
	"cmd/folio-bench":       {"auth", "blog", "blog/ai", "blog/httpsig", "filehost", "httpx", "sqlstore", "storage", "templates"},

	// Made files for the tests of filehost/imagemeta and of the uploads
	// that strip them.
	"filehost/imagemeta/imagemetatest": {},
	// The old site of the tests that bring an import's images home.
	"blog/importtest": {},
	// The stand-in fediverse server of the federation tests.
	"blog/fedtest": {"blog/activitypub", "blog/httpsig"},
}

// TestPackagesImportOnlyWhatTheMapAllows reads every package's imports and
// fails on one the map does not list, and on a package the map does not know,
// so the map in docs/design.md cannot drift from the code.
func TestPackagesImportOnlyWhatTheMapAllows(t *testing.T) {
	found := map[string]bool{}
	eachSourceFile(t, ".", func(rel string, src []byte) error {
		pkg := path.Dir(rel)
		found[pkg] = true
		allowed, known := mayImport[pkg]
		if !known {
			t.Errorf("package %s is not in the package map (docs/design.md#package-map)", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.ImportsOnly)
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
				t.Errorf("%s imports %s; the package map allows %v", rel, p, allowed)
			}
		}
		return nil
	})
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

// eachSourceFile calls fn with every non-test Go file under dir (a folder
// of the module, "." for all of it), named relative to the module's root
// with slashes. Hidden folders, testdata and node_modules are not Go code
// of Folio.
func eachSourceFile(t *testing.T, dir string, fn func(rel string, src []byte) error) {
	t.Helper()
	root := filepath.Join("..", "..")
	start := filepath.Join(root, dir)
	err := filepath.WalkDir(start, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != start && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		return fn(filepath.ToSlash(rel), src)
	})
	if err != nil {
		t.Fatal(err)
	}
}
