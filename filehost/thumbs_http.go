package filehost

import (
	"errors"
	"net/http"
)

// handleThumb serves /t/{hash}, making the thumbnail on first request.
func (s *Service) handleThumb(w http.ResponseWriter, r *http.Request) {
	if s.overMissLimit(w, r) {
		return
	}
	h, ok := linkHash(r.PathValue("hash"))
	if !ok {
		s.notFoundLink(w, r)
		return
	}
	v, local := s.fileChanges()
	for _, fresh := range rounds(local) {
		t, ok, err := s.targetByHash(r.Context(), h, fresh, v)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		// A link its reader may not read is a miss, answered as one.
		if !ok || !thumbnailable(t.mimetype) || !s.readable(r, t) {
			break
		}
		if t.owners != nil {
			keepPrivate(w)
		}
		sv := t.sent.thumb
		key := sv.key
		if s.accel(w, r, key, sv) {
			return
		}
		if local {
			if b, ok := s.links.bytesOf(key, v); ok {
				s.serveBytes(w, r, b, sv)
				return
			}
		}
		f, err := s.openThumb(r.Context(), t)
		if errors.Is(err, errNoThumb) && t.cached {
			continue
		}
		if errors.Is(err, errNoThumb) {
			break
		}
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if local {
			b, ok, err := readSmall(f)
			if err != nil {
				s.serverError(w, r, err)
				return
			}
			if ok {
				s.links.keep(key, b, v)
				s.serveBytes(w, r, b, sv)
				return
			}
		}
		defer f.Close()
		s.serveContent(w, r, f, sv.mimetype, sv.etag, sv.modified)
		return
	}
	s.notFoundLink(w, r)
}
