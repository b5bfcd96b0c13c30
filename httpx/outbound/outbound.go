// Package outbound fetches URLs that other people name (an imported blog's
// images, later a federated server's documents) without letting them aim
// Folio at its own network: the address each connection is about to reach
// is checked after the name is resolved, at connect time, so that neither a
// name that resolves to a private address nor a redirect to one gets
// through (docs/export-import.md#bringing-images-home). An explicit
// allowlist names the hosts and networks the check lets through.
//
// It knows nothing of Folio: a Client, its Options, the Allowlist and the
// errors that say why a fetch was refused.
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxRedirects = 3
	DefaultMaxBytes     = 32 << 20
	DefaultTimeout      = time.Minute
)

// Options bound what a Client fetches.
type Options struct {
	// Allow names hosts and networks that may be reached even though they
	// are loopback, private or otherwise not of the open internet.
	Allow Allowlist
	// MaxRedirects is how many redirects one fetch follows, each checked
	// like the first request; 0 is DefaultMaxRedirects, a negative value
	// none.
	MaxRedirects int
	// MaxBytes bounds one response's body (after decompression); 0 is
	// DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds one fetch, redirects and the reading of the body
	// included; 0 is DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent with every request; "" sends "Folio".
	UserAgent string
	// HTTPSOnly refuses plain http URLs, redirects included, with
	// ErrScheme: a federated server's documents are trusted for what
	// they say only when they come over TLS.
	HTTPSOnly bool
	// RootCAs, when not nil, replaces the system's roots: a test server's
	// certificate, or an operator's own authority.
	RootCAs *x509.CertPool
}

// Errors a fetch may end with, besides a *BlockedError and the network's
// own.
var (
	// ErrTooLarge: the body is longer than MaxBytes (said by its
	// Content-Length, or found while it is read).
	ErrTooLarge = errors.New("the response is larger than the limit")
	// ErrTooManyRedirects: the fetch was redirected more than
	// MaxRedirects times.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrScheme: the URL, or a redirect's, is not http or https.
	ErrScheme = errors.New("only http and https URLs are fetched")
	// ErrCredentials: the URL, or a redirect's, carries a user name or
	// password, which are never sent anywhere.
	ErrCredentials = errors.New("URLs with a user name or password are not fetched")
)

// BlockedError is a connection refused before it was made: Addr is not of
// the open internet, and the allowlist does not name it.
type BlockedError struct {
	Addr netip.Addr
	// Kind says what the address is: "loopback", "private", "link-local",
	// "unspecified", "multicast", "shared (carrier-grade NAT)" or
	// "reserved".
	Kind string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s is a %s address", e.Addr, e.Kind)
}

// Client fetches http and https URLs of the open internet. It sends no
// cookies, no credentials and no proxy: the connection goes to the
// address the URL names, or nowhere.
type Client struct {
	hc        *http.Client
	allow     Allowlist
	maxBytes  int64
	timeout   time.Duration
	userAgent string
	httpsOnly bool
}

// New returns a Client bounded by o.
func New(o Options) *Client {
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	o.MaxRedirects = max(o.MaxRedirects, 0)
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UserAgent == "" {
		o.UserAgent = "Folio"
	}
	c := &Client{allow: o.Allow, maxBytes: o.MaxBytes, timeout: o.Timeout, userAgent: o.UserAgent, httpsOnly: o.HTTPSOnly}
	checked := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: c.control}
	open := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		// Never a proxy: the address checked must be the one reached.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err == nil && c.allow.hasHost(host) {
				return open.DialContext(ctx, network, addr)
			}
			return checked.DialContext(ctx, network, addr)
		},
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs},
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	maxRedirects := o.MaxRedirects
	c.hc = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return ErrTooManyRedirects
			}
			return c.checkURL(req.URL)
		},
	}
	return c
}

// control runs once the address of a connection is known, before it is
// made: each address the dialer tries, of each redirect, passes here.
func (c *Client) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("outbound: unexpected address %q", address)
	}
	ip := ap.Addr().WithZone("").Unmap()
	if c.allow.hasAddr(ip) {
		return nil
	}
	if kind := Classify(ip); kind != "" {
		return &BlockedError{Addr: ip, Kind: kind}
	}
	return nil
}

func (c *Client) checkURL(u *url.URL) error {
	if u.Scheme != "https" && (u.Scheme != "http" || c.httpsOnly) {
		return ErrScheme
	}
	if u.User != nil {
		return ErrCredentials
	}
	if u.Host == "" {
		return fmt.Errorf("the URL %q names no host", u.Redacted())
	}
	return nil
}

// Get fetches rawURL. The caller reads and closes the body, which fails
// with ErrTooLarge past the byte limit; the status is the caller's to
// judge. The returned error unwraps to a *BlockedError, ErrTooLarge,
// ErrTooManyRedirects, ErrScheme, ErrCredentials, context.DeadlineExceeded
// (the time limit) or the network's error.
func (c *Client) Get(ctx context.Context, rawURL string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	return c.Do(req)
}

// Do sends req (any method, its own headers: a signed request) within the
// Client's bounds, as Get does. A redirected request loses its body and
// signature, as net/http's client does.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if err := c.checkURL(req.URL); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), c.timeout)
	req = req.WithContext(ctx)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, err
	}
	if resp.ContentLength > c.maxBytes {
		resp.Body.Close()
		cancel()
		return nil, ErrTooLarge
	}
	resp.Body = &limitedBody{rc: resp.Body, left: c.maxBytes, cancel: cancel}
	return resp, nil
}

// limitedBody fails with ErrTooLarge past its limit, and ends the fetch's
// time limit when closed.
type limitedBody struct {
	rc     io.ReadCloser
	left   int64
	cancel context.CancelFunc
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// Classify says what kind of address ip is when it is not one of the open
// internet ("loopback", "private", …), and "" when it is. IPv4 addresses
// written in IPv6 (mapped, NAT64, 6to4) are judged by the IPv4 address
// they carry.
func Classify(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	// Networks that are not of the open internet beyond what netip's
	// predicates name.
	prefix := netip.MustParsePrefix
	if ip.Is6() {
		switch {
		case prefix("64:ff9b::/96").Contains(ip): // NAT64
			b := ip.As16()
			return Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case prefix("2002::/16").Contains(ip): // 6to4
			b := ip.As16()
			return Classify(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	switch {
	case !ip.IsValid():
		return "reserved"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate(), prefix("fec0::/10").Contains(ip): // and the old site-local
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsUnspecified(), prefix("0.0.0.0/8").Contains(ip):
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	case prefix("100.64.0.0/10").Contains(ip):
		return "shared (carrier-grade NAT)"
	case prefix("192.0.0.0/24").Contains(ip), prefix("198.18.0.0/15").Contains(ip),
		prefix("240.0.0.0/4").Contains(ip): // IETF, benchmarking, reserved and broadcast
		return "reserved"
	}
	return ""
}

// Allowlist names hosts (by their name in the URL) and networks that a
// Client may reach whatever their addresses are. The zero Allowlist
// allows nothing beyond the open internet.
type Allowlist struct {
	hosts    []string
	prefixes []netip.Prefix
}

// ParseAllowlist reads a list separated by commas or spaces of CIDR
// prefixes (10.0.0.0/8), addresses (::1, taken as one address) and host
// names (old.internal, matched without regard to case).
func ParseAllowlist(s string) (Allowlist, error) {
	var a Allowlist
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if p, err := netip.ParsePrefix(f); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(f); err == nil {
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		if !validHost(f) {
			return Allowlist{}, fmt.Errorf("%q is neither a CIDR prefix, an address nor a host name", f)
		}
		a.hosts = append(a.hosts, strings.ToLower(strings.TrimSuffix(f, ".")))
	}
	return a, nil
}

// Join is a list of what a and b allow.
func (a Allowlist) Join(b Allowlist) Allowlist {
	return Allowlist{hosts: append(append([]string{}, a.hosts...), b.hosts...),
		prefixes: append(append([]netip.Prefix{}, a.prefixes...), b.prefixes...)}
}

// String lists the entries as ParseAllowlist reads them.
func (a Allowlist) String() string {
	var out []string
	for _, p := range a.prefixes {
		out = append(out, p.String())
	}
	return strings.Join(append(out, a.hosts...), ",")
}

func (a Allowlist) hasHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range a.hosts {
		if h == host {
			return true
		}
	}
	return false
}

func (a Allowlist) hasAddr(ip netip.Addr) bool {
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// validHost: labels of letters, digits and hyphens, separated by dots.
func validHost(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
