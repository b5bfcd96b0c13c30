package main

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// Terminal echo is switched off with the termios ioctls directly: the
// standard library has no call for it and the project takes no module for
// two system calls.

func getTermios(fd uintptr) (*syscall.Termios, error) {
	var t syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); errno != 0 {
		return nil, errno
	}
	return &t, nil
}

func setTermios(fd uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := getTermios(f.Fd())
	return err == nil
}

// readWithoutEcho runs read with the terminal's echo off and puts the
// terminal back afterwards, also when an interrupt ends the process
// during the read: a shell left without echo looks broken.
func readWithoutEcho(f *os.File, read func() (string, error)) (string, error) {
	fd := f.Fd()
	old, err := getTermios(fd)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= syscall.ECHO
	if err := setTermios(fd, &quiet); err != nil {
		return "", err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			_ = setTermios(fd, old)
			os.Stderr.WriteString("\n")
			// Die of the signal as the process would have without us.
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		case <-done:
		}
	}()
	pw, err := read()
	close(done)
	signal.Stop(sigs)
	if rerr := setTermios(fd, old); err == nil {
		err = rerr
	}
	return pw, err
}
