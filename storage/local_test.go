package storage_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

func TestCheckKey(t *testing.T) {
	long := strings.Repeat("n", storage.MaxNameLen)
	deep := strings.Repeat("d/", storage.MaxKeyDepth-1) + "f"
	for _, tc := range []struct {
		key    string
		reason string // "" when valid; else a word of the KeyError's reason
	}{
		{"a.png", ""},
		{"2026/11/0cc175b9/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.png", ""},
		{"thumbs/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jpg", ""},
		{"..a/b", ""},
		{"a/.tmp/b", ""},
		{"图片/照片.png", ""},
		{long + "/" + long, ""},
		{deep, ""},
		{strings.Repeat(long[:254]+"/", 4) + "abcd", ""}, // 1024 bytes
		{"", "no name"},
		{"/etc/passwd", "leading slash"},
		{"../x", `".."`},
		{"a/../../x", `".."`},
		{"a/./x", `"."`},
		{"a//x", "empty"},
		{"a/", "empty"},
		{`a\..\x`, "backslash"},
		{"C:/x", "drive letter"},
		{"a\x00b", "control character"},
		{"a\x01b", "control character"},
		{"a\nb", "control character"},
		{"a\x7fb", "control character"},
		{"a\xffb", "not UTF-8"},
		{".tmp/up-1", ".tmp"},
		{".TMP/up-1", ".tmp"},
		{long + "n/x", "longer than 255 bytes"},
		{deep + "/f", "more than 16 names"},
		{strings.Repeat(long[:254]+"/", 4) + "abcde", "more than 1024 bytes"},
	} {
		err := storage.CheckKey(tc.key)
		if tc.reason == "" {
			if err != nil || !storage.ValidKey(tc.key) {
				t.Errorf("CheckKey(%.40q) = %v, want nil", tc.key, err)
			}
			continue
		}
		var ke *storage.KeyError
		if !errors.As(err, &ke) || !errors.Is(err, storage.ErrInvalidKey) || !strings.Contains(ke.Reason, tc.reason) {
			t.Errorf("CheckKey(%.40q) = %v, want a KeyError about %s", tc.key, err, tc.reason)
		}
		if storage.ValidKey(tc.key) {
			t.Errorf("ValidKey(%.40q) = true", tc.key)
		}
	}
}

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

func TestLocalOpensAnOSFileForSendfile(t *testing.T) {
	l, root := newLocal(t)
	put(t, l, "a/b/c.txt", "hello")
	if left := tempFiles(t, root); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	f, err := l.Open(context.Background(), "a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := f.(*os.File); !ok {
		t.Fatalf("Open returned %T, want *os.File for sendfile", f)
	}
}

func TestContentUnderAnOlderLooserKeyStaysReadableAndDeletable(t *testing.T) {
	l, root := newLocal(t)
	ctx := context.Background()
	// Keys an older version could write: too deep, or with a tab.
	for _, key := range []string{strings.Repeat("a/", storage.MaxKeyDepth) + "x", "a\tb/x"} {
		if storage.ValidKey(key) {
			t.Fatalf("%q is valid; the test needs a key only older versions wrote", key)
		}
		p := filepath.Join(root, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
			t.Fatal(err)
		}
		f, err := l.Open(ctx, key)
		if err != nil {
			t.Fatalf("Open(%q): %v", key, err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != "old" {
			t.Fatalf("Open(%q) read %q", key, b)
		}
		if _, err := l.Stat(ctx, key); err != nil {
			t.Fatalf("Stat(%q): %v", key, err)
		}
		if err := l.Delete(ctx, key); err != nil {
			t.Fatalf("Delete(%q): %v", key, err)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Delete(%q) left the file: %v", key, err)
		}
	}
}

// A Commit acknowledges content only once every name on its path is
// durable: the file is synced into its folder, and each folder the Commit
// creates (or meets for the first time, as a concurrent Commit may have
// just created it) is synced into its parent. Folders already made durable
// are not synced again.
func TestLocalCommitSyncsEachNewFolderIntoItsParent(t *testing.T) {
	l, root := newLocal(t)
	var synced []string
	storage.RecordDirSyncs(l, func(rel string) { synced = append(synced, rel) })
	for _, tc := range []struct {
		key     string
		premade string // a folder created behind the store's back first
		forget  bool   // as after a restart
		want    []string
	}{
		{key: "a.png", want: []string{"."}},
		{key: "2026/11/0cc175b9/x.png", want: []string{".", "2026", "2026/11", "2026/11/0cc175b9"}},
		{key: "2026/11/0cc175b9/y.png", want: []string{"2026/11/0cc175b9"}},
		{key: "2026/11/92eb5ffe/x.png", want: []string{"2026/11", "2026/11/92eb5ffe"}},
		{key: "2026/12/aa/x.png", premade: "2026/12", want: []string{"2026", "2026/12", "2026/12/aa"}},
		{key: "2026/11/0cc175b9/z.png", forget: true, want: []string{".", "2026", "2026/11", "2026/11/0cc175b9"}},
	} {
		if tc.premade != "" {
			if err := os.MkdirAll(filepath.Join(root, tc.premade), 0o750); err != nil {
				t.Fatal(err)
			}
		}
		if tc.forget {
			storage.ForgetDirs(l)
		}
		synced = nil
		put(t, l, tc.key, "content of "+tc.key)
		if strings.Join(synced, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Commit(%q) synced folders %q, want %q", tc.key, synced, tc.want)
		}
	}
}

// A folder the store remembers as made may be removed behind its back
// (an operator tidying up); Commit then makes it again instead of failing.
func TestLocalCommitRemakesARemovedFolder(t *testing.T) {
	l, root := newLocal(t)
	put(t, l, "2026/11/ab/x.png", "one")
	if err := os.RemoveAll(filepath.Join(root, "2026")); err != nil {
		t.Fatal(err)
	}
	put(t, l, "2026/11/ab/y.png", "two") // the folder of a known key
	if err := os.RemoveAll(filepath.Join(root, "2026")); err != nil {
		t.Fatal(err)
	}
	put(t, l, "2026/11/cd/z.png", "three") // a new folder in a known one
	if got := read(t, l, "2026/11/cd/z.png"); got != "three" {
		t.Fatalf("read back %q, want %q", got, "three")
	}
}
