package filehost

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"

	"folio/auth"
	"folio/httpx"
)

// handleUpload is POST /api/v1/upload for an authenticated user.
func (s *Service) handleUpload(w http.ResponseWriter, r *http.Request) error {
	return httpError(s.upload(w, r, auth.FromContext(r.Context()).UserID))
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
	return httpError(s.upload(w, r, s.auth.GuestID()))
}

// upload reads the multipart body as a stream: the file part goes straight
// to a temp file while it is hashed; other fields may come before or after
// it. Its errors are domain errors, which the two handlers pass through
// httpError.
func (s *Service) upload(w http.ResponseWriter, r *http.Request, userID string) error {
	ctx := r.Context()
	set := s.settings.Get(ctx).Upload
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return invalid("request must be multipart/form-data")
	}
	// The multipart reader reads in 4 KiB steps; without a large buffer
	// below it, every step would be a read system call on the connection.
	body := bufio.NewReaderSize(http.MaxBytesReader(w, r.Body, set.MaxFileSize+1<<20), chunkSize)
	mr := multipart.NewReader(body, params["boundary"])
	var in *incoming
	defer func() {
		if in != nil {
			in.w.Abort()
		}
	}()
	fields := map[string]string{}
	for parts := 0; ; parts++ {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bodyError(err)
		}
		if parts >= maxParts {
			return invalid("too many form fields")
		}
		switch name := p.FormName(); name {
		case "file":
			if in != nil {
				continue // one file per request; NextPart skips the rest
			}
			in, err = s.receive(ctx, p, set)
			if err != nil {
				return err
			}
		case "album_id", "permission", "strategy_id", "ssl":
			b, err := io.ReadAll(io.LimitReader(p, maxFieldBytes+1))
			if err != nil {
				return bodyError(err)
			}
			if len(b) > maxFieldBytes {
				return invalid(name + " is too long")
			}
			fields[name] = strings.TrimSpace(string(b))
		}
	}
	if in == nil {
		return errNoFile
	}

	var albumID *string
	if a := strings.ToLower(fields["album_id"]); a != "" {
		ok, err := s.ownAlbum(ctx, s.db, a, userID)
		if err != nil {
			return err
		}
		if !ok {
			return errBadAlbum
		}
		albumID = &a
	}
	isPublic := false
	switch fields["permission"] {
	case "", "0":
	case "1":
		isPublic = true
	default:
		return invalid("permission must be 0 or 1")
	}

	rec, err := s.save(ctx, userID, in, albumID, isPublic, set)
	if err != nil {
		return err
	}
	in = nil // committed or discarded by save
	rec.setLinks(httpx.BaseURL(r))
	httpx.Lsky.OK(w, http.StatusOK, newUploadResult(rec))
	return nil
}

// bodyError classifies a failure to read the request body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || errors.Is(err, errTooLarge) {
		return errFileTooLarge
	}
	return &httpx.Error{Status: http.StatusBadRequest, Code: 40000, Msg: "malformed or interrupted multipart body", Err: err}
}

// receive streams the file part into a temp file, checking the type
// against the settings on the first chunk and the size throughout.
func (s *Service) receive(ctx context.Context, p *multipart.Part, set UploadSettings) (*incoming, error) {
	in := &incoming{originName: cleanName(p.FileName())}
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
	res, err := streamHashed(w, p, set.MaxFileSize, check)
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
		return nil, bodyError(err)
	}
	in.streamed = res
	return in, nil
}
