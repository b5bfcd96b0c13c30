package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the terminal end a program reads, and
// the end that types into it and sees what the terminal echoes.
func openPTY(t *testing.T) (term, keyboard *os.File) {
	t.Helper()
	keyboard, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { keyboard.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, keyboard.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock pty: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, keyboard.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pty number: %v", errno)
	}
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	return term, keyboard
}

// promptWatch is a prompt writer that says when a prompt was written.
type promptWatch struct {
	mu      sync.Mutex
	b       bytes.Buffer
	prompts chan string
}

func (p *promptWatch) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := string(b); strings.HasSuffix(s, ": ") {
		p.prompts <- s
	}
	return p.b.Write(b)
}

func TestPasswordIsReadFromATerminalWithoutEcho(t *testing.T) {
	term, keyboard := openPTY(t)
	if !isTerminal(term) {
		t.Fatal("a pty is not taken for a terminal")
	}
	var screen bytes.Buffer
	screenDone := make(chan struct{})
	go func() {
		defer close(screenDone)
		buf := make([]byte, 256)
		for {
			n, err := keyboard.Read(buf)
			screen.Write(buf[:n])
			if err != nil || strings.Contains(screen.String(), "echoed again") {
				return
			}
		}
	}()
	prompt := &promptWatch{prompts: make(chan string, 2)}
	type result struct {
		pw  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		pw, err := readNewPassword(term, prompt)
		done <- result{pw, err}
	}()
	for _, want := range []string{"New password: ", "Repeat it: "} {
		select {
		case got := <-prompt.prompts:
			if got != want {
				t.Fatalf("prompt %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no prompt %q", want)
		}
		if _, err := keyboard.WriteString("s3cret words\n"); err != nil {
			t.Fatal(err)
		}
	}
	r := <-done
	if r.err != nil || r.pw != "s3cret words" {
		t.Fatalf("read %q, %v", r.pw, r.err)
	}
	// Echo is back: what is typed now shows.
	if _, err := keyboard.WriteString("echoed again\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-screenDone:
	case <-time.After(10 * time.Second):
		t.Fatalf("echo not restored; the terminal showed %q", screen.String())
	}
	if strings.Contains(screen.String(), "s3cret") {
		t.Errorf("the password was echoed: %q", screen.String())
	}
}

func TestTerminalPasswordsMustMatch(t *testing.T) {
	term, keyboard := openPTY(t)
	go func() { // the terminal echoes nothing, but its output must be drained
		buf := make([]byte, 256)
		for {
			if _, err := keyboard.Read(buf); err != nil {
				return
			}
		}
	}()
	prompt := &promptWatch{prompts: make(chan string, 2)}
	done := make(chan error, 1)
	go func() {
		_, err := readNewPassword(term, prompt)
		done <- err
	}()
	for _, typed := range []string{"first password\n", "second password\n"} {
		<-prompt.prompts
		keyboard.WriteString(typed)
	}
	if err := <-done; err == nil || err.Error() != "the two passwords differ" {
		t.Fatalf("err = %v", err)
	}
}
