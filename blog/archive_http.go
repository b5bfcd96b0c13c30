package blog

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

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

// maxImportParts bounds the parts of an import form; only file, format,
// media and from are read.
const maxImportParts = 8

// maxImportField bounds the text of one import form field: the longest is
// the old site's address, a URL.
const maxImportField = 2048

// ImportTimeout bounds the work of an import over HTTP, from when its file
// has arrived, its downloads apart (docs/export-import.md#limits): past it
// the import stops and writes nothing. folio import has no such bound.
const ImportTimeout = 2 * time.Minute

// importBodyLimit bounds the import route's body: the file and the rest of
// the form.
func (b *Blog) importBodyLimit(*http.Request) int64 { return b.importLimit + 1<<20 }

// importTooLarge is the 413 of an import too large to be read.
func (b *Blog) importTooLarge() error {
	return httpx.E(http.StatusRequestEntityTooLarge, (&SizeError{Limit: b.importLimit}).Error())
}

// importUpload is an import form as read: the options, the export spooled
// to a temporary file, and what the form said as it was typed, for a form
// shown again.
type importUpload struct {
	opts ImportOptions
	file *os.File
	size int64
	// name is the file's name as the browser sent it (its last element).
	name string
	// from is the from field as typed; field names the field a refusal
	// is about ("" for the file itself).
	from, field string
	spoolDir    string
}

// close removes the spool file, if any.
func (u *importUpload) close(r *http.Request) {
	if u.file == nil {
		return
	}
	u.file.Close()
	if err := storage.RemoveSpool(u.spoolDir, filepath.Base(u.file.Name())); err != nil {
		httpx.Logger(r).Warn("blog: import spool file left behind", "name", u.file.Name(), "err", err)
	}
	u.file = nil
}

// readImportForm reads an import's multipart form, the API's and the
// console's alike (docs/export-import.md#commands-and-routes): the export
// in "file", spooled to a temporary file as it arrives, never held in
// memory; "format" (empty: recognised from the file), "media" (bring the
// images home) and "from" (the old site's address). The spool file is
// tagged with this process's instance, so that the file host's janitor
// removes it should the process die before it does. The upload is
// returned whatever happens, and its close must be called; the error is
// the answer to give (400 or 413), naming the field at fault.
func (b *Blog) readImportForm(w http.ResponseWriter, r *http.Request) (*importUpload, error) {
	u := &importUpload{spoolDir: b.spoolDir}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return u, httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	if err := httpx.LimitBody(w, r, b.importBodyLimit(r)); err != nil {
		return u, b.importTooLarge()
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return u, httpx.BadRequest("send multipart/form-data with the export in the field file")
	}
	var media string
	for i := 0; ; i++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, b.formError(err)
		}
		if i >= maxImportParts {
			return u, httpx.BadRequest(fmt.Sprintf("too many form fields (at most %d)", maxImportParts))
		}
		name := part.FormName()
		switch name {
		case "format", "media", "from":
			v, err := io.ReadAll(io.LimitReader(part, maxImportField+1))
			if err != nil {
				return u, b.formError(err)
			}
			if len(v) > maxImportField {
				u.field = name
				return u, httpx.BadRequest(fmt.Sprintf("%s is too long (at most %d bytes)", name, maxImportField))
			}
			switch s := strings.TrimSpace(string(v)); name {
			case "format":
				u.opts.Format = s
			case "media":
				media = s
			case "from":
				u.from = s
			}
		case "file":
			if u.file != nil {
				return u, httpx.BadRequest("send one file")
			}
			u.name = uploadName(part.FileName())
			if u.file, err = storage.CreateSpool(b.spoolDir, b.instance); err != nil {
				return u, err
			}
			u.size, err = io.Copy(u.file, io.LimitReader(part, b.importLimit+1))
			if err != nil {
				return u, b.formError(err)
			}
			if u.size > b.importLimit {
				return u, b.importTooLarge()
			}
		}
	}
	if u.file == nil {
		u.field = "file"
		return u, httpx.BadRequest("file is required")
	}
	if err := u.options(media); err != nil {
		return u, err
	}
	if u.size == 0 {
		u.field = "file"
		return u, httpx.BadRequest("the file is empty")
	}
	return u, nil
}

// options checks the form's format, media and from, as read, into u.opts;
// a refusal names its field in u.field.
func (u *importUpload) options(media string) error {
	if !knownImportFormat(u.opts.Format) {
		u.field = "format"
		return httpx.BadRequest(fmt.Sprintf("unknown format %q (want folio, ghost, wxr or markdown)", u.opts.Format))
	}
	var err error
	if u.opts.Media, err = formBool("media", media); err != nil {
		u.field = "media"
		return err
	}
	if u.opts.MediaOrigin, err = importOrigin(u.from); err != nil {
		u.field = "from"
		return err
	}
	return nil
}

// knownImportFormat reports whether format names a format an import
// reads, or is empty (recognise the file).
func knownImportFormat(format string) bool {
	switch format {
	case "", FormatFolio, FormatGhost, FormatWXR, FormatMarkdown:
		return true
	}
	return false
}

// formBool reads a form's yes-or-no field: a checkbox sends "on" or its
// value, a script "true" or "1"; left out or empty is no.
func formBool(field, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "on", "yes":
		return true, nil
	case "", "0", "false", "off", "no":
		return false, nil
	}
	return false, httpx.BadRequest(field + " must be 1, true or on (yes), or 0, false, off or empty (no)")
}

// importOrigin checks the old site's address an import form names: empty,
// or an http(s) URL with a host and nothing after its path.
func importOrigin(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || !utf8.ValidString(s) || strings.ContainsAny(s, " \t\r\n") || (u.Scheme != "http" && u.Scheme != "https") ||
		u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", httpx.BadRequest("from must be the old site's address, an http(s) URL such as https://old.example")
	}
	return s, nil
}

// uploadName is the last element of the name a browser gives a file,
// short enough to show.
func uploadName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if r := []rune(name); len(r) > 100 {
		name = string(r[:100]) + "…"
	}
	return strings.TrimSpace(name)
}

// runImport imports an upload under the HTTP time limit and turns what
// went wrong into the answer the API and the console give: 400 for the
// file, 413 for an archive that expands too far or an import that takes
// too long, 409 for a slug or URL another write took meanwhile. Nothing
// was imported when it fails.
func (b *Blog) runImport(r *http.Request, u *importUpload) (*ImportResult, error) {
	opts := u.opts
	opts.Timeout = b.importTimeout
	res, err := b.Import(r.Context(), u.file, u.size, opts)
	if err == nil {
		return res, nil
	}
	switch {
	case r.Context().Err() != nil:
		return nil, r.Context().Err() // the client left: nobody to answer
	case errors.Is(err, errImportTimeout):
		return nil, httpx.E(http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"the import did not finish within %s, so nothing was imported; split the export, or run folio import on the server", durationText(b.importTimeout)))
	}
	if ie, ok := errors.AsType[*InputError](err); ok {
		return nil, httpx.BadRequest(ie.Msg)
	}
	if ee, ok := errors.AsType[*ExpandError](err); ok {
		return nil, httpx.E(http.StatusRequestEntityTooLarge, ee.Msg)
	}
	// A conflict is a write made meanwhile by another request or process
	// (409): nothing was imported, and trying again works.
	return nil, httpError(err)
}

// handleImport is POST /api/v1/admin/import: the form of readImportForm,
// imported; the answer is the ImportResult
// (docs/export-import.md#the-imports-result).
func (b *Blog) handleImport(w http.ResponseWriter, r *http.Request) error {
	u, err := b.readImportForm(w, r)
	defer u.close(r)
	if err != nil {
		return err
	}
	res, err := b.runImport(r, u)
	if err != nil {
		return err
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
