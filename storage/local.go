package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// tmpDir holds content being written. It lives inside the root so that
// Commit is a same-filesystem link, never a copy.
const tmpDir = ".tmp"

// Local keeps content as files under a root folder.
type Local struct {
	root string
	// instance tags the names of temporary files (see WithInstance).
	instance string
	// dirs remembers folders whose own entry is known durable, so that
	// Commit syncs a parent folder only when a folder is new to it. Nil
	// means nothing is remembered: every level is synced.
	dirs *durableDirs
	// syncDir fsyncs a folder; tests replace it to see which folders a
	// Commit makes durable (export_test.go).
	syncDir func(dir string)
	// syncs lets concurrent Commits share the fsync of a folder; nil
	// means each syncs on its own.
	syncs *dirSyncs
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
	return &Local{root: abs, dirs: &durableDirs{}, syncDir: syncDir, syncs: &dirSyncs{}}, nil
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
	dir := filepath.Dir(dst)
	if err := w.l.ensureDir(dir); err != nil {
		w.done = true
		os.Remove(tmp)
		return err
	}
	err = os.Link(tmp, dst)
	if errors.Is(err, fs.ErrNotExist) {
		// A remembered folder was removed behind the store's back.
		w.l.dirs.forget(w.l.root, dir)
		if err = w.l.ensureDir(dir); err == nil {
			err = os.Link(tmp, dst)
		}
	}
	w.done = true
	os.Remove(tmp)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return fmt.Errorf("storage: commit: %w", err)
	}
	w.l.sync(dir)
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

// sync makes the entries made in dir so far durable, with an fsync of
// dir shared with concurrent callers (dirSyncs).
func (l *Local) sync(dir string) {
	do := l.syncDir
	if do == nil {
		do = syncDir
	}
	if l.syncs == nil {
		do(dir)
		return
	}
	l.syncs.sync(dir, do)
}

// ensureDir creates dir and any missing folder above it, and makes each
// one's entry durable by syncing its parent before Commit links a file
// into it: a file synced into a folder whose own name is lost in a crash
// is lost with it. A folder found already there is synced into its parent
// too, once, because a concurrent Commit may have just created it and not
// yet synced the parent; after that it is remembered, so the usual cost is
// one mkdir and one parent sync for a new folder and nothing for a known
// one. The root itself is the operator's (NewLocal creates it).
func (l *Local) ensureDir(dir string) error {
	err := l.makeDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// A remembered folder above was removed behind the store's back.
		l.dirs.forget(l.root, dir)
		err = l.makeDir(dir)
	}
	return err
}

func (l *Local) makeDir(dir string) error {
	if dir == l.root || l.dirs.has(dir) {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent == dir || !strings.HasPrefix(dir, l.root) {
		return fmt.Errorf("storage: create folder: %s is outside the store", dir)
	}
	if err := l.makeDir(parent); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("storage: create folder: %w", err)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("storage: create folder: %s exists and is not a folder", dir)
		}
	}
	l.sync(parent)
	l.dirs.add(dir)
	return nil
}

// maxDurableDirs bounds the memory of durableDirs; forgetting costs one
// extra parent sync the next time a forgotten folder is used.
const maxDurableDirs = 4096

// durableDirs is a bounded set of folders whose entries were synced into
// their parents by this process. A folder removed behind the store's back
// stays in the set; Commit then fails to link into it and forgets it.
type durableDirs struct {
	mu    sync.Mutex
	known map[string]struct{}
}

func (d *durableDirs) has(dir string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.known[dir]
	return ok
}

func (d *durableDirs) add(dir string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.known == nil || len(d.known) >= maxDurableDirs {
		d.known = make(map[string]struct{})
	}
	d.known[dir] = struct{}{}
}

// forget drops dir and the folders above it up to the root, so that the
// next ensureDir checks and, if need be, recreates each of them.
func (d *durableDirs) forget(root, dir string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for ; dir != root && len(dir) > len(root); dir = filepath.Dir(dir) {
		delete(d.known, dir)
	}
}
