package blog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"folio/blog"
)

// An idle blog whose AI integration and federation are off sends no query
// for their queues, however long it idles; a job its own process queues
// is still claimed at once (docs/design.md#background-work).
func TestIdleBlogWithAIAndFederationOffSendsNoJobQueries(t *testing.T) {
	e, b := newEnvWith(t, setup{deps: func(d *blog.Deps) { d.EnqueueOnly = true }})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	if s := e.settings.AI.Get(context.Background()); s.Enabled {
		t.Fatal("AI is on by default")
	}
	if s := e.settings.Federation.Get(context.Background()); s.Enabled {
		t.Fatal("federation is on by default")
	}
	tick, claims, submit := b.IdleJobs(clock)
	tick() // each dispatcher is past its start-up sweep
	started := claims()
	if started < 4 {
		t.Fatalf("%d claims at start, want one per queue", started)
	}
	for range 30 {
		mu.Lock()
		now = now.Add(time.Hour) // every sweep long due
		mu.Unlock()
		tick()
	}
	tick()
	if n := claims(); n != started {
		t.Fatalf("%d claims while idle with the features off, want none", n-started)
	}

	submit("post-1")
	deadline := time.Now().Add(30 * time.Second)
	for claims() == started {
		if time.Now().After(deadline) {
			t.Fatal("a job this process queued was not claimed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
