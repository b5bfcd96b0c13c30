package main

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/sqlstore/sqlstoretest"
)

// unixClient is an HTTP client whose every request goes to the socket at
// path.
func unixClient(path string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}}}
}

// server.addr = unix:PATH: the socket gets server.socket_mode, one left
// behind by a process that is gone is replaced, a live one or a file that
// is not a socket is refused, and closing removes it.
func TestListenOnAUnixSocket(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "folio.sock")

	ln, err := listen("unix:"+path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if got := listenerAddr(ln); got != "unix:"+path {
		t.Errorf("listenerAddr = %q", got)
	}
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Type() != fs.ModeSocket || st.Mode().Perm() != 0o640 {
		t.Errorf("socket file mode %v, want a socket with 0640", st.Mode())
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })}
	go srv.Serve(ln)
	res, err := unixClient(path).Get("http://folio/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	// A second Folio on the same socket is refused, and the first keeps it.
	if _, err := listen("unix:"+path, 0o660); err == nil || !strings.Contains(err.Error(), "another process is listening") {
		t.Errorf("second listen on a live socket: %v", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the live socket was removed: %v", err)
	}
	srv.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket is still there after close: %v", err)
	}

	// A socket whose process died without removing it.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("no stale socket to test with: %v", err)
	}
	ln, err = listen("unix:"+path, 0o660)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	ln.Close()

	// Anything else at the path is left alone.
	if err := os.WriteFile(path, []byte("notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listen("unix:"+path, 0o660); err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("listen over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "notes" {
		t.Errorf("the regular file was changed: %q", b)
	}
}

// The real binary serves on a Unix socket: the proxy's X-Forwarded-For is
// believed (the access log line names the client it gives), and a clean
// stop removes the socket.
func TestBinaryServesOnAUnixSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "folio")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sock := filepath.Join(dir, "folio.sock")
	db := sqlstoretest.NewConfig(t)
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FOLIO_SERVER_ADDR=unix:"+sock, "FOLIO_SERVER_SOCKET_MODE=0666",
		"FOLIO_DATABASE_DRIVER="+db.Driver, "FOLIO_DATABASE_DSN="+db.DSN, "FOLIO_LOG_LEVEL=info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logText strings.Builder
	logged := func() string { mu.Lock(); defer mu.Unlock(); return logText.String() }
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logText.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "msg=ready ") {
				close(ready)
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("folio exited early: %v\n%s", err, logged())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("folio did not become ready:\n%s", logged())
	}
	if want := "msg=ready addr=unix:" + sock + " "; !strings.Contains(logged(), want) {
		t.Errorf("ready line lacks %q:\n%s", want, logged())
	}
	st, err := os.Lstat(sock)
	if err != nil || st.Mode().Perm() != 0o666 {
		t.Errorf("socket: %v, %v; want mode 0666", st, err)
	}
	req, _ := http.NewRequest("GET", "http://folio.test/api/v1/health", nil)
	req.Header.Set("X-Forwarded-For", "198.51.100.9")
	res, err := unixClient(sock).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("health over the socket: %d", res.StatusCode)
	}
	for i := 0; !strings.Contains(logged(), "path=/api/v1/health"); i++ {
		if i == 100 {
			t.Fatalf("no access line for the request:\n%s", logged())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logged(), "ip=198.51.100.9") {
		t.Errorf("the access line does not name the forwarded client:\n%s", logged())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		t.Fatal("folio did not stop after SIGTERM")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket is still there after a clean stop: %v", err)
	}
}
