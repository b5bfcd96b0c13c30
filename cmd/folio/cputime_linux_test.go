package main

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system, on
// all its threads: a benchmark's measure that counts the work of every
// goroutine a request causes and little of the other programs sharing the
// machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
