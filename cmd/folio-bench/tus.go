package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tusBench uploads one file of -size MiB through the resumable upload
// routes in chunks of -chunk MiB, and another of the same size through
// /api/v1/upload on the same server (another, so that deduplication does
// not favour the second), and prints the throughput of each and their
// ratio.
func tusBench(args []string) error {
	fs := flag.NewFlagSet("tus", flag.ExitOnError)
	sizeMiB := fs.Int("size", 256, "file size in MiB")
	chunkMiB := fs.Int("chunk", 32, "tus chunk size in MiB")
	fs.Parse(args)
	if *sizeMiB < 1 || *chunkMiB < 1 {
		return errors.New("-size and -chunk must be at least 1")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-bench-tus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	size := int64(*sizeMiB) << 20
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	for _, p := range []string{a, b} {
		if err := writeRandom(p, size); err != nil {
			return err
		}
	}
	base, token, stop, err := benchServer(ctx, dir, size+1<<20)
	if err != nil {
		return err
	}
	defer stop()

	upTime, body, err := upload(base+"/api/v1/upload", token, b)
	if err != nil {
		return err
	}
	if !strings.Contains(body, `"status":true`) {
		return fmt.Errorf("upload failed: %s", body)
	}
	tusTime, err := tusUploadFile(base, token, a, int64(*chunkMiB)<<20)
	if err != nil {
		return err
	}
	mb := float64(*sizeMiB)
	fmt.Printf("file: %d MiB, tus chunks of %d MiB\n", *sizeMiB, *chunkMiB)
	fmt.Printf("/api/v1/upload: %7.3fs  %7.1f MiB/s\n", upTime.Seconds(), mb/upTime.Seconds())
	fmt.Printf("tus:            %7.3fs  %7.1f MiB/s  (ratio %.2f of /api/v1/upload)\n", tusTime.Seconds(), mb/tusTime.Seconds(),
		upTime.Seconds()/tusTime.Seconds())
	return nil
}

// tusUploadFile creates an upload of the file and sends it in chunks,
// then reads the result, as a tus client does; it returns the time taken.
func tusUploadFile(base, token, path string, chunk int64) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	do := func(method, url string, body io.Reader, length int64, headers ...string) (*http.Response, error) {
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			return nil, err
		}
		req.ContentLength = length
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Tus-Resumable", "1.0.0")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp, nil
	}
	start := time.Now()
	resp, err := do("POST", base+"/api/v1/tus/", nil, 0, "Upload-Length", strconv.FormatInt(st.Size(), 10),
		"Upload-Metadata", "filename aW5wdXQuYmlu")
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusCreated {
		return 0, fmt.Errorf("tus create: %s", resp.Status)
	}
	loc := resp.Header.Get("Location")
	for off := int64(0); off < st.Size(); off += chunk {
		n := min(chunk, st.Size()-off)
		resp, err := do("PATCH", loc, io.NewSectionReader(f, off, n), n, "Content-Type", "application/offset+octet-stream",
			"Upload-Offset", strconv.FormatInt(off, 10))
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusNoContent {
			return 0, fmt.Errorf("tus PATCH at %d: %s", off, resp.Status)
		}
	}
	resp, err = do("GET", loc, nil, 0)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("tus result: %s", resp.Status)
	}
	return time.Since(start), nil
}
