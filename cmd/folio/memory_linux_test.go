package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// programFields calls fn with the fields of each line smaps gives about a
// mapping of the running program file.
func programFields(t *testing.T, fn func(f []string)) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	ours := false
	for line := range strings.Lines(string(smaps)) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") {
			ours = len(f) >= 6 && f[5] == exe
		} else if ours && len(f) >= 1 {
			fn(f)
		}
	}
}

// programRSS is how much of the running program file is resident, in KiB.
func programRSS(t *testing.T) int {
	t.Helper()
	total := 0
	programFields(t, func(f []string) {
		if len(f) >= 2 && f[0] == "Rss:" {
			n, _ := strconv.Atoi(f[1])
			total += n
		}
	})
	return total
}

// The test binary is a program like folio: paging its code out shrinks
// its resident set, and it runs on.
func TestDropProgramPagesShrinksTheResidentProgram(t *testing.T) {
	before := programRSS(t)
	ranges, err := dropProgramPages()
	// The rest of the tests read the program with readahead again.
	defer programReadahead(ranges)
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

// Threads the runtime started for goroutines that each held one, like a
// burst's calls into SQLite, are ended by a release once those goroutines
// are done; the process keeps what it needs and runs on.
func TestShedThreadsEndsTheIdleThreadsOfABurst(t *testing.T) {
	if threadCount() == 0 {
		t.Skip("no /proc/self/status")
	}
	const burst = 24
	hold, held := make(chan struct{}), make(chan struct{})
	var done sync.WaitGroup
	for range burst {
		done.Go(func() {
			runtime.LockOSThread() // a thread of its own, as a call into C has
			held <- struct{}{}
			<-hold
			runtime.UnlockOSThread() // the thread stays, idle
		})
	}
	for range burst {
		<-held
	}
	close(hold)
	// The burst is over, as it is when a release comes: while a locked
	// goroutine still waits to run, its thread is not idle, and a thread
	// ended then is one the runtime starts again.
	done.Wait()
	time.Sleep(50 * time.Millisecond)
	peak := threadCount()
	keep := runtime.GOMAXPROCS(0) + spareThreads
	if peak < keep+burst/2 {
		t.Fatalf("%d threads after a burst of %d, want at least %d", peak, burst, keep+burst/2)
	}
	shedThreads(keep)
	// Ended threads leave the process as they return.
	after := threadCount()
	for deadline := time.Now().Add(10 * time.Second); after > peak-burst/2 && time.Now().Before(deadline); after = threadCount() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > peak-burst/2 {
		t.Fatalf("threads: %d after the burst, %d after shedding, want at most %d", peak, after, peak-burst/2)
	}
	t.Logf("threads: %d after the burst, %d after shedding (keep %d)", peak, after, keep)
	if _, c := newTestApp(t); c.Do("GET", "/api/v1/health", nil).Status != 200 {
		t.Fatal("the server does not answer after its threads were shed")
	}
}

// randomReadMappings counts the program file's mappings the kernel reads
// page by page (MADV_RANDOM: "rr" in smaps' VmFlags).
func randomReadMappings(t *testing.T) int {
	t.Helper()
	n := 0
	programFields(t, func(f []string) {
		if f[0] == "VmFlags:" && slices.Contains(f[1:], "rr") {
			n++
		}
	})
	return n
}

// After a release the idle process reads its paged-out program back a page
// at a time, through a lone request too (a monitor's health check); the
// quietRequests-th request of a period gives the kernel's readahead back.
func TestProgramIsReadPageByPageUntilVisitorsAreBack(t *testing.T) {
	m := newMemoryReleaser(func(context.Context) {}, nil)
	m.lowerIdleGC = false
	h := m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	m.requests.Add(500)
	m.observe(context.Background())
	if !m.observe(context.Background()) {
		t.Fatal("the quiet period after a burst released nothing")
	}
	if len(m.paged) == 0 {
		t.Skip("this kernel cannot page out (MADV_PAGEOUT needs Linux 5.4)")
	}
	if n := randomReadMappings(t); n == 0 {
		t.Fatal("no program mapping is read page by page after the release")
	}
	sendRequests(h, quietRequests-1)
	if n := randomReadMappings(t); n == 0 {
		t.Fatalf("readahead back after %d requests, fewer than a period's quiet", quietRequests-1)
	}
	sendRequests(h, 1)
	if n := randomReadMappings(t); n != 0 {
		t.Fatalf("%d program mappings still read page by page after %d requests", n, quietRequests)
	}
	if len(m.paged) != 0 {
		t.Fatal("still marked paged out once visitors are back")
	}
}
