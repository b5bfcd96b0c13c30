package blog

import (
	"fmt"
	"strings"
	"testing"
)

// render writes a script as "=x", "-x", "+x" lines, for comparison.
func renderScript(s []diffLine) string {
	var b strings.Builder
	for _, l := range s {
		b.WriteString([]string{"=", "-", "+"}[l.Op] + l.Text + "\n")
	}
	return b.String()
}

// applies checks that a script keeps every line of a and b in order.
func applies(t *testing.T, a, b []string, s []diffLine) {
	t.Helper()
	var gotA, gotB []string
	for _, l := range s {
		if l.Op != diffIns {
			gotA = append(gotA, l.Text)
		}
		if l.Op != diffDel {
			gotB = append(gotB, l.Text)
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") {
		t.Fatalf("script does not rebuild its texts:\n%s", renderScript(s))
	}
}

func TestDiffLinesFindsTheShortestScript(t *testing.T) {
	cases := []struct {
		name, a, b, want string
		edits            int
	}{
		{"both empty", "", "", "", 0},
		{"same", "a\nb", "a\nb\n", "=a\n=b\n", 0},
		{"all new", "", "a\nb", "+a\n+b\n", 2},
		{"all gone", "a\nb", "", "-a\n-b\n", 2},
		{"one changed", "a\nb\nc", "a\nx\nc", "=a\n-b\n+x\n=c\n", 2},
		{"inserted in the middle", "a\nc", "a\nb\nc", "=a\n+b\n=c\n", 1},
		{"deleted at the start", "x\na\nb", "a\nb", "-x\n=a\n=b\n", 1},
		{"classic", "a\nb\nc\na\nb\nb\na", "c\nb\na\nb\na\nc", "", 5},
		{"crlf is a newline", "a\r\nb\r\n", "a\nb", "=a\n=b\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := splitLines(c.a), splitLines(c.b)
			s, ok := diffLines(a, b, maxDiffEdits, maxDiffLines)
			if !ok {
				t.Fatal("gave up")
			}
			applies(t, a, b, s)
			edits := 0
			for _, l := range s {
				if l.Op != diffSame {
					edits++
				}
			}
			if edits != c.edits {
				t.Errorf("%d edits, want %d:\n%s", edits, c.edits, renderScript(s))
			}
			if c.want != "" && renderScript(s) != c.want {
				t.Errorf("script\n%s\nwant\n%s", renderScript(s), c.want)
			}
		})
	}
}

func TestDiffLinesNumbersBothTexts(t *testing.T) {
	s, _ := diffLines(splitLines("a\nb\nc"), splitLines("a\nx\nc"), 10, 100)
	got := ""
	for _, l := range s {
		got += fmt.Sprintf("%d/%d ", l.Old, l.New)
	}
	if got != "1/1 2/0 0/2 3/3 " {
		t.Errorf("numbers %q", got)
	}
}

func TestDiffLinesGivesUpBeyondItsBounds(t *testing.T) {
	var a, b []string
	for i := 0; i < 50; i++ {
		a = append(a, fmt.Sprint("a", i))
		b = append(b, fmt.Sprint("b", i))
	}
	if _, ok := diffLines(a, b, 99, 1000); ok {
		t.Error("100 edits within a bound of 99")
	}
	if s, ok := diffLines(a, b, 100, 1000); !ok || len(s) != 100 {
		t.Errorf("100 edits within a bound of 100: ok %v, %d lines", ok, len(s))
	}
	if _, ok := diffLines(a, b, 1000, 99); ok {
		t.Error("100 lines within a bound of 99")
	}
	// A shared head and tail cost nothing against the bounds.
	long := append(append(append([]string{}, a...), "x"), a...)
	long2 := append(append(append([]string{}, a...), "y"), a...)
	if s, ok := diffLines(long, long2, 2, 2); !ok || len(s) != 102 {
		t.Errorf("one changed line in a long text: ok %v, %d lines", ok, len(s))
	}
}

func TestDiffRowsFoldUnchangedRuns(t *testing.T) {
	var a []string
	for i := 1; i <= 20; i++ {
		a = append(a, fmt.Sprint(i))
	}
	b := append([]string{}, a...)
	b[9] = "ten"
	s, _ := diffLines(a, b, 10, 100)
	rows := diffRows(s)
	var got []string
	for _, r := range rows {
		switch {
		case r.Skipped > 0:
			got = append(got, fmt.Sprintf("…%d", r.Skipped))
		case r.Del():
			got = append(got, "-"+r.Text)
		case r.Ins():
			got = append(got, "+"+r.Text)
		default:
			got = append(got, r.Text)
		}
	}
	want := "…6 7 8 9 -10 +ten 11 12 13 …7"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
}

// A huge text with changes everywhere must give up quickly and in little
// memory, not take quadratic time.
func BenchmarkDiffLines(b *testing.B) {
	for _, size := range []int{100, 5000} {
		var x, y []string
		for i := 0; i < size; i++ {
			x = append(x, fmt.Sprint("line ", i))
			if i%10 == 0 {
				y = append(y, fmt.Sprint("changed ", i))
			} else {
				y = append(y, fmt.Sprint("line ", i))
			}
		}
		b.Run(fmt.Sprint("every tenth of ", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				diffLines(x, y, maxDiffEdits, maxDiffLines)
			}
		})
	}
}
