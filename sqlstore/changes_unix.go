//go:build unix

package sqlstore

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// mapChanges maps the changes file at path shared, so that an atomic
// operation on its memory is seen by every process mapping it.
func mapChanges(path string, always bool) (*Changes, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open changes file: %w", err)
	}
	defer f.Close() // the mapping outlives the descriptor
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open changes file: %w", err)
	}
	if st.Size() != changesFile {
		return nil, fmt.Errorf("sqlstore: %s is not a Folio changes file: remove it while no Folio process runs", path)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, changesFile, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: map changes file: %w", err)
	}
	id, err := checkChangesHeader(path, mem)
	if err != nil {
		syscall.Munmap(mem)
		return nil, err
	}
	// Never unmapped: a request racing shutdown may still load a counter,
	// and the mapping is one page.
	return &Changes{mem: mem, id: id, always: always, base: time.Now()}, nil
}

// counterAt is the counter at off in mem. Mappings are page aligned and
// offsets multiples of 64, so the 8-byte atomics are aligned.
func counterAt(mem []byte, off int) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&mem[off]))
}
