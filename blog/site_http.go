package blog

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"folio/httpx"
	"folio/templates"
)

// answer is a rendered response of the classic site, kept whole in memory so
// that its ETag can be computed and nothing half-written goes out.
type answer struct {
	status int
	ctype  string
	body   []byte
	etag   string // set by handle before the answer is cached or sent

	// The header values it goes out with, made once (render): a cached
	// page is sent many times.
	hdr struct{ ctype, etag, length []string }
}

// siteHandler renders one classic-mode page.
type siteHandler func(w http.ResponseWriter, r *http.Request) (*answer, error)

// handle adapts h: in headless mode it answers the JSON 404 of the API, an
// error becomes the HTML error page, and a rendered page goes out with
// ETag and Last-Modified, or as 304 when the client's copy is current.
func (s *Site) handle(h siteHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.classic(r) {
			httpx.BlogAPI.Error(w, r, httpx.NotFound())
			return
		}
		// GET and HEAD pages are cached for the site's state, and dated
		// by its last change once that has settled. Without the state a
		// page is still served, just neither dated nor cached.
		var changed time.Time
		var key string
		var tag stateTag
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			// One reading of the clock for both: a cached page costs
			// little else.
			now := s.b.now()
			st, local, err := s.siteState(r.Context(), now)
			if err != nil {
				s.b.logger.Error("blog: site changed time", "err", err)
			} else {
				settled := now.Sub(st.tag.changed) >= settledAfter
				if settled {
					changed = st.tag.changed
				}
				// Without counters that see every process, a page is
				// cached only once the settings other processes may
				// have changed have reached this one.
				if settled || local {
					tag = st.tag
					// The key is made in a buffer on the stack: a
					// cached page is found without a string made.
					var buf [128]byte
					k := append(append(buf[:0], httpx.BaseURL(r)...), r.URL.RequestURI()...)
					if a := s.cache.getBytes(k, tag); a != nil {
						s.write(w, r, a, changed)
						return
					}
					key = string(k)
				}
			}
		}
		var a *answer
		var err error
		if key != "" {
			// Visitors asking at once for a page not cached yet share
			// one rendering: a cold home page of a large blog costs
			// queries that 16 renderings at once would each pay.
			// The rendering of this request, if any, sets a and err.
			got, shared := s.renders.do(renderKey{key, tag}, func() *answer {
				a, err = s.render(w, r, h)
				if a != nil && a.status == 0 {
					s.cache.put(key, tag, a)
					return a
				}
				return nil
			})
			if shared {
				s.write(w, r, got, changed)
				return
			}
		} else {
			a, err = s.render(w, r, h)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if a == nil { // the handler answered itself (a redirect)
			return
		}
		if a.status != 0 {
			changed = time.Time{}
		}
		s.write(w, r, a, changed)
	})
}

// render runs h and tags its answer, if any, with its ETag.
func (s *Site) render(w http.ResponseWriter, r *http.Request, h siteHandler) (*answer, error) {
	a, err := h(w, r)
	if err != nil || a == nil {
		return a, err
	}
	sum := sha256.Sum256(a.body)
	a.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
	a.hdr.ctype = []string{a.ctype}
	a.hdr.etag = []string{a.etag}
	a.hdr.length = []string{strconv.Itoa(len(a.body))}
	return a, nil
}

// classic reports whether the site is on: render.render_mode is read per
// request, so switching it through the settings API takes effect at once.
func (s *Site) classic(r *http.Request) bool {
	// The render group alone: this runs on every page, cached ones too.
	return s.b.settings.Render.Get(r.Context()).RenderMode == "classic"
}

// siteCSP is the Content-Security-Policy of every HTML page. The theme needs
// no script at all, so none may run: a stored-XSS slip anywhere still runs
// nothing. Images may come from anywhere (covers, logos, Markdown).
const siteCSP = "default-src 'self'; script-src 'none'; object-src 'none'; img-src * data:; " +
	"style-src 'self' 'unsafe-inline'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"

// write sends a. changed, when not zero, is when the site last changed, at
// least settledAfter ago: it becomes Last-Modified.
func (s *Site) write(w http.ResponseWriter, r *http.Request, a *answer, changed time.Time) {
	// Keys in canonical form and values made once: this runs for every
	// cached page. Value slices of length 1 are never appended to in place.
	h := w.Header()
	if strings.HasPrefix(a.ctype, "text/html") {
		h["Content-Security-Policy"] = s.hdr.csp
	}
	h["Content-Type"] = a.hdr.ctype
	h["Etag"] = a.hdr.etag
	// Pages change whenever content does: caches must ask every time, and
	// the ETag makes asking cheap.
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = s.hdr.noCache
	}
	changed = changed.Truncate(time.Second)
	if !changed.IsZero() {
		h["Last-Modified"] = s.lastModified(changed)
	}
	status := a.status
	if status == 0 {
		status = http.StatusOK
	}
	if status == http.StatusOK && notModified(r, a.etag, changed) {
		delete(h, "Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = a.hdr.length
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
}

// lastModified is the Last-Modified value of changed, formatted once per
// change time.
func (s *Site) lastModified(changed time.Time) []string {
	if lm := s.hdr.lastMod.Load(); lm != nil && lm.at.Equal(changed) {
		return lm.v
	}
	lm := &formattedTime{at: changed, v: []string{changed.UTC().Format(http.TimeFormat)}}
	s.hdr.lastMod.Store(lm)
	return lm.v
}

type formattedTime struct {
	at time.Time
	v  []string
}

// notModified reports whether the client's copy is the current body:
// If-None-Match names it by ETag (a hash of the body), and when absent
// If-Modified-Since by date (RFC 9110 13.1.3), against changed, the site's
// last change (zero: no date was sent, so none can match).
func notModified(r *http.Request, etag string, changed time.Time) bool {
	// The keys in canonical form, as net/http stores them: Get would
	// canonicalize them on every request for a cached page.
	inm := firstValue(r.Header["If-None-Match"])
	if inm == "" {
		ims := firstValue(r.Header["If-Modified-Since"])
		if changed.IsZero() || ims == "" { // no date to parse, and no error to make
			return false
		}
		since, err := http.ParseTime(ims)
		return err == nil && !changed.After(since)
	}
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// firstValue is a header's first value, "" without one: Header.Get for
// a key already in canonical form.
func firstValue(v []string) string {
	if len(v) > 0 {
		return v[0]
	}
	return ""
}

// NotFound answers a request nothing matched: the HTML 404 page in classic
// mode, the API's JSON 404 in headless mode and for every /api/ path.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") || !s.classic(r) {
		httpx.BlogAPI.Error(w, r, httpx.NotFound())
		return
	}
	s.errorPage(w, r, http.StatusNotFound)
}

// fail turns a handler's error into an HTML error page: 404 for anything
// that does not exist, a logged 500 otherwise.
func (s *Site) fail(w http.ResponseWriter, r *http.Request, err error) {
	if httpx.ClientGone(w, r, err) {
		return
	}
	he := httpx.AsError(err)
	if he.Status >= 500 {
		httpx.Logger(r).Error("site request failed", "method", r.Method, "path", r.URL.Path,
			"ip", httpx.ClientIP(r), "err", err)
	}
	s.errorPage(w, r, he.Status)
}

// errorPage renders the 404 page with status; for other statuses, and if
// even that fails, a plain text line does.
func (s *Site) errorPage(w http.ResponseWriter, r *http.Request, status int) {
	if status == http.StatusNotFound {
		v, err := s.view(r, "Page not found")
		if err == nil {
			v.Meta.NoIndex = true
			var body []byte
			if body, err = s.engine.Render(templates.KindNotFound, v); err == nil {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Header().Set("Content-Security-Policy", siteCSP)
				w.Header().Set("Cache-Control", "no-store")
				w.WriteHeader(status)
				_, _ = w.Write(body)
				return
			}
		}
		httpx.Logger(r).Error("render 404 page", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(status), status)
}
