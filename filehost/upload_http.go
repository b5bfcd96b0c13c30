package filehost

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"folio/auth"
	"folio/filehost/imagemeta"
	"folio/httpx"
	"folio/storage"
)

// handleUpload is POST /api/v1/upload for an authenticated user.
func (s *Service) handleUpload(w http.ResponseWriter, r *http.Request) error {
	return s.answerUpload(w, r, auth.FromContext(r.Context()).UserID)
}

// handleGuestUpload is POST /api/v1/public/upload: only when enabled, owned
// by the guest user, rate limited per client IP.
func (s *Service) handleGuestUpload(w http.ResponseWriter, r *http.Request) error {
	if !s.settings.Get(r.Context()).Upload.AllowGuestUpload {
		return httpError(errGuestOff)
	}
	if ok, wait := s.guestLimit.Allow(httpx.ClientIP(r)); !ok {
		httpx.TooManyRequests(w, r, httpx.Lsky, wait)
		return nil
	}
	return s.answerUpload(w, r, s.auth.GuestID())
}

// answerUpload stores the one file of an API upload and answers with it.
func (s *Service) answerUpload(w http.ResponseWriter, r *http.Request, userID string) error {
	// The administrator's audit entry goes in the upload's transaction,
	// which decides this answer (docs/design.md#group-commit).
	b, err := s.upload(w, r, userID, 1, s.auth.AuditInTx(r.Context(), http.StatusOK))
	if err != nil {
		return err
	}
	httpx.Lsky.OK(w, http.StatusOK, newUploadResult(b.saved[0]))
	return nil
}

// uploadBatch is what an upload request stored.
type uploadBatch struct {
	saved      []*fileRecord     // in the order sent, links set
	taken      int               // file parts taken to be stored, saved or not
	failed     string            // the name of the file the error is about, if any
	failedSize int64             // its size, when it was received whole
	skipped    int               // file parts beyond the limit, not read
	fields     map[string]string // the form fields sent, as read
}

// upload stores the file parts of a multipart body for userID: the API's
// one file, or the console form's several. It is the one upload path of
// both (docs/api.md#uploads): every file is received first, then the
// fields are checked, then each file is saved in turn. The error is an
// httpx error, for the caller's envelope or error page; files saved before
// it stay saved and are in the batch. audit, when not nil, is written in
// the transaction of the one file (maxFiles 1).
func (s *Service) upload(w http.ResponseWriter, r *http.Request, userID string, maxFiles int, audit *auth.TxAudit) (_ *uploadBatch, err error) {
	defer func() {
		if err != nil {
			s.metrics.UploadsFailed.Inc()
		}
	}()
	b := &uploadBatch{}
	set := s.settings.Get(r.Context()).Upload
	files, fields, err := s.receiveAll(w, r, set, maxFiles, b)
	b.fields = fields
	defer func() {
		for _, in := range files {
			if in != nil {
				in.w.Abort()
			}
		}
	}()
	if err != nil {
		return b, httpError(err)
	}
	if len(files) == 0 {
		return b, httpError(errNoFile)
	}
	opt, err := s.uploadFields(r.Context(), fields, userID)
	if err != nil {
		return b, httpError(err)
	}
	if maxFiles == 1 {
		opt.audit = audit
	}
	base := httpx.BaseURL(r)
	for i, in := range files {
		files[i] = nil // committed or discarded by save
		rec, err := s.save(r.Context(), userID, in, opt, set)
		if err != nil {
			b.failed, b.failedSize = in.originName, in.streamed.size
			return b, httpError(err)
		}
		rec.setLinks(base)
		b.saved = append(b.saved, rec)
	}
	return b, nil
}

// receiveAll reads the multipart body as a stream: each file part goes
// straight to a temp file while it is hashed; other fields may come before,
// between or after the files. Parts beyond maxFiles are skipped (an API
// upload takes one file and ignores more, as Lsky Pro does).
func (s *Service) receiveAll(w http.ResponseWriter, r *http.Request, set UploadSettings, maxFiles int, b *uploadBatch) ([]*incoming, map[string]string, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, invalid("request must be multipart/form-data")
	}
	// The multipart reader reads in 4 KiB steps; without a large buffer
	// below it, every step would be a read system call on the connection.
	if err := httpx.LimitBody(w, r, bodyLimit(set.MaxFileSize, maxFiles)); err != nil {
		return nil, nil, errFileTooLarge
	}
	body := bufio.NewReaderSize(r.Body, bufferSize(r.ContentLength, chunkSize))
	mr := multipart.NewReader(body, params["boundary"])
	var files []*incoming
	fields := map[string]string{}
	for parts := 0; ; parts++ {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return files, nil, bodyError(err)
		}
		if parts >= maxParts+maxFiles-1 { // maxParts counts one file part
			return files, nil, invalid("too many form fields")
		}
		switch name := p.FormName(); name {
		case "file":
			if len(files) >= maxFiles {
				b.skipped++
				continue // NextPart skips the rest of it
			}
			b.taken++
			in, err := s.receive(r.Context(), p.FileName(), p, set, r.ContentLength)
			if err != nil {
				b.failed = cleanName(p.FileName())
				return files, nil, err
			}
			files = append(files, in)
		// format is the console form's choice of link format
		// (docs/console.md#uploading); the API reads and ignores it.
		case "album_id", "permission", "visibility", "strategy_id", "ssl", "expires_in", "expires_at", "format":
			v, err := io.ReadAll(io.LimitReader(p, maxFieldBytes+1))
			if err != nil {
				return files, nil, bodyError(err)
			}
			if len(v) > maxFieldBytes {
				return files, nil, invalid(name + " is too long")
			}
			fields[name] = strings.TrimSpace(string(v))
		}
	}
	return files, fields, nil
}

// bufferSize sizes a read buffer of at most max bytes for a body of
// contentLength bytes (-1 when unknown): a small body needs no more than
// itself, so that many small uploads at once do not each hold the buffers
// a large one streams through (docs/design.md, Memory).
func bufferSize(contentLength int64, max int) int {
	if contentLength <= 0 || contentLength >= int64(max) {
		return max
	}
	return int(contentLength+4095) &^ 4095
}

// bodyLimit bounds an upload body: maxFiles files of the largest size,
// and room for the other parts.
func bodyLimit(maxFileSize int64, maxFiles int) int64 {
	const slack = 1 << 20
	if maxFileSize > (math.MaxInt64-slack)/int64(maxFiles) {
		return math.MaxInt64
	}
	return maxFileSize*int64(maxFiles) + slack
}

// uploadOptions are what an upload's fields ask for its records.
type uploadOptions struct {
	albumID    *string
	visibility string
	expiresAt  *time.Time
	audit      *auth.TxAudit // the request's audit entry, written with the record
}

// maxExpiry bounds how far ahead an upload may set its expiry.
const maxExpiry = 10 * 366 * 24 * time.Hour

// uploadFields checks the album (one of the user's), the visibility and
// the expiry of an upload. The visibility is the visibility field's, or
// Lsky's permission (1 public, 0 unlisted), or else the user's default.
func (s *Service) uploadFields(ctx context.Context, fields map[string]string, userID string) (uploadOptions, error) {
	var opt uploadOptions
	if a := strings.ToLower(fields["album_id"]); a != "" {
		ok, err := s.ownAlbum(ctx, s.db, a, userID)
		if err != nil {
			return opt, err
		}
		if !ok {
			return opt, errBadAlbum
		}
		opt.albumID = &a
	}
	var visibility *string
	if v := fields["visibility"]; v != "" { // empty, as permission: not sent
		visibility = &v
	}
	var isPublic *bool
	switch fields["permission"] {
	case "":
	case "0", "1":
		p := fields["permission"] == "1"
		isPublic = &p
	default:
		return opt, invalid("permission must be 0 or 1")
	}
	var err error
	if opt.visibility, err = pickVisibility(visibility, isPublic, "permission"); err != nil {
		return opt, err
	}
	if opt.visibility == "" {
		u, err := s.auth.UserByID(ctx, userID)
		if err != nil {
			return opt, err
		}
		opt.visibility = u.DefaultVisibility
	}
	if opt.visibility == visRestricted && userID == s.auth.GuestID() {
		// Nobody can sign in as the guest: no one could see it.
		return opt, invalid("guest uploads cannot be restricted")
	}
	opt.expiresAt, err = uploadExpiry(fields["expires_in"], fields["expires_at"], s.now())
	return opt, err
}

// uploadExpiry reads expires_in (whole seconds) or expires_at (RFC 3339):
// one of them, in the future, at most ten years ahead; nil when neither.
func uploadExpiry(in, at string, now time.Time) (*time.Time, error) {
	var t time.Time
	switch {
	case in != "" && at != "":
		return nil, invalid("send expires_in or expires_at, not both")
	case in != "":
		secs, err := strconv.ParseInt(in, 10, 64)
		if err != nil || secs < 1 || secs > int64(maxExpiry/time.Second) {
			return nil, invalid("expires_in must be a whole number of seconds from 1 to 316224000 (ten years)")
		}
		t = now.Add(time.Duration(secs) * time.Second)
	case at != "":
		var err error
		if t, err = time.Parse(time.RFC3339, at); err != nil {
			return nil, invalid("expires_at must be an RFC 3339 time such as 2026-12-31T23:59:59Z")
		}
		if !t.After(now) || t.Sub(now) > maxExpiry {
			return nil, invalid("expires_at must be in the future, at most ten years ahead")
		}
	default:
		return nil, nil
	}
	t = t.UTC()
	return &t, nil
}

// bodyError classifies a failure to read the request body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || errors.Is(err, errTooLarge) {
		return errFileTooLarge
	}
	return &httpx.Error{Status: http.StatusBadRequest, Code: 40000, Msg: "malformed or interrupted multipart body", Err: err}
}

// receive streams a file called name (a file part's, or an imported
// file's) from p into a temp file, checking the type against the settings
// on the first chunk and the size throughout. The content is at most
// bodySize bytes (-1: unknown).
func (s *Service) receive(ctx context.Context, name string, p io.Reader, set UploadSettings, bodySize int64) (*incoming, error) {
	in := &incoming{originName: cleanName(name)}
	in.ext = nameExt(in.originName)
	if in.ext != "" && slices.Contains(set.ForbiddenExts, in.ext) {
		return nil, &forbiddenType{"." + in.ext}
	}
	w, err := s.store.Begin(ctx)
	if err != nil {
		return nil, httpx.Internal(err)
	}
	in.w = w
	check := func(head []byte) error {
		in.mimetype = detectMIME(head, in.ext)
		storage.SetContentType(w, in.mimetype)
		if in.ext == "" {
			in.ext = mimeExt(in.mimetype)
		}
		in.fileType = fileTypeOf(in.mimetype)
		if slices.Contains(set.ForbiddenExts, in.ext) {
			return &forbiddenType{"." + in.ext}
		}
		if !typeAllowed(set.AllowedTypes, in.mimetype, in.ext) {
			return &forbiddenType{in.mimetype}
		}
		return nil
	}
	var src io.Reader = p
	if set.StripMetadata {
		src = imagemeta.NewStripReaderSize(p, bufferSize(bodySize, imagemeta.StripBufferSize))
	}
	res, err := streamHashed(w, src, set.MaxFileSize, check)
	if err == nil && res.size == 0 {
		err = invalid("file is empty")
	}
	if err != nil {
		w.Abort()
		var ft *forbiddenType
		var ii *invalidInput
		if errors.As(err, &ft) || errors.As(err, &ii) {
			return nil, err
		}
		if errors.Is(err, imagemeta.ErrUnstrippable) { // a layout to re-save (docs/filehost.md#heif-and-mp4)
			return nil, invalid(err.Error())
		}
		return nil, bodyError(err)
	}
	in.streamed = res
	return in, nil
}
