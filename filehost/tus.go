package filehost

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"folio/filehost/tus"
	"folio/httpx"
	"folio/sqlstore"
	"folio/storage"
)

// Resumable uploads (docs/filehost.md#resumable-uploads-tus): each chunk
// is stored as a part object under tusDir, recorded in tus_parts; the
// last one assembles the parts into an upload like any other.
const (
	// tusDir is the storage folder of upload parts; no path pattern may
	// put uploads there (ValidatePathPattern).
	tusDir = "tus"
	// tusLifetime is how long an upload lives after its last chunk (or
	// its creation), and how long a finished one still answers GET.
	tusLifetime = 24 * time.Hour
	// tusSweepBatch bounds the expired uploads one janitor step removes.
	tusSweepBatch = 100
)

// Errors of resumable uploads, with their statuses.
var (
	errTusOffset   = &httpx.Error{Status: http.StatusConflict, Code: 40900, Msg: "Upload-Offset does not match the upload's offset"}
	errTusTooLong  = &httpx.Error{Status: http.StatusRequestEntityTooLarge, Code: 41301, Msg: "the chunk goes beyond Upload-Length"}
	errTusChecksum = &httpx.Error{Status: tus.StatusChecksumMismatch, Code: 46000, Msg: "checksum mismatch: the chunk was discarded"}
	errTusNotDone  = &httpx.Error{Status: http.StatusConflict, Code: 40901, Msg: "the upload is not finished"}
)

// tusFields are the upload fields an upload's metadata sets: the same
// names as the multipart fields of /api/v1/upload.
func tusFields(md map[string]string) map[string]string {
	fields := map[string]string{}
	for _, k := range []string{"album_id", "permission", "visibility", "expires_in", "expires_at"} {
		if v := strings.TrimSpace(md[k]); v != "" {
			fields[k] = v
		}
	}
	return fields
}

// tusName is the file name an upload's metadata gives, under the names
// tus clients use.
func tusName(md map[string]string) string {
	if n := md["filename"]; n != "" {
		return n
	}
	return md["name"]
}

// createTus checks a new upload of length bytes as an upload of its whole
// content would be checked, as far as it can be before the bytes come:
// the size, the name's extension and the declared type, the fields and
// the quota; then records it.
func (s *Service) createTus(ctx context.Context, userID string, length int64, header string, md map[string]string) (*tusUpload, error) {
	set := s.settings.Get(ctx).Upload
	if length > set.MaxFileSize {
		return nil, errFileTooLarge
	}
	for k, v := range md {
		if len(v) > maxFieldBytes {
			return nil, invalid("metadata " + k + " is too long")
		}
	}
	ext := nameExt(cleanName(tusName(md)))
	if ext != "" && slices.Contains(set.ForbiddenExts, ext) {
		return nil, &forbiddenType{"." + ext}
	}
	if ft := md["filetype"]; ft != "" {
		mt, _, err := mime.ParseMediaType(ft)
		if err != nil {
			return nil, invalid("metadata filetype is not a media type")
		}
		if ext == "" {
			ext = mimeExt(mt)
		}
		if slices.Contains(set.ForbiddenExts, ext) {
			return nil, &forbiddenType{"." + ext}
		}
		if !typeAllowed(set.AllowedTypes, mt, ext) {
			return nil, &forbiddenType{mt}
		}
	} else if mt := mimeByExt(ext); mt != "" && !typeAllowed(set.AllowedTypes, mt, ext) {
		return nil, &forbiddenType{mt}
	}
	if _, err := s.uploadFields(ctx, tusFields(md), userID); err != nil {
		return nil, err
	}
	u, err := s.auth.UserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.QuotaBytes > 0 && u.UsedBytes+length > u.QuotaBytes {
		return nil, errQuotaFull
	}
	now := s.now()
	up := &tusUpload{ID: sqlstore.NewID(), UserID: userID, Length: length, Metadata: header,
		CreatedAt: now, ExpiresAt: now.Add(tusLifetime)}
	return up, s.insertTusUpload(ctx, up)
}

// mimeByExt is the media type an extension names, for the allowed-types
// check of a name whose type was not declared; "" when unknown.
func mimeByExt(ext string) string {
	t, _, _ := mime.ParseMediaType(mime.TypeByExtension("." + ext))
	return t
}

// tusOwned reads userID's live upload id: an unknown one, another user's
// and an expired one are all not found.
func (s *Service) tusOwned(ctx context.Context, id, userID string) (*tusUpload, error) {
	if !sqlstore.ValidID(id) {
		return nil, httpx.NotFound()
	}
	u, err := s.tusUploadByID(ctx, strings.ToLower(id))
	if errors.Is(err, sqlstore.ErrNotFound) || (err == nil && (u.UserID != userID || !u.ExpiresAt.After(s.now()))) {
		return nil, httpx.NotFound()
	}
	return u, err
}

// writeTusChunk stores body, the chunk at offset, as a part of u and
// returns the new offset. A body cut short keeps the bytes that came,
// unless a checksum was sent (they cannot be checked). sum may be nil.
func (s *Service) writeTusChunk(ctx context.Context, u *tusUpload, offset int64, body io.Reader, sum *tus.Checksum) (int64, error) {
	if offset != u.Offset || u.FileID != "" {
		return 0, errTusOffset
	}
	// A client that goes away cancels the request's context; the bytes
	// that came are still stored and recorded.
	ctx = context.WithoutCancel(ctx)
	w, err := s.store.Begin(ctx)
	if err != nil {
		return 0, httpx.Internal(err)
	}
	room := u.Length - offset
	var h hash.Hash
	var dst io.Writer = w
	if sum != nil {
		h = tus.Hasher(sum.Algorithm)()
		dst = io.MultiWriter(w, h)
	}
	n, readErr := io.CopyBuffer(dst, io.LimitReader(body, room+1), make([]byte, chunkSize))
	switch {
	case n > room:
		w.Abort()
		return 0, errTusTooLong
	case readErr != nil && (sum != nil || n == 0):
		w.Abort()
		return 0, bodyError(readErr)
	case readErr == nil && sum != nil && !slices.Equal(h.Sum(nil), sum.Sum):
		w.Abort()
		return 0, errTusChecksum
	case n == 0:
		w.Abort()
		return offset, nil
	}
	key := fmt.Sprintf("%s/%s/%020d-%s", tusDir, u.ID, offset, sqlstore.NewID())
	intent, err := s.recordPlace(ctx, key)
	if err != nil {
		w.Abort()
		return 0, err
	}
	if err := w.Commit(key); err != nil {
		s.dropIntents(ctx, intent)
		return 0, fmt.Errorf("filehost: commit tus part: %w", err)
	}
	err = s.recordTusPart(ctx, u.ID, intent, tusPart{Offset: offset, Size: n, Key: key}, s.now().Add(tusLifetime))
	if err != nil {
		s.discardPlaced(ctx, key, intent)
		if errors.Is(err, errTusMoved) {
			return 0, errTusOffset
		}
		return 0, fmt.Errorf("filehost: record tus part: %w", err)
	}
	if readErr != nil {
		return offset + n, bodyError(readErr)
	}
	return offset + n, nil
}

// finishTus assembles a complete upload's parts into a file record, as
// /api/v1/upload stores one, and drops the parts. An upload the checks
// refuse is removed.
func (s *Service) finishTus(ctx context.Context, u *tusUpload, base string) (rec *fileRecord, err error) {
	defer func() {
		if err != nil {
			s.metrics.UploadsFailed.Inc()
		}
	}()
	parts, err := s.tusParts(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	next := int64(0)
	for _, p := range parts {
		if p.Offset != next {
			return nil, fmt.Errorf("filehost: tus upload %s: part at %d, expected %d", u.ID, p.Offset, next)
		}
		next += p.Size
	}
	if next != u.Length {
		return nil, fmt.Errorf("filehost: tus upload %s: parts hold %d bytes of %d", u.ID, next, u.Length)
	}
	md, err := tus.ParseMetadata(u.Metadata)
	if err != nil {
		return nil, err // checked when it was created
	}
	set := s.settings.Get(ctx).Upload
	src := &partsReader{ctx: ctx, store: s.store, parts: parts}
	defer src.Close()
	in, err := s.receive(ctx, tusName(md), src, set, u.Length)
	if err == nil {
		var opt uploadOptions
		if opt, err = s.uploadFields(ctx, tusFields(md), u.UserID); err != nil {
			in.w.Abort()
		} else {
			rec, err = s.save(ctx, u.UserID, in, opt, set)
		}
	}
	if err != nil {
		var ii *invalidInput
		var ft *forbiddenType
		if errors.As(err, &ii) || errors.As(err, &ft) || errors.Is(err, errQuotaFull) || errors.Is(err, errBadAlbum) ||
			errors.Is(err, errFileTooLarge) {
			s.removeTus(ctx, u.ID)
		}
		return nil, err
	}
	keys, intents, err := s.finishTusRecord(ctx, u.ID, rec.ID, s.now().Add(tusLifetime))
	if err != nil {
		return nil, err
	}
	s.deleteTusBytes(ctx, keys, intents)
	rec.setLinks(base)
	return rec, nil
}

// removeTus deletes an upload and its parts' bytes.
func (s *Service) removeTus(ctx context.Context, id string) error {
	keys, intents, err := s.deleteTusRecord(ctx, id)
	if err != nil {
		s.log.Error("delete tus upload", "id", id, "err", err)
		return err
	}
	s.deleteTusBytes(ctx, keys, intents)
	return nil
}

// deleteTusBytes deletes parts' bytes whose rows are gone, then their
// 'delete' intents; a failure keeps its intent for the janitor.
func (s *Service) deleteTusBytes(ctx context.Context, keys, intents []string) {
	var done []string
	for i, key := range keys {
		if err := s.store.Delete(context.WithoutCancel(ctx), key); err != nil {
			s.log.Error("delete tus part", "key", key, "err", err)
			continue
		}
		done = append(done, intents[i])
	}
	s.dropIntents(ctx, done...)
}

// sweepTus removes expired uploads, unfinished or finished, with their
// parts: the janitor's step for resumable uploads.
func (s *Service) sweepTus(ctx context.Context, now time.Time, rep *JanitorReport) error {
	for {
		ids, err := s.expiredTusUploads(ctx, now, tusSweepBatch)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.removeTus(ctx, id); err != nil {
				return err
			}
			rep.TusExpired++
		}
		if len(ids) < tusSweepBatch {
			return nil
		}
	}
}

// partsReader reads an upload's parts in order as one stream, opening
// one at a time.
type partsReader struct {
	ctx   context.Context
	store storage.Store
	parts []tusPart
	cur   storage.Object
}

func (r *partsReader) Read(b []byte) (int, error) {
	for {
		if r.cur == nil {
			if len(r.parts) == 0 {
				return 0, io.EOF
			}
			f, err := r.store.Open(r.ctx, r.parts[0].Key)
			if err != nil {
				return 0, fmt.Errorf("filehost: open tus part: %w", err)
			}
			r.cur, r.parts = f, r.parts[1:]
		}
		n, err := r.cur.Read(b)
		if errors.Is(err, io.EOF) {
			r.cur.Close()
			r.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// Close closes the part being read, if any.
func (r *partsReader) Close() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.Close()
	r.cur = nil
	return err
}
