package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"folio/httpx"
)

// Identity is who a request acts as.
type Identity struct {
	UserID    string
	Username  string
	Role      string
	Via       string // "session", "access_token", "api_token" or "cookie"
	SessionID string // set when Via is "session"
}

// IsAdmin reports whether the identity has the admin role.
func (i *Identity) IsAdmin() bool { return i != nil && i.Role == RoleAdmin }

// FromCookie reports whether the credentials came from a cookie, which a
// browser sends on its own and so needs the cross-origin check.
func (i *Identity) FromCookie() bool { return i.Via == "session" || i.Via == "cookie" }

type ctxKey struct{}

// WithIdentity returns ctx carrying idn.
func WithIdentity(ctx context.Context, idn *Identity) context.Context {
	return context.WithValue(ctx, ctxKey{}, idn)
}

// FromContext returns the request's identity, or nil for an anonymous one.
func FromContext(ctx context.Context) *Identity {
	idn, _ := ctx.Value(ctxKey{}).(*Identity)
	return idn
}

var errUnauthenticated = errors.New("unauthenticated")

// bearer extracts a token from the Authorization header: "Bearer <token>", or
// a bare Folio API token for clients that paste the value alone.
func bearer(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return "", false
	}
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:]), true
	}
	if strings.HasPrefix(h, APITokenPrefix) {
		return h, true
	}
	return "", true // some other scheme: credentials that cannot be valid
}

// Authenticate resolves the request's credentials. It returns (nil, nil) for
// a request with none, and errUnauthenticated (wrapped in a 401 by the
// middleware) for credentials that are present but not valid. The
// Authorization header wins over cookies.
func (s *Service) Authenticate(r *http.Request) (*Identity, error) {
	ctx := r.Context()
	if tok, present := bearer(r); present {
		if tok == "" {
			return nil, errUnauthenticated
		}
		if strings.HasPrefix(tok, APITokenPrefix) {
			uid, ok, err := s.apiTokenUser(ctx, tok)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errUnauthenticated
			}
			return s.identityByID(ctx, uid, "api_token")
		}
		uid, issued, ok := s.parseAccessToken(tok)
		if !ok {
			return nil, errUnauthenticated
		}
		return s.accessIdentity(ctx, uid, issued, "access_token")
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		if sid, ok := s.parseSession(c.Value); ok {
			uid, live, err := s.sessionUser(ctx, sid)
			if err != nil {
				return nil, err
			}
			if live {
				idn, err := s.identityByID(ctx, uid, "session")
				if err == nil {
					idn.SessionID = sid
					return idn, nil
				}
				if !errors.Is(err, errUnauthenticated) {
					return nil, err
				}
			}
		}
		// A stale session cookie falls through to the access cookie, if any.
	}
	if c, err := r.Cookie(AccessCookie); err == nil && c.Value != "" {
		if uid, issued, ok := s.parseAccessToken(c.Value); ok {
			return s.accessIdentity(ctx, uid, issued, "cookie")
		}
	}
	if _, err := r.Cookie(SessionCookie); err == nil {
		return nil, errUnauthenticated
	}
	if _, err := r.Cookie(AccessCookie); err == nil {
		return nil, errUnauthenticated
	}
	return nil, nil
}

// Identify attaches the identity of valid credentials to the request and
// otherwise lets it through anonymously; for routes whose answer only
// depends on who asks (e.g. an optional owner).
func (s *Service) Identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if idn, err := s.Authenticate(r); err == nil && idn != nil {
			noteIdentity(r, idn)
			r = r.WithContext(WithIdentity(r.Context(), idn))
		}
		next.ServeHTTP(w, r)
	})
}

// RequireUser lets through any active user (401 otherwise), answering in env.
func (s *Service) RequireUser(env httpx.Envelope) func(http.Handler) http.Handler {
	return s.require(env, false)
}

// RequireAdmin lets through the administrator's session or an admin user's
// token: 401 without valid credentials, 403 for a non-admin user.
func (s *Service) RequireAdmin(env httpx.Envelope) func(http.Handler) http.Handler {
	return s.require(env, true)
}

func (s *Service) require(env httpx.Envelope, admin bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			idn, err := s.Authenticate(r)
			if err == nil && idn != nil {
				noteIdentity(r, idn)
			}
			switch {
			case err != nil && !errors.Is(err, errUnauthenticated):
				env.Error(w, r, httpx.Internal(err))
				return
			case err != nil || idn == nil:
				env.Error(w, r, &httpx.Error{Status: http.StatusUnauthorized, Code: 40100, Msg: "unauthorized: missing or invalid credentials"})
				return
			case admin && !idn.IsAdmin():
				env.Error(w, r, &httpx.Error{Status: http.StatusForbidden, Code: 40300, Msg: "forbidden: administrator only"})
				return
			case idn.FromCookie() && !SameOrigin(r):
				env.Error(w, r, &httpx.Error{Status: http.StatusForbidden, Code: 40300, Msg: "forbidden: cross-origin request"})
				return
			}
			next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), idn)))
		})
	}
}

// SameOrigin reports whether an unsafe request comes from our own pages: its
// Origin (or, lacking it, Referer) names the request's own host. Safe
// methods and requests that carry neither header pass: the JSON API's rule
// for cookies, under which a client that is no browser need not name one.
func SameOrigin(r *http.Request) bool {
	return safeMethod(r.Method) || originOf(r) != originOther
}

// FromSite reports whether an unsafe request names the site itself in its
// Origin (or, lacking it, Referer): the console's rule for its forms
// (docs/console.md#design-choices), under which a write that names no origin
// at all is refused too, as is an opaque "null" Origin whatever the
// Referer says. Every browser names one on a form post.
func FromSite(r *http.Request) bool {
	if safeMethod(r.Method) {
		return true
	}
	return r.Header.Get("Origin") != "null" && originOf(r) == originSite
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// origin is what a request's Origin or Referer says of where it comes from.
type origin int

const (
	originNone  origin = iota // neither header
	originSite                // the request's own host, or the site's base URL
	originOther               // another host, an unreadable value, or an opaque "null" origin
)

// originOf judges Origin or, when it is absent or "null", Referer; a
// "null" Origin without a Referer is another origin.
func originOf(r *http.Request) origin {
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
		if src == "" {
			if r.Header.Get("Origin") == "null" {
				return originOther
			}
			return originNone
		}
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" {
		return originOther
	}
	if strings.EqualFold(u.Host, r.Host) {
		return originSite
	}
	if base, err := url.Parse(httpx.BaseURL(r)); err == nil && strings.EqualFold(u.Host, base.Host) {
		return originSite
	}
	return originOther
}
