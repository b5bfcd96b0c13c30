package filehost

import (
	"errors"
	"net/http"

	"folio/httpx"
)

// variantOutcome is what serveVariant did: answered, found the original
// to be the answer, found nothing (a miss), or found a cached target
// stale (try again from the database).
type variantOutcome int

const (
	variantServed variantOutcome = iota
	variantOriginal
	variantMiss
	variantRetry
)

// serveVariant answers /i/{hash}?w=n for a target its reader may read
// (docs/filehost.md#sizes), making the variant on first request.
func (s *Service) serveVariant(w http.ResponseWriter, r *http.Request, t linkTarget, n int, v uint64, local bool) variantOutcome {
	sv := t.size(n)
	key := sv.key
	if s.accel(w, r, key, sv) {
		return variantServed
	}
	if local {
		if b, ok := s.links.bytesOf(key, v); ok {
			s.serveBytes(w, r, b, sv)
			return variantServed
		}
	}
	if s.presign != nil {
		err := s.ensureVariant(r.Context(), t.objectID, t.key, t.mimetype, n)
		if out, done := s.variantFailed(w, r, t, err); done {
			return out
		}
		s.redirectToBytes(w, r, key, sv.mimetype, "")
		return variantServed
	}
	f, err := s.openVariant(r.Context(), t, n)
	if out, done := s.variantFailed(w, r, t, err); done {
		return out
	}
	if local {
		b, ok, err := readSmall(f)
		if err != nil {
			s.serverError(w, r, err)
			return variantServed
		}
		if ok {
			s.links.keep(key, b, v)
			s.serveBytes(w, r, b, sv)
			return variantServed
		}
	}
	defer f.Close()
	s.serveContent(w, r, f, sv.mimetype, sv.etag, sv.modified)
	return variantServed
}

// variantFailed sorts an error of making or opening a variant into an
// outcome; done is false when there was none.
func (s *Service) variantFailed(w http.ResponseWriter, r *http.Request, t linkTarget, err error) (variantOutcome, bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, errServeOriginal):
		return variantOriginal, true
	case errors.Is(err, errNoThumb) && t.cached:
		return variantRetry, true
	case errors.Is(err, errNoThumb):
		return variantMiss, true
	}
	s.serverError(w, r, err)
	return variantServed, true
}

// badWidth answers a w that is not one of variantWidths: 400, as a page
// for a browser, in envelope A otherwise.
func (s *Service) badWidth(w http.ResponseWriter, r *http.Request) {
	if s.public != nil && httpx.PrefersHTML(r) {
		s.renderPublic(w, r, http.StatusBadRequest, "message", "Bad request",
			"This size of the picture does not exist: "+errBadWidth.Error()+".", nil)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	httpx.FileAPI.Error(w, r, httpx.BadRequest(errBadWidth.Error()))
}
