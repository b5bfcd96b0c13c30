package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Temporary files are named "<instance>-up-<random>" (plain "up-<random>"
// without an instance), so that whoever cleans up after a crash can tell
// whose they are and leave alone those a live process is still writing
// (docs/filehost.md#crash-consistency).
const tempMark = "up-"

// WithInstance returns a store on the same folder whose temporary files
// carry the tag instance: cmd/folio passes the id under which the process
// is registered as alive. The tag is letters, digits and hyphens.
func (l *Local) WithInstance(instance string) (*Local, error) {
	if instance == "" || strings.Trim(instance, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
		return nil, fmt.Errorf("storage: instance tag %q must be letters, digits and hyphens", instance)
	}
	c := *l
	c.instance = instance
	return &c, nil
}

func tempPattern(instance string) string {
	if instance == "" {
		return tempMark + "*"
	}
	return instance + "-" + tempMark + "*"
}

// tempInstance reads the tag back from a temporary file's name.
func tempInstance(name string) string {
	if i := strings.LastIndex(name, "-"+tempMark); i > 0 {
		return name[:i]
	}
	return ""
}

// List walks the folder; the temporary folder is skipped. Files deleted
// during the walk are simply not listed.
func (l *Local) List(ctx context.Context, fn func(key string, size int64) error) error {
	err := filepath.WalkDir(l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != l.root {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(l.root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == tmpDir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel), info.Size())
	})
	if err != nil {
		return fmt.Errorf("storage: list: %w", err)
	}
	return nil
}

// Temps lists the files of the temporary folder.
func (l *Local) Temps(ctx context.Context) ([]Temp, error) {
	entries, err := os.ReadDir(filepath.Join(l.root, tmpDir))
	if err != nil {
		return nil, fmt.Errorf("storage: list temporary files: %w", err)
	}
	out := []Temp{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // committed or aborted meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("storage: list temporary files: %w", err)
		}
		out = append(out, Temp{Name: e.Name(), Instance: tempInstance(e.Name()), Size: info.Size(), ModTime: info.ModTime()})
	}
	return out, nil
}

// RemoveTemp removes one file of the temporary folder by name.
func (l *Local) RemoveTemp(ctx context.Context, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return ErrInvalidKey
	}
	if err := os.Remove(filepath.Join(l.root, tmpDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: remove temporary file: %w", err)
	}
	return nil
}
