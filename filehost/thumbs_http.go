package filehost

import (
	"errors"
	"net/http"
)

// handleThumb serves /t/{hash}, making the thumbnail on first request.
func (s *Service) handleThumb(w http.ResponseWriter, r *http.Request) {
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
		if !ok || !thumbnailable(t.mimetype) {
			break
		}
		f, ctype, err := s.openThumb(r.Context(), t)
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
		defer f.Close()
		serveContent(w, r, f, ctype, `"t-`+t.md5+`"`, t.createdAt)
		return
	}
	s.notFound(w, r)
}
