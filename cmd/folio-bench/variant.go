package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/jpeg"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/filehost"
	"folio/httpx"
	"folio/sqlstore"
	"folio/storage"
)

// variantBench uploads a JPEG to a file host in this process, then times
// the first request for one of its sizes (/i/{hash}?w=N: decode, resize,
// encode and store) and reports the peak resident memory of that request
// alone (VmHWM, reset after the upload):
//
//	go run ./cmd/folio-bench variant -in /tmp/12mp.jpg -w 1280
func variantBench(args []string) error {
	fs := flag.NewFlagSet("variant", flag.ExitOnError)
	in := fs.String("in", "", "the JPEG to make a size of (required)")
	width := fs.Int("w", 1280, "the width asked for")
	fs.Parse(args)
	if *in == "" {
		return errors.New("variant: -in names the JPEG")
	}
	src, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return fmt.Errorf("variant: %s: %w", *in, err)
	}
	dir, err := os.MkdirTemp("", "folio-bench-variant-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := sqlstore.Open(ctx, "sqlite", filepath.Join(dir, "folio.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.MigrateCore(ctx); err != nil {
		return err
	}
	reg := sqlstore.NewRegistry()
	settings := filehost.RegisterSettings(reg, filehost.DefaultUploadSettings())
	if err := reg.Open(ctx, db); err != nil {
		return err
	}
	hash, _ := bcrypt.GenerateFromPassword([]byte("bench password"), bcrypt.MinCost)
	authSvc, err := auth.New(ctx, db, auth.Config{AdminEnabled: true, AdminUsername: "admin",
		AdminPasswordHash: string(hash), BcryptCost: bcrypt.MinCost, Logger: logger})
	if err != nil {
		return err
	}
	store, err := storage.NewLocal(filepath.Join(dir, "files"))
	if err != nil {
		return err
	}
	fh, err := filehost.New(ctx, filehost.Deps{DB: db, Auth: authSvc, Settings: settings, Store: store, Logger: logger})
	if err != nil {
		return err
	}
	routes := httpx.NewRouter()
	fh.Routes(routes)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: httpx.Chain(routes, httpx.Proxies{Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}.Middleware),
		ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	token, _ := authSvc.NewAccessToken(authSvc.AdminID())

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", "photo.jpg")
	part.Write(src)
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/api/v1/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	up, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	i := strings.Index(string(up), `"md5":"`)
	if i < 0 {
		return fmt.Errorf("variant: upload failed: %s", up)
	}
	md5 := string(up[i+7 : i+7+32])

	// What the upload left is not the size's: give it back and start the
	// peak from here.
	src, body = nil, bytes.Buffer{}
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("variant: reset the peak RSS: %w", err)
	}
	start := time.Now()
	resp, err = http.Get(base + "/i/" + md5[:8] + "?w=" + strconv.Itoa(*width))
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("variant: %s", resp.Status)
	}
	got, err := jpeg.DecodeConfig(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("variant: the answer: %w", err)
	}
	fmt.Printf("folio: %dx%d JPEG to %dx%d: %.2f s, peak RSS %s (%d KB)\n",
		cfg.Width, cfg.Height, got.Width, got.Height, took.Seconds(), vmHWM(), len(out)/1000)
	return nil
}
