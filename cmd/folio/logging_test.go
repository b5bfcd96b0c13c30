package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"folio/httpx"
)

// lockedBuffer is a writer tests can read while the log writes.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.b.Write(p)
}

func (w *lockedBuffer) Writes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
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

// A line after a quiet spell is written at once, not when the log is
// closed or the next line comes; a steady stream of lines is written a
// tick's worth at a time, not a write (and a wake-up) a line.
func TestAsyncLogWritesALoneLineAtOnceAndAStreamByTheTick(t *testing.T) {
	var out lockedBuffer
	logs := newAsyncLog(&out)
	defer logs.close()
	logger := slog.New(logs.handler(slog.NewTextHandler(logs.out, nil)))
	written := func(msg string) bool {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(out.String(), msg) {
				return true
			}
			time.Sleep(time.Millisecond)
		}
		return false
	}
	logger.Info("first")
	if !written("msg=first") {
		t.Fatal("a lone line was not written while the log stayed open")
	}
	time.Sleep(5 * logTick)
	logger.Info("second")
	if !written("msg=second") {
		t.Fatal("a line after a quiet spell was not written while the log stayed open")
	}

	time.Sleep(5 * logTick)
	before := out.Writes()
	const lines = 500
	start := time.Now()
	for i := range lines {
		logger.Info("stream", "n", i)
		time.Sleep(200 * time.Microsecond)
	}
	if !written(fmt.Sprintf("n=%d", lines-1)) {
		t.Fatal("the stream's last line was not written")
	}
	// At most a write a tick and a few more for full buffers, however
	// slowly this machine ran the stream; a write a line is ten times that.
	elapsed := time.Since(start)
	if writes, most := out.Writes()-before, 2*int(elapsed/logTick)+10; writes > most {
		t.Errorf("%d writes for %d lines in %v, want at most %d", writes, lines, elapsed.Round(time.Millisecond), most)
	}
}

// A stream of lines faster than a queue a tick is not held to that rate:
// the tick shortens, so a request waits for room in the queue for at most
// minLogTick, not logTick. In the bubble the clock moves only while the
// writer of the lines waits, for room, so the time the stream took is the
// time its requests would have waited.
func TestAsyncLogKeepsUpWithAStreamFasterThanAQueueATick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := newAsyncLog(io.Discard)
		logger := slog.New(logs.handler(slog.NewTextHandler(logs.out, nil)))
		const queues = 40
		start := time.Now()
		for i := range queues * logQueue {
			logger.Info("stream", "n", i)
		}
		waited := time.Since(start)
		logs.close()
		// A fixed tick waits a tick a queue: 400 ms. Shortening from logTick
		// by a quarter a full queue waits under 10+2.5+40×1 ms.
		if most := 6 * logTick; waited > most {
			t.Errorf("%d lines waited %v for room, want at most %v", queues*logQueue, waited, most)
		}
	})
}

func TestNextTick(t *testing.T) {
	for _, c := range []struct {
		tick    time.Duration
		waiting int
		want    time.Duration
	}{
		{logTick, logQueue, logTick / 4},                              // full: a quarter as long
		{logTick, logQueue / 2, logTick / 2},                          // half full: half as long
		{logTick / 4, logQueue, minLogTick},                           // never under the floor
		{logTick, logQueue / 4, logTick},                              // a quarter: kept
		{logTick / 2, logQueue / 8, logTick / 2},                      // an eighth: kept
		{logTick / 4, logQueue/8 - 1, logTick / 2},                    // less: twice as long
		{logTick, 1, logTick},                                         // never over logTick
		{minLogTick, logQueue / 16, 2 * minLogTick},                   // back up from the floor
		{3 * time.Millisecond, logQueue / 2, 1500 * time.Microsecond}, // in proportion
	} {
		if got := nextTick(c.tick, c.waiting); got != c.want {
			t.Errorf("nextTick(%v, %d) = %v, want %v", c.tick, c.waiting, got, c.want)
		}
	}
}

// TestAccessLinesWrittenAsSlogWould hands access log lines to the server's
// logger, which writes the plain ones itself, and checks every line
// against what slog's own handler of that format writes of the same
// record: same fields, order, quoting, time and duration formats.
func TestAccessLinesWrittenAsSlogWould(t *testing.T) {
	zone := time.FixedZone("X", 5*3600+30*60)
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.UTC)
	lines := []httpx.AccessLine{
		{End: at, Method: "GET", Path: "/i/abc", Status: 200, Bytes: 200_000, Duration: 1234567 * time.Nanosecond, IP: "127.0.0.1"},
		// The same second (its date and zone kept from the line before),
		// then the next.
		{End: at.Add(100 * time.Millisecond), Method: "GET", Path: "/i/abc", Status: 200, Bytes: 2, Duration: time.Millisecond, IP: "127.0.0.1"},
		{End: at.Add(200 * time.Millisecond), Method: "GET", Path: "/i/abc", Status: 200, Bytes: 2, Duration: time.Millisecond, IP: "127.0.0.1"},
		{End: at.In(zone).Truncate(time.Second), Method: "HEAD", Path: "/", Status: 304, Duration: 999 * time.Nanosecond, IP: "2001:db8::1"},
		{End: at.Add(-891_000_000), Method: "PUT", Path: "/api/v1/posts/1", Status: 500, Bytes: -1, Duration: 3 * time.Second, IP: "10.0.0.2"},
		{End: time.Now(), Method: "GET", Path: "/a b", Status: 404, IP: "127.0.0.1"},           // quoted in text
		{End: time.Now(), Method: "GET", Path: `/q"uote\`, Status: 404, IP: "127.0.0.1"},       // escaped
		{End: time.Now(), Method: "GET", Path: "/k=v", Status: 404, IP: "127.0.0.1"},           // quoted in text
		{End: time.Now(), Method: "GET", Path: "/caf\u00e9\u2028", Status: 200, IP: "::1"},     // not ASCII
		{End: time.Now(), Method: "GET", Path: "/\x00\xff", Status: 200, IP: "127.0.0.1"},      // control, invalid UTF-8
		{End: time.Now(), Method: "GET", Path: "/", Status: 200, IP: ""},                       // empty: quoted in text
		{End: time.Now(), Method: "GET", Path: "/<script>&", Status: 200, IP: "127.0.0.1"},     // HTML characters
		{End: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Method: "GET", Path: "/", IP: "1"}, // slog's error for the year
	}
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			cfg, err := LoadConfig("", nil, []string{"FOLIO_LOG_FORMAT=" + format})
			if err != nil {
				t.Fatal(err)
			}
			var got, want bytes.Buffer
			logs := newAsyncLog(&got)
			h := newLoggerAsync(cfg, logs).Handler().(httpx.AccessHandler)
			ref := newLogger(cfg, &want).Handler()
			for i := range lines {
				h.HandleAccess(lines[i])
				if err := ref.Handle(context.Background(), lines[i].Record()); err != nil {
					t.Fatal(err)
				}
			}
			logs.close()
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			if len(g) != len(w) {
				t.Fatalf("%d lines, want %d:\n%s", len(g), len(w), got.String())
			}
			for i := range g {
				if g[i] != w[i] {
					t.Errorf("line %d:\n got %s\nwant %s", i, g[i], w[i])
				}
			}
		})
	}
}
