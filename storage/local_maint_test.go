package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"folio/storage"
)

// put stores content under key through the store's own writer.
func put(t *testing.T, s storage.Store, key, content string) {
	t.Helper()
	w, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(key); err != nil {
		t.Fatal(err)
	}
}

func TestListGivesEveryKeyButNotTemporaryContent(t *testing.T) {
	l, _ := newLocal(t)
	ctx := context.Background()
	put(t, l, "a.png", "aa")
	put(t, l, "2026/11/x/b.jpg", "bbb")
	put(t, l, "thumbs/c.jpg", "c")
	w, err := l.Begin(ctx) // in progress: not a key
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := w.Write([]byte("pending")); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	if err := l.List(ctx, func(key string, size int64) error {
		got[key] = size
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a.png": 2, "2026/11/x/b.jpg": 3, "thumbs/c.jpg": 1}
	if len(got) != len(want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("List[%q] = %d, want %d", k, got[k], n)
		}
	}
	stop := errors.New("stop")
	if err := l.List(ctx, func(string, int64) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("List with a failing callback = %v, want it passed on", err)
	}
}

func TestTempsCarryTheWritersInstance(t *testing.T) {
	l, root := newLocal(t)
	ctx := context.Background()
	tagged, err := l.WithInstance("0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee")
	if err != nil {
		t.Fatal(err)
	}
	w1, err := tagged.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Abort()
	w2, err := l.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Abort()
	temps, err := l.Temps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(temps, func(i, j int) bool { return temps[i].Instance > temps[j].Instance })
	if len(temps) != 2 || temps[0].Instance != "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee" || temps[1].Instance != "" {
		t.Fatalf("Temps = %+v, want one tagged and one untagged", temps)
	}
	if !strings.HasPrefix(temps[0].Name, "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee-up-") || temps[0].ModTime.IsZero() {
		t.Errorf("tagged temp = %+v", temps[0])
	}
	for _, tmp := range temps {
		if err := l.RemoveTemp(ctx, tmp.Name); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(root, ".tmp")); len(left) != 0 {
		t.Errorf("temporary files left after RemoveTemp: %v", left)
	}
	if err := l.RemoveTemp(ctx, temps[0].Name); err != nil {
		t.Errorf("RemoveTemp of a missing file = %v, want nil", err)
	}
	for _, bad := range []string{"", "..", "../a.png", "a/b"} {
		if err := l.RemoveTemp(ctx, bad); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("RemoveTemp(%q) = %v, want ErrInvalidKey", bad, err)
		}
	}
	if _, err := l.WithInstance("a/b"); err == nil {
		t.Error("WithInstance accepted a slash")
	}
}
