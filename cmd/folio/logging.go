package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
)

// asyncLog takes log output off the request path: a request hands its
// record over a channel, and one goroutine formats it and writes it, many
// lines to a write when they come fast. Nothing is dropped: a full channel
// makes the logging request wait, and close writes out everything handed
// over before it returns (docs/design.md#access-log).
type asyncLog struct {
	ch   chan logItem
	out  *bufio.Writer // written by the goroutine only, or under mu once closed
	done chan struct{}

	mu     sync.RWMutex // held for reading while handing over; close takes it whole
	closed bool
}

type logItem struct {
	h slog.Handler
	r slog.Record
}

// logQueue is how many lines may wait to be written before logging waits.
const logQueue = 4096

func newAsyncLog(w io.Writer) *asyncLog {
	l := &asyncLog{ch: make(chan logItem, logQueue), out: bufio.NewWriterSize(w, 32<<10), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *asyncLog) run() {
	defer close(l.done)
	for it := range l.ch {
		_ = it.h.Handle(context.Background(), it.r)
		// Write out once nothing more is waiting: a burst shares writes,
		// a lone line goes out at once.
		if len(l.ch) == 0 {
			_ = l.out.Flush()
		}
	}
	_ = l.out.Flush()
}

// close writes out what was handed over; later records are written at
// once, by their caller.
func (l *asyncLog) close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	defer l.mu.Unlock()
	l.closed = true
	close(l.ch)
	<-l.done // a record logged meanwhile waits, then is written after these
}

// handler wraps inner, which must write to l.out.
func (l *asyncLog) handler(inner slog.Handler) slog.Handler { return asyncHandler{l: l, inner: inner} }

type asyncHandler struct {
	l     *asyncLog
	inner slog.Handler
}

func (h asyncHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h asyncHandler) Handle(ctx context.Context, r slog.Record) error {
	h.l.mu.RLock()
	if !h.l.closed {
		h.l.ch <- logItem{h: h.inner, r: r.Clone()}
		h.l.mu.RUnlock()
		return nil
	}
	h.l.mu.RUnlock()
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	err := h.inner.Handle(ctx, r)
	if ferr := h.l.out.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (h asyncHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return asyncHandler{l: h.l, inner: h.inner.WithAttrs(attrs)}
}

func (h asyncHandler) WithGroup(name string) slog.Handler {
	return asyncHandler{l: h.l, inner: h.inner.WithGroup(name)}
}
