package filehost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// linkTarget is what a short link needs to serve content: one indexed read.
type linkTarget struct {
	objectID  string
	key       string
	md5       string
	mimetype  string
	fileType  string
	createdAt time.Time
	cached    bool // came from s.links, so its bytes may be gone
}

// linkHash normalizes the {hash} of a short-link path; ok is false for a
// malformed one. The path may carry an extension ("{hash}.png").
func linkHash(h string) (string, bool) {
	if i := strings.IndexByte(h, '.'); i >= 0 {
		h = h[:i]
	}
	h = strings.ToLower(h)
	if len(h) < 8 || len(h) > 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	return h, true
}

// targetByHash resolves a normalized short-link hash; ok is false for an
// unknown one. Unless fresh, a remembered target may answer.
func (s *Service) targetByHash(ctx context.Context, h string, fresh bool) (linkTarget, bool, error) {
	if fresh {
		s.links.forget(h)
	} else if t, ok := s.links.get(h); ok {
		t.cached = true
		return t, true, nil
	}
	var t linkTarget
	var created int64
	err := s.db.QueryRow(ctx, "SELECT id, storage_key, md5, mimetype, file_type, created_at FROM objects WHERE hash = $1", h).
		Scan(&t.objectID, &t.key, &t.md5, &t.mimetype, &t.fileType, &created)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return t, false, nil
	}
	if err != nil {
		return t, false, err
	}
	t.createdAt = sqlstore.Time(created)
	s.links.put(h, t)
	return t, true, nil
}

// shortLink serves /{prefix}/{hash}: i, v and a only for their file type,
// f for every type as an attachment.
func (s *Service) shortLink(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := linkHash(r.PathValue("hash"))
		if !ok {
			notFound(w, r)
			return
		}
		// A second round only when a remembered target's bytes are gone.
		for _, fresh := range []bool{false, true} {
			t, ok, err := s.targetByHash(r.Context(), h, fresh)
			if err != nil {
				s.serverError(w, r, err)
				return
			}
			if !ok || (prefix != "f" && linkPrefix(t.fileType) != prefix) {
				break
			}
			f, err := s.store.Open(r.Context(), t.key)
			if errors.Is(err, fs.ErrNotExist) && t.cached {
				continue
			}
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				s.serverError(w, r, err)
				return
			}
			defer f.Close()
			serveContent(w, r, f, t.key, t.mimetype, `"`+t.md5+`"`, t.createdAt, prefix == "f")
			return
		}
		notFound(w, r)
	})
}

// serveContent sends stored content with validators and ranges through
// http.ServeContent (sendfile for the local store). Anything that is not a
// plain raster image, video or audio is sandboxed, so content uploaded by
// anyone can never run script in the site's origin.
func serveContent(w http.ResponseWriter, r *http.Request, f io.ReadSeeker, key, mimetype, etag string, modified time.Time, attachment bool) {
	h := w.Header()
	h.Set("Content-Type", mimetype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	if !inlineSafe(mimetype) {
		h.Set("Content-Security-Policy", "sandbox")
	}
	if attachment {
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": keyBase(key)}))
	}
	http.ServeContent(w, r, "", modified, f)
}

// inlineSafe reports whether browsers render a type as passive media.
func inlineSafe(t string) bool {
	switch t {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/avif",
		"image/x-icon", "image/vnd.microsoft.icon", "image/tiff":
		return true
	}
	return strings.HasPrefix(t, "video/") || strings.HasPrefix(t, "audio/")
}

// notFound answers an unknown or mismatched short link. Errors are JSON
// everywhere in Folio, short links included; the body must never be cached.
func notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.FileAPI.Error(w, r, httpx.NotFound())
}

func (s *Service) serverError(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.FileAPI.Error(w, r, httpx.Internal(fmt.Errorf("serve short link: %w", err)))
}
