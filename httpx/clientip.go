package httpx

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
)

type ctxKey int

const (
	clientKey ctxKey = iota + 1
	loggerKey
	connKey
)

type clientInfo struct {
	ip      string
	baseURL string
	https   bool
	logger  *slog.Logger // the request's, set by AccessLog
	host    string       // the Host header baseURL was made of (Proxies.Middleware's last)
	// sw is AccessLog's writer for the request: kept here, it costs no
	// allocation of its own. swBusy is set while a request's AccessLog
	// uses it: a record shared by a connection's requests takes a new
	// request's writer only after the last one's handler returned.
	sw     statusWriter
	swBusy bool
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

// unixPeer is net/http's RemoteAddr of a connection to a Unix domain
// socket (server.addr = unix:PATH). Its peer is a process on this host
// that the socket file's mode let in, the proxy in front: it is trusted as
// a loopback address is (docs/operating.md#a-unix-socket).
const unixPeer = "@"

// Middleware records the client IP, scheme and base URL of each request.
func (p Proxies) Middleware(next http.Handler) http.Handler {
	p.BaseURL = strings.TrimRight(p.BaseURL, "/")
	// The base URL made last, for the next request from the same host
	// and scheme, which is almost every one: a string fewer to make.
	var last atomic.Pointer[clientInfo]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// HTTP/1.x serves a connection's requests one after another, on
		// the connection's goroutine: its record serves every request
		// whose forwarding inputs are the first one's, without a copy of
		// the request. HTTP/2 serves them at once: a record each.
		if r.ProtoMajor == 1 {
			if cc, ok := r.Context().Value(connKey).(*connClient); ok && !cc.busy && p.onConn(cc, r, &last) {
				cc.busy = true
				// A panic past here closes the connection, and its record
				// with it: no deferred reset needed.
				next.ServeHTTP(w, r)
				cc.busy = false
				return
			}
		}
		c := &clientContext{Context: r.Context()}
		p.resolveInto(&c.info, r, &last)
		next.ServeHTTP(w, r.WithContext(c))
	})
}

// connClient is a connection's client record (ConnContext). Made from
// the connection's first request, it never changes after: a goroutine
// still holding an earlier request's context reads the same values.
// A later request whose inputs differ (another Host, other forwarding
// headers) gets a record of its own, as on HTTP/2.
type connClient struct {
	info   clientInfo
	filled bool // info was made, from the inputs below
	busy   bool // a request is being served with info
	remote string
	tls    bool
	// The forwarding headers of the first request, compared only when
	// its peer was trusted with them.
	trusted       bool
	xff           []string
	xRealIP, xFwd string
}

// connContext is a connection's context carrying its client record.
type connContext struct {
	context.Context
	c connClient
}

func (c *connContext) Value(key any) any {
	switch key {
	case connKey:
		return &c.c
	case clientKey:
		if c.c.filled {
			return &c.c.info
		}
	}
	return c.Context.Value(key)
}

// ConnContext is http.Server's ConnContext: it gives each connection a
// client record that Proxies.Middleware fills once, sparing HTTP/1.x
// requests the parse of the peer's address and the copy of the request
// (docs/testing.md#folio-bench-serve).
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return &connContext{Context: ctx}
}

// onConn reports whether cc serves r: cc made from r when it is the
// connection's first request, else made from the same inputs. It runs on
// the connection's goroutine only.
func (p Proxies) onConn(cc *connClient, r *http.Request, last *atomic.Pointer[clientInfo]) bool {
	if !cc.filled {
		cc.trusted = p.resolveInto(&cc.info, r, last)
		cc.remote, cc.tls = r.RemoteAddr, r.TLS != nil
		if cc.trusted {
			cc.xff = r.Header["X-Forwarded-For"]
			cc.xRealIP = headerValue(r.Header, "X-Real-Ip")
			cc.xFwd = headerValue(r.Header, "X-Forwarded-Proto")
		}
		cc.filled = true
		return true
	}
	if r.RemoteAddr != cc.remote || (r.TLS != nil) != cc.tls || r.Host != cc.info.host {
		return false
	}
	if !cc.trusted {
		return true
	}
	xff := r.Header["X-Forwarded-For"]
	if len(xff) != len(cc.xff) {
		return false
	}
	for i := range xff {
		if xff[i] != cc.xff[i] {
			return false
		}
	}
	return headerValue(r.Header, "X-Real-Ip") == cc.xRealIP &&
		headerValue(r.Header, "X-Forwarded-Proto") == cc.xFwd
}

// clientContext is a request's context with its client record: one
// allocation where context.WithValue and the record would be two.
type clientContext struct {
	context.Context
	info clientInfo
}

func (c *clientContext) Value(key any) any {
	if key == clientKey {
		return &c.info
	}
	return c.Context.Value(key)
}

func (p Proxies) resolve(r *http.Request) *clientInfo {
	p.BaseURL = strings.TrimRight(p.BaseURL, "/")
	info := &clientInfo{}
	p.resolveInto(info, r, nil)
	return info
}

// resolveInto fills info for r; p.BaseURL has no trailing slash. last,
// when not nil, holds the record of an earlier request whose base URL
// is reused when its host and scheme are r's. It reports whether r's
// forwarding headers were believed (its peer is trusted).
func (p Proxies) resolveInto(info *clientInfo, r *http.Request, last *atomic.Pointer[clientInfo]) (trusted bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	info.ip, info.https, info.host = host, r.TLS != nil, r.Host
	peer, err := netip.ParseAddr(host)
	if err == nil && !peer.Is4() { // an IPv4 address parses only from its canonical form
		peer = peer.Unmap()
		info.ip = peer.String()
	}
	trusted = err == nil && p.trusted(peer) || r.RemoteAddr == unixPeer
	if trusted {
		// Walk X-Forwarded-For from the right: the first address that is
		// not one of our proxies is the client.
		// The header keys in canonical form, as net/http stores them:
		// Get would canonicalize them on every request.
		if xff := r.Header["X-Forwarded-For"]; len(xff) > 0 {
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
		} else if xr := strings.TrimSpace(headerValue(r.Header, "X-Real-Ip")); xr != "" {
			if a, perr := netip.ParseAddr(xr); perr == nil {
				info.ip = a.Unmap().String()
			}
		}
		switch strings.ToLower(strings.TrimSpace(headerValue(r.Header, "X-Forwarded-Proto"))) {
		case "https":
			info.https = true
		case "http":
			info.https = false
		}
	}
	if p.BaseURL != "" {
		info.baseURL = p.BaseURL
		info.https = strings.HasPrefix(info.baseURL, "https://")
		return trusted
	}
	if last != nil {
		if l := last.Load(); l != nil && l.https == info.https && l.host == r.Host {
			info.baseURL = l.baseURL
			return trusted
		}
	}
	scheme := "http"
	if info.https {
		scheme = "https"
	}
	info.baseURL = scheme + "://" + sanitizeHost(r.Host)
	if last != nil {
		last.Store(&clientInfo{https: info.https, host: r.Host, baseURL: info.baseURL})
	}
	return trusted
}

// headerValue is h.Get(key) for a key in canonical form.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
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
