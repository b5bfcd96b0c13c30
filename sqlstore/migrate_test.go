package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// loggedMigrations returns n steps that each create a table and record
// themselves in mig_log, so a step applied twice shows up twice (or fails on
// its CREATE TABLE).
func loggedMigrations(component string, n int) []sqlstore.Migration {
	var ms []sqlstore.Migration
	for i := 1; i <= n; i++ {
		stmts := []string{}
		if i == 1 {
			stmts = append(stmts, fmt.Sprintf(`CREATE TABLE %s_log (step INTEGER NOT NULL)`, component))
		}
		stmts = append(stmts,
			fmt.Sprintf(`CREATE TABLE %s_t%d (id {{uuid}} PRIMARY KEY)`, component, i),
			fmt.Sprintf(`INSERT INTO %s_log (step) VALUES (%d)`, component, i))
		ms = append(ms, sqlstore.Migration{Name: fmt.Sprintf("step %d", i), Up: sqlstore.Statements(stmts...)})
	}
	return ms
}

// checkEachStepOnce fails unless every step 1..n is logged exactly once.
func checkEachStepOnce(t *testing.T, db *sqlstore.DB, component string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if got := count(t, db, fmt.Sprintf("SELECT COUNT(*) FROM %s_log WHERE step = $1", component), i); got != 1 {
			t.Errorf("%s step %d applied %d times, want 1", component, i, got)
		}
	}
	v, err := db.SchemaVersion(context.Background(), component)
	if err != nil || v != n {
		t.Errorf("SchemaVersion(%s) = %d, %v; want %d", component, v, err, n)
	}
}

func TestMigrateTwiceIsNoOp(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	ms := loggedMigrations("twice", 3)
	for run := 1; run <= 2; run++ {
		if err := db.Migrate(ctx, "twice", ms); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	checkEachStepOnce(t, db, "twice", 3)
	if err := db.MigrateCore(ctx); err != nil {
		t.Fatalf("MigrateCore again: %v", err)
	}
}

func TestMigrateAppliesOnlyNewSteps(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if err := db.Migrate(ctx, "grow", loggedMigrations("grow", 2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "grow", loggedMigrations("grow", 4)); err != nil {
		t.Fatal(err)
	}
	checkEachStepOnce(t, db, "grow", 4)
}

func TestMigrateComponentsAreIndependent(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if err := db.Migrate(ctx, "alpha", loggedMigrations("alpha", 2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "beta", loggedMigrations("beta", 1)); err != nil {
		t.Fatal(err)
	}
	checkEachStepOnce(t, db, "alpha", 2)
	checkEachStepOnce(t, db, "beta", 1)
	if v, err := db.SchemaVersion(ctx, "never"); err != nil || v != 0 {
		t.Errorf("SchemaVersion(never) = %d, %v; want 0, nil", v, err)
	}
}

func TestMigrateFromTwoProcessesAtOnce(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	dbs := []*sqlstore.DB{cfg.Open(t), cfg.Open(t), cfg.Open(t)}
	ctx := context.Background()
	const steps = 6
	for round := range 3 {
		component := fmt.Sprintf("race%d", round)
		ms := loggedMigrations(component, steps)
		var wg sync.WaitGroup
		errs := make([]error, len(dbs))
		for i, db := range dbs {
			wg.Go(func() { errs[i] = db.Migrate(ctx, component, ms) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, handle %d: %v", round, i, err)
			}
		}
		checkEachStepOnce(t, dbs[0], component, steps)
	}
}

func TestMigrateFailedStepRollsBack(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	ms := append(loggedMigrations("fail", 1), sqlstore.Migration{Name: "broken", Up: sqlstore.Statements(
		`CREATE TABLE fail_half (id INTEGER)`,
		`THIS IS NOT SQL`,
	)})
	err := db.Migrate(ctx, "fail", ms)
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("Migrate = %v, want an error naming the broken step", err)
	}
	checkEachStepOnce(t, db, "fail", 1)
	if _, err := db.Exec(ctx, `CREATE TABLE fail_half (id INTEGER)`); err != nil {
		t.Fatalf("half-applied step left its table behind: %v", err)
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if err := db.Migrate(ctx, "newer", loggedMigrations("newer", 3)); err != nil {
		t.Fatal(err)
	}
	err := db.Migrate(ctx, "newer", loggedMigrations("newer", 2))
	if err == nil {
		t.Fatal("older binary migrated a newer schema, want refusal")
	}
	for _, want := range []string{"newer", "version 3", "only 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if v, _ := db.SchemaVersion(ctx, "newer"); v != 3 {
		t.Errorf("version after refusal = %d, want 3", v)
	}
}
