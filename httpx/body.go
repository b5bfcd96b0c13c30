package httpx

import (
	"fmt"
	"net/http"
)

// DefaultBodyLimit bounds the body of every route that does not register
// its own limit (Surface.HandleBody): the JSON and form bodies, which are
// small by nature (docs/api.md#limits).
const DefaultBodyLimit = MaxJSONBody

// LimitBody bounds r's body to n bytes. A body declared larger
// (Content-Length) is refused with a 413 before a byte of it is read, and
// the connection is closed after the answer, so that a client never gets to
// push it at the server. A body that does not declare its length (chunked)
// is cut at n bytes: reading past them fails with *http.MaxBytesError,
// which AsError answers with the same 413.
func LimitBody(w http.ResponseWriter, r *http.Request, n int64) error {
	if r.ContentLength > n {
		w.Header().Set("Connection", "close")
		return TooLarge(n)
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, n)
	}
	return nil
}

// TooLarge is the 413 of a body over limit bytes, naming the limit.
func TooLarge(limit int64) *Error {
	return E(http.StatusRequestEntityTooLarge, "request body too large (at most "+byteSize(limit)+")")
}

// byteSize writes n bytes as people read them: whole MiB or KiB when exact.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// BodyLimit is a route's own bound on its request body.
type BodyLimit struct {
	// Max is the bound for a request: it may follow a setting.
	Max func(*http.Request) int64
	// Env, when set, is the envelope of the route's 413 where it is not
	// its surface's (the Lsky-shaped upload in the file API).
	Env *Envelope
	// Err, when set, is the route's own 413 in place of TooLarge.
	Err error
}

// HandleBody registers a route, as Handle does, whose body is bounded by
// limit rather than DefaultBodyLimit: an upload or an import.
func (s *Surface) HandleBody(pattern string, limit BodyLimit, h http.Handler) {
	s.Handle(pattern, h)
	s.rt.owners[pattern].limit = &limit
}

// limitBody applies the body limit of the route r matches, before any
// handler or guard runs: an oversized declared body is answered 413 at
// once, whoever sends it. ok is false when it answered. o is the owner of
// the route, when known.
func (s *Surface) limitBody(w http.ResponseWriter, r *http.Request, o *owner) (ok bool) {
	if o == nil {
		_, pattern := s.rt.mux.Handler(r)
		o = s.rt.owners[pattern]
	}
	lim := &BodyLimit{}
	if o != nil && o.limit != nil {
		lim = o.limit
	}
	n := int64(DefaultBodyLimit)
	if lim.Max != nil {
		n = lim.Max(r)
	}
	err := LimitBody(w, r, n)
	if err == nil {
		return true
	}
	env := s.env
	if lim.Env != nil {
		env = *lim.Env
	}
	if lim.Err != nil {
		err = lim.Err
	}
	env.Error(w, r, err)
	return false
}
