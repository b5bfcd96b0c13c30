package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a writer tests can read while the log writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestAsyncLogLosesNoLineAndKeepsEachWritersOrder(t *testing.T) {
	var out lockedBuffer
	logs := newAsyncLog(&out)
	logger := slog.New(logs.handler(slog.NewTextHandler(logs.out, nil))).With("app", "folio")
	const writers, lines = 8, 2 * logQueue / 8
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				logger.Info("request", "writer", w, "n", i)
			}
		}()
	}
	wg.Wait()
	logs.close()
	logger.Info("after close") // written at once, by its caller

	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != writers*lines+1 {
		t.Fatalf("%d lines written, want %d", len(got), writers*lines+1)
	}
	next := make([]int, writers)
	for _, line := range got[:len(got)-1] {
		var w, n int
		i := strings.Index(line, "app=folio writer=")
		if i < 0 {
			t.Fatalf("line without the logger's attributes: %q", line)
		}
		if _, err := fmt.Sscanf(line[i:], "app=folio writer=%d n=%d", &w, &n); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if n != next[w] {
			t.Fatalf("writer %d: line %d came where %d was due", w, n, next[w])
		}
		next[w]++
	}
	if !strings.Contains(got[len(got)-1], "after close") {
		t.Fatalf("last line %q, want the one logged after close", got[len(got)-1])
	}
}
