package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The reports in testdata are real output of wrk 4.1.0: nginx serving a
// page, nginx answering 404 to every request, a server that drops every
// 50th connection without an answer, and Folio's post list answering every
// request after wrk's 2 s timeout.
func TestParseWrk(t *testing.T) {
	for _, tc := range []struct {
		file   string
		want   loadRun
		failed string
	}{
		{"wrk-ok.txt", loadRun{requests: 60287, perSecond: 30133.89, p99: 2970 * time.Microsecond}, ""},
		{"wrk-non2xx.txt", loadRun{requests: 58145, perSecond: 27667.71, p99: 38410 * time.Microsecond, non2xx: 58145},
			"58145 non-2xx responses"},
		{"wrk-socket-errors.txt", loadRun{requests: 1505, perSecond: 500.76, p99: 4930 * time.Microsecond, socketErrors: 31},
			"31 socket errors (0 timeouts)"},
		{"wrk-timeouts.txt", loadRun{requests: 7, perSecond: 1.38, socketErrors: 7, timeouts: 7},
			"7 socket errors (7 timeouts)"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseWrk(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("parseWrk = %+v, want %+v", got, tc.want)
			}
			if f := got.failed(); f != tc.failed {
				t.Errorf("failed() = %q, want %q", f, tc.failed)
			}
		})
	}
}

func TestParseWrkRefusesATruncatedReport(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "wrk-ok.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseWrk(string(b[:len(b)/2])); err == nil {
		t.Error("half a report parsed without an error")
	}
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Error("wrk's connection error parsed without an error")
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999.4: "999", 999.6: "1,000", 12345.67: "12,346", 1234567: "1,234,567"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestServeTableRatios checks the table's arithmetic: the medians of the
// runs, Folio's rate over the plain handler's and over nginx's, Folio's
// requests per CPU-second over the plain handler's, the post list compared
// with its first page, and a missing nginx or CPU time said as such.
func TestServeTableRatios(t *testing.T) {
	// runs are rates, each with a CPU time per request of 1e6/rate µs
	// scaled by cpuScale.
	runs := func(cpuScale float64, rates ...float64) []loadRun {
		var rs []loadRun
		for _, r := range rates {
			rs = append(rs, loadRun{perSecond: r, p99: time.Millisecond,
				cpu: time.Duration(cpuScale * float64(time.Second) / r)})
		}
		return rs
	}
	image := &serveWorkload{name: "image", aim: "aim",
		folio: side{runs: runs(0.5, 900, 100, 1000)},  // median 900; CPU 555.6, 5,000, 500 µs: median 555.6
		plain: side{runs: runs(0.4, 1000, 5000, 800)}, // median 1000; CPU 400, 80, 500 µs: median 400
		nginx: side{runs: runs(1, 1800, 2000, 1900)}}  // median 1900
	list := &serveWorkload{name: "list", aim: "aim", list: true,
		folio: side{runs: runs(1, 30, 40)}, // median 35; CPU median (1/30+1/40)/2 s
		plain: side{runs: runs(1, 70, 70)}}
	var b strings.Builder
	writeServeTable(&b, []*serveWorkload{image, list}, true)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"| Workload | Folio | plain net/http | nginx | Folio / plain | Folio / nginx | Folio / plain, per CPU-second | Aim |",
		"|---|---|---|---|---|---|---|---|",
		"| image | 900 req/s, p99 1ms, 555.6 µs CPU | 1,000 req/s, p99 1ms, 400.0 µs CPU | 1,900 req/s, p99 1ms, 526.3 µs CPU | 0.90x | 0.47x | 0.72x | aim |",
		"| list | middle page: 35 req/s, p99 1ms, 29166.7 µs CPU | Folio page 1: 70 req/s, p99 1ms, 14285.7 µs CPU | — | 0.50x of page 1 | — | 0.49x of page 1 | aim |",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("table:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	b.Reset()
	image.nginx.runs = nil
	image.folio.runs = runs(0, 900)
	writeServeTable(&b, []*serveWorkload{image}, false)
	if row := strings.Split(strings.TrimSpace(b.String()), "\n")[2]; row != "| image | 900 req/s, p99 1ms | 1,000 req/s, p99 1ms, 400.0 µs CPU | — (no nginx) | 0.90x | — | — | aim |" {
		t.Errorf("row without nginx nor Folio's CPU time: %s", row)
	}
}

func TestRotateStartsEachRoundFromTheNextSide(t *testing.T) {
	a, b, c := &side{label: "a"}, &side{label: "b"}, &side{label: "c"}
	sides := []*side{a, b, c}
	for k, want := range [][]*side{{a, b, c}, {b, c, a}, {c, a, b}, {a, b, c}} {
		if got := rotate(sides, k); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", k+1, labels(got), labels(want))
		}
	}
	if !slices.Equal(sides, []*side{a, b, c}) {
		t.Errorf("rotate changed its argument: %v", labels(sides))
	}
}

func labels(sides []*side) []string {
	var l []string
	for _, s := range sides {
		l = append(l, s.label)
	}
	return l
}
