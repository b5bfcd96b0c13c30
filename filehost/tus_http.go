package filehost

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"folio/auth"
	"folio/filehost/tus"
	"folio/httpx"
)

// tusResumable wraps every tus route (docs/filehost.md#resumable-uploads-tus):
// each answer says Tus-Resumable.
func tusResumable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(tus.HeaderResumable, tus.Version)
		next.ServeHTTP(w, r)
	})
}

// tusVersion refuses with 412 a request that does not speak the version
// served. It runs after the credentials are checked, so that a request
// without them is a 401 as on every guarded route.
func tusVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !tus.Supported(r.Header.Get(tus.HeaderResumable)) {
			w.Header().Set(tus.HeaderVersion, tus.Version)
			tusError(w, r, &httpx.Error{Status: http.StatusPreconditionFailed, Code: 41200,
				Msg: "Tus-Resumable must be " + tus.Version})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tusHandle adapts a tus handler: errors in envelope A, except to HEAD,
// which has no body.
func tusHandle(h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			tusError(w, r, err)
		}
	})
}

func tusError(w http.ResponseWriter, r *http.Request, err error) {
	err = httpError(err)
	if r.Method == http.MethodHead {
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(httpx.AsError(err).Status)
		return
	}
	httpx.FileAPI.Error(w, r, err)
}

// handleTusOptions is OPTIONS /api/v1/tus/ and /api/v1/tus/{id}: what
// the server supports, for anyone.
func (s *Service) handleTusOptions(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set(tus.HeaderVersion, tus.Version)
	h.Set(tus.HeaderExtension, tus.Extensions)
	h.Set(tus.HeaderMaxSize, strconv.FormatInt(s.settings.Get(r.Context()).Upload.MaxFileSize, 10))
	h.Set(tus.HeaderChecksumAlgorithm, tus.ChecksumAlgorithms)
	w.WriteHeader(http.StatusNoContent)
}

// handleTusCreate is POST /api/v1/tus/: a new upload, and with
// creation-with-upload its first chunk.
func (s *Service) handleTusCreate(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if r.Header.Get(tus.HeaderUploadDeferLength) != "" {
		return httpx.BadRequest("Upload-Defer-Length is not supported: send Upload-Length")
	}
	length, err := strconv.ParseInt(r.Header.Get(tus.HeaderUploadLength), 10, 64)
	if err != nil || length < 0 {
		return httpx.BadRequest("Upload-Length must be a whole number of bytes")
	}
	header := r.Header.Get(tus.HeaderUploadMetadata)
	md, err := tus.ParseMetadata(header)
	if err != nil {
		return httpx.BadRequest(err.Error())
	}
	hasBody := r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
	if hasBody && requestType(r) != tus.ContentType {
		return tusUnsupportedBody()
	}
	sum, err := tusChecksum(r)
	if err != nil {
		return err
	}
	u, err := s.createTus(ctx, auth.FromContext(ctx).UserID, length, header, md)
	if err != nil {
		return err
	}
	w.Header().Set("Location", httpx.BaseURL(r)+"/api/v1/tus/"+u.ID)
	if hasBody {
		offset, err := s.writeTusChunk(ctx, u, 0, r.Body, sum)
		if err != nil {
			// The upload exists: the client resumes it from its offset.
			return err
		}
		u.Offset = offset
		w.Header().Set(tus.HeaderUploadOffset, strconv.FormatInt(offset, 10))
	}
	if u.Offset == u.Length {
		// An empty file, or one sent whole: finished now.
		if _, err := s.finishTus(ctx, u, httpx.BaseURL(r)); err != nil {
			return err
		}
	}
	w.Header().Set(tus.HeaderUploadExpires, tus.FormatExpires(s.now().Add(tusLifetime)))
	w.WriteHeader(http.StatusCreated)
	return nil
}

// handleTusHead is HEAD /api/v1/tus/{id}: how far the upload got.
func (s *Service) handleTusHead(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := s.tusOwned(ctx, r.PathValue("id"), auth.FromContext(ctx).UserID)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set(tus.HeaderUploadOffset, strconv.FormatInt(u.Offset, 10))
	h.Set(tus.HeaderUploadLength, strconv.FormatInt(u.Length, 10))
	if u.Metadata != "" {
		h.Set(tus.HeaderUploadMetadata, u.Metadata)
	}
	if u.FileID == "" {
		h.Set(tus.HeaderUploadExpires, tus.FormatExpires(u.ExpiresAt))
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleTusPatch is PATCH /api/v1/tus/{id}: the chunk at Upload-Offset.
// The chunk that completes the upload stores its file.
func (s *Service) handleTusPatch(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if requestType(r) != tus.ContentType {
		return tusUnsupportedBody()
	}
	offset, err := strconv.ParseInt(r.Header.Get(tus.HeaderUploadOffset), 10, 64)
	if err != nil || offset < 0 {
		return httpx.BadRequest("Upload-Offset must be a whole number of bytes")
	}
	sum, err := tusChecksum(r)
	if err != nil {
		return err
	}
	u, err := s.tusOwned(ctx, r.PathValue("id"), auth.FromContext(ctx).UserID)
	if err != nil {
		return err
	}
	// A complete upload not yet stored (its finishing request failed) is
	// finished by an empty chunk at its end.
	if !(offset == u.Length && u.Offset == u.Length && u.FileID == "") {
		if u.Offset, err = s.writeTusChunk(ctx, u, offset, r.Body, sum); err != nil {
			return err
		}
	}
	if u.Offset == u.Length && u.FileID == "" {
		if _, err := s.finishTus(ctx, u, httpx.BaseURL(r)); err != nil {
			return err
		}
	} else {
		w.Header().Set(tus.HeaderUploadExpires, tus.FormatExpires(s.now().Add(tusLifetime)))
	}
	w.Header().Set(tus.HeaderUploadOffset, strconv.FormatInt(u.Offset, 10))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleTusDelete is DELETE /api/v1/tus/{id}: the termination extension.
func (s *Service) handleTusDelete(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := s.tusOwned(ctx, r.PathValue("id"), auth.FromContext(ctx).UserID)
	if err != nil {
		return err
	}
	if err := s.removeTus(ctx, u.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleTusGet is GET /api/v1/tus/{id}: a finished upload's file, as
// /api/v1/upload answers it; and HEAD, which the GET pattern matches.
func (s *Service) handleTusGet(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodHead {
		return s.handleTusHead(w, r)
	}
	ctx := r.Context()
	userID := auth.FromContext(ctx).UserID
	u, err := s.tusOwned(ctx, r.PathValue("id"), userID)
	if err != nil {
		return err
	}
	if u.FileID == "" {
		return errTusNotDone
	}
	f, err := s.fileByID(ctx, u.FileID, userID)
	if err != nil {
		return httpError(err)
	}
	f.setLinks(httpx.BaseURL(r))
	httpx.Lsky.OK(w, http.StatusOK, newUploadResult(f))
	return nil
}

// handleTusOverride is POST /api/v1/tus/{id}: clients that cannot send
// PATCH, DELETE or HEAD send POST with X-HTTP-Method-Override.
func (s *Service) handleTusOverride(w http.ResponseWriter, r *http.Request) error {
	switch m := strings.ToUpper(r.Header.Get(tus.HeaderMethodOverride)); m {
	case http.MethodPatch:
		r.Method = m
		return s.handleTusPatch(w, r)
	case http.MethodDelete:
		r.Method = m
		return s.handleTusDelete(w, r)
	case http.MethodHead:
		r.Method = m
		return s.handleTusHead(w, r)
	case http.MethodGet:
		r.Method = m
		return s.handleTusGet(w, r)
	}
	w.Header().Set("Allow", "DELETE, GET, HEAD, OPTIONS, PATCH")
	return &httpx.Error{Status: http.StatusMethodNotAllowed, Msg: "POST to an upload needs X-HTTP-Method-Override: PATCH, DELETE, HEAD or GET"}
}

// tusChecksum reads Upload-Checksum, nil when not sent: an algorithm not
// served is a 400, as is a malformed value.
func tusChecksum(r *http.Request) (*tus.Checksum, error) {
	h := r.Header.Get(tus.HeaderUploadChecksum)
	if h == "" {
		return nil, nil
	}
	c, err := tus.ParseChecksum(h)
	if errors.Is(err, tus.ErrAlgorithm) {
		return nil, httpx.BadRequest("Upload-Checksum: unsupported algorithm (supported: " + tus.ChecksumAlgorithms + ")")
	}
	if err != nil {
		return nil, httpx.BadRequest(err.Error())
	}
	return &c, nil
}

func tusUnsupportedBody() error {
	return &httpx.Error{Status: http.StatusUnsupportedMediaType, Code: 41500, Msg: "Content-Type must be " + tus.ContentType}
}

// requestType is the request's Content-Type without parameters.
func requestType(r *http.Request) string {
	t, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(t))
}
