package filehost

import (
	"context"
	"sync"
	"sync/atomic"
)

// thumbMaker bounds the memory thumbnails take while they are made
// (docs/design.md, Memory). A decoded image holds about four bytes a pixel,
// so a burst of first requests for new images, or many for one, would
// otherwise decode each image once per request, all at once: 500 visitors
// of a fresh 50-megapixel photo would ask for 100 GB. Here the requests
// for one thumbnail wait for a single making, and all makings together
// decode at most pixelBudget pixels at a time.
type thumbMaker struct {
	mu       sync.Mutex
	making   map[string]*thumbCall // by thumbnail key
	free     int64                 // pixels that may still be decoded now
	waiters  []*pixelWaiter        // first come, first served
	capacity int64
	// decodes counts the source images decoded, for tests to see that
	// concurrent first requests share one.
	decodes atomic.Int64
}

// pixelBudget is enough for the largest image a thumbnail is made of.
const pixelBudget = maxThumbPixels

type thumbCall struct {
	done chan struct{}
	err  error
}

type pixelWaiter struct {
	n     int64
	ready chan struct{}
}

func newThumbMaker(capacity int64) *thumbMaker {
	return &thumbMaker{making: map[string]*thumbCall{}, free: capacity, capacity: capacity}
}

// once runs fn for key unless a making of key is under way, in which
// case it waits for that one and returns its result.
func (m *thumbMaker) once(ctx context.Context, key string, fn func() error) error {
	m.mu.Lock()
	if c, ok := m.making[key]; ok {
		m.mu.Unlock()
		select {
		case <-c.done:
			return c.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c := &thumbCall{done: make(chan struct{})}
	m.making[key] = c
	m.mu.Unlock()

	c.err = fn()
	m.mu.Lock()
	delete(m.making, key)
	m.mu.Unlock()
	close(c.done)
	return c.err
}

// acquire waits until n pixels may be decoded (at most the capacity).
func (m *thumbMaker) acquire(ctx context.Context, n int64) error {
	n = min(n, m.capacity)
	m.mu.Lock()
	if len(m.waiters) == 0 && m.free >= n {
		m.free -= n
		m.mu.Unlock()
		return nil
	}
	w := &pixelWaiter{n: n, ready: make(chan struct{})}
	m.waiters = append(m.waiters, w)
	m.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		m.mu.Lock()
		defer m.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			m.free += n
			m.grant()
		default:
			for i, o := range m.waiters {
				if o == w {
					m.waiters = append(m.waiters[:i], m.waiters[i+1:]...)
					break
				}
			}
			m.grant() // the head may have been waiting behind w
		}
		return ctx.Err()
	}
}

// release returns n pixels taken by acquire.
func (m *thumbMaker) release(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.free += min(n, m.capacity)
	m.grant()
}

// grant wakes waiters in order while the budget covers them. The caller
// holds m.mu.
func (m *thumbMaker) grant() {
	for len(m.waiters) > 0 && m.waiters[0].n <= m.free {
		w := m.waiters[0]
		m.waiters = m.waiters[1:]
		m.free -= w.n
		close(w.ready)
	}
}
