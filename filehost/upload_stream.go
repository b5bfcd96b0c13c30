package filehost

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// Streaming parameters: chunks large enough that per-chunk overhead
// vanishes, and enough of them that reading, writing and both hashes
// overlap. Memory per upload is at most chunkSize × chunkCount.
const (
	chunkSize      = 256 << 10
	chunkCount     = 4
	firstChunkSize = 16 << 10
)

// errTooLarge is returned by streamHashed when the content exceeds its limit.
var errTooLarge = errors.New("content exceeds the size limit")

// streamed is what streamHashed learned about the content.
type streamed struct {
	size   int64
	md5    string
	sha256 string
}

// streamHashed copies src to dst while MD5 and SHA-256 are computed. The
// disk write and each hash run on their own goroutine, so that on two or
// more cores they proceed in parallel with reading the network instead of
// one after another; content that fits in the first chunk, most uploads,
// is written and hashed on the caller's goroutine, where handing it over
// would cost more than the work. first sees the first chunk before
// anything is written and may refuse the content. More than limit bytes
// is errTooLarge.
func streamHashed(dst io.Writer, src io.Reader, limit int64, first func([]byte) error) (streamed, error) {
	var res streamed
	md5h, shah := md5.New(), sha256.New()
	head := make([]byte, firstChunkSize)
	n, rerr := fill(src, head)
	switch {
	case int64(n) > limit:
		return streamed{size: int64(n)}, errTooLarge
	case rerr == io.EOF:
		res.size = int64(n)
		if n > 0 {
			b := head[:n]
			if first != nil {
				if err := first(b); err != nil {
					return res, err
				}
			}
			if _, err := dst.Write(b); err != nil {
				return res, err
			}
			md5h.Write(b)
			shah.Write(b)
		}
		res.md5 = hex.EncodeToString(md5h.Sum(nil))
		res.sha256 = hex.EncodeToString(shah.Sum(nil))
		return res, nil
	case rerr != nil:
		return streamed{size: int64(n)}, rerr
	}
	var writeErr error
	var failed atomic.Bool
	sinks := []func([]byte){
		func(b []byte) {
			if writeErr != nil {
				return
			}
			if _, err := dst.Write(b); err != nil {
				writeErr = err
				failed.Store(true)
			}
		},
		func(b []byte) { md5h.Write(b) },
		func(b []byte) { shah.Write(b) },
	}
	work := make([]chan []byte, len(sinks))
	done := make([]chan struct{}, len(sinks))
	var wg sync.WaitGroup
	for i, sink := range sinks {
		work[i] = make(chan []byte, chunkCount)
		done[i] = make(chan struct{}, chunkCount)
		wg.Add(1)
		go func(in <-chan []byte, out chan<- struct{}) {
			defer wg.Done()
			for b := range in {
				sink(b)
				out <- struct{}{}
			}
		}(work[i], done[i])
	}

	var bufs [chunkCount][]byte
	bufs[0] = head // full: read above
	var err error
	for i := 0; !failed.Load(); i++ {
		slot := i % chunkCount
		if i >= chunkCount {
			// Each sink finishes chunks in order: this waits until every
			// sink is done with the chunk that last used this slot.
			for _, c := range done {
				<-c
			}
		}
		if i > 0 {
			if len(bufs[slot]) < chunkSize {
				// The chunks grow from firstChunkSize: a file of a few
				// chunks never takes the full buffers of a large one.
				bufs[slot] = make([]byte, min(chunkSize, firstChunkSize<<i))
			}
			n, rerr = fill(src, bufs[slot])
		}
		if n > 0 {
			res.size += int64(n)
			if res.size > limit {
				err = errTooLarge
				break
			}
			b := bufs[slot][:n]
			if i == 0 && first != nil {
				if err = first(b); err != nil {
					break
				}
			}
			for _, c := range work {
				c <- b
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	for _, c := range work {
		close(c)
	}
	wg.Wait()
	if err == nil {
		err = writeErr
	}
	if err != nil {
		return res, err
	}
	res.md5 = hex.EncodeToString(md5h.Sum(nil))
	res.sha256 = hex.EncodeToString(shah.Sum(nil))
	return res, nil
}

// fill reads into b until it is full or src fails. Unlike io.ReadFull it
// keeps io.EOF (a clean end) apart from io.ErrUnexpectedEOF (a multipart
// body cut short by a client that went away).
func fill(src io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := src.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
