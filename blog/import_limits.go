package blog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxArchiveEntries bounds the files of an archive. archive/zip reads the
// whole directory into memory before a file can be opened, some hundred
// bytes a file, so the count is checked first (zipEntries).
const maxArchiveEntries = 100_000

// maxConvertedHTML bounds the HTML of one post or page an import converts:
// twice the Markdown a post may hold.
const maxConvertedHTML = 2 * maxContent

// ExpandError: an archive holds more than an import reads, once
// decompressed, or more files; nothing was imported. Answered 413, as a
// file over the import limit is (docs/export-import.md#limits).
type ExpandError struct{ Msg string }

func (e *ExpandError) Error() string { return e.Msg }

// expandBudget counts the decompressed bytes of an archive against the
// import limit, across all its files, as they are read: what a file's
// header declares is never trusted.
type expandBudget struct {
	left  int64
	limit int64
}

func (b *expandBudget) spend(n int) error {
	b.left -= int64(n)
	if b.left < 0 {
		return b.exceeded()
	}
	return nil
}

func (b *expandBudget) exceeded() error {
	return &ExpandError{Msg: fmt.Sprintf("the archive expands to more than the import limit of %d MiB", max(b.limit>>20, 1))}
}

// archiveReader reads one file of an archive: it fails with an InputError
// past limit bytes, with an ExpandError once the archive's budget is spent,
// and with the context's error once the import is to stop.
type archiveReader struct {
	ctx    context.Context
	r      io.Reader
	n      int64 // bytes of the file still allowed
	limit  int64
	budget *expandBudget
	name   string
}

func (l *archiveReader) Read(p []byte) (int, error) {
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	if l.n < 0 {
		return 0, l.tooLarge()
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if berr := l.budget.spend(n); berr != nil {
		return n, berr
	}
	if l.n < 0 {
		return n, l.tooLarge()
	}
	return n, err
}

func (l *archiveReader) tooLarge() error {
	return inputErrorf("%s is too large (at most %s when decompressed)", l.name, sizeText(l.limit))
}

func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d MiB + %d KiB", n>>20, (n%(1<<20))>>10)
}

// itemWindow bounds what one item of a JSON array may take: the decoder
// keeps a whole item in memory, so each may read at most n bytes beyond
// what the decoder had buffered when it began.
type itemWindow struct {
	r    io.Reader
	n    int64
	name string // the file, for the error
	item int    // the item being read (from 1); 0: the array's start
	left int64
}

func (w *itemWindow) start(item int) { w.item, w.left = item, w.n }

func (w *itemWindow) Read(p []byte) (int, error) {
	if w.left <= 0 {
		if w.item == 0 {
			return 0, inputErrorf("%s does not begin with a JSON array", w.name)
		}
		return 0, inputErrorf("%s: item %d is too large (at most %s)", w.name, w.item, sizeText(w.n))
	}
	if int64(len(p)) > w.left {
		p = p[:w.left]
	}
	n, err := w.r.Read(p)
	w.left -= int64(n)
	return n, err
}

// ctxReaderAt stops reading the imported file once ctx ends, so that
// every parsing loop stops with it.
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}

// zipEntries counts the files in a zip's central directory, up to limit+1,
// walking the headers itself: archive/zip would read every one into
// memory, however many the directory holds and whatever count its end
// record declares. It looks where archive/zip may look: at the offset the
// end record gives, and right before the end record (an archive with data
// in front of it).
func zipEntries(r io.ReaderAt, size int64, limit int) int {
	const endLen, end64LocLen = 22, 20
	tail := make([]byte, min(size, endLen+65535))
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return 0
	}
	i := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if i < 0 || len(tail)-i < endLen {
		return 0
	}
	endOff := size - int64(len(tail)) + int64(i)
	dirSize := int64(binary.LittleEndian.Uint32(tail[i+12:]))
	dirOff := int64(binary.LittleEndian.Uint32(tail[i+16:]))
	// zip64: the locator before the end record points at the real one.
	if i >= end64LocLen && string(tail[i-end64LocLen:i-end64LocLen+4]) == "PK\x06\x07" {
		off := int64(binary.LittleEndian.Uint64(tail[i-end64LocLen+8:]))
		rec := make([]byte, 56)
		if off >= 0 && off <= size-56 {
			if _, err := r.ReadAt(rec, off); err == nil && string(rec[:4]) == "PK\x06\x06" {
				endOff = off
				dirSize = int64(binary.LittleEndian.Uint64(rec[40:]))
				dirOff = int64(binary.LittleEndian.Uint64(rec[48:]))
			}
		}
	}
	n := countHeaders(r, size, dirOff, limit)
	if alt := endOff - dirSize; alt != dirOff {
		n = max(n, countHeaders(r, size, alt, limit))
	}
	return n
}

// countHeaders counts the central directory headers from off, up to
// limit+1.
func countHeaders(r io.ReaderAt, size, off int64, limit int) int {
	if off < 0 || off >= size {
		return 0
	}
	br := bufio.NewReader(io.NewSectionReader(r, off, size-off))
	var h [46]byte
	n := 0
	for n <= limit {
		if _, err := io.ReadFull(br, h[:]); err != nil || string(h[:4]) != "PK\x01\x02" {
			return n
		}
		skip := int(binary.LittleEndian.Uint16(h[28:])) + int(binary.LittleEndian.Uint16(h[30:])) + int(binary.LittleEndian.Uint16(h[32:]))
		if _, err := br.Discard(skip); err != nil {
			return n
		}
		n++
	}
	return n
}

// importClock bounds an import's work by ImportOptions.Timeout, and stops
// while the import downloads files, which have their own bound
// (docs/export-import.md#limits). A zero Timeout makes a clock that never
// runs out.
type importClock struct {
	timer *time.Timer
	left  time.Duration
	since time.Time
}

// newImportClock starts a clock that calls expire once d of work has
// passed.
func newImportClock(d time.Duration, expire func()) *importClock {
	c := &importClock{}
	if d > 0 {
		c.left, c.since = d, time.Now()
		c.timer = time.AfterFunc(d, expire)
	}
	return c
}

func (c *importClock) pause() {
	if c.timer != nil && c.timer.Stop() {
		c.left -= time.Since(c.since)
	}
}

func (c *importClock) resume() {
	if c.timer != nil {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// expired reports whether the clock, running, has used up its time.
func (c *importClock) expired() bool {
	return c.timer != nil && time.Since(c.since) >= c.left
}

func (c *importClock) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
}
