package filehost

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"folio/sqlstore"
)

// check runs Check and fails the test on an error.
func (e *testEnv) check(opt CheckOptions) Report {
	e.t.Helper()
	r, err := e.svc.Check(context.Background(), opt)
	if err != nil {
		e.t.Fatalf("Check(%+v): %v", opt, err)
	}
	return r
}

func TestCheckFindsNothingWrongAfterNormalUse(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	shared := pngBytes(t, 3, 3)
	a := mustUpload(t, alice, "a.png", shared)
	mustUpload(t, bob, "b.png", shared)
	mustUpload(t, bob, "c.png", pngBytes(t, 4, 3))
	alice.Do("GET", "/t/"+a.hash(), nil)
	r := e.check(CheckOptions{})
	if r.Problems != 0 || r.Remaining != 0 || r.Objects != 2 || r.StoredKeys != 3 {
		t.Fatalf("report = %+v, want no problems, 2 objects, 3 keys (2 and a thumbnail)", r)
	}
}

func TestCheckReportsAndFixesEachProblem(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	aliceID, alice := e.newUser("alice", 0)
	keep := mustUpload(t, alice, "keep.png", pngBytes(t, 3, 3))
	recount := mustUpload(t, alice, "recount.png", pngBytes(t, 4, 3))
	lost := mustUpload(t, alice, "lost.png", pngBytes(t, 5, 3))
	keepObject, keepKey := e.objectOf(keep.ID)
	recountObject, _ := e.objectOf(recount.ID)
	_, lostKey := e.objectOf(lost.ID)
	dead := e.deadInstance()

	e.place("2026/11/orphan.png", "orphan")                       // orphan bytes
	e.place(thumbKey(sqlstore.NewID(), true), "orphan thumbnail") // thumbnail of no object
	e.place(thumbKey(keepObject, true), "thumbnail")              // a thumbnail that belongs
	e.place("2026/11/uploading.png", "in flight")                 // covered by a live placement
	e.addIntent(opPlace, "2026/11/uploading.png", e.instance.ID, time.Second)
	e.place("2026/11/crashed.png", "crashed") // covered by a dead placement
	e.addIntent(opPlace, "2026/11/crashed.png", dead, time.Second)
	if err := e.store.Delete(ctx, lostKey); err != nil { // missing bytes
		t.Fatal(err)
	}
	if _, err := e.db.Exec(ctx, "UPDATE objects SET ref_count = 7 WHERE id = $1", recountObject); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Exec(ctx, "UPDATE users SET used_bytes = 12345, file_count = 9 WHERE id = $1", aliceID); err != nil {
		t.Fatal(err)
	}
	stale := e.tempFile(dead, time.Second)

	r := e.check(CheckOptions{})
	want := Report{Orphans: 2, Missing: 1, RefCountErrors: 1, UsageErrors: 1, Intents: 1, Temps: 1}
	if r.Orphans != want.Orphans || r.Missing != want.Missing || r.RefCountErrors != want.RefCountErrors ||
		r.UsageErrors != want.UsageErrors || r.Intents != want.Intents || r.Temps != want.Temps || r.InFlight != 1 ||
		r.Problems != 7 || r.Remaining != 7 || r.Fixed {
		t.Fatalf("report = %+v\nwant counts %+v, 1 in flight, 7 problems left", r, want)
	}
	if r.Details.Orphans[0].Key != "2026/11/orphan.png" || r.Details.Missing[0].Key != lostKey ||
		r.Details.Missing[0].Files != 1 || r.Details.RefCountErrors[0].RefCount != 7 || r.Details.RefCountErrors[0].Files != 1 ||
		r.Details.UsageErrors[0].FileCount != 9 || r.Details.UsageErrors[0].WantFileCount != 3 ||
		r.Details.Intents[0].Key != "2026/11/crashed.png" || r.Details.Temps[0].Name != stale {
		t.Errorf("details = %+v", r.Details)
	}
	// Without -fix nothing changed.
	if !e.stored("2026/11/orphan.png") || len(e.temps()) != 1 {
		t.Fatal("a check without fix changed the store")
	}

	r = e.check(CheckOptions{Fix: true})
	if !r.Fixed || r.MissingRefused || r.Remaining != 0 {
		t.Fatalf("fix report = %+v, want everything fixed", r)
	}
	for key, want := range map[string]bool{
		"2026/11/orphan.png":       false,
		"2026/11/crashed.png":      false,
		"2026/11/uploading.png":    true, // a live process's upload
		keepKey:                    true,
		thumbKey(keepObject, true): true,
	} {
		if e.stored(key) != want {
			t.Errorf("after fix, %s stored = %v, want %v", key, e.stored(key), want)
		}
	}
	if len(e.temps()) != 0 {
		t.Errorf("stale temps left: %v", e.temps())
	}
	// The missing upload's record went, and with it its usage.
	alice.Do("GET", lost.path(), nil).Expect(404)
	alice.Do("GET", keep.path(), nil).Expect(200)
	var refs int
	if err := e.db.QueryRow(ctx, "SELECT ref_count FROM objects WHERE id = $1", recountObject).Scan(&refs); err != nil || refs != 1 {
		t.Errorf("ref_count after fix = %d (%v), want 1", refs, err)
	}
	used, n := e.usage(aliceID)
	if n != 2 || used != keep.Size+recount.Size {
		t.Errorf("usage after fix = %d bytes, %d files; want %d, 2", used, n, keep.Size+recount.Size)
	}
	if r := e.check(CheckOptions{}); r.Problems != 0 || r.InFlight != 1 {
		t.Errorf("a check after the fix = %+v, want nothing wrong and the live upload in flight", r)
	}
}

func TestCheckRefusesToDropMostObjectsWithoutForce(t *testing.T) {
	for _, tt := range []struct {
		name        string
		lose        int // of 3 objects
		force       bool
		wantRefused bool
	}{
		{"a third missing", 1, false, false},
		{"two thirds missing", 2, false, true},
		{"two thirds missing, forced", 2, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			ctx := context.Background()
			aliceID, alice := e.newUser("alice", 0)
			var ids []string
			for i := 0; i < 3; i++ {
				ids = append(ids, mustUpload(t, alice, "f.png", pngBytes(t, 3+i, 3)).ID)
			}
			for _, id := range ids[:tt.lose] {
				_, key := e.objectOf(id)
				if err := os.Remove(filepath.Join(e.localRoot(), filepath.FromSlash(key))); err != nil {
					t.Fatal(err)
				}
			}
			r := e.check(CheckOptions{Fix: true, Force: tt.force})
			if r.Missing != tt.lose || r.MissingRefused != tt.wantRefused {
				t.Fatalf("report = %+v, want %d missing, refused %v", r, tt.lose, tt.wantRefused)
			}
			var files int
			if err := e.db.QueryRow(ctx, "SELECT COUNT(*) FROM files").Scan(&files); err != nil {
				t.Fatal(err)
			}
			_, n := e.usage(aliceID)
			if tt.wantRefused {
				if r.Remaining != tt.lose || files != 3 || n != 3 {
					t.Errorf("refused, yet records changed: remaining %d, %d files, count %d", r.Remaining, files, n)
				}
				return
			}
			if r.Remaining != 0 || files != 3-tt.lose || n != int64(3-tt.lose) {
				t.Errorf("after fix: remaining %d, %d files, count %d; want 0, %d", r.Remaining, files, n, 3-tt.lose)
			}
		})
	}
}

func TestCheckCopesWithFilesNoKeyCouldName(t *testing.T) {
	e := newTestEnv(t)
	aliceID, _ := e.newUser("alice", 0)
	// Put there by hand: a name with a backslash, which no key may have,
	// so the store can neither open nor delete it, and one that is not
	// UTF-8, which PostgreSQL cannot even compare with its rows.
	for _, name := range []string{"bad\\name", "bad\xffname"} {
		if err := os.WriteFile(filepath.Join(e.localRoot(), name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET file_count = 3 WHERE id = $1", aliceID); err != nil {
		t.Fatal(err)
	}
	r := e.check(CheckOptions{Fix: true})
	if r.Orphans != 2 || r.UsageErrors != 1 || r.Remaining != 1 {
		t.Fatalf("report = %+v, want both odd files and the usage found, the backslash one left", r)
	}
	if _, n := e.usage(aliceID); n != 0 {
		t.Errorf("file_count = %d after the fix, want 0", n)
	}
}
