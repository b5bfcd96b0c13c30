package storage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"folio/storage"
)

func newLocal(t *testing.T) (*storage.Local, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l, l.Root()
}

func TestValidKeyRejectsEscapes(t *testing.T) {
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"a.png", true},
		{"2026/11/0cc175b9/x.png", true},
		{"thumbs/x.jpg", true},
		{"..a/b", true},
		{"", false},
		{"/etc/passwd", false},
		{"../x", false},
		{"a/../../x", false},
		{"a/./x", false},
		{"a//x", false},
		{"a/", false},
		{`a\..\x`, false},
		{"C:/x", false},
		{"a\x00b", false},
		{".tmp/up-1", false},
	} {
		if got := storage.ValidKey(tc.key); got != tc.ok {
			t.Errorf("ValidKey(%q) = %v, want %v", tc.key, got, tc.ok)
		}
	}
}

func TestInvalidKeysAreRefusedEverywhere(t *testing.T) {
	l, _ := newLocal(t)
	ctx := context.Background()
	for _, key := range []string{"../escape", "/abs", `a\b`, ""} {
		if _, err := l.Open(ctx, key); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Open(%q) = %v", key, err)
		}
		if _, err := l.Stat(ctx, key); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Stat(%q) = %v", key, err)
		}
		if err := l.Delete(ctx, key); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v", key, err)
		}
		w, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(key); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Commit(%q) = %v", key, err)
		}
		w.Abort()
	}
}

// tempFiles lists what is left in the store's temp folder.
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, ".tmp"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestContentIsInvisibleUntilCommit(t *testing.T) {
	l, root := newLocal(t)
	ctx := context.Background()
	w, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "hello ")
	if _, err := l.Stat(ctx, "a/b/c.txt"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("stat before commit: %v", err)
	}
	io.WriteString(w, "world")
	if err := w.Commit("a/b/c.txt"); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("abort after commit: %v", err)
	}
	f, err := l.Open(ctx, "a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "hello world" {
		t.Fatalf("content %q", b)
	}
	if _, ok := f.(*os.File); !ok {
		t.Fatalf("Open returned %T, want *os.File for sendfile", f)
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestCommitRefusesAnExistingKey(t *testing.T) {
	l, root := newLocal(t)
	ctx := context.Background()
	put := func(content string) error {
		w, err := l.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
		return w.Commit("k/x")
	}
	if err := put("first"); err != nil {
		t.Fatal(err)
	}
	if err := put("second"); !errors.Is(err, storage.ErrExists) {
		t.Fatalf("second commit: %v, want ErrExists", err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "k", "x"))
	if string(b) != "first" {
		t.Fatalf("content replaced: %q", b)
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	l, root := newLocal(t)
	w, err := l.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "partial")
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit("x"); err == nil {
		t.Fatal("commit after abort succeeded")
	}
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	if _, err := l.Stat(context.Background(), "x"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("stat: %v", err)
	}
}

func TestDeleteIsIdempotent(t *testing.T) {
	l, _ := newLocal(t)
	ctx := context.Background()
	w, _ := l.Begin(ctx)
	io.WriteString(w, "x")
	if err := w.Commit("d/x"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := l.Delete(ctx, "d/x"); err != nil {
			t.Fatalf("delete %d: %v", i, err)
		}
	}
	if _, err := l.Open(ctx, "d/x"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("open after delete: %v", err)
	}
	if _, err := l.Open(ctx, "d"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("open of a folder: %v", err)
	}
}
