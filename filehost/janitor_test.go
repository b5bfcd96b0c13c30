package filehost

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/storage"
)

func TestJanitorSettlesWhatDeadProcessesLeft(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	_, alice := e.newUser("alice", 0)
	kept := mustUpload(t, alice, "kept.png", pngBytes(t, 4, 3))
	keptObject, keptKey := e.objectOf(kept.ID)
	dead := e.deadInstance()
	live := e.instance.ID
	gone := sqlstore.NewID() // an instance whose row is missing

	// A dead process placed bytes and died before recording the object.
	e.place("2026/11/dead/placed.png", "placed")
	e.addIntent(opPlace, "2026/11/dead/placed.png", dead, time.Second)
	// One deleted an object row and died before deleting its bytes.
	e.place("2026/11/dead/deleted.png", "deleted")
	e.addIntent(opDelete, "2026/11/dead/deleted.png", gone, time.Second)
	// A live process failed to delete bytes long ago (the storage refused).
	e.place("2026/11/live/failed.png", "failed")
	e.addIntent(opDelete, "2026/11/live/failed.png", live, time.Hour)
	// A live process is placing bytes right now, and one deleting.
	e.place("2026/11/live/placing.png", "placing")
	e.addIntent(opPlace, "2026/11/live/placing.png", live, time.Second)
	e.place("2026/11/live/deleting.png", "deleting")
	e.addIntent(opDelete, "2026/11/live/deleting.png", live, time.Second)
	// Intents over bytes a record points at: the object's own key and the
	// thumbnail of an existing object.
	e.addIntent(opDelete, keptKey, dead, time.Second)
	e.addIntent(opPlace, keptKey, dead, time.Second)
	e.place(thumbKey(keptObject, false), "thumbnail")
	e.addIntent(opPlace, thumbKey(keptObject, false), dead, time.Second)
	// A thumbnail of a deleted object whose delete did not finish.
	orphanThumb := thumbKey(sqlstore.NewID(), true)
	e.place(orphanThumb, "thumbnail")
	e.addIntent(opDelete, orphanThumb, dead, time.Second)
	// Temporary uploads.
	deadTemp := e.tempFile(dead, time.Second)
	goneTemp := e.tempFile(gone, time.Second)
	liveTemp := e.tempFile(live, 2*time.Hour)
	oldUntagged := e.tempFile("", 2*time.Hour)
	newUntagged := e.tempFile("", time.Minute)

	rep, err := e.svc.JanitorPass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Ran || rep.RolledBack != 3 || rep.Kept != 3 || rep.Forgotten != 1 {
		t.Errorf("report = %+v, want it to have run, 3 rolled back, 3 kept, 1 forgotten", rep)
	}
	for key, want := range map[string]bool{
		"2026/11/dead/placed.png":   false,
		"2026/11/dead/deleted.png":  false,
		"2026/11/live/failed.png":   false,
		"2026/11/live/placing.png":  true,
		"2026/11/live/deleting.png": true,
		keptKey:                     true,
		thumbKey(keptObject, false): true,
		orphanThumb:                 false,
	} {
		if got := e.stored(key); got != want {
			t.Errorf("after the pass, %s stored = %v, want %v", key, got, want)
		}
	}
	wantIntents := map[string][]string{
		opPlace:  {"2026/11/live/placing.png"},
		opDelete: {"2026/11/live/deleting.png"},
	}
	if got := e.intents(); !reflect.DeepEqual(got, wantIntents) {
		t.Errorf("intents left = %v, want only the live process's recent ones %v", got, wantIntents)
	}
	temps := e.temps()
	for name, want := range map[string]bool{deadTemp: false, goneTemp: false, liveTemp: true, oldUntagged: false, newUntagged: true} {
		if temps[name] != want {
			t.Errorf("temp %s left = %v, want %v", name, temps[name], want)
		}
	}
	// The upload that was kept still serves.
	alice.Do("GET", kept.path(), nil).Expect(http.StatusOK)
	var n int
	if err := e.db.QueryRow(ctx, "SELECT COUNT(*) FROM instances WHERE id = $1", dead).Scan(&n); err != nil || n != 0 {
		t.Errorf("the dead instance's row is still there (%d, %v)", n, err)
	}
}

// The spool files of the blog's import, left by a process that crashed
// mid-import, go with the process; a live one's stay, and so do those of a
// tag the registry does not know (another site's on the same machine)
// until they are a day old.
func TestJanitorRemovesTheSpoolFilesOfDeadProcesses(t *testing.T) {
	e := newTestEnv(t)
	spool := func(instance string, age time.Duration) string {
		f, err := storage.CreateSpool(e.spoolDir, instance)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		at := time.Now().Add(-age)
		if err := os.Chtimes(f.Name(), at, at); err != nil {
			t.Fatal(err)
		}
		return filepath.Base(f.Name())
	}
	dead := spool(e.deadInstance(), time.Minute)
	live := spool(e.instance.ID, 2*time.Hour)
	unknown := spool(sqlstore.NewID(), time.Hour)
	old := spool("", 25*time.Hour)
	recent := spool("", time.Minute)
	other := filepath.Join(e.spoolDir, "folio-import-other")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := e.svc.JanitorPass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rep.Spools)
	if want := slices.Sorted(slices.Values([]string{dead, old})); !slices.Equal(rep.Spools, want) {
		t.Errorf("removed %v, want %v", rep.Spools, want)
	}
	for name, want := range map[string]bool{dead: false, live: true, unknown: true, old: false, recent: true, "folio-import-other": true} {
		_, err := os.Stat(filepath.Join(e.spoolDir, name))
		if got := err == nil; got != want {
			t.Errorf("%s there = %v, want %v", name, got, want)
		}
	}
}

func TestJanitorLeaseGoesToOneLiveProcessAndIsTakenFromADeadOne(t *testing.T) {
	cfg := sqlstoreConfig(t)
	dir := t.TempDir()
	a := newTestEnvOn(t, cfg.Open(t), dir)
	b := newTestEnvOn(t, cfg.Open(t), dir)
	ctx := context.Background()
	if rep, err := a.svc.JanitorPass(ctx); err != nil || !rep.Ran {
		t.Fatalf("first pass: %+v, %v", rep, err)
	}
	if rep, err := b.svc.JanitorPass(ctx); err != nil || rep.Ran {
		t.Fatalf("a second live process ran the janitor too: %+v, %v", rep, err)
	}
	// a dies: its row goes, as when the pid check or the heartbeat says so.
	if err := a.instances.Unregister(ctx, a.instance); err != nil {
		t.Fatal(err)
	}
	if rep, err := b.svc.JanitorPass(ctx); err != nil || !rep.Ran {
		t.Fatalf("the lease of a dead process was not taken over: %+v, %v", rep, err)
	}
}

func TestUploadsAndDeletesLeaveNoIntents(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 100)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 2, 2))
	alice.Do("GET", "/t/"+u.hash(), nil) // makes the thumbnail
	objectID, key := e.objectOf(u.ID)
	if got := e.intents(); len(got) != 0 {
		t.Fatalf("intents after upload and thumbnail: %v", got)
	}
	// An upload over quota places its bytes, then fails: both go.
	before := len(e.storedKeys())
	expectUploadError(t, alice.Upload("/api/v1/upload", "file", "big.png", pngBytes(t, 40, 40)), http.StatusInsufficientStorage, 50700)
	if got := e.intents(); len(got) != 0 || len(e.storedKeys()) != before {
		t.Fatalf("a refused upload left intents %v or bytes (%d keys, had %d)", got, len(e.storedKeys()), before)
	}
	alice.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(http.StatusOK)
	if got := e.intents(); len(got) != 0 {
		t.Fatalf("intents after delete: %v", got)
	}
	for _, k := range []string{key, thumbKey(objectID, false), thumbKey(objectID, true)} {
		if e.stored(k) {
			t.Errorf("%s still stored after its last record went", k)
		}
	}
	if used, n := e.usage(aliceID); used != 0 || n != 0 {
		t.Errorf("usage after delete = %d bytes, %d files", used, n)
	}
}

func TestARolledBackPlacementCannotBeClaimed(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	id, err := e.svc.recordPlace(ctx, "2026/11/x.png")
	if err != nil {
		t.Fatal(err)
	}
	// The janitor judged this process dead and turned the intent round.
	if _, err := e.db.Exec(ctx, "UPDATE storage_intents SET op = $1 WHERE id = $2", opDelete, id); err != nil {
		t.Fatal(err)
	}
	err = e.db.Tx(ctx, func(tx *sqlstore.Tx) error { return claimPlaceTx(ctx, tx, id) })
	if !errors.Is(err, errIntentLost) {
		t.Fatalf("claim of a rolled-back placement = %v, want errIntentLost", err)
	}
}

func TestThumbnailOfAnObjectDeletedMeanwhileIsRemoved(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 2, 2))
	objectID, _ := e.objectOf(u.ID)
	for _, tt := range []struct {
		name    string
		object  string
		wantErr error
		kept    bool
	}{
		{"object still there", objectID, nil, true},
		{"object deleted meanwhile", sqlstore.NewID(), errNoThumb, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := thumbKey(tt.object, true)
			intent, err := e.svc.recordPlace(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			e.place(key, "thumbnail")
			if err := e.svc.settleThumb(ctx, tt.object, key, intent, nil); !errors.Is(err, tt.wantErr) {
				t.Fatalf("settleThumb = %v, want %v", err, tt.wantErr)
			}
			if e.stored(key) != tt.kept {
				t.Errorf("thumbnail stored = %v, want %v", e.stored(key), tt.kept)
			}
			if got := e.intents(); len(got) != 0 {
				t.Errorf("intents left: %v", got)
			}
		})
	}
}
