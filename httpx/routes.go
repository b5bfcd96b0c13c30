package httpx

import (
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Router is a server's one route table: a ServeMux in which every pattern
// belongs to a Surface, a group of routes answering in one envelope. What
// no route matches is answered by the surface owning the path, through the
// method-less fallback patterns it registers, and so are panics and refused
// query strings: the route map is written once, where the routes are
// (docs/design.md, HTTP). Every route is registered before serving starts.
type Router struct {
	mux *http.ServeMux
	// direct holds the same patterns, each handler behind its surface's
	// rules: a request on a clean path is matched once, there, instead of
	// once to find its owner and again to serve it.
	direct       *http.ServeMux
	owners       map[string]*owner // every registered pattern
	fallbacks    map[string]bool   // the method-less patterns answering misses
	routes       []Route
	methods      []string // every method a route names, plus HEAD: what Allow may list
	notFoundPage http.Handler
	metrics      *HTTPMetrics // nil: not observed
}

// owner is what the router knows of a registered pattern.
type owner struct {
	surface *Surface
	series  *routeSeries // when observed
	// limit bounds the route's request body; nil: DefaultBodyLimit.
	limit *BodyLimit
}

// Route is one registered pattern and the surface that owns it.
type Route struct {
	Pattern  string
	Surface  string
	Envelope Envelope
	Pages    bool // the surface serves pages, not a JSON API
	Fallback bool // a method-less pattern answering the surface's misses
}

// Surface is a group of routes that answer in one envelope: a JSON API, or
// pages.
//
// An API surface answers a miss (404, or 405 with Allow) in its envelope,
// and so an unclean path ("//", "/./") too, instead of the mux's redirect
// to an HTML page: the path an API client sent names nothing. A refused
// query string is a 400 in its envelope.
//
// A pages surface answers a 404 with the router's not-found page, a 405 in
// its envelope, and a refused query string in plain text; unclean paths are
// redirected to their clean form, as browsers expect.
//
// Panics become a 500 in the surface's envelope either way.
type Surface struct {
	rt    *Router
	name  string
	env   Envelope
	pages bool
	serve http.Handler // owned, recovering panics in env
	// notFound, when set, answers this surface's 404s instead of the
	// router's not-found page.
	notFound http.Handler
}

// NewRouter returns an empty route table.
func NewRouter() *Router {
	return &Router{mux: http.NewServeMux(), direct: http.NewServeMux(), owners: map[string]*owner{}, fallbacks: map[string]bool{}}
}

// API adds a JSON API surface answering in env.
func (rt *Router) API(name string, env Envelope) *Surface {
	return rt.surface(name, env, false)
}

// Pages adds a surface of pages whose errors other than 404 answer in env.
func (rt *Router) Pages(name string, env Envelope) *Surface {
	return rt.surface(name, env, true)
}

func (rt *Router) surface(name string, env Envelope, pages bool) *Surface {
	s := &Surface{rt: rt, name: name, env: env, pages: pages}
	s.serve = recoverer(http.HandlerFunc(s.owned), env)
	return s
}

// SetNotFoundPage makes h the answer to the 404s of every pages surface;
// without one they answer in plain text.
func (rt *Router) SetNotFoundPage(h http.Handler) { rt.notFoundPage = h }

// SetNotFoundPage makes h the answer to this pages surface's 404s, in place
// of the router's: the console has its own error page.
func (s *Surface) SetNotFoundPage(h http.Handler) { s.notFound = h }

// Routes lists every registered pattern in the order of registration.
func (rt *Router) Routes() []Route { return slices.Clone(rt.routes) }

// Handle registers a route: pattern must name its method ("GET /x/{id}"),
// since method-less patterns are the surface's fallbacks.
func (s *Surface) Handle(pattern string, h http.Handler) {
	method, rest, _ := strings.Cut(pattern, " ")
	if method == "" || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "/") {
		panic("httpx: route " + pattern + " names no method")
	}
	s.register(pattern, h, false)
	s.rt.addMethod(method)
	if method == http.MethodGet {
		s.rt.addMethod(http.MethodHead) // the mux answers HEAD with GET routes
	}
}

// addMethod keeps methods sorted, as the mux's own Allow header is.
func (rt *Router) addMethod(m string) {
	if i, found := slices.BinarySearch(rt.methods, m); !found {
		rt.methods = slices.Insert(rt.methods, i, m)
	}
}

// Fallback registers pattern, a method-less path ("/x" or the subtree
// "/x/"), as owned by s: requests under it that no route matches are
// answered 404, or 405 with Allow when another method has a route there.
// guards run first, so a guarded area answers 401 before saying what it
// does not have. A subtree "/x/" needs "/x" too, or the mux would redirect
// "/x" into it.
func (s *Surface) Fallback(pattern string, guards ...func(http.Handler) http.Handler) {
	if !strings.HasPrefix(pattern, "/") {
		panic("httpx: fallback " + pattern + " must be a path without a method")
	}
	s.register(pattern, Chain(http.HandlerFunc(s.miss), guards...), true)
}

func (s *Surface) register(pattern string, h http.Handler, fallback bool) {
	s.rt.mux.Handle(pattern, h)
	o := &owner{surface: s}
	s.rt.direct.Handle(pattern, recoverer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.admit(w, r, o) {
			h.ServeHTTP(w, r)
		}
	}), s.env))
	if s.rt.metrics != nil {
		o.series = s.rt.metrics.route(routeLabel(pattern))
	}
	s.rt.owners[pattern] = o
	if fallback {
		s.rt.fallbacks[pattern] = true
	}
	s.rt.routes = append(s.rt.routes, Route{Pattern: pattern, Surface: s.name, Envelope: s.env, Pages: s.pages, Fallback: fallback})
}

// ServeHTTP serves the route the mux picks, within the rules of the surface
// owning it.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A clean path is matched once, in direct, whose handlers apply
	// their surface's rules. The mux cleans no CONNECT path.
	if rt.metrics == nil && r.Method != http.MethodConnect && cleanPath(r.URL.Path) {
		rt.direct.ServeHTTP(w, r)
		return
	}
	// For an unclean path the mux reports the pattern the clean path
	// matches, so the owner is known before any redirect.
	_, pattern := rt.mux.Handler(r)
	o := rt.owners[pattern]
	if rt.metrics != nil {
		rt.serveObserved(o, w, r)
		return
	}
	if o != nil {
		o.surface.serve.ServeHTTP(w, r)
		return
	}
	rt.mux.ServeHTTP(w, r)
}

// owned serves a request whose path s owns.
func (s *Surface) owned(w http.ResponseWriter, r *http.Request) {
	if !s.validQuery(w, r) {
		return
	}
	if !s.pages && !cleanPath(r.URL.Path) {
		s.rt.missUnclean(s, w, r)
		return
	}
	// ContentLength is 0 without a body and -1 for a chunked one.
	if r.ContentLength != 0 {
		if !s.limitBody(w, r, nil) {
			return
		}
	}
	s.rt.mux.ServeHTTP(w, r)
}

// admit applies s's rules to a request on a clean path matching o's
// pattern, as owned does, and reports whether the route may serve it.
func (s *Surface) admit(w http.ResponseWriter, r *http.Request, o *owner) bool {
	return s.validQuery(w, r) && (r.ContentLength == 0 || s.limitBody(w, r, o))
}

// validQuery answers a refused query string, and reports whether r's is
// accepted.
func (s *Surface) validQuery(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.RawQuery == "" || validQueryText(r.URL.RawQuery) {
		return true
	}
	err := BadRequest("invalid query string")
	if s.pages {
		http.Error(w, err.Msg, err.Status)
	} else {
		s.env.Error(w, r, err)
	}
	return false
}

// missUnclean answers an unclean path through the fallback owning its clean
// form, guards included, which sees the path unclean and answers 404.
func (rt *Router) missUnclean(s *Surface, w http.ResponseWriter, r *http.Request) {
	// No route is method-less, so the empty method finds the fallback.
	probe := &http.Request{URL: &url.URL{Path: cleanForm(r.URL.Path)}, Host: r.Host}
	if h, pattern := rt.mux.Handler(probe); rt.fallbacks[pattern] {
		h.ServeHTTP(w, r)
		return
	}
	s.env.Error(w, r, NotFound())
}

// miss answers a request under one of s's fallbacks.
func (s *Surface) miss(w http.ResponseWriter, r *http.Request) {
	if !cleanPath(r.URL.Path) {
		s.env.Error(w, r, NotFound())
		return
	}
	if allow := s.rt.allowed(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.env.Error(w, r, E(http.StatusMethodNotAllowed, "method not allowed"))
		return
	}
	switch {
	case !s.pages:
		s.env.Error(w, r, NotFound())
	case s.notFound != nil:
		s.notFound.ServeHTTP(w, r)
	case s.rt.notFoundPage != nil:
		s.rt.notFoundPage.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// allowed lists the methods with a route at r's path, asking the mux itself
// so that the answer follows the routes.
func (rt *Router) allowed(r *http.Request) []string {
	var allow []string
	for _, m := range rt.methods {
		_, pattern := rt.mux.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host})
		if rt.owners[pattern] != nil && !rt.fallbacks[pattern] {
			allow = append(allow, m)
		}
	}
	return allow
}

// cleanForm is p without empty, "." or ".." segments, keeping a trailing
// slash: the path the mux would redirect to.
func cleanForm(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// cleanPath reports whether p is in the canonical form the mux wants,
// cleanForm(p) == p. It runs on every request: a rooted path is read
// once, without path.Clean's copy, the mux cleaning it again anyway.
func cleanPath(p string) bool {
	if len(p) == 0 || p[0] != '/' {
		return cleanForm(p) == p
	}
	start := 1 // of the segment
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "":
			if i < len(p) { // "//"; a trailing slash is clean
				return false
			}
		case ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}
