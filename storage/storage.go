// Package storage owns file bytes: a small interface for writing content
// from a stream, opening it for serving, and deleting it, and the drivers
// behind it, a local folder (local.go) and a bucket of an S3-compatible
// server (s3*.go). Keys are validated so that nothing can name a path
// outside the storage folder.
//
// The driver table (Drivers, driver.go) is the one place that knows the
// drivers: each row opens its store from a Config and says what it can do
// (serve by redirect, be restored into, keep files in a local folder), and
// Check asks a store's backend at start. Adding a driver means one file in
// this package (its store and its row) and one line in the table; the
// wiring in cmd/folio asks the table and does not change. Only a driver
// with settings of its own also adds their field to Config and their
// storage.<name>.* keys to the configuration of cmd/folio.
package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"
)

// Store holds content under slash-separated keys such as
// "2026/11/0cc175b9/0190….png".
type Store interface {
	// Begin starts writing new content. Nothing is visible under any key
	// until Commit; Abort (or a failed Commit) leaves nothing behind.
	Begin(ctx context.Context) (Writer, error)
	// Open opens the content under key for reading and seeking. On the local
	// store the Object is an *os.File, so http.ServeContent can sendfile it.
	Open(ctx context.Context, key string) (Object, error)
	// Stat describes the content under key.
	Stat(ctx context.Context, key string) (fs.FileInfo, error)
	// Delete removes the content under key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn with every stored key and its size, in no particular
	// order; content still being written is not listed. An error from fn
	// stops the walk and is returned.
	List(ctx context.Context, fn func(key string, size int64) error) error
	// Temps lists content being written (begun, neither committed nor
	// aborted), including what a crashed process left behind.
	Temps(ctx context.Context) ([]Temp, error)
	// RemoveTemp removes the temporary content named name (a Temp's Name);
	// a missing one is not an error.
	RemoveTemp(ctx context.Context, name string) error
}

// Temp is content being written, or left behind by a writer that died.
type Temp struct {
	Name string
	// Instance is the tag of the process that began it (see
	// Local.WithInstance); empty for content of writers without one.
	Instance string
	Size     int64
	ModTime  time.Time
}

// Writer receives new content.
type Writer interface {
	io.Writer
	// Commit makes the content durable and visible under key. A key that
	// already exists is an error (ErrExists).
	Commit(key string) error
	// Abort discards the content. It is safe after Commit (then a no-op).
	Abort() error
}

// SetContentType tells w the media type of the content it receives, for a
// store whose objects carry one (S3: the object's Content-Type, which
// presigned downloads and anything reading the bucket directly see). Call
// it before the first Write; stores without types ignore it.
func SetContentType(w Writer, mimetype string) {
	if t, ok := w.(interface{ setContentType(string) }); ok {
		t.setContentType(mimetype)
	}
}

// Object is stored content opened for reading.
type Object interface {
	io.ReadSeekCloser
	Stat() (fs.FileInfo, error)
}

var (
	// ErrNotFound: no content under that key.
	ErrNotFound = fs.ErrNotExist
	// ErrInvalidKey: the key breaks the key rule (CheckKey); the error is
	// a *KeyError saying how.
	ErrInvalidKey = errors.New("storage: invalid key")
	// ErrExists: Commit to a key that already holds content.
	ErrExists = fs.ErrExist
)
