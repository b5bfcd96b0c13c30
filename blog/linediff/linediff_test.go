package linediff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// render writes a script as "=x", "-x", "+x" lines, for comparison.
func renderScript(s []Line) string {
	var b strings.Builder
	for _, l := range s {
		b.WriteString([]string{"=", "-", "+"}[l.Op] + l.Text + "\n")
	}
	return b.String()
}

// applies checks that a script keeps every line of a and b in order.
func applies(t *testing.T, a, b []string, s []Line) {
	t.Helper()
	var gotA, gotB []string
	for _, l := range s {
		if l.Op != Ins {
			gotA = append(gotA, l.Text)
		}
		if l.Op != Del {
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
			a, b := Lines(c.a), Lines(c.b)
			s, ok := Diff(a, b, MaxEdits, MaxLines)
			if !ok {
				t.Fatal("gave up")
			}
			applies(t, a, b, s)
			edits := 0
			for _, l := range s {
				if l.Op != Same {
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
	s, _ := Diff(Lines("a\nb\nc"), Lines("a\nx\nc"), 10, 100)
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
	if _, ok := Diff(a, b, 99, 1000); ok {
		t.Error("100 edits within a bound of 99")
	}
	if s, ok := Diff(a, b, 100, 1000); !ok || len(s) != 100 {
		t.Errorf("100 edits within a bound of 100: ok %v, %d lines", ok, len(s))
	}
	if _, ok := Diff(a, b, 1000, 99); ok {
		t.Error("100 lines within a bound of 99")
	}
	// A shared head and tail cost nothing against the bounds.
	long := append(append(append([]string{}, a...), "x"), a...)
	long2 := append(append(append([]string{}, a...), "y"), a...)
	if s, ok := Diff(long, long2, 2, 2); !ok || len(s) != 102 {
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
	s, _ := Diff(a, b, 10, 100)
	rows := Rows(s)
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

// FuzzDiff: for any two texts, whose lines come from a small alphabet so
// that they repeat, Diff keeps every line of both texts in order, numbers
// the lines of each 1, 2, … and is as short as their longest common
// subsequence allows; within the bounds two bytes pick, it gives up exactly
// when the script needs more edits, or more lines are left to compare, than
// they allow. Rows gives the script back once its gaps are unfolded, folds
// exactly the unchanged lines farther than contextLines from every
// change that have such a line next to them (one alone is shown).
func FuzzDiff(f *testing.F) {
	f.Add([]byte("abcabba"), []byte("cbabac"), uint8(5), uint8(20))
	f.Add([]byte("aaaaaaaaaaaabaaaaaaaaaaaa"), []byte("aaaaaaaaaaaacaaaaaaaaaaaa"), uint8(2), uint8(2))
	f.Add([]byte("abcdabcdabcdabcd"), []byte(""), uint8(3), uint8(255))
	f.Add([]byte("aaaaaaaaa"), []byte("baaaaaaab"), uint8(4), uint8(4)) // one line far from both changes
	f.Fuzz(func(t *testing.T, x, y []byte, maxEdits, maxLines uint8) {
		if len(x) > 300 || len(y) > 300 {
			return
		}
		a, b := alphabetLines(x), alphabetLines(y)
		s, ok := Diff(a, b, len(a)+len(b), len(a)+len(b))
		if !ok {
			t.Fatal("gave up within bounds that cannot bind")
		}
		applies(t, a, b, s)
		o, n, edits := 0, 0, 0
		for _, l := range s {
			wantOld, wantNew := 0, 0
			if l.Op != Ins {
				o++
				wantOld = o
			}
			if l.Op != Del {
				n++
				wantNew = n
			}
			if l.Op != Same {
				edits++
			}
			if l.Old != wantOld || l.New != wantNew {
				t.Fatalf("line %+v numbered wrong, want %d/%d:\n%s", l, wantOld, wantNew, renderScript(s))
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%d edits, the shortest script has %d:\n%s", edits, want, renderScript(s))
		}

		// The bounds count the lines left once the common head and tail
		// are set aside.
		head, tail := 0, 0
		for head < min(len(a), len(b)) && a[head] == b[head] {
			head++
		}
		for tail < min(len(a), len(b))-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
			tail++
		}
		left := len(a) + len(b) - 2*(head+tail)
		bounded, ok := Diff(a, b, int(maxEdits), int(maxLines))
		if within := edits <= int(maxEdits) && left <= int(maxLines); ok != within {
			t.Fatalf("ok %v with %d edits and %d lines to compare, bounds %d and %d", ok, edits, left, maxEdits, maxLines)
		}
		if ok {
			applies(t, a, b, bounded)
		}

		var unfolded []Line
		for _, r := range Rows(s) {
			if r.Del() != (r.Skipped == 0 && r.Op == Del) || r.Ins() != (r.Skipped == 0 && r.Op == Ins) {
				t.Fatalf("row %+v: Del %v, Ins %v", r, r.Del(), r.Ins())
			}
			if r.Skipped == 0 {
				unfolded = append(unfolded, r.Line)
				continue
			}
			if r.Skipped < 2 {
				t.Fatalf("a gap of %d lines", r.Skipped)
			}
			at := len(unfolded)
			if at+r.Skipped > len(s) || s[at] != r.Line {
				t.Fatalf("gap %+v does not start at line %d of the script", r, at)
			}
			unfolded = append(unfolded, s[at:at+r.Skipped]...)
		}
		if !slices.Equal(unfolded, s) {
			t.Fatalf("rows unfold to\n%s\nnot\n%s", renderScript(unfolded), renderScript(s))
		}
		folded := make([]bool, len(s))
		at := 0
		for _, r := range Rows(s) {
			for j := range r.Skipped {
				folded[at+j] = true
			}
			at += max(1, r.Skipped)
		}
		far := func(i int) bool { // no change within contextLines
			for j := max(0, i-contextLines); j <= min(len(s)-1, i+contextLines); j++ {
				if s[j].Op != Same {
					return false
				}
			}
			return true
		}
		for i := range s {
			if want := far(i) && (i > 0 && far(i-1) || i+1 < len(s) && far(i+1)); folded[i] != want {
				t.Fatalf("line %d folded %v, want %v:\n%s", i, folded[i], want, renderScript(s))
			}
		}
	})
}

// alphabetLines makes each byte a line of one of five texts.
func alphabetLines(x []byte) []string {
	lines := make([]string, len(x))
	for i, c := range x {
		lines[i] = string(rune('a' + c%5))
	}
	return lines
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := range a {
		prev := 0 // row[j] of the previous i
		for j := range b {
			cur := row[j+1]
			if a[i] == b[j] {
				row[j+1] = prev + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			prev = cur
		}
	}
	return row[len(b)]
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
				Diff(x, y, MaxEdits, MaxLines)
			}
		})
	}
}
