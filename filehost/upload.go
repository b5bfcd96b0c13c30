package filehost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/image/webp"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/storage"
)

// Upload failures with their envelope-A codes (decisions §4).
func errUpload(status, code int, msg string) *httpx.Error {
	return &httpx.Error{Status: status, Code: code, Msg: msg}
}

var (
	errNoFile       = errUpload(http.StatusBadRequest, 40000, "file is required")
	errBadAlbum     = errUpload(http.StatusBadRequest, 40000, "album_id is not one of your albums")
	errGuestOff     = errUpload(http.StatusForbidden, 40300, "guest upload is disabled")
	errFileTooLarge = errUpload(http.StatusRequestEntityTooLarge, 41300, "file is larger than the maximum file size")
	errQuotaFull    = errUpload(http.StatusInsufficientStorage, 50700, "storage quota exceeded")
)

func errForbiddenType(what string) *httpx.Error {
	return errUpload(http.StatusUnsupportedMediaType, 41500, "file type not allowed: "+what)
}

// Limits on the multipart fields other than the file.
const (
	maxParts      = 32
	maxFieldBytes = 4 << 10
	maxNameRunes  = 255
)

// handleUpload is POST /api/v1/upload for an authenticated user.
func (s *Service) handleUpload(w http.ResponseWriter, r *http.Request) error {
	return s.upload(w, r, auth.FromContext(r.Context()).UserID)
}

// handleGuestUpload is POST /api/v1/public/upload: only when enabled, owned
// by the guest user, rate limited per client IP.
func (s *Service) handleGuestUpload(w http.ResponseWriter, r *http.Request) error {
	if !s.settings.Get(r.Context()).Upload.AllowGuestUpload {
		return errGuestOff
	}
	if ok, wait := s.guestLimit.Allow(httpx.ClientIP(r)); !ok {
		httpx.TooManyRequests(w, r, httpx.Lsky, wait)
		return nil
	}
	return s.upload(w, r, s.auth.GuestID())
}

// incoming is a file part received into a storage temp file.
type incoming struct {
	w          storage.Writer
	originName string
	ext        string
	mimetype   string
	fileType   string
	streamed
}

// upload reads the multipart body as a stream: the file part goes straight
// to a temp file while it is hashed; other fields may come before or after
// it.
func (s *Service) upload(w http.ResponseWriter, r *http.Request, userID string) error {
	ctx := r.Context()
	set := s.settings.Get(ctx).Upload
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return errUpload(http.StatusBadRequest, 40000, "request must be multipart/form-data")
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
			return errUpload(http.StatusBadRequest, 40000, "too many form fields")
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
				return errUpload(http.StatusBadRequest, 40000, name+" is too long")
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
		return errUpload(http.StatusBadRequest, 40000, "permission must be 0 or 1")
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
		return nil, errForbiddenType("." + in.ext)
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
			return errForbiddenType("." + in.ext)
		}
		if !typeAllowed(set.AllowedTypes, in.mimetype, in.ext) {
			return errForbiddenType(in.mimetype)
		}
		return nil
	}
	res, err := streamHashed(w, p, set.MaxFileSize, check)
	if err == nil && res.size == 0 {
		err = errUpload(http.StatusBadRequest, 40000, "file is empty")
	}
	if err != nil {
		w.Abort()
		var he *httpx.Error
		if errors.As(err, &he) {
			return nil, he
		}
		return nil, bodyError(err)
	}
	in.streamed = res
	return in, nil
}

// cleanName keeps the client's base name, valid UTF-8, without control
// characters, at most maxNameRunes long.
func cleanName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	name = path.Base(name)
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == "/" {
		return "file"
	}
	if utf8.RuneCountInString(name) > maxNameRunes {
		name = string([]rune(name)[:maxNameRunes])
	}
	return name
}

// nameExt is a file name's extension, lower-cased, when it looks like one.
func nameExt(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if ext == "" || len(ext) > 16 {
		return ""
	}
	for _, c := range ext {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return ext
}

// detectMIME sniffs the content; when the sniffer only knows "some bytes" or
// "some text" (or generic XML), the extension's registered type is used.
// The part's own Content-Type header is never consulted.
func detectMIME(head []byte, ext string) string {
	sniffed := mediaType(http.DetectContentType(head))
	byExt := ""
	if ext != "" {
		byExt = mediaType(mime.TypeByExtension("." + ext))
	}
	switch sniffed {
	case "application/octet-stream", "text/plain":
		if byExt != "" {
			return byExt
		}
	case "text/xml", "application/xml":
		if strings.HasSuffix(byExt, "+xml") {
			return byExt
		}
	}
	return sniffed
}

// mediaType drops parameters such as charset.
func mediaType(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// preferredExt names the usual extension of common types, where
// mime.ExtensionsByType would offer several.
var preferredExt = map[string]string{
	"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp",
	"image/bmp": "bmp", "image/svg+xml": "svg", "image/x-icon": "ico", "image/avif": "avif",
	"video/mp4": "mp4", "video/webm": "webm", "video/avi": "avi", "audio/mpeg": "mp3",
	"audio/wave": "wav", "audio/ogg": "ogg", "application/ogg": "ogg", "audio/aiff": "aiff",
	"application/pdf": "pdf", "application/zip": "zip", "application/x-gzip": "gz",
	"text/plain": "txt", "text/html": "html", "text/xml": "xml", "application/json": "json",
}

// mimeExt derives an extension for a name that had none.
func mimeExt(t string) string {
	if e, ok := preferredExt[t]; ok {
		return e
	}
	if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
		return strings.TrimPrefix(exts[0], ".")
	}
	return "bin"
}

// fileTypeOf maps a MIME type to interface.md's file_type.
func fileTypeOf(t string) string {
	switch {
	case strings.HasPrefix(t, "image/"):
		return "image"
	case strings.HasPrefix(t, "video/"):
		return "video"
	case strings.HasPrefix(t, "audio/"):
		return "audio"
	}
	return "file"
}

// typeAllowed applies allowed_types: empty allows all; entries with a
// slash are MIME types ("image/*" matches a whole family), others are
// extensions.
func typeAllowed(allowed List, mimetype, ext string) bool {
	if len(allowed) == 0 {
		return true
	}
	for _, a := range allowed {
		switch {
		case strings.HasSuffix(a, "/*"):
			if strings.HasPrefix(mimetype, strings.TrimSuffix(a, "*")) {
				return true
			}
		case strings.Contains(a, "/"):
			if a == mimetype {
				return true
			}
		case a == ext:
			return true
		}
	}
	return false
}

// errObjectGone: the object to share was deleted meanwhile.
var errObjectGone = errors.New("object deleted concurrently")

// save turns received content into a file record: shared with an
// identical stored object when duplicates are not allowed, otherwise
// committed as a new object. The temp file is always consumed.
func (s *Service) save(ctx context.Context, userID string, in *incoming, albumID *string, isPublic bool, set UploadSettings) (*fileRecord, error) {
	md5Taken := false
	if !set.AllowDuplicate {
		rec, taken, err := s.reuse(ctx, userID, in, albumID, isPublic)
		if rec != nil || err != nil {
			in.w.Abort()
			return rec, err
		}
		md5Taken = taken
	}

	now := s.now()
	obj := &object{ID: sqlstore.NewID(), MD5: in.md5, SHA256: in.sha256, Size: in.size,
		Mimetype: in.mimetype, Extension: in.ext, FileType: in.fileType, CreatedAt: now,
		Shared: !set.AllowDuplicate}
	var err error
	if obj.Key, err = s.commitNew(in.w, set.PathPattern, now, in.md5, in.ext); err != nil {
		return nil, err
	}
	obj.Width, obj.Height = s.dimensions(ctx, obj.Key, obj.Mimetype)
	obj.hashes = shortHashCandidates(in.md5, in.sha256, obj.ID, md5Taken)
	rec, err := s.insertFile(ctx, userID, obj, in, albumID, isPublic, true)
	if err == nil {
		return rec, nil
	}
	if derr := s.store.Delete(context.WithoutCancel(ctx), obj.Key); derr != nil {
		s.log.Error("delete content of failed upload", "key", obj.Key, "err", derr)
	}
	if !errors.Is(err, errContentStored) {
		return nil, err
	}
	// A concurrent upload of the same bytes stored them first: share its
	// object, as if this upload had come second.
	rec, _, err = s.reuse(ctx, userID, in, albumID, isPublic)
	if rec == nil && err == nil {
		// It was deleted in the moment between: the bytes are gone.
		err = httpx.E(http.StatusConflict, "the same content was being deleted meanwhile; upload it again")
	}
	return rec, err
}

// reuse records the upload against the stored object with the same content,
// if there is one; rec is nil when there is none. md5Taken then reports
// whether other content has the same MD5 (a collision), which the new
// object's short hash must avoid.
func (s *Service) reuse(ctx context.Context, userID string, in *incoming, albumID *string, isPublic bool) (rec *fileRecord, md5Taken bool, err error) {
	obj, err := s.objectByContent(ctx, in.md5, in.sha256)
	if err != nil {
		return nil, false, err
	}
	if obj != nil {
		rec, err := s.insertFile(ctx, userID, obj, in, albumID, isPublic, false)
		if !errors.Is(err, errObjectGone) {
			return rec, false, err
		}
	}
	var one int
	err = s.db.QueryRow(ctx, "SELECT 1 FROM objects WHERE md5 = $1 LIMIT 1", in.md5).Scan(&one)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, false, fmt.Errorf("filehost: find md5: %w", err)
	}
	return nil, err == nil, nil
}

// commitNew moves the temp file under a key made from the path pattern; a
// taken key (a pattern without {uuid}) is retried with a unique suffix.
func (s *Service) commitNew(w storage.Writer, pattern string, now time.Time, md5hex, ext string) (string, error) {
	key := buildKey(pattern, now, md5hex, ext)
	if !storage.ValidKey(key) {
		w.Abort()
		return "", httpx.Internal(fmt.Errorf("path_pattern %q gives invalid key %q", pattern, key))
	}
	err := w.Commit(key)
	if errors.Is(err, storage.ErrExists) {
		// Commit consumed the temp file, so nothing is left to retry with:
		// keys are made unique up front instead (see buildKey).
		return "", httpx.Internal(fmt.Errorf("storage key %q already exists", key))
	}
	if err != nil {
		return "", httpx.Internal(err)
	}
	return key, nil
}

// buildKey expands a path pattern. A pattern without {uuid} still gets a
// unique key: a short id is added before the extension, so two different
// uploads can never name the same key.
func buildKey(pattern string, now time.Time, md5hex, ext string) string {
	now = now.UTC()
	id := sqlstore.NewID()
	key := strings.NewReplacer(
		"{year}", fmt.Sprintf("%04d", now.Year()),
		"{month}", fmt.Sprintf("%02d", int(now.Month())),
		"{day}", fmt.Sprintf("%02d", now.Day()),
		"{md5}", md5hex,
		"{md5_8}", md5hex[:8],
		"{uuid}", id,
		"{ext}", ext,
		"{timestamp}", strconv.FormatInt(now.Unix(), 10),
	).Replace(pattern)
	if !strings.Contains(pattern, "{uuid}") {
		suffix := "-" + strings.ReplaceAll(id, "-", "")[20:]
		if dot := strings.LastIndexByte(key, '.'); dot > strings.LastIndexByte(key, '/') {
			key = key[:dot] + suffix + key[dot:]
		} else {
			key += suffix
		}
	}
	return key
}

// shortHashCandidates lists the short hashes to try, shortest first: MD5
// prefixes from 8 characters, or SHA-256 prefixes when another content
// already has this MD5, and finally the object id, which is unique.
func shortHashCandidates(md5hex, sha256hex, objectID string, md5Taken bool) []string {
	var out []string
	if !md5Taken {
		for n := 8; n <= len(md5hex); n++ {
			out = append(out, md5hex[:n])
		}
	}
	for n := 8; n <= len(sha256hex); n++ {
		out = append(out, sha256hex[:n])
	}
	return append(out, strings.ReplaceAll(objectID, "-", ""))
}

// dimensions reads an image's size from its header; 0×0 when unknown.
func (s *Service) dimensions(ctx context.Context, key, mimetype string) (int, int) {
	decode := configDecoder(mimetype)
	if decode == nil {
		return 0, 0
	}
	f, err := s.store.Open(ctx, key)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	cfg, err := decode(f)
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// configDecoder picks the header decoder for a type explicitly, rather
// than through image's global format registry.
func configDecoder(mimetype string) func(io.Reader) (image.Config, error) {
	switch mimetype {
	case "image/jpeg":
		return jpeg.DecodeConfig
	case "image/png":
		return png.DecodeConfig
	case "image/gif":
		return gif.DecodeConfig
	case "image/webp":
		return webp.DecodeConfig
	}
	return nil
}
