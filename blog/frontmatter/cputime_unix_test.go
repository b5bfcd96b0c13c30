//go:build unix

package frontmatter

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the test process has used so far, user and
// system: unlike the clock, it does not grow while other processes hold
// the CPUs, so a test that bounds the cost of an input does not fail
// on a busy machine. No test of this package runs in parallel, so it counts
// the code under test (and the collector it keeps busy).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err) // only for a bad argument
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
