package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// TestAIJobOfADeadProcessIsFinishedByAnother: a post saved through one
// process queues its AI job there; that process stalls mid-job and is
// judged dead (its heartbeat ages out, as after a kill -9 on another
// machine); a second process started afterwards takes the job over and
// writes the summary, and the first's late answer changes nothing.
func TestAIJobOfADeadProcessIsFinishedByAnother(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	var requests atomic.Int32
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			// The first request stalls, as its process does.
			close(started)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"Written by the survivor."},"done":true}`)
	}))
	t.Cleanup(provider.Close)
	dbc := sqlstoretest.NewConfig(t)
	env := []string{"FOLIO_STORAGE_DIR=" + t.TempDir(), "FOLIO_AI_ENABLED=true", "FOLIO_AI_PROVIDER=ollama",
		"FOLIO_AI_MODEL=m", "FOLIO_AI_BASE_URL=" + provider.URL, "FOLIO_AI_AUTO_SUMMARY=true"}
	a, ca := newTestAppOn(t, dbc, env...)
	ca.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	var p struct {
		ID string `json:"id"`
	}
	httpxtest.Into(t, ca.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "Orphaned", "status": "published",
		"content_markdown": "A post whose summary outlives its process."}).Expect(201).B().Data, &p)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the saving process did not start the job at once")
	}
	ctx := context.Background()
	var owner string
	if err := a.db.QueryRow(ctx, "SELECT claimed_by FROM jobs WHERE subject = $1", p.ID).Scan(&owner); err != nil || owner != a.instance {
		t.Fatalf("the job is claimed by %q (%v), want the saving process %q", owner, err, a.instance)
	}
	if _, err := a.db.Exec(ctx, "UPDATE instances SET heartbeat_at = 0 WHERE id = $1", a.instance); err != nil {
		t.Fatal(err)
	}

	_, cb := newTestAppOn(t, dbc, env...)
	// Cleanups run last first: the stalled request ends before the apps close.
	t.Cleanup(func() { close(release) })
	cb.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	deadline := time.Now().Add(15 * time.Second)
	for {
		var got struct {
			Summary string `json:"summary"`
		}
		httpxtest.Into(t, cb.Do("GET", "/api/v1/admin/posts/"+p.ID, nil).Expect(200).B().Data, &got)
		if got.Summary == "Written by the survivor." {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job of the dead process was not finished by the other: summary %q", got.Summary)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The row goes just after the summary is written.
	for left := 1; left != 0; time.Sleep(20 * time.Millisecond) {
		if err := a.db.QueryRow(ctx, "SELECT COUNT(*) FROM jobs").Scan(&left); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d job rows left after the job was done", left)
		}
	}
}

// TestLeaseGuardedWorkRunsInOneProcessAndMovesOnWhenItDies: of two
// processes, one prunes the audit log; when it is judged dead the other
// takes over at its next try, not when the lease runs out.
func TestLeaseGuardedWorkRunsInOneProcessAndMovesOnWhenItDies(t *testing.T) {
	a, b, _, _ := twoProcesses(t)
	ctx := context.Background()
	pruner := func(p *app) *auditPruner {
		return &auditPruner{db: p.db, instances: sqlstore.NewInstances(p.db), holder: p.instance, auth: p.auth,
			logger: slog.New(slog.DiscardHandler)}
	}
	pa, pb := pruner(a), pruner(b)
	ran := func(p *auditPruner) bool {
		t.Helper()
		ok, err := p.pass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// The first process took the lease when it started.
	if !ran(pa) || ran(pb) || !ran(pa) {
		t.Fatal("both processes, or neither, prune the audit log")
	}
	if _, err := a.db.Exec(ctx, "UPDATE instances SET heartbeat_at = 0 WHERE id = $1", a.instance); err != nil {
		t.Fatal(err)
	}
	if !ran(pb) {
		t.Fatal("the holder is dead and the other process did not take over")
	}
	if holder, err := b.db.LeaseHolder(ctx, auditLease); err != nil || holder != b.instance {
		t.Fatalf("lease holder = %q (%v), want the survivor", holder, err)
	}
}
