package storage

import (
	"context"
	"net/http"
	"path/filepath"
	"time"
)

// OpenUploads lists the keys of the multipart uploads open anywhere in the
// store's bucket, temporary or final key alike, which Temps does not.
func OpenUploads(ctx context.Context, s *S3) ([]string, error) {
	var keys []string
	err := s.listUploads(ctx, "", func(key, _ string, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	return keys, err
}

// ContentType is the Content-Type the bucket keeps with the object under
// key, read by a HEAD.
func ContentType(ctx context.Context, s *S3, key string) (string, error) {
	h, err := s.doDiscard(ctx, http.MethodHead, s.cfg.Prefix+key, nil, nil, nil)
	if err != nil {
		return "", err
	}
	return h.Get("Content-Type"), nil
}

// RecordDirSyncs makes l report each folder it fsyncs to seen, as a path
// relative to its root ("." for the root), instead of only syncing it.
func RecordDirSyncs(l *Local, seen func(rel string)) {
	l.syncDir = func(dir string) {
		syncDir(dir)
		rel, err := filepath.Rel(l.root, dir)
		if err != nil {
			rel = dir
		}
		seen(filepath.ToSlash(rel))
	}
}

// ForgetDirs empties l's memory of durable folders, as a restart would.
func ForgetDirs(l *Local) { l.dirs = &durableDirs{} }
