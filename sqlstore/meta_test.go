package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestMeta(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, err := db.Meta(ctx, "k"); !errors.Is(err, sqlstore.ErrNotFound) {
		t.Fatalf("Meta of unset key = %v, want ErrNotFound", err)
	}
	if v, err := db.EnsureMeta(ctx, "k", "first"); err != nil || v != "first" {
		t.Fatalf("EnsureMeta = %q, %v; want first", v, err)
	}
	if v, err := db.EnsureMeta(ctx, "k", "second"); err != nil || v != "first" {
		t.Fatalf("second EnsureMeta = %q, %v; want the first writer's value", v, err)
	}
	if err := db.SetMeta(ctx, "k", "replaced"); err != nil {
		t.Fatal(err)
	}
	if v, err := db.Meta(ctx, "k"); err != nil || v != "replaced" {
		t.Fatalf("Meta after SetMeta = %q, %v; want replaced", v, err)
	}
}

func TestEnsureMetaFirstWriterWinsAcrossProcesses(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	dbs := []*sqlstore.DB{cfg.Open(t), cfg.Open(t)}
	ctx := context.Background()
	const racers = 8
	got := make([]string, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { got[i], errs[i] = dbs[i%2].EnsureMeta(ctx, "secret", fmt.Sprint("value-", i)) })
	}
	wg.Wait()
	for i := range racers {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("racers disagree: %q vs %q", got[i], got[0])
		}
	}
}
