package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Spool files are request bodies a process keeps on local disk while it
// works on them (a blog import), in the system's temporary folder. They
// are named "folio-spool-<instance>-<random>", so that after a crash the
// file host's janitor can tell whose they are: those of a process the
// registry judges dead are removed, as are any left unmodified for
// StaleSpool (docs/filehost.md#crash-consistency).
const spoolPrefix = "folio-spool-"

// StaleSpool is how long a spool file may stay unmodified before any
// janitor removes it, whoever wrote it: far longer than any request that
// writes one may run.
const StaleSpool = 24 * time.Hour

// Spool is a spool file found in a folder.
type Spool struct {
	Name     string // the file's name in the folder
	Instance string // the tag of the process that wrote it; "" untagged
	ModTime  time.Time
}

// CreateSpool creates a new spool file in dir ("": the system's temporary
// folder) tagged with instance (letters, digits and hyphens; "" untagged).
func CreateSpool(dir, instance string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if strings.Trim(instance, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
		return nil, fmt.Errorf("storage: instance tag %q must be letters, digits and hyphens", instance)
	}
	f, err := os.CreateTemp(dir, spoolPrefix+instance+"~*")
	if err != nil {
		return nil, fmt.Errorf("storage: spool file: %w", err)
	}
	return f, nil
}

// Spools lists the spool files of dir ("": the system's temporary folder).
func Spools(dir string) ([]Spool, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: list spool files: %w", err)
	}
	var out []Spool
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), spoolPrefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile by its writer
		}
		if err != nil {
			return nil, fmt.Errorf("storage: list spool files: %w", err)
		}
		instance, _, _ := strings.Cut(rest, "~")
		out = append(out, Spool{Name: e.Name(), Instance: instance, ModTime: info.ModTime()})
	}
	return out, nil
}

// RemoveSpool removes the spool file name of dir ("": the system's
// temporary folder); one already gone is not an error.
func RemoveSpool(dir, name string) error {
	if dir == "" {
		dir = os.TempDir()
	}
	if !strings.HasPrefix(name, spoolPrefix) || strings.ContainsAny(name, "/\\\x00") {
		return ErrInvalidKey
	}
	if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: remove spool file: %w", err)
	}
	return nil
}
