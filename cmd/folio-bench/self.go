package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// selfProcess is this very program run again as one of its hidden
// subcommands: a reference server (serve-plain, upload-ref) in a process
// of its own, as Folio is, so that the two are compared on equal terms.
type selfProcess struct {
	cmd  *exec.Cmd
	base string // http://address it printed
	done chan struct{}
}

// startSelf starts `folio-bench sub args…` and waits, at most 10 s, for
// the address it prints on the first line of its standard output.
func startSelf(sub string, args ...string) (*selfProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{sub}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &selfProcess{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- line
		io.Copy(io.Discard, out)
		cmd.Wait()
		close(p.done)
	}()
	select {
	case a := <-addr:
		if !strings.HasSuffix(a, "\n") {
			p.stop()
			return nil, fmt.Errorf("folio-bench %s exited at start-up", sub)
		}
		p.base = "http://" + strings.TrimSpace(a)
	case <-time.After(10 * time.Second):
		p.stop()
		return nil, fmt.Errorf("folio-bench %s did not start within 10 s", sub)
	}
	return p, nil
}

func (p *selfProcess) stop() { stopProcess(p.cmd, p.done, syscall.SIGTERM, 10*time.Second) }

// buildFolio returns bin, or when it is empty a folio binary built from
// ./cmd/folio into work.
func buildFolio(bin, work string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(work, "folio")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/folio").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build folio: %v: %s", err, out)
	}
	return bin, nil
}
