package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// routePattern is the shape of a pattern on the router, or of its start: a
// method and a path ("GET /x/{id}", or "GET " before the path is added), or
// a surface's method-less fallback ("/x/").
var routePattern = regexp.MustCompile(`^((GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) +(/|$)|/)`)

// registersRoutes reports whether the Go source src adds to the route table
// (httpx.Router): it opens a surface (rt.API("name", env), rt.Pages(...))
// or registers a pattern on one (Handle, HandleBody or Fallback whose
// first argument starts with a pattern, written out or as the first
// literal of a + chain).
func registersRoutes(name string, src []byte) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return false, err
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found || len(call.Args) == 0 {
			return !found
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		first := ast.Unparen(call.Args[0])
		for {
			b, ok := first.(*ast.BinaryExpr)
			if !ok || b.Op != token.ADD {
				break
			}
			first = ast.Unparen(b.X)
		}
		lit, ok := first.(*ast.BasicLit)
		if !ok {
			return true
		}
		s, ok := stringValue(lit)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "API", "Pages":
			found = len(call.Args) == 2
		case "Handle", "HandleBody", "Fallback":
			found = routePattern.MatchString(s)
		}
		return !found
	})
	return found, nil
}

// routeFilesInDoc returns the Go files that the routes item of
// docs/design.md#http names, but for test files (the item cites this
// test).
func routeFilesInDoc(doc string) []string {
	start := strings.Index(doc, "- Routes live in ")
	if start < 0 {
		return nil
	}
	item := doc[start+1:]
	if end := strings.Index(item, "\n- "); end >= 0 {
		item = item[:end]
	}
	var files []string
	for _, m := range regexp.MustCompile("`([\\w./-]+\\.go)`").FindAllStringSubmatch(item, -1) {
		if !strings.HasSuffix(m[1], "_test.go") && !slices.Contains(files, m[1]) {
			files = append(files, m[1])
		}
	}
	return files
}

// TestRouteFilesAreTheOnesTheDocNames holds the routes item of
// docs/design.md#http to the code: every non-test file that adds to the
// route table is named there, and every file named there exists and adds
// to it, so that the list of route files is the one place to read the
// route map from.
func TestRouteFilesAreTheOnesTheDocNames(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := routeFilesInDoc(string(doc))
	if len(named) == 0 {
		t.Fatal("docs/design.md#http names no route file (the item starting \"Routes live in\")")
	}
	var registering []string
	eachSourceFile(t, ".", func(rel string, src []byte) error {
		ok, err := registersRoutes(rel, src)
		if ok {
			registering = append(registering, rel)
		}
		return err
	})
	for _, f := range registering {
		if !slices.Contains(named, f) {
			t.Errorf("%s registers routes, but docs/design.md#http does not name it among the route files", f)
		}
	}
	for _, f := range named {
		if !slices.Contains(registering, f) {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
				t.Errorf("docs/design.md#http names %s as a route file, and it does not exist", f)
			} else {
				t.Errorf("docs/design.md#http names %s as a route file, and it registers no route", f)
			}
		}
	}
}

// TestRouteDetectorFindsRegistrations holds registersRoutes to the ways
// Folio registers routes, and to calls that only look alike.
func TestRouteDetectorFindsRegistrations(t *testing.T) {
	tests := []struct {
		name, src string
		want      bool
	}{
		{"a route", `s.Handle("GET /api/v1/health", h)`, true},
		{"a route with a body bound", `api.HandleBody("POST /api/v1/upload", limit, h)`, true},
		{"a fallback", `links.Fallback("/i/")`, true},
		{"a pattern built on a base", `p.Handle("GET "+base+"/{id}", h)`, true},
		{"a surface opened", `site := rt.Pages("site", httpx.BlogAPI); _ = site`, true},
		{"an API surface opened", `api := rt.API("files", httpx.FileAPI); _ = api`, true},
		{"a pattern passed on", `s.Handle(pattern, h)`, false},
		{"a log handler", `_ = h.Handle(ctx, r)`, false},
		{"a plain mux's handler function", `mux.HandleFunc("GET /metrics", f)`, false},
		{"a pattern in a string only", `x := "GET /api/v1/health"; _ = x`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nfunc f() {\n\t" + tt.src + "\n}\n"
			got, err := registersRoutes("p.go", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("registersRoutes(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}
