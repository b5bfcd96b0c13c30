package sqlstore_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/sqlstore"
)

func TestNewIDIsVersion7(t *testing.T) {
	for range 1000 {
		id := sqlstore.NewID()
		if !sqlstore.ValidID(id) {
			t.Fatalf("NewID() = %q, not a valid id", id)
		}
		if id != strings.ToLower(id) {
			t.Fatalf("NewID() = %q, want lower case", id)
		}
		if id[14] != '7' {
			t.Fatalf("NewID() = %q: version nibble %c, want 7", id, id[14])
		}
		if !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("NewID() = %q: variant nibble %c, want 8-b (bits 10)", id, id[19])
		}
	}
}

func TestNewIDCarriesMilliseconds(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 987_654_321, time.UTC)
	id := sqlstore.NewIDAt(at)
	ms, err := strconv.ParseInt(strings.ReplaceAll(id[:13], "-", ""), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	if ms != at.UnixMilli() {
		t.Fatalf("timestamp field = %d, want %d", ms, at.UnixMilli())
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []time.Duration{time.Millisecond, time.Microsecond, 300 * time.Nanosecond, time.Second, 24 * time.Hour}
	for _, step := range steps {
		prev := sqlstore.NewIDAt(start)
		for i := 1; i < 200; i++ {
			id := sqlstore.NewIDAt(start.Add(time.Duration(i) * step))
			if id <= prev {
				t.Fatalf("step %v, i=%d: %s sorts before or equal to %s", step, i, id, prev)
			}
			prev = id
		}
	}
	// And with the real clock across milliseconds.
	a := sqlstore.NewID()
	time.Sleep(2 * time.Millisecond)
	if b := sqlstore.NewID(); b <= a {
		t.Fatalf("id made 2ms later %s sorts before %s", b, a)
	}
}

func TestNewIDUniqueUnderConcurrency(t *testing.T) {
	const workers, each = 8, 10_000
	out := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]string, each)
			for i := range ids {
				ids[i] = sqlstore.NewID()
			}
			out[w] = ids
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for _, ids := range out {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate id %s", id)
			}
			seen[id] = true
		}
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"0190b9d2-3f4c-7a1b-8c2d-0123456789ab", true},
		{"0190B9D2-3F4C-7A1B-8C2D-0123456789AB", false}, // upper case: callers lower-case first,
		{"00000000-0000-0000-0000-000000000000", true},
		{"", false},
		{"not-a-uuid", false},
		{"0190b9d2-3f4c-7a1b-8c2d-0123456789a", false},
		{"0190b9d2-3f4c-7a1b-8c2d-0123456789abc", false},
		{"0190b9d23f4c7a1b8c2d0123456789ab", false},
		{"0190b9d2_3f4c-7a1b-8c2d-0123456789ab", false},
		{"0190b9d2-3f4c-7a1b-8c2d-0123456789ag", false},
		{"{0190b9d2-3f4c-7a1b-8c2d-0123456789a}", false},
		{"0190b9d2-3f4c-7a1b-8c2d-0123456789a\x00", false},
		{"' OR 1=1 --                         ", false},
	}
	for _, tt := range tests {
		if got := sqlstore.ValidID(tt.in); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
