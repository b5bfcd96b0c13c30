package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

func TestChangesAreSharedByEveryHandleOfOneDatabase(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	a, b := sharedTestDB(t, cfg), sharedTestDB(t, cfg)
	if a.Changes().ID() != b.Changes().ID() {
		t.Fatalf("ids differ: %s and %s", a.Changes().ID(), b.Changes().ID())
	}
	ca, cb := a.Changes().Counter("posts"), b.Changes().Counter("posts")
	before := cb.Load()
	ca.Bump()
	if got := cb.Load(); got != before+1 {
		t.Fatalf("other handle's counter = %d after a bump, want %d", got, before+1)
	}
	other := b.Changes().Counter("settings")
	before = other.Load()
	a.Changes().BumpAll()
	if other.Load() == before {
		t.Fatal("BumpAll left a counter as it was")
	}
	// Another database has counters of its own.
	c := sharedTestDB(t, sqlstoretest.NewConfig(t))
	if c.Changes().ID() == a.Changes().ID() {
		t.Fatal("two databases share a changes file")
	}
}

func TestChangesAreLocalOnlyWhereTheyCanSeeEveryProcess(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	db := cfg.Open(t)
	sqlite := db.Dialect() == sqlstore.SQLite
	if got := db.Changes().Local(); got != sqlite {
		t.Fatalf("fresh handle: Local = %v, want %v (SQLite only)", got, sqlite)
	}
	if sqlite {
		return
	}
	if err := db.ShareChanges(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := db.Changes()
	if ch.Local() {
		t.Fatal("shared but unconfirmed counters are Local")
	}
	ch.ConfirmShared(time.Now().Add(time.Hour))
	if !ch.Local() {
		t.Fatal("confirmed counters are not Local")
	}
	ch.RevokeShared()
	if ch.Local() {
		t.Fatal("revoked counters are Local")
	}
	// A confirmation from long ago has lapsed.
	ch.ConfirmShared(time.Now().Add(-sqlstore.ScopeValid))
	if ch.Local() {
		t.Fatal("a lapsed confirmation is Local")
	}
	db.Changes().Counter("x")
	if err := db.ShareChanges(context.Background()); err == nil {
		t.Fatal("ShareChanges after a counter was taken: no error")
	}
}

func TestChangesFileThatIsNotOursIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "folio.db")
	for name, content := range map[string]string{
		"empty":     "",
		"short":     "FOLIOCH1",
		"foreign":   strings.Repeat("x", 64*64),
		"truncated": "FOLIOCH1" + strings.Repeat("\x00", 100),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path+".changes", []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := sqlstore.Open(context.Background(), "sqlite", path)
			if err == nil || !strings.Contains(err.Error(), "not a Folio changes file") {
				t.Fatalf("Open = %v, want the changes file refused by name", err)
			}
		})
	}
}
