package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"strings"
	"time"

	"folio/storage"
)

// The backup archive (docs/backup.md): a gzip-compressed tar holding
//
//	database/folio.db   the SQLite snapshot (none for PostgreSQL)
//	files/<key>         every stored object, under its storage key
//	manifest.json       what the archive holds, with sizes and SHA-256
//
// The manifest comes last because the checksums are computed while the
// entries stream through, each read once; restore verifies everything
// before anything becomes visible, so the order costs no safety.
const (
	backupFormat        = "folio-backup"
	backupFormatVersion = 1
	backupManifestName  = "manifest.json"
	backupDatabaseName  = "database/folio.db"
	backupFilesPrefix   = "files/"
)

// backupManifest is manifest.json.
type backupManifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	FolioVersion  string    `json:"folio_version"`
	CreatedAt     time.Time `json:"created_at"`
	// DatabaseDriver is "sqlite" or "postgres"; Database is nil for
	// PostgreSQL, whose rows pg_dump saves.
	DatabaseDriver string               `json:"database_driver"`
	Database       *backupEntry         `json:"database"`
	Objects        []backupEntry        `json:"objects"`
	Missing        []backupMissingEntry `json:"missing"`
	ObjectBytes    int64                `json:"object_bytes"`
}

// backupEntry is one file of the archive.
type backupEntry struct {
	Name   string `json:"name"`
	Key    string `json:"key,omitempty"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// backupMissingEntry is an object the records point at whose bytes were
// gone when the backup copied them.
type backupMissingEntry struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// backupName checks an entry name of an archive being restored and returns
// the storage key of a files/ entry. Names that could reach outside the
// target (absolute, "..", backslashes) are refused as unsafe, any other
// name that is not one of the three kinds as unknown.
func backupName(name string) (key string, err error) {
	if name == backupManifestName || name == backupDatabaseName {
		return "", nil
	}
	if strings.HasPrefix(name, "/") || strings.ContainsRune(name, '\\') || !fs.ValidPath(name) {
		return "", fmt.Errorf("unsafe entry name %q", name)
	}
	key, ok := strings.CutPrefix(name, backupFilesPrefix)
	if !ok {
		return "", fmt.Errorf("unknown entry %q", name)
	}
	if err := storage.CheckKey(key); err != nil {
		return "", fmt.Errorf("entry %q: %w", name, err)
	}
	return key, nil
}

// hashWriter counts and hashes what passes through it.
type hashWriter struct {
	w    io.Writer
	h    hash.Hash
	size int64
}

func newHashWriter(w io.Writer) *hashWriter { return &hashWriter{w: w, h: sha256.New()} }

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.size += int64(n)
	return n, err
}

func (hw *hashWriter) sum() string { return hex.EncodeToString(hw.h.Sum(nil)) }

// writeBackupEntry streams size bytes of r into the archive as a regular
// file called name and returns its entry. Fewer bytes than size is an
// error: the content changed while it was copied.
func writeBackupEntry(tw *tar.Writer, name string, size int64, mtime time.Time, r io.Reader) (backupEntry, error) {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o600, ModTime: mtime.UTC().Truncate(time.Second)}
	if err := tw.WriteHeader(hdr); err != nil {
		return backupEntry{}, fmt.Errorf("write %s: %w", name, err)
	}
	hw := newHashWriter(tw)
	n, err := io.CopyN(hw, r, size)
	if errors.Is(err, io.EOF) {
		return backupEntry{}, fmt.Errorf("copy %s: %d of %d bytes: the content shrank while it was copied", name, n, size)
	}
	if err != nil {
		return backupEntry{}, fmt.Errorf("copy %s: %w", name, err)
	}
	return backupEntry{Name: name, Size: size, SHA256: hw.sum()}, nil
}
