package storage

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
)

// S3Error is an error answer of the S3 server. Its text carries the
// operation, S3's code and the status, never the request's signature or
// the server's free-text message (which may echo request details).
type S3Error struct {
	Op     string // the HTTP method
	Status int
	Code   string // S3's error code, such as "NoSuchKey"; "" for a HEAD
}

func (e *S3Error) Error() string {
	code := e.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	return fmt.Sprintf("storage: s3 %s: %s (%d)", e.Op, code, e.Status)
}

// Is makes a missing object ErrNotFound and a refused If-None-Match
// ErrExists; a missing bucket is neither, as it is the operator's mistake.
func (e *S3Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Code == "NoSuchKey" || e.Code == "NoSuchUpload" || (e.Status == http.StatusNotFound && e.Code == "")
	case ErrExists:
		return e.Status == http.StatusPreconditionFailed
	}
	return false
}

// readS3Error makes an *S3Error of an error answer.
func readS3Error(op string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if e := parseS3Error(op, resp.StatusCode, b); e != nil {
		return e
	}
	return &S3Error{Op: op, Status: resp.StatusCode}
}

// parseS3Error returns the error an S3 XML error document describes, or
// nil when b is not one.
func parseS3Error(op string, status int, b []byte) error {
	var doc struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
	}
	if xml.Unmarshal(b, &doc) != nil || doc.Code == "" {
		return nil
	}
	if status < 300 {
		status = http.StatusInternalServerError
	}
	return &S3Error{Op: op, Status: status, Code: doc.Code}
}
