package storage

import (
	"context"
	"fmt"
	"strings"
)

// Config is what a store is opened from: the storage.* settings, which
// cmd/folio reads, and the tag of the process that writes.
type Config struct {
	// Driver names a row of Drivers.
	Driver string
	// Dir is the folder of the local driver (storage.dir).
	Dir string
	// S3 is the bucket of the s3 driver (storage.s3.*).
	S3 S3Config
	// Instance, when not empty, tags the temporary uploads of the store
	// (Local.WithInstance, S3.WithInstance).
	Instance string
}

// Driver is one row of the driver table: how to open a store from a Config
// and what the store can do, so that the wiring asks the row instead of
// comparing driver names.
type Driver struct {
	// Name is the value of storage.driver that picks the row.
	Name string
	// Where names the settings that say where the driver keeps files, for
	// help texts ("storage.dir").
	Where string
	// Validate checks the driver's own settings without making a request,
	// naming the keys at fault; nil when the driver has none to check.
	Validate func(Config) error
	// Open returns the store cfg names. It makes no request: Check does.
	Open func(cfg Config) (Store, error)
	// Folder says that the driver keeps files in the local folder cfg.Dir:
	// commands refuse a folder that is missing, which would look like an
	// empty site, and a backup is not written inside it.
	Folder bool
	// Restore says that folio restore can write into the store: it
	// extracts into a folder beside the files and renames them into place.
	Restore bool
	// Redirect says whether the file host answers GETs with a 302 to a
	// presigned URL, as cfg asks, instead of the bytes; nil: never.
	Redirect func(cfg Config) bool
}

// Drivers is the driver table, in the order help texts list them. Adding a
// driver means one file in this package (its store and its row) and one
// line here.
func Drivers() []Driver {
	return []Driver{
		localDriver(),
		s3Driver(),
	}
}

// Lookup is the row of the driver called name.
func Lookup(name string) (Driver, bool) {
	for _, d := range Drivers() {
		if d.Name == name {
			return d, true
		}
	}
	return Driver{}, false
}

// Open opens the store of the driver cfg names; it makes no request.
func Open(cfg Config) (Store, error) {
	d, ok := Lookup(cfg.Driver)
	if !ok {
		var names []string
		for _, d := range Drivers() {
			names = append(names, d.Name)
		}
		return nil, fmt.Errorf("storage: unknown driver %q (the drivers are %s)", cfg.Driver, strings.Join(names, ", "))
	}
	return d.Open(cfg)
}

// Check makes sure, before anything is served, that the backend of s is
// there and takes the credentials, for a store that has one to ask (a
// bucket: S3.Check); a local folder was checked when it was opened.
func Check(ctx context.Context, s Store) error {
	if c, ok := s.(interface{ Check(context.Context) error }); ok {
		return c.Check(ctx)
	}
	return nil
}
