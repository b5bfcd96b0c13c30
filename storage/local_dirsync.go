package storage

import "sync"

// dirSyncs shares folder fsyncs between concurrent Commits: a folder's
// fsync makes durable every entry made in it before the fsync began, so
// the callers that ask while one runs wait for the next, and that one
// fsync answers them all (docs/filehost.md#crash-consistency). As with
// sqlstore.TxGroup there is no background goroutine: the first caller of
// a round runs it.
type dirSyncs struct {
	mu   sync.Mutex
	busy map[string]*syncRound // folders being synced: the round that waits for the next fsync, nil when none
}

// syncRound is the callers waiting for one fsync of a folder.
type syncRound struct {
	start   chan struct{} // closed when the round's fsync may begin
	done    chan struct{} // closed when it ended
	callers int
}

// sync returns once do(dir) ran entirely after the call began.
func (g *dirSyncs) sync(dir string, do func(string)) {
	g.mu.Lock()
	if g.busy == nil {
		g.busy = make(map[string]*syncRound)
	}
	next, running := g.busy[dir]
	if !running {
		g.busy[dir] = nil
		g.mu.Unlock()
		g.run(dir, do, nil)
		return
	}
	if next != nil { // a round waits already: its fsync has not begun
		next.callers++
		g.mu.Unlock()
		<-next.done
		return
	}
	r := &syncRound{start: make(chan struct{}), done: make(chan struct{}), callers: 1}
	g.busy[dir] = r
	g.mu.Unlock()
	<-r.start
	g.run(dir, do, r)
}

// run fsyncs dir for round r (nil: the caller alone), then starts the
// round that gathered meanwhile, whose first caller runs it.
func (g *dirSyncs) run(dir string, do func(string), r *syncRound) {
	do(dir)
	if r != nil {
		close(r.done)
	}
	g.mu.Lock()
	next := g.busy[dir]
	if next == nil {
		delete(g.busy, dir)
	} else {
		g.busy[dir] = nil // still running: next's fsync
	}
	g.mu.Unlock()
	if next != nil {
		close(next.start)
	}
}
