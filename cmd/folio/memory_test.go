package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryReleaserReleasesOnceWhenABurstEnds(t *testing.T) {
	tests := []struct {
		name    string
		periods []uint64 // requests in each period
		want    []bool   // released at the end of each period
	}{
		{"idle site", []uint64{0, 0, 0}, []bool{false, false, false}},
		{"steady light traffic", []uint64{50, 50, 5, 50}, []bool{false, false, false, false}},
		{"burst then quiet", []uint64{500, 0, 0}, []bool{false, true, false}},
		{"burst, trickle, quiet", []uint64{500, 60, 9}, []bool{false, false, true}},
		{"two bursts", []uint64{500, 0, 200, 3}, []bool{false, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			released := 0
			m := &memoryReleaser{release: func(context.Context) { released++ }}
			for i, n := range tt.periods {
				m.requests.Add(n)
				before := released
				if got := m.observe(context.Background()); got != tt.want[i] || (released > before) != tt.want[i] {
					t.Fatalf("period %d (%d requests): released %v, want %v", i, n, got, tt.want[i])
				}
			}
		})
	}
}

func TestMemoryReleaserSettlesOnceInTheQuietPeriodAfterARelease(t *testing.T) {
	tests := []struct {
		name    string
		periods []uint64 // requests in each period
		want    []bool   // settled at the end of each period
	}{
		{"idle site", []uint64{0, 0, 0}, []bool{false, false, false}},
		{"burst then quiet", []uint64{500, 0, 0, 0}, []bool{false, false, true, false}},
		{"burst, quiet, trickle", []uint64{500, 0, 20, 0}, []bool{false, false, false, false}},
		{"burst, quiet, burst", []uint64{500, 0, 500, 0, 0}, []bool{false, false, false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settled := 0
			m := &memoryReleaser{release: func(context.Context) {}, settle: func() { settled++ }}
			for i, n := range tt.periods {
				m.requests.Add(n)
				before := settled
				m.observe(context.Background())
				if got := settled > before; got != tt.want[i] {
					t.Fatalf("period %d (%d requests): settled %v, want %v", i, n, got, tt.want[i])
				}
			}
		})
	}
}

// gcPercent reads GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// sendRequests sends h n requests.
func sendRequests(h http.Handler, n int) {
	for range n {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}
}

// GOGC stays lowered through fewer than quietRequests requests a period,
// however many periods (a monitor's health checks), and comes back at the
// quietRequests-th of one.
func TestMemoryReleaserLowersGOGCUntilVisitorsAreBack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	m := &memoryReleaser{release: func(context.Context) {}, lowerIdleGC: true}
	h := m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	m.requests.Add(500)
	m.observe(context.Background())
	if got := gcPercent(); got != 100 {
		t.Fatalf("GOGC %d during a burst, want 100", got)
	}
	if !m.observe(context.Background()) {
		t.Fatal("the quiet period after a burst released nothing")
	}
	if got := gcPercent(); got != idleGCPercent {
		t.Fatalf("GOGC %d after a release, want %d", got, idleGCPercent)
	}
	for period := range 3 {
		sendRequests(h, quietRequests-1)
		if got := gcPercent(); got != idleGCPercent {
			t.Fatalf("period %d: GOGC %d after %d requests, want %d kept", period, got, quietRequests-1, idleGCPercent)
		}
		m.observe(context.Background())
	}
	sendRequests(h, quietRequests)
	if got := gcPercent(); got != 100 {
		t.Fatalf("GOGC %d after %d requests in a period, want 100 back", got, quietRequests)
	}
}

func TestMemoryReleaserLeavesAnEagerOrDisabledCollectorAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, gogc := range []int{10, -1} {
		debug.SetGCPercent(gogc)
		m := &memoryReleaser{release: func(context.Context) {}, lowerIdleGC: true}
		m.requests.Add(500)
		m.observe(context.Background())
		m.observe(context.Background())
		if got := gcPercent(); got != gogc {
			t.Fatalf("GOGC %d after a release from %d, want it kept", got, gogc)
		}
	}
}

func TestReleaseMakesTheSiteQuietUntilTheNextRequest(t *testing.T) {
	q := &quietSignal{}
	m := &memoryReleaser{release: func(context.Context) {}, quiet: q}
	if q.ended() != nil {
		t.Fatal("quiet before any release")
	}
	m.requests.Add(busyRequests)
	m.observe(context.Background())
	if q.ended() != nil {
		t.Fatal("quiet during a burst")
	}
	m.observe(context.Background()) // the quiet period after it: release
	ended := q.ended()
	if ended == nil {
		t.Fatal("not quiet after a release")
	}
	m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	select {
	case <-ended:
	default:
		t.Fatal("a request did not end the quiet")
	}
	if q.ended() != nil {
		t.Fatal("still quiet after a request")
	}
}

func TestFloorPercentGivesTheGoalOfTheFloor(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name       string
		live, want uint64
	}{
		{"no collection yet", 0, maxFloorPercent},
		{"Folio after start", 2 * mib, maxFloorPercent},
		{"a fifth of the floor", 16 * mib / 5, maxFloorPercent},
		{"a quarter", 4 * mib, 300},
		{"rounded up to a step", 6 * mib, 175},
		{"half", 8 * mib, 100},
		{"above the floor", 64 * mib, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := floorPercent(tt.live, 16*mib)
			if uint64(got) != tt.want {
				t.Fatalf("floorPercent(%d MiB) = %d, want %d", tt.live/mib, got, tt.want)
			}
			// The runtime's goal: the larger of the live heap grown by
			// GOGC and its own minimum, 4 MiB × GOGC/100.
			goal := max(float64(tt.live)*(1+float64(got)/100), 4*mib*float64(got)/100)
			if got > 100 && goal < 16*mib {
				t.Fatalf("goal %.1f MiB under the floor", goal/mib)
			}
		})
	}
}

// awaitGOGC waits for the next value the floor sets, or fails after a
// long while: a collection's cleanups run on their own goroutine.
func awaitGOGC(t *testing.T, set <-chan int) int {
	t.Helper()
	for i := 0; i < 300; i++ {
		runtime.GC()
		select {
		case p := <-set:
			return p
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no GOGC set after 300 collections")
	return 0
}

func TestHeapFloorSetsGOGCAfterEveryCollection(t *testing.T) {
	set := make(chan int, 10)
	var f *heapFloor
	f = newHeapFloor(1<<40, func(p int) {
		set <- p
		// Runs within cycle, under its lock: the next collection sees a
		// live heap above this floor.
		f.floor = 1
	})
	f.arm()
	defer f.stop()
	if got := awaitGOGC(t, set); got != maxFloorPercent {
		t.Fatalf("first collection set GOGC %d, want %d", got, maxFloorPercent)
	}
	if got := awaitGOGC(t, set); got != 100 {
		t.Fatalf("a later collection set GOGC %d, want 100 once the live heap is above the floor", got)
	}
}

func TestHeapFloorSetsNothingOnceStopped(t *testing.T) {
	set := make(chan int, 10)
	f := newHeapFloor(1<<40, func(p int) { set <- p })
	f.arm()
	f.stop()
	for i := 0; i < 5; i++ {
		runtime.GC()
	}
	time.Sleep(100 * time.Millisecond)
	if len(set) != 0 {
		t.Fatalf("a stopped floor set GOGC %d", <-set)
	}
}

func TestHeapFloorLeavesTheOperatorsGOGC(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"GOMEMLIMIT": "64MiB"}, true},
		{map[string]string{"GOGC": "200"}, false},
		{map[string]string{"GOGC": "off", "GOMEMLIMIT": "64MiB"}, false},
	}
	for _, tt := range tests {
		lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		if got := heapFloorWanted(lookup); got != tt.want {
			t.Errorf("environment %v: floor %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestMemoryReleaserRestoresTheFloorsGOGCAfterARelease(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	m := &memoryReleaser{release: func(context.Context) {}, lowerIdleGC: true}
	h := m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	m.setBusyGC(maxFloorPercent)
	if got := gcPercent(); got != maxFloorPercent {
		t.Fatalf("GOGC %d while busy, want the floor's %d", got, maxFloorPercent)
	}
	m.requests.Add(500)
	m.observe(context.Background())
	m.observe(context.Background())
	if got := gcPercent(); got != idleGCPercent {
		t.Fatalf("GOGC %d after a release, want %d", got, idleGCPercent)
	}
	// A collection while quiet: the floor's new value waits for visitors.
	m.setBusyGC(300)
	if got := gcPercent(); got != idleGCPercent {
		t.Fatalf("GOGC %d after the floor moved while quiet, want %d kept", got, idleGCPercent)
	}
	sendRequests(h, quietRequests)
	if got := gcPercent(); got != 300 {
		t.Fatalf("GOGC %d once visitors are back, want the floor's latest, 300", got)
	}
}
