package filehost

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
)

// shortLink serves /{prefix}/{hash}: i, v and a only for their file type,
// f for every type as an attachment.
func (s *Service) shortLink(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := linkHash(r.PathValue("hash"))
		if !ok {
			s.notFound(w, r)
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
			disposition := "inline"
			if prefix == "f" {
				disposition = "attachment"
			}
			w.Header().Set("Content-Disposition", contentDisposition(disposition, t.name))
			serveContent(w, r, f, t.mimetype, `"`+t.md5+`"`, t.createdAt)
			return
		}
		s.notFound(w, r)
	})
}

// serveContent sends stored content with validators and ranges through
// http.ServeContent (sendfile for the local store). Anything that is not a
// plain raster image, video or audio is sandboxed, so content uploaded by
// anyone can never run script in the site's origin.
func serveContent(w http.ResponseWriter, r *http.Request, f io.ReadSeeker, mimetype, etag string, modified time.Time) {
	h := w.Header()
	h.Set("Content-Type", mimetype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", etag)
	if h.Get("Cache-Control") == "" { // a share link's bytes set their own
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	}
	if !inlineSafe(mimetype) {
		h.Set("Content-Security-Policy", "sandbox")
	}
	http.ServeContent(w, r, "", modified, f)
}

func (s *Service) serverError(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.FileAPI.Error(w, r, httpx.Internal(fmt.Errorf("serve short link: %w", err)))
}

// contentDisposition names served content after the name its uploader
// gave it (RFC 6266): filename* carries the name in UTF-8 (RFC 8187) and
// filename an ASCII stand-in for clients that read only that.
func contentDisposition(kind, name string) string {
	var fallback, encoded strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			fallback.WriteByte('_')
		} else {
			fallback.WriteRune(r)
		}
	}
	const attrChar = "!#$&+-.^_`|~"
	for _, b := range []byte(name) {
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte(attrChar, b) >= 0 {
			encoded.WriteByte(b)
		} else {
			fmt.Fprintf(&encoded, "%%%02X", b)
		}
	}
	return kind + `; filename="` + fallback.String() + `"; filename*=UTF-8''` + encoded.String()
}
