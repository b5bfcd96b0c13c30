package sqlstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// The instance registry tells which Folio processes sharing the database are
// alive, so that a live one can finish or undo at once what a dead one left
// half done (docs/filehost.md#crash-consistency). Each serving process has a
// row that it refreshes every HeartbeatEvery and deletes when it stops
// cleanly. A process is dead when its row is missing, when its heartbeat is
// older than DeadAfter, or, on the same host identity, when its pid no
// longer runs: the fast path that lets a restart right after a kill -9 clean
// up without waiting for the heartbeat to age.
const (
	HeartbeatEvery = 15 * time.Second
	DeadAfter      = 45 * time.Second
)

// Instance is one registered process.
type Instance struct {
	ID          string
	Host        string
	PID         int
	StartedAt   time.Time
	HeartbeatAt time.Time
	DBSession   string // PostgreSQL: the application_name of its sessions
	Scope       string // its changes file and host (Instances.Scope)
}

// LateWritesWait bounds how long Live waits for the PostgreSQL sessions of
// a process found killed to end. Such a session still runs what it had
// received when its client died (a statement, or a transaction's COMMIT)
// and ends when it next reads from the closed connection, some tens of
// milliseconds later; until then the dead process's last writes may land.
const LateWritesWait = 5 * time.Second

// Instances registers processes and judges their liveness. Its fields are
// what it is judged by; tests may set them.
type Instances struct {
	db *DB
	// Host is this process's host identity (HostIdentity); pids of rows with
	// the same identity are checked directly. Empty turns the check off.
	Host string
	PID  int
	// Session names this process's PostgreSQL sessions (DB.SessionName).
	Session string
	// Scope names the changes file this process announces its writes in,
	// on this host: processes of one scope see each other's changes in
	// memory (docs/design.md#caches-across-processes).
	Scope string
	Now   func() time.Time
	// LateWrites is how long Live waits for a killed process's sessions
	// to end (LateWritesWait).
	LateWrites time.Duration
}

// NewInstances returns the registry of db for this process.
func NewInstances(db *DB) *Instances {
	host := HostIdentity()
	return &Instances{db: db, Host: host, PID: os.Getpid(), Session: db.SessionName(),
		Scope: db.Changes().ID() + " " + host, Now: time.Now, LateWrites: LateWritesWait}
}

// HostIdentity names the pid space this process runs in: the kernel's boot
// id together with the pid namespace. Two processes with the same identity
// see the same pids, so one can ask the kernel whether the other's pid
// still runs; a pid from another machine, container or boot would say
// nothing (or lie: the number may belong to an unrelated process there).
// Empty when either part cannot be read (not Linux, /proc not mounted):
// liveness then rests on heartbeats alone.
func HostIdentity() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || ns == "" {
		return ""
	}
	id := strings.TrimSpace(string(boot))
	if id == "" {
		return ""
	}
	return id + " " + ns
}

// Register adds a row for this process under a new random id.
func (r *Instances) Register(ctx context.Context) (*Instance, error) {
	now := r.Now()
	inst := &Instance{ID: NewID(), Host: r.Host, PID: r.PID, StartedAt: now, HeartbeatAt: now, DBSession: r.Session, Scope: r.Scope}
	if err := r.Heartbeat(ctx, inst); err != nil {
		return nil, err
	}
	return inst, nil
}

// Heartbeat tells the others that inst is alive. A row found missing (the
// process was judged dead while it stalled, and forgotten) is written
// again: whatever was undone in its name stays undone, and the process
// notices that where it matters (its intents are gone).
func (r *Instances) Heartbeat(ctx context.Context, inst *Instance) error {
	inst.HeartbeatAt = r.Now()
	_, err := r.db.Exec(ctx, `INSERT INTO instances (id, host, pid, started_at, heartbeat_at, db_session, changes_scope)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
		inst.ID, inst.Host, inst.PID, FromTime(inst.StartedAt), FromTime(inst.HeartbeatAt), inst.DBSession, inst.Scope)
	if err != nil {
		return fmt.Errorf("sqlstore: instance heartbeat: %w", err)
	}
	return nil
}

// Unregister deletes inst's row: it stops cleanly.
func (r *Instances) Unregister(ctx context.Context, inst *Instance) error {
	if _, err := r.db.Exec(ctx, "DELETE FROM instances WHERE id = $1", inst.ID); err != nil {
		return fmt.Errorf("sqlstore: unregister instance: %w", err)
	}
	return nil
}

// RunHeartbeat refreshes inst's row every HeartbeatEvery until ctx ends;
// failures go to onErr (the next beat tries again).
func (r *Instances) RunHeartbeat(ctx context.Context, inst *Instance, onErr func(error)) {
	tick := time.NewTicker(HeartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := r.Heartbeat(ctx, inst); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
	}
}

// Liveness is a snapshot of which registered instances are alive.
type Liveness struct {
	alive  map[string]bool
	dead   []Instance
	scopes map[string]bool // of the live ones
}

// Alive reports whether the instance id was alive when the snapshot was
// taken; an id without a row is not.
func (l Liveness) Alive(id string) bool { return l.alive[id] }

// Dead lists the registered instances judged dead.
func (l Liveness) Dead() []Instance { return l.dead }

// AliveIDs lists the ids of the instances judged alive.
func (l Liveness) AliveIDs() []string {
	ids := make([]string, 0, len(l.alive))
	for id := range l.alive {
		ids = append(ids, id)
	}
	return ids
}

// AllIn reports whether every live instance has the given scope.
func (l Liveness) AllIn(scope string) bool {
	return len(l.scopes) == 0 || len(l.scopes) == 1 && l.scopes[scope]
}

// Live reads every row and judges it.
func (r *Instances) Live(ctx context.Context) (Liveness, error) {
	rows, err := r.db.Query(ctx, "SELECT id, host, pid, started_at, heartbeat_at, db_session, changes_scope FROM instances")
	if err != nil {
		return Liveness{}, fmt.Errorf("sqlstore: instances: %w", err)
	}
	defer rows.Close()
	l := Liveness{alive: map[string]bool{}, scopes: map[string]bool{}}
	now := r.Now()
	for rows.Next() {
		var in Instance
		var started, beat int64
		if err := rows.Scan(&in.ID, &in.Host, &in.PID, &started, &beat, &in.DBSession, &in.Scope); err != nil {
			return Liveness{}, fmt.Errorf("sqlstore: instances: %w", err)
		}
		in.StartedAt, in.HeartbeatAt = Time(started), Time(beat)
		if r.alive(in, now) {
			l.alive[in.ID] = true
			l.scopes[in.Scope] = true
		} else {
			l.dead = append(l.dead, in)
		}
	}
	if err := rows.Err(); err != nil {
		return Liveness{}, fmt.Errorf("sqlstore: instances: %w", err)
	}
	rows.Close()
	// A process found killed by its pid is dead only once its last
	// writes can no longer land: then what it left is all there to settle.
	// Past the wait it counts as alive until its heartbeat ages out.
	dead := l.dead[:0]
	for _, in := range l.dead {
		if r.killed(in, now) && !r.sessionsEnded(ctx, in.DBSession) {
			l.alive[in.ID] = true
			l.scopes[in.Scope] = true
			continue
		}
		dead = append(dead, in)
	}
	l.dead = dead
	return l, nil
}

func (r *Instances) alive(in Instance, now time.Time) bool {
	return now.Sub(in.HeartbeatAt) <= DeadAfter && !r.killed(in, now)
}

// killed reports whether a process with a fresh heartbeat is found dead
// by its pid.
func (r *Instances) killed(in Instance, now time.Time) bool {
	return now.Sub(in.HeartbeatAt) <= DeadAfter && r.Host != "" && in.Host == r.Host && !pidRunning(in.PID)
}

// sessionsEnded waits up to r.LateWrites for the PostgreSQL sessions named
// session to end, and reports whether they did. Nothing to wait for on
// SQLite (a dead process's transaction is committed or it is not) or
// without a name; a failed check counts as not ended.
func (r *Instances) sessionsEnded(ctx context.Context, session string) bool {
	if r.db.Dialect() != Postgres || session == "" {
		return true
	}
	deadline := time.Now().Add(r.LateWrites)
	for {
		var n int
		if err := r.db.QueryRow(ctx, "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1", session).Scan(&n); err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Forget deletes the row of an instance judged dead, unless it beat again
// since (then it is alive after all).
func (r *Instances) Forget(ctx context.Context, in Instance) error {
	if _, err := r.db.Exec(ctx, "DELETE FROM instances WHERE id = $1 AND heartbeat_at = $2",
		in.ID, FromTime(in.HeartbeatAt)); err != nil {
		return fmt.Errorf("sqlstore: forget instance: %w", err)
	}
	return nil
}
