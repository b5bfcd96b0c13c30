package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestLeaseHasOneHolderUntilItExpires(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	take := func(holder string, at time.Time) bool {
		t.Helper()
		ok, err := db.TryLease(ctx, "job", holder, at, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	steps := []struct {
		name   string
		holder string
		at     time.Time
		want   bool
	}{
		{"a free lease is taken", "a", now, true},
		{"another holder waits", "b", now.Add(30 * time.Second), false},
		{"the holder renews", "a", now.Add(50 * time.Second), true},
		{"renewed, it outlives the first term", "b", now.Add(90 * time.Second), false},
		{"a dead holder's lease is taken over", "b", now.Add(111 * time.Second), true},
		{"the old holder lost it", "a", now.Add(112 * time.Second), false},
	}
	for _, s := range steps {
		if got := take(s.holder, s.at); got != s.want {
			t.Fatalf("%s: TryLease(%s) = %v, want %v", s.name, s.holder, got, s.want)
		}
	}
	if err := db.ReleaseLease(ctx, "job", "a"); err != nil {
		t.Fatal(err)
	}
	if take("c", now.Add(113*time.Second)) {
		t.Fatal("releasing someone else's lease freed it")
	}
	if err := db.ReleaseLease(ctx, "job", "b"); err != nil {
		t.Fatal(err)
	}
	if !take("c", now.Add(114*time.Second)) {
		t.Fatal("a released lease is not free")
	}
	for i := 0; i < 2; i++ {
		if ok, err := db.TryLease(ctx, "other job", "a", now, time.Minute); err != nil || !ok {
			t.Fatalf("a lease of another name: %v, %v; renewal must be idempotent", ok, err)
		}
	}
}

func TestLeaseRaceHasExactlyOneWinner(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	// Two handles on one database, as two processes.
	dbs := []*sqlstore.DB{cfg.Open(t), cfg.Open(t)}
	now := time.Now()
	for round := 0; round < 20; round++ {
		name := "race-" + string(rune('a'+round))
		var wg sync.WaitGroup
		wins := make(chan string, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				db := dbs[i%2]
				holder := string(rune('0' + i))
				ok, err := db.TryLease(context.Background(), name, holder, now, time.Minute)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins <- holder
				}
			}(i)
		}
		wg.Wait()
		close(wins)
		if n := len(wins); n != 1 {
			t.Fatalf("round %d: %d winners, want 1", round, n)
		}
	}
}

func TestTakeLeaseFreesOnlyADeadHoldersLease(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Now()
	reg := sqlstore.NewInstances(db)
	a, err := reg.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reg.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	take := func(holder string) bool {
		t.Helper()
		live, err := reg.Live(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := db.TakeLease(ctx, "job", holder, live, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !take(a.ID) || take(b.ID) {
		t.Fatal("a live holder's lease was taken")
	}
	if err := reg.Unregister(ctx, a); err != nil {
		t.Fatal(err)
	}
	if !take(b.ID) {
		t.Fatal("the holder is gone from the registry and its lease was not taken over")
	}
}
