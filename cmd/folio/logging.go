package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"folio/httpx"
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

// logItem is a record to write, or an access log line, which the
// goroutine makes a record of: the request hands over a few words and
// builds nothing.
//
// A record is held by pointer: access lines, the many, are values, and
// the queue's buffer, allocated whole and kept for the life of the
// process, stays small on an idle server.
type logItem struct {
	h      slog.Handler
	r      *slog.Record
	access httpx.AccessLine
	isLine bool
	format lineFormat // how to write access without slog, when it can be
}

// lineFormat is the format of the server's own handler, whose access log
// lines the goroutine writes itself; noFormat for any other handler.
type lineFormat uint8

const (
	noFormat lineFormat = iota
	textFormat
	jsonFormat
)

// logQueue is how many lines may wait to be written before logging waits:
// tens of milliseconds of the busiest load, since the goroutine writes a
// burst's lines together.
const logQueue = 1024

func newAsyncLog(w io.Writer) *asyncLog {
	l := &asyncLog{ch: make(chan logItem, logQueue), out: bufio.NewWriterSize(w, 32<<10), done: make(chan struct{})}
	go l.run()
	return l
}

// logTick is how long the goroutine lets lines gather once it has
// written some. A line handed to a goroutine parked on the channel wakes
// it, and with it a thread of the process: done for every line of a
// steady stream, the wake-ups cost more than the lines (about an eighth of
// the cached home page's requests a second). Between ticks lines only
// queue, so a busy server wakes the goroutine about once a tick; an idle
// one, never; and the first line after a quiet tick is written at once
// (docs/design.md#access-log).
const logTick = 10 * time.Millisecond

// minLogTick is the shortest tick: with the queue, it bounds the lines a
// second the log takes without making a request wait (a million).
const minLogTick = time.Millisecond

// nextTick is the tick after one of tick that saw waiting lines gather.
// A fixed tick would cap the log at a queue a tick (100,000 lines a
// second), past which every request waits for room: a stream that fills
// more than a quarter of the queue in a tick gets a tick short enough to
// fill a quarter, and one that fills less than an eighth a tick twice as
// long, up to logTick.
func nextTick(tick time.Duration, waiting int) time.Duration {
	switch {
	case waiting > logQueue/4:
		return max(tick*(logQueue/4)/time.Duration(waiting), minLogTick)
	case waiting < logQueue/8:
		return min(2*tick, logTick)
	}
	return tick
}

func (l *asyncLog) run() {
	defer close(l.done)
	var line []byte
	var clock lineClock
	write := func(it logItem) {
		switch {
		case it.isLine && it.format != noFormat && plainLine(&it.access):
			line = clock.appendAccessLine(line[:0], &it.access, it.format)
			_, _ = l.out.Write(line)
		case it.isLine:
			_ = it.h.Handle(context.Background(), it.access.Record())
		default:
			_ = it.h.Handle(context.Background(), *it.r)
		}
	}
	tick := logTick
	for it := range l.ch {
		write(it)
		for {
			// Everything waiting now goes out in as few writes as fit.
			for n := len(l.ch); n > 0; n-- {
				it, ok := <-l.ch
				if !ok {
					_ = l.out.Flush()
					return
				}
				write(it)
			}
			_ = l.out.Flush()
			time.Sleep(tick)
			waiting := len(l.ch)
			if waiting == 0 {
				tick = logTick
				break // quiet: wait on the channel again
			}
			tick = nextTick(tick, waiting)
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

// serverHandler wraps inner, slog's text or json handler (format) with no
// options but a level, writing to l.out: access log lines it writes
// itself, as inner would.
func (l *asyncLog) serverHandler(inner slog.Handler, format lineFormat) slog.Handler {
	return asyncHandler{l: l, inner: inner, format: format}
}

type asyncHandler struct {
	l      *asyncLog
	inner  slog.Handler
	format lineFormat // noFormat once attributes or a group are added
}

func (h asyncHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h asyncHandler) Handle(ctx context.Context, r slog.Record) error {
	h.l.mu.RLock()
	if !h.l.closed {
		r = r.Clone()
		h.l.ch <- logItem{h: h.inner, r: &r}
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

// HandleAccess hands an access log line over as Handle does its record.
func (h asyncHandler) HandleAccess(line httpx.AccessLine) {
	h.l.mu.RLock()
	if !h.l.closed {
		h.l.ch <- logItem{h: h.inner, access: line, isLine: true, format: h.format}
		h.l.mu.RUnlock()
		return
	}
	h.l.mu.RUnlock()
	_ = h.Handle(context.Background(), line.Record())
}

func (h asyncHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return asyncHandler{l: h.l, inner: h.inner.WithAttrs(attrs)}
}

func (h asyncHandler) WithGroup(name string) slog.Handler {
	return asyncHandler{l: h.l, inner: h.inner.WithGroup(name)}
}

// plainLine reports whether the line's strings need no quoting in slog's
// text format and no escaping in its JSON: printable ASCII but '"', '\\'
// and '=', and not empty. Anything else is left to slog.
func plainLine(l *httpx.AccessLine) bool {
	for _, s := range [...]string{l.Method, l.Path, l.IP} {
		if s == "" {
			return false
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '=' {
				return false
			}
		}
	}
	y := l.End.Year()
	return y >= 0 && y < 10000
}

// lineClock keeps the date, time to the second and zone of the last
// access log line written, for the lines of the same second: formatting a
// time is a good part of what writing a line costs.
type lineClock struct {
	sec    int64
	loc    *time.Location
	prefix []byte // "2006-01-02T15:04:05", of sec in loc
	zone   []byte // "Z07:00", of sec in loc
}

// appendTime appends t as time.RFC3339Nano does, its fraction of a second
// cut to digits (3, or 9 with trailing zeros and a bare point removed),
// for t of year 0 to 9999.
func (c *lineClock) appendTime(b []byte, t time.Time, digits int) []byte {
	if sec := t.Unix(); c.prefix == nil || sec != c.sec || t.Location() != c.loc {
		// Zones change offset only at a whole second.
		whole := t.Truncate(time.Second).AppendFormat(nil, time.RFC3339)
		c.sec, c.loc, c.prefix, c.zone = sec, t.Location(), whole[:19], whole[19:]
	}
	b = append(b, c.prefix...)
	ns := t.Nanosecond()
	if digits == 3 {
		ms := ns / 1e6
		b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	} else if ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, c.zone...)
}

// appendAccessLine appends the line as slog's handler of that format
// writes the line's Record (httpx.AccessLine.Record), for a plainLine:
// the same fields, order, time format and duration format.
func (c *lineClock) appendAccessLine(b []byte, l *httpx.AccessLine, format lineFormat) []byte {
	t := l.End
	if format == jsonFormat {
		b = append(b, `{"time":"`...)
		b = c.appendTime(b, t, 9)
		b = append(b, `","level":"INFO","msg":"request","method":"`...)
		b = append(b, l.Method...)
		b = append(b, `","path":"`...)
		b = append(b, l.Path...)
		b = append(b, `","status":`...)
		b = strconv.AppendInt(b, int64(l.Status), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, l.Bytes, 10)
		b = append(b, `,"duration":`...)
		b = strconv.AppendInt(b, int64(l.Duration), 10)
		b = append(b, `,"ip":"`...)
		b = append(b, l.IP...)
		return append(b, "\"}\n"...)
	}
	b = append(b, "time="...)
	// Milliseconds, always three digits: slog's own way.
	b = c.appendTime(b, t, 3)
	b = append(b, " level=INFO msg=request method="...)
	b = append(b, l.Method...)
	b = append(b, " path="...)
	b = append(b, l.Path...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.Status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.Bytes, 10)
	b = append(b, " duration="...)
	b = append(b, l.Duration.String()...)
	b = append(b, " ip="...)
	b = append(b, l.IP...)
	return append(b, '\n')
}
