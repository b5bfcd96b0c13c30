package sqlstore_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	execpkg "os/exec"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// exitedPID returns the pid of a process that has run and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := execpkg.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	return cmd.Process.Pid
}

func TestInstanceLivenessRules(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	registry := func(host string, pid int) *sqlstore.Instances {
		r := sqlstore.NewInstances(db)
		// Each stands for another process: without sessions of its own.
		r.Host, r.PID, r.Now, r.Session = host, pid, clock, ""
		return r
	}
	judge := registry("host-a", 1) // the process asking

	running := registry("host-a", judge.PID)
	running.PID = ownPID()
	alive, err := running.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gonePID := exitedPID(t)
	killed, err := registry("host-a", gonePID).Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := registry("host-b", gonePID).Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blind := registry("", 1) // no host identity: heartbeats only

	check := func(step string, r *sqlstore.Instances, want map[string]bool) {
		t.Helper()
		l, err := r.Live(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for id, w := range want {
			if l.Alive(id) != w {
				t.Errorf("%s: Alive(%s) = %v, want %v", step, id, l.Alive(id), w)
			}
		}
	}
	check("fresh heartbeats", judge, map[string]bool{
		alive.ID:     true,  // same host, pid runs
		killed.ID:    false, // same host, pid gone: dead at once
		elsewhere.ID: true,  // its pid means nothing here
		"no-such-id": false, // no row
	})
	check("without a host identity", blind, map[string]bool{alive.ID: true, killed.ID: true, elsewhere.ID: true})

	now = now.Add(sqlstore.DeadAfter)
	check("heartbeat just within the limit", blind, map[string]bool{alive.ID: true, elsewhere.ID: true})
	now = now.Add(time.Second)
	check("heartbeat too old", judge, map[string]bool{alive.ID: false, elsewhere.ID: false})

	if err := running.Heartbeat(ctx, alive); err != nil {
		t.Fatal(err)
	}
	check("beating again", judge, map[string]bool{alive.ID: true, elsewhere.ID: false})

	l, err := judge.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Dead()) != 2 {
		t.Fatalf("Dead() = %+v, want the killed and the silent one", l.Dead())
	}
	for _, in := range l.Dead() {
		if err := judge.Forget(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, "SELECT COUNT(*) FROM instances"); n != 1 {
		t.Errorf("%d rows after forgetting the dead, want 1", n)
	}
	// A stalled process that was forgotten comes back with its next beat.
	if err := registry("host-b", gonePID).Heartbeat(ctx, elsewhere); err != nil {
		t.Fatal(err)
	}
	check("forgotten, then beating", blind, map[string]bool{elsewhere.ID: true})
	if err := running.Unregister(ctx, alive); err != nil {
		t.Fatal(err)
	}
	check("unregistered", judge, map[string]bool{alive.ID: false})
}

func TestForgetLeavesAnInstanceThatBeatSince(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	r := sqlstore.NewInstances(db)
	r.Host, r.Now = "", func() time.Time { return now }
	in, err := r.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := *in
	now = now.Add(time.Second)
	if err := r.Heartbeat(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := r.Forget(ctx, seen); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM instances WHERE id = $1", in.ID); n != 1 {
		t.Error("Forget deleted an instance that had beaten since it was judged")
	}
}

func TestHostIdentityNamesBootAndPidNamespace(t *testing.T) {
	id := sqlstore.HostIdentity()
	if id == "" {
		t.Skip("no /proc here: the pid fast path is off")
	}
	if id != sqlstore.HostIdentity() {
		t.Error("HostIdentity differs between calls")
	}
}

func TestAKilledButUnreapedProcessIsDead(t *testing.T) {
	if sqlstore.HostIdentity() == "" {
		t.Skip("no /proc here: the pid fast path is off")
	}
	db := openDB(t)
	ctx := context.Background()
	child := execpkg.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skipf("cannot start a child process: %v", err)
	}
	reaped := false
	defer func() {
		if !reaped {
			child.Process.Kill()
			child.Wait()
		}
	}()
	r := sqlstore.NewInstances(db)
	r.PID, r.Session = child.Process.Pid, "" // the child has no sessions
	in, err := r.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	alive := func() bool {
		l, err := r.Live(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return l.Alive(in.ID)
	}
	if !alive() {
		t.Fatal("a running child is judged dead")
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: a zombie. The kernel turns it into one soon after
	// the signal; poll for that, bounded.
	stat := fmt.Sprintf("/proc/%d/stat", child.Process.Pid)
	for i := 0; i < 500; i++ {
		b, _ := os.ReadFile(stat)
		if j := bytes.LastIndexByte(b, ')'); j >= 0 && j+2 < len(b) && b[j+2] == 'Z' {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if alive() {
		t.Error("a killed, unreaped child (a zombie) is judged alive")
	}
	child.Wait()
	reaped = true
	if alive() {
		t.Error("a reaped child is judged alive")
	}
}

// A process killed on PostgreSQL may still have sessions finishing what it
// sent last; it is dead only once they have ended
// (docs/filehost.md#crash-consistency).
func TestAKilledProcessIsDeadOnlyOnceItsSessionsEnd(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	if cfg.Driver != "postgres" {
		t.Skip("SQLite: a dead process's transaction is committed or it is not")
	}
	ctx := context.Background()
	db := cfg.Open(t)
	other := cfg.Open(t) // the killed process's pool, with its own session name
	if other.SessionName() == "" || other.SessionName() == db.SessionName() {
		t.Fatalf("session names %q and %q, want two different ones", db.SessionName(), other.SessionName())
	}
	killed := sqlstore.NewInstances(other)
	killed.PID = exitedPID(t)
	in, err := killed.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	judge := sqlstore.NewInstances(db)
	judge.LateWrites = 50 * time.Millisecond
	l, err := judge.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Alive(in.ID) {
		t.Fatal("judged dead while its sessions were still open")
	}
	other.Close()
	judge.LateWrites = time.Minute // waits for the sessions to go, not longer
	l, err = judge.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Alive(in.ID) || len(l.Dead()) != 1 || l.Dead()[0].DBSession != other.SessionName() {
		t.Fatalf("after its sessions ended: alive %v, dead %+v", l.Alive(in.ID), l.Dead())
	}
}

func TestSessionNamesAreUniqueAndKeepTheOperatorsName(t *testing.T) {
	tests := []struct{ dsn, prefix string }{
		{"postgres://u@h/db", "folio-"},
		{"postgres://u@h/db?application_name=shop", "shop folio-"},
		{"dbname=folio application_name=shop sslmode=disable", "shop folio-"},
		{"postgres://u@h/db?application_name=" + strings.Repeat("x", 80), strings.Repeat("x", 40) + " folio-"},
	}
	for _, tt := range tests {
		a, b := sqlstore.SessionNameOf(tt.dsn), sqlstore.SessionNameOf(tt.dsn)
		if !strings.HasPrefix(a, tt.prefix) || a == b || len(a) > 63 {
			t.Errorf("session names of %q: %q and %q, want two different ones starting %q, at most 63 bytes", tt.dsn, a, b, tt.prefix)
		}
	}
}
