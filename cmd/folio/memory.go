package main

import (
	"context"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
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
	// idleGCPercent is the collector's GOGC from a release until the next
	// request: the heap may grow by a quarter of what is live before a
	// collection, not by all of it, so the idle work that follows a burst
	// (the image jobs its uploads queued, the background loops) does not
	// fill the heap back up to twice its live size and keep it.
	idleGCPercent = 25
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

	// gcPercent is the GOGC visitorsBack restores after a release lowered
	// it to idleGCPercent; idleGC says that it is lowered. gcMu orders the
	// changes of GOGC: a release's, visitorsBack's and the heap floor's
	// (setBusyGC).
	gcMu      sync.Mutex
	gcPercent int
	idleGC    atomic.Bool

	lowerIdleGC bool // lower GOGC after a release (not in unit tests of observe)

	// paged are the program's mappings paged out since the release, read
	// page by page until visitorsBack (pageOut).
	pageMu sync.Mutex
	paged  []programRange

	// quiet is raised by a release and lowered by the next request; nil in
	// unit tests of observe.
	quiet *quietSignal

	// lowered says that a release's memory changes hold (GOGC lowered, the
	// program paged out) until a period's quietRequests-th request, which
	// wake counts, ends them: a lone request, a monitor's health check,
	// does not undo what the release gave back (docs/design.md#memory).
	lowered atomic.Bool
	wake    atomic.Uint32

	seen     uint64 // requests counted at the last observation
	busy     bool   // a burst was seen and nothing has been released since
	released bool   // released at the last observation
}

// newMemoryReleaser releases with release, then hands the Go heap's free
// pages back and pages the program's code out. A kernel that cannot page
// out keeps it, which only costs memory.
func newMemoryReleaser(release func(context.Context), quiet *quietSignal) *memoryReleaser {
	m := &memoryReleaser{quiet: quiet, lowerIdleGC: true}
	m.release = func(ctx context.Context) {
		release(ctx)
		shedThreads(runtime.GOMAXPROCS(0) + spareThreads)
		// A first collection only moves the burst's pooled buffers (the
		// sync.Pools of the HTTP server and the renderers) to the pools'
		// victim caches and queues the finalizers of closed connections;
		// the collection FreeOSMemory runs then frees them, before it
		// hands the free pages back (docs/design.md#memory).
		runtime.GC()
		debug.FreeOSMemory()
		m.pageOut()
	}
	m.settle = func() {
		debug.FreeOSMemory()
		m.pageOut()
	}
	return m
}

// pageOut pages the program out, to be read page by page until
// visitorsBack gives it readahead back.
func (m *memoryReleaser) pageOut() {
	ranges, _ := dropProgramPages()
	m.pageMu.Lock()
	defer m.pageMu.Unlock()
	m.paged = append(m.paged, ranges...)
}

// readahead ends pageOut's page-by-page reading, once.
func (m *memoryReleaser) readahead() {
	m.pageMu.Lock()
	defer m.pageMu.Unlock()
	programReadahead(m.paged)
	m.paged = nil
}

// spareThreads is how many OS threads beyond GOMAXPROCS a release keeps:
// the runtime's monitor and a few for the idle work's system calls.
const spareThreads = 3

// shedThreads ends the OS threads a burst created beyond keep. The runtime
// starts a thread for each goroutine blocked in a system call or a call
// into C (SQLite) while others run, 40 to 60 under a burst of uploads and
// page views, and never ends one: each keeps its signal stack (32 KiB of
// the Go heap), the pages of its C stack SQLite touched and its cache of
// freed C heap blocks. A goroutine that locks its thread and returns ends that
// thread, and the thread library gives the stack's pages back
// (docs/design.md#memory). A busy thread is never ended: the goroutine runs
// on an idle one, or on the releaser's own, and at most as many are tried
// as there were threads too many, so a thread the runtime starts again in
// the meantime does not keep the loop going.
func shedThreads(keep int) {
	for tries := threadCount() - keep; tries > 0 && threadCount() > keep; tries-- {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
	}
}

// Middleware counts requests. The first after a release ends the quiet;
// the quietRequests-th of a period undoes the release's memory changes.
func (m *memoryReleaser) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.requests.Add(1)
		m.quiet.lower()
		if m.lowered.Load() && m.wake.Add(1) >= quietRequests {
			m.visitorsBack()
		}
		next.ServeHTTP(w, r)
	})
}

// visitorsBack undoes a release's memory changes, once, for the requests
// that come: the collector's pace and the program's readahead.
func (m *memoryReleaser) visitorsBack() {
	if !m.lowered.CompareAndSwap(true, false) {
		return
	}
	m.restoreGC()
	m.readahead()
}

// lowerGC sets idleGCPercent until visitorsBack, unless the collector
// is already at least as eager (GOGC=25, or off: GOGC=off with a
// GOMEMLIMIT is the operator's choice).
func (m *memoryReleaser) lowerGC() {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	if m.idleGC.Load() {
		return
	}
	prev := debug.SetGCPercent(idleGCPercent)
	if prev < 0 || prev <= idleGCPercent {
		debug.SetGCPercent(prev)
		return
	}
	m.gcPercent = prev
	m.idleGC.Store(true)
}

// restoreGC sets back the GOGC a release lowered, once.
func (m *memoryReleaser) restoreGC() {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	if m.idleGC.Load() {
		debug.SetGCPercent(m.gcPercent)
		m.idleGC.Store(false)
	}
}

// setBusyGC makes p the GOGC outside quiet times: set at once, or, while a
// release holds GOGC lowered, the value visitorsBack restores.
func (m *memoryReleaser) setBusyGC(p int) {
	m.gcMu.Lock()
	defer m.gcMu.Unlock()
	if m.idleGC.Load() {
		m.gcPercent = p
		return
	}
	debug.SetGCPercent(p)
}

// observe closes a period: it notes a burst, or releases memory when the
// period after one was quiet. It reports whether it released.
func (m *memoryReleaser) observe(ctx context.Context) bool {
	n := m.requests.Load()
	during := n - m.seen
	m.seen = n
	// A period's requests bring readahead and the collector's pace back,
	// not a trickle's over many: a request counted meanwhile may be lost,
	// which only delays that.
	m.wake.Store(0)
	after := m.released
	m.released = false
	switch {
	case during >= busyRequests:
		m.busy = true
	case m.busy && during < quietRequests:
		m.busy = false
		m.release(ctx)
		m.released = true
		m.quiet.raise()
		if m.lowerIdleGC {
			m.lowerGC()
		}
		m.lowered.Store(true)
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

// quietSignal tells background loops that the site is quiet: raised when a
// burst's memory is released, lowered by the next request. A loop that
// only keeps request paths fast (the scope watch) runs less often while it
// is raised: each of its wake-ups runs code and allocates, which pages the
// program back in and grows the heap of a process that serves nobody
// (docs/design.md#memory).
type quietSignal struct {
	ch atomic.Pointer[chan struct{}]
}

// raise marks the site quiet, unless it is already.
func (q *quietSignal) raise() {
	if q == nil || q.ch.Load() != nil {
		return
	}
	ch := make(chan struct{})
	q.ch.CompareAndSwap(nil, &ch)
}

// lower ends the quiet, waking the loops waiting on it. A request pays one
// atomic load when the site is not quiet.
func (q *quietSignal) lower() {
	if q == nil {
		return
	}
	if p := q.ch.Load(); p != nil && q.ch.CompareAndSwap(p, nil) {
		close(*p)
	}
}

// ended is nil when the site is not quiet, else a channel closed when the
// quiet ends.
func (q *quietSignal) ended() <-chan struct{} {
	if q == nil {
		return nil
	}
	if p := q.ch.Load(); p != nil {
		return *p
	}
	return nil
}

// The heap floor (docs/design.md#memory): while the live heap is small,
// the collector's goal is kept at heapFloorBytes, not at the runtime's
// 4 MiB. Folio's live heap after start is about 2 MiB of pointer-dense data
// (routes, templates, settings, caches' indexes), so at the default GOGC
// of 100 a busy server collects every few hundred requests and each
// collection scans all of it: about half of what Folio cost a request more
// than a bare net/http handler. A goal of 16 MiB makes collections four
// times rarer for at most 12 MiB more heap while busy; a release after a
// burst lowers GOGC as before, so an idle server keeps little of it.
const (
	heapFloorBytes = 16 << 20
	// maxFloorPercent is the GOGC that makes the runtime's own minimum
	// goal, 4 MiB × GOGC/100, the floor: the most the floor raises it.
	maxFloorPercent = 400
)

// floorPercent is the GOGC at which a live heap of live bytes gets a goal
// of floor bytes, live × (1 + GOGC/100), in steps of 25 and between the
// default 100 and maxFloorPercent: a live heap of half the floor or more
// collects at the runtime's default pace.
func floorPercent(live, floor uint64) int {
	if live == 0 || floor/live >= 1+maxFloorPercent/100 {
		return maxFloorPercent
	}
	p := int((floor - min(live, floor)) * 100 / live)
	p = (p + 24) / 25 * 25
	return min(max(p, 100), maxFloorPercent)
}

// heapFloor sets GOGC after every collection from the live heap it left,
// through set. It runs as a cleanup, one collection at a time: a cleanup
// attached to a fresh object runs once a collection has found the object
// unreachable, and attaches the next. The runtime may run successive ones
// on different goroutines; mu orders them.
type heapFloor struct {
	mu      sync.Mutex
	floor   uint64
	set     func(percent int)
	sample  []metrics.Sample
	last    int // the GOGC last set
	stopped atomic.Bool
}

// floorSentinel is the object whose collection marks a cycle: it holds a
// pointer so that it is never one of the runtime's combined tiny
// allocations, which are freed together and so late.
type floorSentinel struct {
	_ *byte
	_ [8]byte
}

// startHeapFloor keeps the heap goal at least floor bytes through set,
// from the next collection until stop.
func startHeapFloor(floor uint64, set func(percent int)) (stop func()) {
	f := newHeapFloor(floor, set)
	f.arm()
	return f.stop
}

func newHeapFloor(floor uint64, set func(percent int)) *heapFloor {
	return &heapFloor{floor: floor, set: set, last: 100,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// stop ends the floor at the next collection; GOGC keeps its last value.
func (f *heapFloor) stop() { f.stopped.Store(true) }

// heapFloorWanted reports whether the server keeps a heap floor: not when
// the operator set GOGC, whose value then stands, as the releaser's
// own lowering leaves it when it is 25 or lower.
func heapFloorWanted(lookupEnv func(string) (string, bool)) bool {
	_, set := lookupEnv("GOGC")
	return !set
}

func (f *heapFloor) arm() {
	runtime.AddCleanup(new(floorSentinel), (*heapFloor).cycle, f)
}

func (f *heapFloor) cycle() {
	if f.stopped.Load() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		if p := floorPercent(f.sample[0].Value.Uint64(), f.floor); p != f.last {
			f.last = p
			f.set(p)
		}
	}
	f.arm()
}
