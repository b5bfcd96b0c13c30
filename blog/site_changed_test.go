package blog

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestChangedChecksShareAQueryStartedAfterEachRequest runs requests while a
// check is in flight: they must not take that check's answer (it may
// predate their writes) but share the next one, run once.
func TestChangedChecksShareAQueryStartedAfterEachRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c changedChecks
		var started atomic.Int64
		gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
		check := func() (*siteState, error) {
			k := started.Add(1)
			<-gates[k-1]
			return &siteState{tag: stateTag{changed: time.Unix(k, 0)}}, nil
		}

		first := make(chan *siteState)
		go func() {
			at, _ := c.do(check)
			first <- at
		}()
		synctest.Wait() // the first check is running, held at its gate

		const waiters = 20
		results := make([]*siteState, waiters)
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _ = c.do(check)
			}()
		}
		synctest.Wait() // every request waits
		if n := started.Load(); n != 1 {
			t.Fatalf("%d checks started while one was running, want the others to wait", n)
		}

		close(gates[0])
		if at := <-first; at.tag.changed.Unix() != 1 {
			t.Fatalf("first request got check %d", at.tag.changed.Unix())
		}
		synctest.Wait()
		if n := started.Load(); n != 2 {
			t.Fatalf("%d checks started after the first ended, want one for all waiters", n-1)
		}
		close(gates[1])
		wg.Wait()
		for i, at := range results {
			if at.tag.changed.Unix() != 2 {
				t.Errorf("request %d got check %d, want the one started after it arrived (2)", i, at.tag.changed.Unix())
			}
		}
		// Idle again: the next request runs its own check at once.
		gates = append(gates, make(chan struct{}))
		close(gates[2])
		if at, _ := c.do(check); at.tag.changed.Unix() != 3 {
			t.Errorf("a request on an idle site got check %d, want a new one (3)", at.tag.changed.Unix())
		}
	})
}
