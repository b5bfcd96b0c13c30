package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// tmpDir holds content being written. It lives inside the root so that
// Commit is a same-filesystem link, never a copy.
const tmpDir = ".tmp"

// Local keeps content as files under a root folder.
type Local struct {
	root string
	// instance tags the names of temporary files (see WithInstance).
	instance string
}

var _ Store = (*Local)(nil)

// localDriver is the row of the local driver: files in the folder
// storage.dir, which folio restore can fill.
func localDriver() Driver {
	return Driver{
		Name: "local", Where: "storage.dir", Folder: true, Restore: true,
		Open: func(cfg Config) (Store, error) {
			l, err := NewLocal(cfg.Dir)
			if err != nil {
				return nil, err
			}
			if cfg.Instance == "" {
				return l, nil
			}
			if l, err = l.WithInstance(cfg.Instance); err != nil {
				return nil, err
			}
			return l, nil
		},
	}
}

// NewLocal returns a store rooted at dir, creating it if missing.
func NewLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("storage: empty folder")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(abs, tmpDir), 0o750); err != nil {
		return nil, fmt.Errorf("storage: create folder: %w", err)
	}
	return &Local{root: abs}, nil
}

// Root is the folder the store writes under.
func (l *Local) Root() string { return l.root }

// Path is the file that holds the content under key, for a process that
// sends it itself (the proxy in front, docs/operating.md#nginx-sends-the-files).
// The key is checked as by Open; the file may not exist.
func (l *Local) Path(key string) (string, error) { return l.path(key) }

// path maps a key to its file. It checks only that the key stays in its
// place (checkPlace); Commit checks the whole rule first.
func (l *Local) path(key string) (string, error) {
	if err := checkPlace(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Begin creates a temporary file inside the root.
func (l *Local) Begin(ctx context.Context) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Join(l.root, tmpDir), tempPattern(l.instance))
	if err != nil {
		return nil, fmt.Errorf("storage: begin: %w", err)
	}
	return &localWriter{l: l, f: f}, nil
}

// Open opens the file under key; the Object is an *os.File.
func (l *Local) Open(ctx context.Context, key string) (Object, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		f.Close()
		return nil, ErrNotFound
	}
	return f, nil
}

// Stat describes the file under key.
func (l *Local) Stat(ctx context.Context, key string) (fs.FileInfo, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, ErrNotFound
	}
	return st, nil
}

// Delete removes the file under key. Empty parent folders are left alone:
// removing them would race with a concurrent Commit into the same folder.
func (l *Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: delete: %w", err)
	}
	return nil
}

type localWriter struct {
	l    *Local
	f    *os.File
	done bool // committed or aborted
}

func (w *localWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

// Commit syncs the temporary file and links it under key. A hard link
// fails when the key exists, so no content is ever replaced, and the
// name appears atomically with its full content.
func (w *localWriter) Commit(key string) error {
	if w.done {
		return errors.New("storage: commit after commit or abort")
	}
	if err := CheckKey(key); err != nil {
		w.Abort() // a failed Commit leaves nothing behind, as the Store promises
		return err
	}
	dst, err := w.l.path(key)
	if err != nil {
		w.Abort()
		return err
	}
	tmp := w.f.Name()
	if err := w.f.Sync(); err != nil {
		w.Abort()
		return fmt.Errorf("storage: sync: %w", err)
	}
	if err := w.f.Close(); err != nil {
		w.done = true
		os.Remove(tmp)
		return fmt.Errorf("storage: close: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		w.done = true
		os.Remove(tmp)
		return fmt.Errorf("storage: create folder: %w", err)
	}
	err = os.Link(tmp, dst)
	w.done = true
	os.Remove(tmp)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return fmt.Errorf("storage: commit: %w", err)
	}
	syncDir(filepath.Dir(dst))
	return nil
}

// Abort removes the temporary file; after Commit it does nothing.
func (w *localWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if err := os.Remove(w.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: abort: %w", err)
	}
	return nil
}

// syncDir makes a new directory entry durable; failure only weakens
// durability after a crash, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
