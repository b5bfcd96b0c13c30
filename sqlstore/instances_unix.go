//go:build unix

package sqlstore

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// pidRunning asks the kernel whether pid exists: signal 0 checks without
// sending. Only ESRCH means gone; EPERM is a process of another user. A
// zombie (killed, not yet reaped by its parent, as when a supervisor or a
// test harness is slow to wait) still answers signal 0, so where /proc
// tells the state, a zombie counts as gone.
func pidRunning(pid int) bool {
	if pid <= 0 {
		return false
	}
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// "pid (comm) state …": comm may hold anything, so the state is read
	// after the last parenthesis.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		switch stat[i+2] {
		case 'Z', 'X', 'x':
			return false
		}
	}
	return true
}
