package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"testing"
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

func TestMemoryReleaserLowersGOGCUntilTheNextRequest(t *testing.T) {
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
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if got := gcPercent(); got != 100 {
		t.Fatalf("GOGC %d after the next request, want 100 back", got)
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
