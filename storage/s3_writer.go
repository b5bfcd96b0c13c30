package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Begin starts an upload; nothing is sent until a part is full or Commit.
func (s *S3) Begin(ctx context.Context) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("storage: begin: %w", err)
	}
	name := tempMark + hex.EncodeToString(rnd[:])
	if s.instance != "" {
		name = s.instance + "-" + name
	}
	return &s3Writer{s: s, ctx: ctx, tmpKey: s.tmpPrefix() + name}, nil
}

// s3Writer sends content smaller than a part in one PUT at Commit, straight
// to its key; larger content goes as a multipart upload to a temporary key,
// copied to its key at Commit. Two part buffers at most: one filling while
// the other is sent in the background.
type s3Writer struct {
	s      *S3
	ctx    context.Context
	tmpKey string
	// ctype is the content's media type (SetContentType); empty lets the
	// server choose (binary/octet-stream).
	ctype string

	buf, spare []byte
	uploadID   string
	parts      []completedPart
	inflight   chan partResult // the part being sent, nil when none
	completed  bool            // the temporary object exists
	err        error           // the first failure; every later call returns it
	done       bool            // committed or aborted
}

func (w *s3Writer) setContentType(t string) { w.ctype = t }

// typed returns hdr (cloned) with the content's type, when it has one.
func (w *s3Writer) typed(hdr http.Header) http.Header {
	if w.ctype == "" {
		return hdr
	}
	h := hdr.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", w.ctype)
	return h
}

type completedPart struct {
	XMLName    xml.Name `xml:"Part"`
	PartNumber int      `xml:"PartNumber"`
	ETag       string   `xml:"ETag"`
}

type partResult struct {
	buf  []byte
	part completedPart
	err  error
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("storage: write after commit or abort")
	}
	if w.err != nil {
		return 0, w.err
	}
	size := w.s.PartSize
	n := 0
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = w.newBuffer(len(p))
		}
		room := size - len(w.buf)
		chunk := min(room, len(p))
		if len(w.buf)+chunk > cap(w.buf) {
			// Grow towards a part, not beyond it, so that small content
			// costs little and large content never more than a part.
			nb := make([]byte, len(w.buf), min(size, max(2*cap(w.buf), len(w.buf)+chunk)))
			copy(nb, w.buf)
			w.buf = nb
		}
		w.buf = append(w.buf, p[:chunk]...)
		p = p[chunk:]
		n += chunk
		if len(w.buf) == size {
			if err := w.sendPart(); err != nil {
				w.err = err
				return n, err
			}
		}
	}
	return n, nil
}

// newBuffer gives a buffer for the next part: the spare one once sent, a
// pooled one, or (for the first, which may be all there is) a small one.
func (w *s3Writer) newBuffer(need int) []byte {
	if w.spare != nil {
		b := w.spare[:0]
		w.spare = nil
		return b
	}
	if b, ok := w.s.bufs.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	if w.uploadID == "" {
		return make([]byte, 0, min(w.s.PartSize, max(need, 64<<10)))
	}
	return make([]byte, 0, w.s.PartSize)
}

// sendPart starts sending the filled buffer as the next part, after the
// one before it has gone, so that at most two buffers are alive.
func (w *s3Writer) sendPart() error {
	if w.uploadID == "" {
		var out struct {
			UploadID string `xml:"UploadId"`
		}
		if err := w.s.doXML(w.ctx, http.MethodPost, w.tmpKey, url.Values{"uploads": {""}}, w.typed(nil), nil, &out); err != nil {
			return fmt.Errorf("storage: begin multipart upload: %w", err)
		}
		w.uploadID = out.UploadID
	}
	if err := w.wait(); err != nil {
		return err
	}
	n := len(w.parts) + 1
	buf := w.buf
	w.buf = nil
	ch := make(chan partResult, 1)
	w.inflight = ch
	go func() {
		q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {w.uploadID}}
		h, err := w.s.doDiscard(w.ctx, http.MethodPut, w.tmpKey, q, nil, buf)
		r := partResult{buf: buf, err: err}
		if err == nil {
			r.part = completedPart{PartNumber: n, ETag: h.Get("ETag")}
		} else {
			r.err = fmt.Errorf("storage: upload part %d: %w", n, err)
		}
		ch <- r
	}()
	return nil
}

// wait waits for the part being sent, keeping its buffer as the spare.
func (w *s3Writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	r := <-w.inflight
	w.inflight = nil
	w.spare = r.buf
	if r.err != nil {
		return r.err
	}
	w.parts = append(w.parts, r.part)
	return nil
}

// Commit puts the content under key. A key that exists is ErrExists: a
// HEAD first, and If-None-Match: * on the write for servers that honour it.
func (w *s3Writer) Commit(key string) error {
	if w.done {
		return errors.New("storage: commit after commit or abort")
	}
	err := w.commit(key)
	if err != nil {
		w.Abort()
		return err
	}
	w.done = true
	w.release()
	return nil
}

func (w *s3Writer) commit(key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	s := w.s
	if _, err := s.head(w.ctx, key); err == nil {
		return ErrExists
	} else if !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("storage: commit: %w", err)
	}
	noReplace := http.Header{"If-None-Match": {"*"}}
	if w.uploadID == "" {
		body := w.buf
		if body == nil {
			body = []byte{}
		}
		if _, err := s.doDiscard(w.ctx, http.MethodPut, s.cfg.Prefix+key, nil, w.typed(noReplace), body); err != nil {
			return commitError(err)
		}
		return nil
	}
	if len(w.buf) > 0 {
		if err := w.sendPart(); err != nil {
			return err
		}
	}
	if err := w.wait(); err != nil {
		return err
	}
	size, err := w.complete()
	if err != nil {
		return err
	}
	if err := w.copyTo(s.cfg.Prefix+key, size, noReplace); err != nil {
		return commitError(err)
	}
	// The copy is the content; a temporary object left by a failed delete
	// is the janitor's (Temps lists it).
	dctx, cancel := w.cleanupContext()
	defer cancel()
	if _, err := s.doDiscard(dctx, http.MethodDelete, w.tmpKey, nil, nil, nil); err == nil {
		w.completed = false
	}
	return nil
}

func commitError(err error) error {
	if errors.Is(err, ErrExists) {
		return ErrExists
	}
	return fmt.Errorf("storage: commit: %w", err)
}

// complete completes the multipart upload and returns the object's size.
func (w *s3Writer) complete() (int64, error) {
	doc, err := xml.Marshal(struct {
		XMLName xml.Name        `xml:"CompleteMultipartUpload"`
		Parts   []completedPart `xml:"Part"`
	}{Parts: w.parts})
	if err != nil {
		return 0, err
	}
	var out struct{}
	if err := w.s.doXML(w.ctx, http.MethodPost, w.tmpKey, url.Values{"uploadId": {w.uploadID}}, nil, doc, &out); err != nil {
		return 0, fmt.Errorf("storage: complete multipart upload: %w", err)
	}
	w.completed = true
	info, err := w.s.head(w.ctx, w.tmpKey[len(w.s.cfg.Prefix):])
	if err != nil {
		return 0, fmt.Errorf("storage: complete multipart upload: %w", err)
	}
	return info.size, nil
}

// copyTo copies the temporary object to dst on the server: CopyObject up
// to s.CopyLimit, UploadPartCopy by s.CopyPartSize ranges beyond.
func (w *s3Writer) copyTo(dst string, size int64, hdr http.Header) error {
	s := w.s
	src := "/" + s.cfg.Bucket + "/" + sigEscape(w.tmpKey, false)
	if size <= s.CopyLimit {
		h := hdr.Clone()
		h.Set("X-Amz-Copy-Source", src)
		if w.ctype != "" {
			// Said again rather than copied from the temporary object:
			// not every server copies the metadata of a multipart upload.
			h.Set("X-Amz-Metadata-Directive", "REPLACE")
			h.Set("Content-Type", w.ctype)
		}
		var out struct{}
		return s.doXML(w.ctx, http.MethodPut, dst, nil, h, nil, &out)
	}
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	if err := s.doXML(w.ctx, http.MethodPost, dst, url.Values{"uploads": {""}}, w.typed(nil), nil, &created); err != nil {
		return err
	}
	step := max(s.CopyPartSize, minPartSize)
	var parts []completedPart
	err := func() error {
		for off, n := int64(0), 1; off < size; off, n = off+step, n+1 {
			end := min(off+step, size) - 1
			h := http.Header{"X-Amz-Copy-Source": {src}, "X-Amz-Copy-Source-Range": {fmt.Sprintf("bytes=%d-%d", off, end)}}
			var out struct {
				ETag string `xml:"ETag"`
			}
			if err := s.doXML(w.ctx, http.MethodPut, dst, url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {created.UploadID}}, h, nil, &out); err != nil {
				return err
			}
			parts = append(parts, completedPart{PartNumber: n, ETag: out.ETag})
		}
		doc, err := xml.Marshal(struct {
			XMLName xml.Name        `xml:"CompleteMultipartUpload"`
			Parts   []completedPart `xml:"Part"`
		}{Parts: parts})
		if err != nil {
			return err
		}
		var out struct{}
		return s.doXML(w.ctx, http.MethodPost, dst, url.Values{"uploadId": {created.UploadID}}, hdr, doc, &out)
	}()
	if err != nil {
		ctx, cancel := w.cleanupContext()
		defer cancel()
		s.abortUpload(ctx, dst, created.UploadID)
	}
	return err
}

// cleanupContext outlives a cancelled request, so that an interrupted
// upload still removes what it sent.
func (w *s3Writer) cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(w.ctx), 30*time.Second)
}

// Abort aborts the multipart upload and deletes the temporary object, if
// any; after Commit it does nothing.
func (w *s3Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.wait()
	defer w.release()
	ctx, cancel := w.cleanupContext()
	defer cancel()
	var err error
	if w.uploadID != "" && !w.completed {
		err = w.s.abortUpload(ctx, w.tmpKey, w.uploadID)
	}
	if w.completed {
		if _, derr := w.s.doDiscard(ctx, http.MethodDelete, w.tmpKey, nil, nil, nil); derr != nil && !errors.Is(derr, ErrNotFound) {
			err = derr
		}
	}
	if err != nil {
		return fmt.Errorf("storage: abort: %w", err)
	}
	return nil
}

// release returns full-size part buffers to the store's pool.
func (w *s3Writer) release() {
	for _, b := range [][]byte{w.buf, w.spare} {
		if cap(b) == w.s.PartSize {
			b = b[:0]
			w.s.bufs.Put(&b)
		}
	}
	w.buf, w.spare = nil, nil
}
