package httpxtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Golden compares got, byte for byte, with the golden file at path (see
// testdata/README.md). With update it writes got to the file instead, so
// that a deliberate change of shape is one command and a reviewed diff.
// got should already be normalised (Normalize).
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run the test with -update to create it)", path, err)
	}
	if bytes.Equal(got, want) {
		return
	}
	pkg := "<package>"
	if wd, err := os.Getwd(); err == nil {
		pkg = filepath.Base(wd)
	}
	t.Errorf("response differs from golden file %s\n%s\nIf the change is intended, rerun "+
		"go test ./%s/ -run Golden -update and review git diff testdata/ before committing.",
		path, diffHint(want, got), pkg)
}

// diffHint shows the first line where want and got part, with a line of
// context on each side, enough to see what moved without a diff tool.
func diffHint(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(lines []string, n int) string {
		if n < 0 || n >= len(lines) {
			return "(none)"
		}
		return fmt.Sprintf("%q", lines[n])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (golden %d lines, got %d):\n", i+1, len(w), len(g))
	for n := i - 1; n <= i+1; n++ {
		if n < 0 {
			continue
		}
		fmt.Fprintf(&b, "  line %d\n    want: %s\n    got:  %s\n", n+1, line(w, n), line(g, n))
	}
	return b.String()
}

// Normalize replaces what changes from run to run with stable placeholders:
// the test server's origin base becomes {base}, each distinct UUID {uuid1},
// {uuid2}... in order of first appearance (so equal ids stay visibly
// equal), RFC 3339 times {time} and RFC 1123 dates {date}.
func Normalize(body []byte, base string) []byte {
	s := strings.ReplaceAll(string(body), base, "{base}")
	ids := map[string]string{}
	s = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).
		ReplaceAllStringFunc(s, func(id string) string {
			if p, ok := ids[id]; ok {
				return p
			}
			ids[id] = fmt.Sprintf("{uuid%d}", len(ids)+1)
			return ids[id]
		})
	s = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`).ReplaceAllString(s, "{time}")
	s = regexp.MustCompile(`[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}`).ReplaceAllString(s, "{date}")
	return []byte(s)
}

// IndentJSON re-indents a JSON body two spaces a level, keeping key order
// and escapes, so that golden files show one field a line.
func IndentJSON(t testing.TB, body []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		t.Fatalf("indent JSON: %v: %s", err, body)
	}
	return b.Bytes()
}
