package main

import (
	"context"
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
