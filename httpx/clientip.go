package httpx

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

type ctxKey int

const (
	clientKey ctxKey = iota + 1
	loggerKey
)

type clientInfo struct {
	ip      string
	baseURL string
	https   bool
	logger  *slog.Logger // the request's, set by AccessLog
}

// Proxies decides what to believe of forwarding headers. X-Forwarded-For,
// X-Real-IP and X-Forwarded-Proto are honoured only when the direct peer is in
// Trusted. BaseURL, when set, is used for every absolute link instead of the
// request's Host.
type Proxies struct {
	Trusted []netip.Prefix
	BaseURL string
}

// ParsePrefixes parses a comma-separated CIDR list; bare addresses are taken
// as single-host prefixes.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (p Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p.Trusted {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// Middleware records the client IP, scheme and base URL of each request.
func (p Proxies) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := p.resolve(r)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey, info)))
	})
}

func (p Proxies) resolve(r *http.Request) *clientInfo {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	info := &clientInfo{ip: host, https: r.TLS != nil}
	peer, err := netip.ParseAddr(host)
	if err == nil && !peer.Is4() { // an IPv4 address parses only from its canonical form
		peer = peer.Unmap()
		info.ip = peer.String()
	}
	if err == nil && p.trusted(peer) {
		// Walk X-Forwarded-For from the right: the first address that is
		// not one of our proxies is the client.
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			hops := strings.Split(strings.Join(xff, ","), ",")
			for i := len(hops) - 1; i >= 0; i-- {
				a, perr := netip.ParseAddr(strings.TrimSpace(hops[i]))
				if perr != nil {
					break
				}
				info.ip = a.Unmap().String()
				if !p.trusted(a) {
					break
				}
			}
		} else if xr := strings.TrimSpace(r.Header.Get("X-Real-IP")); xr != "" {
			if a, perr := netip.ParseAddr(xr); perr == nil {
				info.ip = a.Unmap().String()
			}
		}
		switch strings.ToLower(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto"))) {
		case "https":
			info.https = true
		case "http":
			info.https = false
		}
	}
	if p.BaseURL != "" {
		info.baseURL = strings.TrimRight(p.BaseURL, "/")
		info.https = strings.HasPrefix(info.baseURL, "https://")
	} else {
		scheme := "http"
		if info.https {
			scheme = "https"
		}
		info.baseURL = scheme + "://" + sanitizeHost(r.Host)
	}
	return info
}

// sanitizeHost keeps a Host header usable in a link: anything with
// characters that do not belong in a host name falls back to localhost.
func sanitizeHost(h string) string {
	if h == "" {
		return "localhost"
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-:[]_", c) >= 0) {
			return "localhost"
		}
	}
	return h
}

func info(r *http.Request) *clientInfo {
	if ci, ok := r.Context().Value(clientKey).(*clientInfo); ok {
		return ci
	}
	return (Proxies{}).resolve(r)
}

// ClientIP is the client's address as decided by Proxies.Middleware.
func ClientIP(r *http.Request) string { return info(r).ip }

// BaseURL is scheme://host of the request (or server.base_url when set),
// without a trailing slash, for building absolute links.
func BaseURL(r *http.Request) string { return info(r).baseURL }

// BaseURLOf is BaseURL of the request whose context ctx is, and "" outside
// a request that went through Proxies.Middleware (a command's work).
func BaseURLOf(ctx context.Context) string {
	if ci, ok := ctx.Value(clientKey).(*clientInfo); ok {
		return ci.baseURL
	}
	return ""
}

// IsHTTPS reports whether the client reached us over HTTPS, directly or
// through a trusted proxy.
func IsHTTPS(r *http.Request) bool { return info(r).https }
