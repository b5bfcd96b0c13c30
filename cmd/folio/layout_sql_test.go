package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlShapes are the shapes in which SQL shows itself in a Go string: its
// keywords in upper case, as Folio writes every statement, followed by what
// SQL puts after them (a column, a table, a placeholder). English is not
// upper case ("Select a file", "Order by date"), and an upper-case word
// alone is not enough: "DELETE" is an HTTP method, and " AND " or " OR "
// join English as well as conditions; the conditions they join are SQL of
// their own and found there.
var sqlShapes = []*regexp.Regexp{
	// Statements.
	regexp.MustCompile(`\bSELECT\s+(DISTINCT\s+)?([a-z_*('$]|[A-Z_]+\(|\d|%s)`),
	regexp.MustCompile(`\bSELECT\b[\s\S]*\bFROM\b`),
	regexp.MustCompile(`\bINSERT\s+(OR\s+[A-Z]+\s+)?INTO\b`),
	regexp.MustCompile(`\bUPDATE\s+\S+\s+SET\b`),
	regexp.MustCompile(`\bDELETE\s+FROM\b`),
	regexp.MustCompile(`\b(CREATE|ALTER|DROP)\s+(UNIQUE\s+)?(TABLE|INDEX|VIEW|TRIGGER|SCHEMA)\b`),
	regexp.MustCompile(`\bPRAGMA\s+[a-z_]`),
	// Clauses and conditions.
	regexp.MustCompile(`\bFROM\s+[a-z_(]`),
	regexp.MustCompile(`\bWHERE\s+(NOT\s+)?[a-z_(]`),
	regexp.MustCompile(`\bJOIN\s+[a-z_(]`),
	regexp.MustCompile(`\b(ORDER|GROUP)\s+BY\b`),
	regexp.MustCompile(`\bRETURNING\s+[a-z_*]`),
	regexp.MustCompile(`\bON\s+CONFLICT\b`),
	regexp.MustCompile(`\b(LIMIT|OFFSET)\s+(\$[\d%]|\?|\d|%d)`),
	regexp.MustCompile(`\bIS\s+(NOT\s+)?NULL\b`),
	regexp.MustCompile(`\bVALUES\s*\(`),
	regexp.MustCompile(`\bSET\s+[a-z_]+\s*=`),
	regexp.MustCompile(`\bFOR\s+UPDATE\b`),
	regexp.MustCompile(`\b(AND|OR)\s+(NOT\s+)?\(?[a-z_][\w.]*\s*(=|<>|!=|<|>|\bIS\b|\bIN\b|\bLIKE\b|\bBETWEEN\b)`),
	regexp.MustCompile(`\b[a-z_][\w.]*\s+(=|<>|!=|<=|>=|<|>)\s*(\$\d+\b|NULL\b)`),
	regexp.MustCompile(`\b(LIKE|IN)\s*\(?\s*\$\d+\b`),
	// A prefix waiting for its operand: "SELECT ", " WHERE ".
	regexp.MustCompile(`\b(SELECT|FROM|WHERE|JOIN|LIMIT|OFFSET|RETURNING|UPDATE|SET|INTO)\s+$`),
}

// holdsSQL reports whether s, the value of a Go string, holds SQL.
func holdsSQL(s string) bool {
	for _, re := range sqlShapes {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// mayHoldSQL reports whether a domain file, by its name, may hold SQL under
// the file rule of docs/design.md#inside-a-domain: a resource's store file,
// the package's shared store helpers, or its migrations.
func mayHoldSQL(name string) bool {
	return strings.HasSuffix(name, "_store.go") || name == "store.go" || name == "schema.go"
}

// sqlOutsideStores returns, for each string holding SQL in the Go source
// src of the domain file name, "name:line:column: start of the string";
// nothing when the file may hold SQL. A string is a literal (quoted or raw,
// in a constant or not), or a chain of literals joined by +, read with
// every other operand as the name x, so that SQL split across literals is
// found too (and reported once, at its first literal). Comments are not
// read.
func sqlOutsideStores(name string, src []byte) ([]string, error) {
	if mayHoldSQL(path.Base(name)) {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	report := func(lit *ast.BasicLit, text string) {
		text = strings.Join(strings.Fields(text), " ")
		if r := []rune(text); len(r) > 60 {
			text = string(r[:60]) + "…"
		}
		pos := fset.Position(lit.Pos())
		found = append(found, fmt.Sprintf("%s:%d:%d: %q", name, pos.Line, pos.Column, text))
	}
	read := map[*ast.BasicLit]bool{} // literals already read in a chain
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			// The outermost + of a chain comes first; its inner ones
			// start with a literal read already.
			if n.Op != token.ADD {
				return true
			}
			var lits []*ast.BasicLit
			var text strings.Builder
			var flatten func(e ast.Expr)
			flatten = func(e ast.Expr) {
				switch e := ast.Unparen(e).(type) {
				case *ast.BinaryExpr:
					if e.Op == token.ADD {
						flatten(e.X)
						flatten(e.Y)
						return
					}
				case *ast.BasicLit:
					if s, ok := stringValue(e); ok {
						lits = append(lits, e)
						text.WriteString(s)
						return
					}
				}
				text.WriteString("x")
			}
			flatten(n)
			if len(lits) == 0 || read[lits[0]] {
				return true
			}
			for _, l := range lits {
				read[l] = true
			}
			if holdsSQL(text.String()) {
				report(lits[0], text.String())
			}
		case *ast.BasicLit:
			if s, ok := stringValue(n); ok && !read[n] && holdsSQL(s) {
				report(n, s)
			}
		}
		return true
	})
	return found, nil
}

// stringValue is the value of a string literal, quoted or raw.
func stringValue(l *ast.BasicLit) (string, bool) {
	if l.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(l.Value)
	return s, err == nil
}

// TestSQLLivesOnlyInStoreFiles holds the file rule of
// docs/design.md#inside-a-domain: in blog, filehost and every package
// below them, SQL is written only in `*_store.go`, `store.go` (shared
// store helpers) and `schema.go` (migrations), so that no handler, console
// page, job or engine holds a statement. A SQL keyword in an `_http.go`
// file fails it.
func TestSQLLivesOnlyInStoreFiles(t *testing.T) {
	var found []string
	for _, dir := range []string{"blog", "filehost"} {
		eachSourceFile(t, dir, func(rel string, src []byte) error {
			got, err := sqlOutsideStores(rel, src)
			found = append(found, got...)
			return err
		})
	}
	if len(found) > 0 {
		t.Errorf("%d strings hold SQL outside the store files (docs/design.md#inside-a-domain: only *_store.go, store.go and schema.go may):\n%s",
			len(found), strings.Join(found, "\n"))
	}
}

// TestSQLDetectorFindsSQLOutsideStoreFiles holds the checker itself: SQL
// in a handler's file is found wherever a string holds it, and nowhere
// else.
func TestSQLDetectorFindsSQLOutsideStoreFiles(t *testing.T) {
	const query = "package blog\n\nfunc f() { q(`SELECT id FROM posts WHERE slug = $1`) }\n"
	tests := []struct {
		name, file, src string
		want            []string // the positions reported
	}{
		{"a statement in a handler", "blog/posts_http.go", query, []string{"blog/posts_http.go:3:14"}},
		{"the same in a store file", "blog/posts_store.go", query, nil},
		{"the same in the shared store helpers", "blog/store.go", query, nil},
		{"the same in the migrations", "blog/schema.go", query, nil},
		{"the same in a leaf package's handler", "blog/ai/jobs_http.go", query, []string{"blog/ai/jobs_http.go:3:14"}},
		{"the same in a file of no resource", "filehost/backup.go", query, []string{"filehost/backup.go:3:14"}},
		{"a name ending in store is not a store file", "blog/restore.go", query, []string{"blog/restore.go:3:14"}},
		{"a constant", "blog/posts_http.go",
			"package blog\n\nconst live = \"SELECT id FROM posts WHERE deleted_at IS NULL\"\n",
			[]string{"blog/posts_http.go:3:14"}},
		{"a fragment", "blog/posts_http.go",
			"package blog\n\nfunc f(q string) string { return q + \" AND p.deleted_at IS NULL\" }\n",
			[]string{"blog/posts_http.go:3:38"}},
		{"a statement split across literals, once", "filehost/files_http.go",
			"package filehost\n\nfunc f(cols string) string {\n\treturn \"SELECT \" + cols +\n\t\t\" FROM files\"\n}\n",
			[]string{"filehost/files_http.go:4:9"}},
		{"a keyword split across literals", "filehost/files_http.go",
			"package filehost\n\nvar q = \"UPDATE files \" + \"SET name = $1\"\n",
			[]string{"filehost/files_http.go:3:9"}},
		{"SQL in a comment", "blog/posts_http.go",
			"package blog\n\n// f runs SELECT id FROM posts WHERE slug = $1.\nfunc f() {} /* DELETE FROM posts */\n",
			nil},
		{"English", "blog/console_posts_http.go",
			"package blog\n\nvar words = []string{\"Select a file\", \"Delete\", \"Order by date\", \"Update the settings\",\n\t\"DELETE /api/v1/admin/posts/{id}\", \" AND \", \"Where from?\"}\n",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := sqlOutsideStores(tt.file, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				pos, _, _ := strings.Cut(f, ": ")
				got = append(got, pos)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("found %q, want at %q", found, tt.want)
			}
		})
	}
}

// TestSQLDetectorTellsSQLFromText holds holdsSQL to the SQL Folio writes
// and to text people read.
func TestSQLDetectorTellsSQLFromText(t *testing.T) {
	sql := []string{
		"SELECT id FROM posts WHERE slug = $1",
		"SELECT COUNT(*) FROM files",
		"SELECT $2, $1",
		"SELECT ",
		"INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
		"UPDATE files SET name = $1 WHERE id = $2",
		"UPDATE %s SET deleted_at = $1",
		"DELETE FROM revisions WHERE owner_id = $1",
		"CREATE TABLE t (id TEXT PRIMARY KEY)",
		"CREATE UNIQUE INDEX t_slug ON t (slug)",
		"ALTER TABLE files ADD COLUMN expires_at BIGINT",
		"DROP INDEX files_user_created",
		"PRAGMA shrink_memory",
		" FROM posts p",
		" WHERE ",
		" AND p.deleted_at IS NULL",
		" AND status = 'active'",
		" AND user_id = $3",
		"p.status = 'published' AND p.published_at <= ?",
		"LEFT JOIN categories c ON c.id = p.category_id",
		" ORDER BY created_at DESC, id DESC",
		" GROUP BY p.category_id",
		" RETURNING id",
		" LIMIT 100",
		" LIMIT $%d OFFSET $%d",
		"album_id = NULL",
		" FOR UPDATE SKIP LOCKED",
	}
	text := []string{
		"Select a file",
		"Delete",
		"DELETE",
		"DELETE /api/v1/files/{id}",
		"Order by date",
		"Sort by name, then by date",
		"Update available",
		"Set the title",
		"Where from?",
		"Join us",
		" AND ",
		" OR ",
		"TERMS AND CONDITIONS",
		"admin.password_hash = $2a$12$abc",
		"<td>$0</td>",
		"Insert into the album",
		"a value is NULL or empty",
		"limit: 100 per minute",
		"Writes a snapshot of the SQLite database",
	}
	for _, s := range sql {
		if !holdsSQL(s) {
			t.Errorf("holdsSQL(%q) = false, want true", s)
		}
	}
	for _, s := range text {
		if holdsSQL(s) {
			t.Errorf("holdsSQL(%q) = true, want false", s)
		}
	}
}
