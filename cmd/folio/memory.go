package main

import (
	"context"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Thresholds of the idle memory release (docs/design.md, Memory): a period
// of at least busyRequests requests marks a burst; the first later period
// with fewer than quietRequests ends it.
const (
	releasePeriod = 10 * time.Second
	busyRequests  = 100
	quietRequests = 10
)

// memoryReleaser gives memory back to the system once a burst of requests
// is over. Left alone, the Go runtime keeps the heap it grew for the burst
// until its next collection, which an idle server may not need for
// minutes, and returns the freed pages only gradually after that; a small
// host wants them back as soon as the visitors are gone.
type memoryReleaser struct {
	requests atomic.Uint64
	release  func(context.Context)
	// settle, when not nil, runs at the end of the quiet period after a
	// release: the release itself and the first idle work (a collection
	// scanning stacks, the background loops) read parts of the program
	// back in and grow the heap a little, and a second, lighter pass gives
	// those back too (docs/design.md#memory).
	settle func()

	seen     uint64 // requests counted at the last observation
	busy     bool   // a burst was seen and nothing has been released since
	released bool   // released at the last observation
}

// newMemoryReleaser releases with release, then hands the Go heap's free
// pages back and pages the program's code out. A kernel that cannot page
// out keeps it, which only costs memory.
func newMemoryReleaser(release func(context.Context)) *memoryReleaser {
	return &memoryReleaser{release: func(ctx context.Context) {
		release(ctx)
		debug.FreeOSMemory()
		_ = dropProgramPages()
	}, settle: func() {
		debug.FreeOSMemory()
		_ = dropProgramPages()
	}}
}

// Middleware counts requests.
func (m *memoryReleaser) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.requests.Add(1)
		next.ServeHTTP(w, r)
	})
}

// observe closes a period: it notes a burst, or releases memory when the
// period after one was quiet. It reports whether it released.
func (m *memoryReleaser) observe(ctx context.Context) bool {
	n := m.requests.Load()
	during := n - m.seen
	m.seen = n
	after := m.released
	m.released = false
	switch {
	case during >= busyRequests:
		m.busy = true
	case m.busy && during < quietRequests:
		m.busy = false
		m.release(ctx)
		m.released = true
		return true
	case after && during < quietRequests && m.settle != nil:
		m.settle()
	}
	return false
}

// run observes every releasePeriod until ctx ends.
func (m *memoryReleaser) run(ctx context.Context) {
	t := time.NewTicker(releasePeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.observe(ctx)
		}
	}
}
