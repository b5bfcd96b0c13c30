package blog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"folio/httpx"
	"folio/storage"
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

// ImportTimeout bounds the work of an import over HTTP, from when its file
// has arrived (docs/export-import.md#limits): past it the import stops and
// writes nothing. folio import has no such bound.
const ImportTimeout = 2 * time.Minute

// importBodyLimit bounds the import route's body: the file and the rest of
// the form.
func (b *Blog) importBodyLimit(*http.Request) int64 { return b.importLimit + 1<<20 }

// importTooLarge is the 413 of an import too large to be read.
func (b *Blog) importTooLarge() error {
	return httpx.E(http.StatusRequestEntityTooLarge, (&SizeError{Limit: b.importLimit}).Error())
}

// handleImport reads a multipart form with the export in "file" (spooled
// to a temporary file as it arrives, never held in memory) and an optional
// "format", and imports it (docs/export-import.md#http). The spool file is
// tagged with this process's instance, so that the file host's janitor
// removes it should the process die before it does.
func (b *Blog) handleImport(w http.ResponseWriter, r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	if err := httpx.LimitBody(w, r, b.importBodyLimit(r)); err != nil {
		return b.importTooLarge()
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	var file *os.File
	defer func() {
		if file != nil {
			file.Close()
			if err := storage.RemoveSpool(b.spoolDir, filepath.Base(file.Name())); err != nil {
				httpx.Logger(r).Warn("blog: import spool file left behind", "name", file.Name(), "err", err)
			}
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
			if file, err = storage.CreateSpool(b.spoolDir, b.instance); err != nil {
				return err
			}
			size, err = io.Copy(file, io.LimitReader(part, b.importLimit+1))
			if err != nil {
				return b.formError(err)
			}
			if size > b.importLimit {
				return b.importTooLarge()
			}
		}
	}
	if file == nil {
		return httpx.BadRequest("file is required")
	}
	switch format {
	case "", FormatFolio, FormatGhost, FormatWXR, FormatMarkdown:
	default:
		return httpx.BadRequest(fmt.Sprintf("unknown format %q (want folio, ghost, wxr or markdown)", format))
	}
	if size == 0 {
		return httpx.BadRequest("the file is empty")
	}
	ctx, cancel := context.WithTimeout(r.Context(), b.importTimeout)
	defer cancel()
	res, err := b.Import(ctx, file, size, ImportOptions{Format: format})
	switch {
	case r.Context().Err() != nil:
		return r.Context().Err() // the client left: nobody to answer
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return httpx.E(http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"the import did not finish within %s, so nothing was imported; split the export, or run folio import on the server", durationText(b.importTimeout)))
	}
	if ie, ok := errors.AsType[*InputError](err); ok {
		return httpx.BadRequest(ie.Msg)
	}
	if ee, ok := errors.AsType[*ExpandError](err); ok {
		return httpx.E(http.StatusRequestEntityTooLarge, ee.Msg)
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
		return b.importTooLarge()
	}
	return &httpx.Error{Status: http.StatusBadRequest, Msg: "the form cannot be read", Err: err}
}

// durationText writes whole minutes as people read them.
func durationText(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d > time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
