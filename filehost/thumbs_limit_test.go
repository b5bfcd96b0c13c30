package filehost

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

func TestThumbMakerMakesEachThumbnailOnceForConcurrentRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newThumbMaker(100)
		var made atomic.Int64
		gate := make(chan struct{})
		errBroken := errors.New("broken image")
		mk := func() error {
			made.Add(1)
			<-gate
			return errBroken
		}
		const requests = 10
		errs := make([]error, requests)
		var wg sync.WaitGroup
		for i := range requests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = m.once(context.Background(), "thumbs/a.png", mk)
			}()
		}
		synctest.Wait()
		if n := made.Load(); n != 1 {
			t.Fatalf("%d makings of one thumbnail under way, want 1", n)
		}
		// Another thumbnail is not held up by the first.
		if err := m.once(context.Background(), "thumbs/b.png", func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		close(gate)
		wg.Wait()
		for i, err := range errs {
			if err != errBroken {
				t.Errorf("request %d: %v, want the one making's result", i, err)
			}
		}
		// Done: the next request makes it anew.
		if err := m.once(context.Background(), "thumbs/a.png", func() error { return nil }); err != nil || made.Load() != 1 {
			t.Errorf("a later request: %v", err)
		}
	})
}

func TestThumbMakerDecodesWithinThePixelBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newThumbMaker(10)
		ctx := context.Background()
		if err := m.acquire(ctx, 5); err != nil {
			t.Fatal(err)
		}
		var order []int64
		var mu sync.Mutex
		granted := func() []int64 {
			mu.Lock()
			defer mu.Unlock()
			return append([]int64(nil), order...)
		}
		var wg sync.WaitGroup
		wait := func(ctx context.Context, n int64) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := m.acquire(ctx, n); err == nil {
					mu.Lock()
					order = append(order, n)
					mu.Unlock()
				}
			}()
		}
		wait(ctx, 7)
		synctest.Wait()
		wait(ctx, 4) // fits now, but waits its turn behind the 7
		synctest.Wait()
		cancelled, cancel := context.WithCancel(ctx)
		wait(cancelled, 1)
		synctest.Wait()
		if got := granted(); len(got) != 0 {
			t.Fatalf("granted %v while 5 of 10 pixels were taken and a 7 was first in line", got)
		}
		cancel() // a request that goes away leaves the line
		synctest.Wait()
		m.release(5)
		synctest.Wait()
		if got := granted(); len(got) != 1 || got[0] != 7 {
			t.Fatalf("granted %v after 5 came back, want [7] (the 4 no longer fits)", got)
		}
		m.release(7)
		synctest.Wait()
		if got := granted(); len(got) != 2 || got[1] != 4 {
			t.Fatalf("granted %v, want [7 4] in arrival order", got)
		}
		m.release(4)
		// More than the whole budget counts as the whole budget.
		if err := m.acquire(ctx, 1000); err != nil {
			t.Fatal(err)
		}
		m.release(1000)
		wg.Wait()
		if m.free != 10 || len(m.waiters) != 0 {
			t.Fatalf("after everything was released: %d free, %d waiting", m.free, len(m.waiters))
		}
	})
}
