package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// maxSocketPath is the longest path a Unix domain socket may have on
// Linux: sun_path holds 108 bytes, the last a NUL.
const maxSocketPath = 107

// checkSocketPath says what is wrong with path as server.addr's unix:PATH.
func checkSocketPath(path string) error {
	switch {
	case path == "":
		return errors.New("unix: needs the socket's path, e.g. unix:/run/folio/folio.sock")
	case len(path) > maxSocketPath:
		return fmt.Errorf("the socket's path is %d bytes long; a Unix domain socket's may be %d at most", len(path), maxSocketPath)
	case strings.HasSuffix(path, "/"):
		return errors.New("the socket's path names a folder, not a file")
	}
	return nil
}

// listen binds addr: host:port over TCP, or unix:PATH, a Unix domain
// socket, for a proxy on the same host (docs/operating.md#a-unix-socket).
// The socket file gets mode; one left by a Folio that did not stop cleanly
// is replaced, one another process still answers on is not. Closing the
// listener removes the file.
func listen(addr string, mode os.FileMode) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix:")
	if !ok {
		return net.Listen("tcp", addr)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket mode: %w", err)
	}
	return ln, nil
}

// removeStaleSocket removes the socket at path when nothing listens on it
// any more. Anything else there, a live socket or a file that is not a
// socket, is an error: Folio never removes what it cannot tell is its own.
func removeStaleSocket(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; remove it or choose another path", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s: another process is listening on it", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%s: cannot tell whether the socket is stale: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the stale socket: %w", err)
	}
	return nil
}

// listenerAddr is ln's address as server.addr would name it: host:port,
// or unix:PATH.
func listenerAddr(ln net.Listener) string {
	if a := ln.Addr(); a.Network() == "unix" {
		return "unix:" + a.String()
	}
	return ln.Addr().String()
}
