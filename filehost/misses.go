package filehost

import (
	"net/http"
	"time"

	"folio/httpx"
)

// missesPerMinute is each client address's allowance of misses of short
// links, thumbnails and share links (docs/api.md#limits). Short links are
// a short prefix of an MD5, so a client that walks prefixes finds other
// people's files at a rate that grows with the site; it collects misses
// on the way, while a reader following real links collects none.
const missesPerMinute = 60

// notFoundLink answers a miss of a short link, thumbnail or share link:
// the 404 of notFound, counted against the client's allowance of misses,
// or 429 once that is spent. Every answer that must look like a missing
// link comes here, so that nothing tells a miss from it, not even the
// count.
func (s *Service) notFoundLink(w http.ResponseWriter, r *http.Request) {
	if ok, wait := s.missLimit.Allow(httpx.ClientIP(r)); !ok {
		s.tooManyMisses(w, r, wait)
		return
	}
	s.notFound(w, r)
}

// overMissLimit answers 429, and reports true, when the client has spent
// its allowance of misses: until one grows back it gets nothing from the
// link routes, hits included. While no client has spent its allowance
// this is one atomic load, so a hit costs nothing more.
func (s *Service) overMissLimit(w http.ResponseWriter, r *http.Request) bool {
	if !s.missLimit.AnyBlocked() {
		return false
	}
	blocked, wait := s.missLimit.Blocked(httpx.ClientIP(r))
	if blocked {
		s.tooManyMisses(w, r, wait)
	}
	return blocked
}

func (s *Service) tooManyMisses(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	s.tooMany(w, r, wait, "Too many requests",
		"Too many requests from your address for links that do not exist. Wait a minute, then try again.")
}

// tooMany answers 429 with Retry-After in the shape of notFound's answers:
// a page titled title saying msg for a browser, the envelope-A JSON
// otherwise. It is never cached.
func (s *Service) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration, title, msg string) {
	if s.public != nil && httpx.PrefersHTML(r) {
		w.Header().Set("Retry-After", retryAfter(wait))
		s.renderPublic(w, r, http.StatusTooManyRequests, "message", title, msg, nil)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	httpx.TooManyRequests(w, r, httpx.FileAPI, wait)
}
