package imagemeta

import (
	"bufio"
	"bytes"
	"io"
	"math"
)

// The stripper is a chain of steps over a buffered source, each deciding
// what to do with the block at its position. The format is told by the
// content's first bytes, not by a name or a sniffed MIME type. A step that
// finds something it cannot parse hands the rest of the stream over
// untouched: a file that does not parse as its type from the start comes
// through exactly as sent.

// StripBufferSize holds the largest block a decision needs whole: a JPEG
// segment is at most 64 KiB.
const StripBufferSize = 128 << 10

// stripStep parses the next block at the stripper's position and says what
// to do with it by setting the stripper's counters and its next step. A
// step that returns without setting any leaves the rest to pass through.
type stripStep func(s *stripReader)

// stripReader yields its source with metadata blocks removed.
type stripReader struct {
	src     *bufio.Reader
	pending []byte // bytes made by a step, yielded before anything else
	pass    int64  // bytes of src to yield as they are; passRest: all
	drop    int64  // bytes of src to skip
	zero    int64  // bytes of src to skip, yielding zeros in their place
	next    stripStep
	in      int64 // bytes of src consumed so far

	sawExif bool // the first Exif block, the one viewers read, was handled

	jpeg jpegState
}

const passRest = -1

// NewStripReader returns src with the metadata of a JPEG, PNG, WebP or GIF
// removed, and that of an ISO BMFF file (HEIC, AVIF, MP4, MOV) blanked in
// place; any other content comes through unchanged. Reading it fails with
// an error wrapping ErrUnstrippable for a picture it cannot strip, and
// with the source's error when the source fails.
func NewStripReader(src io.Reader) io.Reader {
	return NewStripReaderSize(src, StripBufferSize)
}

// NewStripReaderSize is NewStripReader with a buffer of size bytes (at
// most StripBufferSize). A buffer at least as large as the whole source
// decides as the full one would: a block that does not fit would not have
// been complete either.
func NewStripReaderSize(src io.Reader, size int) io.Reader {
	return &stripReader{src: bufio.NewReaderSize(src, min(size, StripBufferSize)), next: stripSniff}
}

func (s *stripReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		switch {
		case len(s.pending) > 0:
			n := copy(p, s.pending)
			s.pending = s.pending[n:]
			return n, nil
		case s.zero > 0:
			n, err := s.src.Discard(int(min(s.zero, int64(len(p)))))
			clear(p[:n])
			s.zero -= int64(n)
			s.in += int64(n)
			if n == 0 {
				return 0, err
			}
			return n, nil
		case s.drop > 0:
			n, err := s.src.Discard(int(min(s.drop, math.MaxInt32)))
			s.drop -= int64(n)
			s.in += int64(n)
			if err != nil {
				return 0, err
			}
		case s.pass != 0:
			if s.pass > 0 && int64(len(p)) > s.pass {
				p = p[:s.pass]
			}
			n, err := s.src.Read(p)
			s.in += int64(n)
			if s.pass > 0 {
				s.pass -= int64(n)
			}
			return n, err
		case s.next == nil:
			s.pass = passRest
		default:
			step := s.next
			s.next = nil
			step(s)
		}
	}
}

// peek returns the next n bytes without consuming them; ok is false when
// the stream ends (or fails) first.
func (s *stripReader) peek(n int) ([]byte, bool) {
	b, err := s.src.Peek(n)
	return b, err == nil
}

// replace consumes n bytes of src and yields b in their place; a step uses
// it for a block it rewrites.
func (s *stripReader) replace(n int, b []byte) {
	s.discard(n)
	s.pending = b
}

// discard consumes n bytes the step has peeked.
func (s *stripReader) discard(n int) {
	k, _ := s.src.Discard(n) // all n after a successful peek of n
	s.in += int64(k)
}

// dropRest leaves out everything from here on: what follows the content a
// format needs (such as data after a PNG's IEND) is not kept.
func (s *stripReader) dropRest() {
	s.drop = math.MaxInt64
}

// stripSniff picks the format's first step from the magic bytes.
func stripSniff(s *stripReader) {
	head, _ := s.src.Peek(12)
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		s.pass, s.next = 2, jpegSegment
	case bytes.HasPrefix(head, pngSignature):
		s.pass, s.next = int64(len(pngSignature)), pngChunk
	case len(head) == 12 && string(head[:4]) == "RIFF" && string(head[8:]) == "WEBP":
		s.next = webpFirstChunk
	case bytes.HasPrefix(head, []byte("GIF87a")) || bytes.HasPrefix(head, []byte("GIF89a")):
		s.next = gifScreen
	case isBMFF(head) && !isBMFFAudio(head):
		s.next = bmffStart
	}
}
