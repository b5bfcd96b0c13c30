package blog

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"folio/httpx"
)

// handleExport streams the Folio archive as a download. Once the first
// bytes are out, a failure can only abort the response: the client gets a
// truncated zip, which no reader accepts, never a wrong one.
func (b *Blog) handleExport(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="folio-export-`+b.now().UTC().Format("20060102")+`.zip"`)
	h.Set("Cache-Control", "no-store")
	cw := &countingWriter{w: w}
	if _, err := b.Export(r.Context(), cw); err != nil {
		if cw.n == 0 {
			h.Del("Content-Disposition")
			return err
		}
		httpx.Logger(r).Error("blog: export failed mid-way", "err", err, "bytes", cw.n)
		panic(http.ErrAbortHandler)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// maxImportParts bounds the parts of an import form; only file and format
// are read.
const maxImportParts = 8

// handleImport reads a multipart form with the export in "file" (spooled
// to a temporary file as it arrives, never held in memory) and an optional
// "format", and imports it (docs/export-import.md#http).
func (b *Blog) handleImport(w http.ResponseWriter, r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	r.Body = http.MaxBytesReader(w, r.Body, b.importLimit+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		return httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	var file *os.File
	defer func() {
		if file != nil {
			file.Close()
			os.Remove(file.Name())
		}
	}()
	var size int64
	format := ""
	for i := 0; ; i++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b.formError(err)
		}
		if i >= maxImportParts {
			return httpx.BadRequest(fmt.Sprintf("too many form fields (at most %d)", maxImportParts))
		}
		switch part.FormName() {
		case "format":
			v, err := io.ReadAll(io.LimitReader(part, 65))
			if err != nil {
				return b.formError(err)
			}
			format = strings.TrimSpace(string(v))
		case "file":
			if file != nil {
				return httpx.BadRequest("send one file")
			}
			if file, err = os.CreateTemp("", "folio-import-*"); err != nil {
				return err
			}
			size, err = io.Copy(file, io.LimitReader(part, b.importLimit+1))
			if err != nil {
				return b.formError(err)
			}
			if size > b.importLimit {
				return b.formError(&http.MaxBytesError{Limit: b.importLimit})
			}
		}
	}
	if file == nil {
		return httpx.BadRequest("file is required")
	}
	switch format {
	case "", FormatFolio, FormatGhost, FormatWXR:
	default:
		return httpx.BadRequest(fmt.Sprintf("unknown format %q (want folio, ghost or wxr)", format))
	}
	if size == 0 {
		return httpx.BadRequest("the file is empty")
	}
	res, err := b.Import(r.Context(), file, size, format)
	if ie, ok := errors.AsType[*InputError](err); ok {
		return httpx.BadRequest(ie.Msg)
	}
	if err != nil {
		// A conflict is a write made meanwhile by another request or
		// process (409): nothing was imported, and trying again works.
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, res)
	return nil
}

// formError answers a multipart body that could not be read: too large
// (413) or malformed (400).
func (b *Blog) formError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return httpx.E(http.StatusRequestEntityTooLarge, (&SizeError{Limit: b.importLimit}).Error())
	}
	return &httpx.Error{Status: http.StatusBadRequest, Msg: "the form cannot be read", Err: err}
}
