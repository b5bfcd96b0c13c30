package filehost

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/storage"
)

// FuzzPathPattern: whatever the pattern, ValidatePathPattern never panics,
// and a pattern it accepts gives, for any content, extension and date, a
// key the store accepts, outside the store's, the thumbnails' and the
// resumable uploads' folders, that a real local store commits.
func FuzzPathPattern(f *testing.F) {
	for _, p := range []string{
		DefaultPathPattern,
		"{md5}.{ext}",
		"{year}/{month}/{day}/{timestamp}-{md5_8}-{md5}.{ext}",
		".tmp/{uuid}",
		".tmp/x/{uuid}.{ext}",
		strings.Repeat("{md5}", 16),
		strings.Repeat("a/", 600) + "{uuid}",
		"{md5}\x00",
		"thumbs/{uuid}",
		"tus/{uuid}",
		"{ext}/{uuid}",
		strings.Repeat("d/", 15) + "{uuid}",
		"v1.2/{md5}",
	} {
		f.Add(p, []byte("content"), "png", int64(1795000000))
	}
	store, err := storage.NewLocal(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, pattern string, content []byte, ext string, unix int64) {
		if ValidatePathPattern(pattern) != nil {
			return
		}
		// The values an upload can bring: any MD5, an extension as
		// nameExt or mimeExt give one, a date from 1970 to 9999.
		sum := md5.Sum(content)
		if ext = nameExt("x." + ext); ext == "" {
			ext = "bin"
		}
		const maxUnix = 253402300799 // 9999-12-31T23:59:59Z
		if unix < 0 {
			unix = -(unix + 1)
		}
		now := time.Unix(unix%(maxUnix+1), 0)
		key := buildKey(pattern, now, hex.EncodeToString(sum[:]), ext)
		if err := storage.CheckKey(key); err != nil {
			t.Fatalf("accepted pattern %q gives refused key: %v", pattern, err)
		}
		first, _, nested := strings.Cut(key, "/")
		if strings.HasPrefix(first, ".") || nested && (strings.EqualFold(first, thumbDir) || strings.EqualFold(first, tusDir)) {
			t.Fatalf("accepted pattern %q gives key %q in a reserved folder", pattern, key)
		}
		w, err := store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "x")
		if err := w.Commit(key); err != nil {
			t.Fatalf("accepted pattern %q: Commit(%q): %v", pattern, key, err)
		}
		if err := store.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		// Keep the folder small: drop what this key created.
		if err := os.RemoveAll(filepath.Join(store.Root(), filepath.FromSlash(first))); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	})
}
