package storage

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waiting is how many callers wait for the next fsync of dir.
func (g *dirSyncs) waiting(dir string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.busy[dir]; r != nil {
		return r.callers
	}
	return 0
}

// Callers that ask while a folder's fsync runs share the next one, and
// none returns before an fsync that began after it asked has ended.
func TestDirSyncsShareTheNextFsync(t *testing.T) {
	var g dirSyncs
	gate := make(chan struct{})
	var started, finished atomic.Int32
	do := func(dir string) {
		if started.Add(1) == 1 {
			<-gate // the first fsync runs while the others ask
		}
		time.Sleep(time.Millisecond)
		finished.Add(1)
	}
	first := make(chan struct{})
	go func() { g.sync("d", do); close(first) }()
	for started.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	const callers = 10
	var wg sync.WaitGroup
	var early atomic.Int32
	for range callers {
		wg.Go(func() {
			g.sync("d", do)
			if finished.Load() < 2 {
				early.Add(1) // returned on the fsync that was running when it asked
			}
		})
	}
	for deadline := time.Now().Add(10 * time.Second); g.waiting("d") < callers; {
		if time.Now().After(deadline) {
			t.Fatalf("%d callers waiting, want %d", g.waiting("d"), callers)
		}
		time.Sleep(time.Millisecond)
	}
	close(gate)
	<-first
	wg.Wait()
	if n := started.Load(); n != 2 {
		t.Errorf("%d fsyncs for 1 + %d callers, want 2", n, callers)
	}
	if n := early.Load(); n != 0 {
		t.Errorf("%d callers returned before an fsync begun after they asked", n)
	}
	// Idle again: the next caller syncs at once, and another folder is its own.
	g.sync("d", do)
	g.sync("e", do)
	if n := started.Load(); n != 4 {
		t.Errorf("%d fsyncs after two more calls, want 4", n)
	}
	if len(g.busy) != 0 {
		t.Errorf("folders left busy: %v", g.busy)
	}
}
