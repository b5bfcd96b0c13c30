package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"folio/storage"
)

// storageConfig is what the store is opened from; instance, when not
// empty, tags its temporary uploads (storage.Local.WithInstance).
func (c *Config) storageConfig(instance string) storage.Config {
	return storage.Config{Driver: c.StorageDriver, Dir: c.StorageDir, S3: c.S3, Instance: instance}
}

// storageDriver is the row of the driver the configuration names
// (storage.driver), which LoadConfig checked; the zero row, which can do
// nothing, for a name the table does not hold.
func storageDriver(cfg *Config) storage.Driver {
	d, _ := storage.Lookup(cfg.StorageDriver)
	return d
}

// openStore builds the store the configuration names (storage.driver),
// for serve, backup and fsck alike. instance, when not empty, tags its
// temporary uploads (storage.Local.WithInstance). It makes no request; a
// server checks the bucket with checkBucket.
func openStore(cfg *Config, instance string) (storage.Store, error) {
	return storage.Open(cfg.storageConfig(instance))
}

// checkBucket makes sure, before anything is served, that the bucket is
// there and takes the credentials; a local folder was checked by NewLocal.
func checkBucket(ctx context.Context, store storage.Store) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return storage.Check(ctx, store)
}

// checkLocalFolder refuses a storage.dir that is missing, so that a wrong
// path is not taken for an empty site; the bucket is checked by Check.
func checkLocalFolder(cfg *Config) error {
	if !storageDriver(cfg).Folder {
		return nil
	}
	st, err := os.Stat(cfg.StorageDir)
	if err != nil {
		return fmt.Errorf("storage folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("storage folder %s is not a folder", cfg.StorageDir)
	}
	return nil
}

// storeRedirects says whether the file host answers GETs with a presigned
// URL (storage.s3.redirect on a driver that can).
func storeRedirects(cfg *Config) bool {
	d := storageDriver(cfg)
	return d.Redirect != nil && d.Redirect(cfg.storageConfig(""))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// storageDriverNames are the values storage.driver takes, in the table's
// order.
func storageDriverNames() []string {
	var names []string
	for _, d := range storage.Drivers() {
		names = append(names, d.Name)
	}
	return names
}

// storageDriverHelp lists the drivers with where each keeps files, for the
// help of storage.driver: "local (storage.dir) or s3 (storage.s3.*)".
func storageDriverHelp() string {
	var names []string
	for _, d := range storage.Drivers() {
		names = append(names, d.Name+" ("+d.Where+")")
	}
	return orList(names)
}
