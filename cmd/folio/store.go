package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"folio/storage"
)

// openStore builds the store the configuration names (storage.driver),
// for serve, backup and fsck alike. instance, when not empty, tags its
// temporary uploads (storage.Local.WithInstance). It makes no request; a
// server checks the bucket with checkBucket.
func openStore(cfg *Config, instance string) (storage.Store, error) {
	if cfg.StorageDriver == "s3" {
		s, err := storage.NewS3(cfg.S3, nil)
		if err != nil {
			return nil, err
		}
		if instance != "" {
			s = s.WithInstance(instance)
		}
		return s, nil
	}
	l, err := storage.NewLocal(cfg.StorageDir)
	if err != nil || instance == "" {
		return l, err
	}
	return l.WithInstance(instance)
}

// checkBucket makes sure, before anything is served, that the bucket is
// there and takes the credentials; a local folder was checked by NewLocal.
func checkBucket(ctx context.Context, store storage.Store) error {
	s, ok := store.(*storage.S3)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return s.Check(ctx)
}

// checkLocalFolder refuses a storage.dir that is missing, so that a wrong
// path is not taken for an empty site; the bucket is checked by Check.
func checkLocalFolder(cfg *Config) error {
	if cfg.StorageDriver == "s3" {
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
