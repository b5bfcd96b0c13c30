package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// fsckSite is a migrated site on disk: its database, storage folder and a
// configuration file naming both.
type fsckSite struct {
	db      sqlstoretest.Config
	storage string
	config  string
}

func newFsckSite(t *testing.T) fsckSite {
	t.Helper()
	s := fsckSite{db: sqlstoretest.NewConfig(t), storage: t.TempDir()}
	a, _ := newTestAppOn(t, s.db, "FOLIO_STORAGE_DIR="+s.storage)
	a.Close(context.Background())
	s.config = filepath.Join(t.TempDir(), "folio.conf")
	conf := "database.driver = " + s.db.Driver + "\ndatabase.dsn = \"" + s.db.DSN + "\"\nstorage.dir = \"" + s.storage + "\"\n"
	if err := os.WriteFile(s.config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// fsck runs `folio fsck` with args and returns its exit status and output.
func (s fsckSite) fsck(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"fsck", "-config", s.config}, args...), nil, &out, &errOut)
	if code == 2 || (code == 1 && out.Len() == 0) {
		t.Logf("stderr: %s", errOut.String())
	}
	return code, out.String()
}

// fsckJSON runs `folio fsck -json` and decodes its report.
func (s fsckSite) fsckJSON(t *testing.T, args ...string) (int, map[string]any) {
	t.Helper()
	code, out := s.fsck(t, append(args, "-json")...)
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("fsck -json printed %q: %v", out, err)
	}
	return code, rep
}

func TestFsckExitsZeroOnACleanSite(t *testing.T) {
	s := newFsckSite(t)
	code, rep := s.fsckJSON(t)
	if code != 0 {
		t.Fatalf("exit %d on a clean site: %v", code, rep)
	}
	for _, field := range []string{"orphans", "missing", "ref_count_errors", "usage_errors", "intents", "temps", "remaining"} {
		if n, ok := rep[field].(float64); !ok || n != 0 {
			t.Errorf("%s = %v, want 0", field, rep[field])
		}
	}
	if _, ok := rep["details"].(map[string]any)["orphans"].([]any); !ok {
		t.Errorf("details.orphans is not a list: %v", rep["details"])
	}
	if code, out := s.fsck(t); code != 0 || !strings.Contains(out, "nothing wrong") {
		t.Errorf("text output: exit %d, %q", code, out)
	}
}

func TestFsckReportsThenFixesAnOrphan(t *testing.T) {
	s := newFsckSite(t)
	orphan := filepath.Join(s.storage, "2026", "11", "lost.png")
	if err := os.MkdirAll(filepath.Dir(orphan), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orphan, []byte("bytes of no record"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, rep := s.fsckJSON(t)
	if code != 1 || rep["orphans"] != float64(1) || rep["remaining"] != float64(1) {
		t.Fatalf("exit %d, report %v; want 1 and one orphan", code, rep)
	}
	if code, out := s.fsck(t); code != 1 || !strings.Contains(out, "2026/11/lost.png") || !strings.Contains(out, "-fix") {
		t.Errorf("text output: exit %d, %q", code, out)
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Fatal("fsck without -fix deleted the orphan")
	}
	code, rep = s.fsckJSON(t, "-fix")
	if code != 0 || rep["fixed"] != true || rep["remaining"] != float64(0) {
		t.Fatalf("fix: exit %d, report %v", code, rep)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the orphan is still there after -fix")
	}
	if code, _ := s.fsckJSON(t); code != 0 {
		t.Errorf("exit %d after the fix", code)
	}
}

func TestFsckUsageErrorsExitTwo(t *testing.T) {
	s := newFsckSite(t)
	for _, args := range [][]string{{"-bogus"}, {"-force"}, {"extra"}} {
		if code, _ := s.fsck(t, args...); code != 2 {
			t.Errorf("fsck %v: exit %d, want 2", args, code)
		}
	}
	if code := run([]string{"fsck", "-config", filepath.Join(t.TempDir(), "none.conf")}, nil, io.Discard, io.Discard); code != 1 {
		t.Errorf("missing configuration file: exit %d, want 1", code)
	}
}

func TestFsckRefusesAStorageFolderThatIsNotThere(t *testing.T) {
	s := newFsckSite(t)
	if err := os.RemoveAll(s.storage); err != nil {
		t.Fatal(err)
	}
	if code, _ := s.fsck(t, "-fix"); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if _, err := os.Stat(s.storage); err == nil {
		t.Error("fsck created the storage folder")
	}
}

func TestRestartAfterACrashCleansUpBeforeServing(t *testing.T) {
	s := newFsckSite(t)
	ctx := context.Background()
	db := s.db.Open(t)
	// A process on this host was killed: its pid no longer runs.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Skip(err)
	}
	// Its own database pool, with sessions of its own that end with it.
	pool := s.db.Open(t)
	killed := sqlstore.NewInstances(pool)
	killed.PID = child.Process.Pid
	if killed.Host == "" {
		killed.Now = func() time.Time { return time.Now().Add(-time.Hour) } // no pid check here: an old heartbeat
	}
	in, err := killed.Register(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	placed := filepath.Join(s.storage, "2026", "11", "half.png")
	if err := os.MkdirAll(filepath.Dir(placed), 0o750); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{placed, filepath.Join(s.storage, ".tmp", in.ID+"-up-123")} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(ctx, `INSERT INTO storage_intents (id, op, storage_key, instance_id, created_at)
		VALUES ($1, 'place', '2026/11/half.png', $2, $3)`, sqlstore.NewID(), in.ID, sqlstore.FromTime(time.Now())); err != nil {
		t.Fatal(err)
	}
	if code, rep := s.fsckJSON(t); code != 1 || rep["intents"] != float64(1) || rep["temps"] != float64(1) {
		t.Fatalf("before the restart: exit %d, report %v", code, rep)
	}

	a, _ := newTestAppOn(t, s.db, "FOLIO_STORAGE_DIR="+s.storage)
	if _, err := os.Stat(placed); err == nil {
		t.Error("the killed process's placed bytes survived the restart")
	}
	if left, _ := os.ReadDir(filepath.Join(s.storage, ".tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM instances").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d instances registered while serving (%v), want 1", n, err)
	}
	if code, rep := s.fsckJSON(t); code != 0 {
		t.Errorf("after the restart: exit %d, report %v", code, rep)
	}
	a.Close(ctx)
	if err := db.QueryRow(ctx, "SELECT COUNT(*) FROM instances").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d instances after a clean stop (%v), want 0", n, err)
	}
}
