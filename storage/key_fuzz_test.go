package storage

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidKey: whatever the key, the rule never panics, and a key it
// accepts (for reading, and all the more for writing) names a path inside
// the root, outside the temporary folder, with nothing cleaned away.
// A key accepted for writing also keeps every limit of CheckKey.
func FuzzValidKey(f *testing.F) {
	for _, seed := range []string{
		"2026/11/0cc175b9/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.png",
		"thumbs/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jpg",
		".tmp/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
		".TMP/x",
		"a/../../etc/passwd",
		"/etc/passwd",
		`C:\x`,
		"0cc175b9c0f1b6a831c399e269772661\x00",
		strings.Repeat("0cc175b9c0f1b6a831c399e269772661", 16),
		strings.Repeat("a/", 600) + "x",
		"a/./b",
		"a//b",
		"\xff/x",
	} {
		f.Add(seed)
	}
	root := filepath.Join(f.TempDir(), "root")
	l := &Local{root: root}
	f.Fuzz(func(t *testing.T, key string) {
		strict := CheckKey(key)
		if (strict == nil) != ValidKey(key) {
			t.Fatalf("ValidKey(%q) disagrees with CheckKey: %v", key, strict)
		}
		place := checkPlace(key)
		if strict == nil && place != nil {
			t.Fatalf("CheckKey accepts %q but checkPlace refuses it: %v", key, place)
		}
		if place != nil {
			return
		}
		p, err := l.path(key)
		if err != nil {
			t.Fatalf("path(%q): %v", key, err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			t.Fatalf("key %q maps to %q, outside the root", key, p)
		}
		if rel != filepath.FromSlash(key) {
			t.Fatalf("key %q maps to %q: the path was cleaned", key, rel)
		}
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if strings.EqualFold(first, tmpDir) {
			t.Fatalf("key %q maps into the temporary folder", key)
		}
		if strict != nil {
			return
		}
		segs := strings.Split(key, "/")
		if len(key) > MaxKeyLen || len(segs) > MaxKeyDepth || !utf8.ValidString(key) {
			t.Fatalf("CheckKey accepts %q beyond the limits", key)
		}
		for _, s := range segs {
			if len(s) > MaxNameLen {
				t.Fatalf("CheckKey accepts %q with a name of %d bytes", key, len(s))
			}
		}
		for _, r := range key {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("CheckKey accepts %q with control character %U", key, r)
			}
		}
	})
}
