//go:build !unix

package sqlstore

import (
	"sync/atomic"
	"unsafe"
)

// mapChanges cannot share memory between processes here: the counters are
// this process's own and never authoritative, so every cache asks the
// database (docs/design.md#caches-across-processes).
func mapChanges(path string, always bool) (*Changes, error) {
	return privateChanges(), nil
}

func counterAt(mem []byte, off int) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&mem[off]))
}
