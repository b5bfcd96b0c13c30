package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// programRSS is how much of the running program file is resident, in KiB.
func programRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	total, ours := 0, false
	for line := range strings.Lines(string(smaps)) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") {
			ours = len(f) >= 6 && f[5] == exe
		} else if ours && len(f) >= 2 && f[0] == "Rss:" {
			n, _ := strconv.Atoi(f[1])
			total += n
		}
	}
	return total
}

// The test binary is a program like folio: paging its code out shrinks
// its resident set, and it runs on.
func TestDropProgramPagesShrinksTheResidentProgram(t *testing.T) {
	before := programRSS(t)
	err := dropProgramPages()
	if errors.Is(err, syscall.EINVAL) {
		t.Skip("this kernel cannot page out (MADV_PAGEOUT needs Linux 5.4)")
	}
	if err != nil {
		t.Fatal(err)
	}
	after := programRSS(t)
	if after >= before {
		t.Fatalf("program resident: %d KiB before, %d KiB after, want less", before, after)
	}
	t.Logf("program resident: %d KiB before, %d KiB after", before, after)
	// Code paged out runs again once read back.
	if _, c := newTestApp(t); c.Do("GET", "/api/v1/health", nil).Status != 200 {
		t.Fatal("the server does not answer after its code was paged out")
	}
}
