//go:build unix

package sqlstore

import (
	"errors"
	"syscall"
)

// pidRunning asks the kernel whether pid exists: signal 0 checks without
// sending. Only ESRCH means gone; EPERM is a process of another user.
func pidRunning(pid int) bool {
	if pid <= 0 {
		return false
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
