package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"time"
)

// objectInfo is what a HEAD tells of an object.
type objectInfo struct {
	name string
	size int64
	mod  time.Time
	etag string
}

var _ fs.FileInfo = (*objectInfo)(nil)

func (i *objectInfo) Name() string       { return path.Base(i.name) }
func (i *objectInfo) Size() int64        { return i.size }
func (i *objectInfo) Mode() fs.FileMode  { return 0o444 }
func (i *objectInfo) ModTime() time.Time { return i.mod }
func (i *objectInfo) IsDir() bool        { return false }
func (i *objectInfo) Sys() any           { return nil }

// ETag is the server's entity tag of the object, quoted.
func (i *objectInfo) ETag() string { return i.etag }

// s3Object reads an object from an offset with one ranged GET, opened at
// the first Read after a Seek.
type s3Object struct {
	s    *S3
	ctx  context.Context
	info *objectInfo
	off  int64
	body io.ReadCloser
}

func (o *s3Object) Stat() (fs.FileInfo, error) { return o.info, nil }

// ETag is the server's entity tag of the object.
func (o *s3Object) ETag() string { return o.info.etag }

func (o *s3Object) Read(p []byte) (int, error) {
	if o.off >= o.info.size {
		return 0, io.EOF
	}
	if o.body == nil {
		// If-Match: the bytes must be those the HEAD described, else a
		// replaced object would be spliced into a response.
		hdr := http.Header{"Range": {"bytes=" + strconv.FormatInt(o.off, 10) + "-"}}
		if o.info.etag != "" {
			hdr.Set("If-Match", o.info.etag)
		}
		resp, err := o.s.do(o.ctx, http.MethodGet, o.s.cfg.Prefix+o.info.name, nil, hdr, nil)
		if err != nil {
			return 0, fmt.Errorf("storage: read: %w", err)
		}
		if resp.StatusCode != http.StatusPartialContent && !(resp.StatusCode == http.StatusOK && o.off == 0) {
			resp.Body.Close()
			return 0, fmt.Errorf("storage: read: the server ignored the range (%d)", resp.StatusCode)
		}
		o.body = resp.Body
	}
	n, err := o.body.Read(p)
	o.off += int64(n)
	if errors.Is(err, io.EOF) && o.off < o.info.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += o.off
	case io.SeekEnd:
		offset += o.info.size
	}
	if offset < 0 {
		return 0, errors.New("storage: seek before the start")
	}
	if offset != o.off && o.body != nil {
		o.body.Close()
		o.body = nil
	}
	o.off = offset
	return offset, nil
}

func (o *s3Object) Close() error {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
	return nil
}
