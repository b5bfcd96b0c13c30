// Package linediff compares two texts line by line, for the console's
// revision pages (docs/console.md#revisions): Diff gives the edit script
// turning one list of lines into the other, and Rows folds its long runs
// of unchanged lines for display.
//
// Diff is Myers' O((N+M)·D) algorithm over lines, after the common head
// and tail are set aside, so it finds a shortest script. Its memory grows
// with the square of the edits, so it gives up beyond a bound of changed
// lines, or of lines left to compare (MaxEdits and MaxLines are the
// console's), and the page says the texts are too different to compare
// line by line. It never fails otherwise, whatever the lines hold.
package linediff

import "strings"

// Bounds of a line diff: at most 4 MB of trace and a few tens of millions
// of steps.
const (
	MaxEdits = 1000
	MaxLines = 20000
)

// Op is what a line of a diff does.
type Op int

const (
	Same Op = iota // in both texts
	Del            // in the old text only
	Ins            // in the new text only
)

// Line is one line of an edit script. Old and New are its 1-based line
// numbers in either text, 0 where it has none.
type Line struct {
	Op       Op
	Text     string
	Old, New int
}

// Lines splits a text into lines; "" has none, a final newline does not
// make an empty last line, and CRLF is a newline.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Diff returns a shortest edit script turning a into b: every line of
// both, in order, each kept, deleted or inserted. ok is false, and the
// script nil, when the script needs more than maxEdits deletions and
// insertions, or more than maxLines lines are left to compare once the
// common head and tail are set aside.
func Diff(a, b []string, maxEdits, maxLines int) (script []Line, ok bool) {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	midA, midB := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(midA)+len(midB) > maxLines {
		return nil, false
	}
	mid, ok := myers(midA, midB, maxEdits)
	if !ok {
		return nil, false
	}
	script = make([]Line, 0, head+len(mid)+tail)
	for i := 0; i < head; i++ {
		script = append(script, Line{Op: Same, Text: a[i]})
	}
	script = append(script, mid...)
	for i := len(a) - tail; i < len(a); i++ {
		script = append(script, Line{Op: Same, Text: a[i]})
	}
	// Number the lines in either text.
	o, n := 0, 0
	for i := range script {
		switch script[i].Op {
		case Same:
			o++
			n++
			script[i].Old, script[i].New = o, n
		case Del:
			o++
			script[i].Old = o
		case Ins:
			n++
			script[i].New = n
		}
	}
	return script, true
}

// myers is the shortest edit script of a into b, or ok false when it needs
// more than maxD deletions and insertions. trace[d] keeps, for each
// diagonal k in -d..d (at index k+d), how far along a the furthest path of
// d edits reached: the backtrack reads the path from it.
func myers(a, b []string, maxD int) ([]Line, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	if maxD > n+m {
		maxD = n + m
	}
	off := maxD + 1
	v := make([]int32, 2*off+1)
	var trace [][]int32
	found := -1
	for d := 0; d <= maxD && found < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1]) // down: an insertion
			} else {
				x = int(v[off+k-1]) + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				found = d
			}
		}
		row := make([]int32, 2*d+1)
		copy(row, v[off-d:off+d+1])
		trace = append(trace, row)
	}
	if found < 0 {
		return nil, false
	}
	// Walk back from the end, collecting the script in reverse.
	rev := make([]Line, 0, n+m)
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1] // diagonal k at index k+d-1
		k := x - y
		var pk int
		if k == -d || (k != d && prev[k-1+d-1] < prev[k+1+d-1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := int(prev[pk+d-1])
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, Line{Op: Same, Text: a[x]})
		}
		if x == px {
			y--
			rev = append(rev, Line{Op: Ins, Text: b[y]})
		} else {
			x--
			rev = append(rev, Line{Op: Del, Text: a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, Line{Op: Same, Text: a[x]})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, true
}

// Row is a line of a diff as the page shows it: a line, or a gap of
// unchanged lines left out (Skipped of them, the first of which is Line).
type Row struct {
	Line
	Skipped int
}

// Del and Ins tell the template how to mark a row.
func (r Row) Del() bool { return r.Skipped == 0 && r.Op == Del }
func (r Row) Ins() bool { return r.Skipped == 0 && r.Op == Ins }

// contextLines is how many unchanged lines are shown around a change.
const contextLines = 3

// Rows folds the runs of unchanged lines of a script into gaps, keeping
// contextLines lines on either side of each change; a run of one line is
// shown rather than folded.
func Rows(script []Line) []Row {
	near := make([]bool, len(script))
	for i, l := range script {
		if l.Op == Same {
			continue
		}
		for j := max(0, i-contextLines); j <= min(len(script)-1, i+contextLines); j++ {
			near[j] = true
		}
	}
	var rows []Row
	for i := 0; i < len(script); {
		if near[i] {
			rows = append(rows, Row{Line: script[i]})
			i++
			continue
		}
		j := i
		for j < len(script) && !near[j] {
			j++
		}
		if j-i == 1 { // a gap would take the line's own room
			rows = append(rows, Row{Line: script[i]})
		} else {
			rows = append(rows, Row{Line: script[i], Skipped: j - i})
		}
		i = j
	}
	return rows
}
