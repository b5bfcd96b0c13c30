// Package storagetest gives tests a fresh store on each backend: a local
// folder always, and a bucket of its own on the S3 server named by
// FOLIO_TEST_S3_ENDPOINT (docs/testing.md#s3), removed with all it holds
// when the test ends.
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"testing"
	"time"

	"folio/storage"
)

// Backend makes a fresh, empty store for one test.
type Backend struct {
	Name string
	New  func(t testing.TB) storage.Store
}

// Backends are the stores every storage-facing test runs on.
func Backends() []Backend {
	return []Backend{
		{"local", func(t testing.TB) storage.Store { return Local(t) }},
		{"s3", func(t testing.TB) storage.Store { return S3(t) }},
	}
}

// Local is a store on a fresh temporary folder.
func Local(t testing.TB) *storage.Local {
	t.Helper()
	l, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// S3Config is the configuration of a new bucket on the test server. The
// test is skipped when no server is named, but fails under CI=true, where
// .ci/run starts one.
func S3Config(t testing.TB) storage.S3Config {
	t.Helper()
	ep := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FOLIO_TEST_S3_ENDPOINT is not set; .ci/run starts an S3 server for the S3 tests")
		}
		t.Skip("FOLIO_TEST_S3_ENDPOINT is not set (docs/testing.md#s3)")
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	return storage.S3Config{
		Endpoint: ep, Bucket: "folio-test-" + hex.EncodeToString(rnd[:]), Region: "us-east-1",
		AccessKey: envOr("FOLIO_TEST_S3_ACCESS_KEY", "folio-test"), SecretKey: envOr("FOLIO_TEST_S3_SECRET_KEY", "folio-test-secret-key"),
		PathStyle: true,
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// S3 is a store on a new bucket, emptied and deleted when the test ends.
func S3(t testing.TB) *storage.S3 {
	t.Helper()
	return S3With(t, S3Config(t))
}

// S3With is S3 on the bucket cfg names, which it creates.
func S3With(t testing.TB, cfg storage.S3Config) *storage.S3 {
	t.Helper()
	s, err := storage.NewS3(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatalf("create bucket %s: %v", cfg.Bucket, err)
	}
	t.Cleanup(func() { RemoveBucket(t, s) })
	return s
}

// RemoveBucket deletes every object and aborts every upload of the store
// (under its prefix), then deletes its bucket.
func RemoveBucket(t testing.TB, s *storage.S3) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var keys []string
	if err := s.List(ctx, func(key string, _ int64) error { keys = append(keys, key); return nil }); err != nil {
		t.Errorf("empty bucket: %v", err)
		return
	}
	for _, k := range keys {
		if err := s.Delete(ctx, k); err != nil {
			t.Errorf("empty bucket: %v", err)
		}
	}
	temps, err := s.Temps(ctx)
	if err != nil {
		t.Errorf("empty bucket: %v", err)
	}
	for _, tmp := range temps {
		if err := s.RemoveTemp(ctx, tmp.Name); err != nil {
			t.Errorf("empty bucket: %v", err)
		}
	}
	if err := s.DeleteBucket(ctx); err != nil {
		t.Errorf("delete bucket: %v", err)
	}
}

// ContentType is the Content-Type the bucket itself serves for key, read
// through a presigned URL (without Folio's own headers), as a CDN or a
// client that reads the bucket directly would see it; a missing object
// fails the test.
func ContentType(t testing.TB, s *storage.S3, key string) string {
	t.Helper()
	link, err := s.PresignGet(key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s in the bucket: %s", key, resp.Status)
	}
	return resp.Header.Get("Content-Type")
}
