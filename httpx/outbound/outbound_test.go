package outbound_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/httpx/outbound"
)

func TestClassifyNamesEveryAddressThatIsNotOfTheInternet(t *testing.T) {
	tests := []struct {
		ip, kind string
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.254", "private"},
		{"192.168.1.1", "private"},
		{"fd12:3456::1", "private"},
		{"fc00::1", "private"},
		{"fec0::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"100.127.255.254", "shared (carrier-grade NAT)"},
		{"255.255.255.255", "reserved"},
		{"198.18.0.1", "reserved"},
		{"192.0.0.8", "reserved"},
		// IPv4 written in IPv6 is judged by the IPv4 address.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:100.64.0.1", "shared (carrier-grade NAT)"},
		{"64:ff9b::7f00:1", "loopback"},
		{"64:ff9b::a9fe:a9fe", "link-local"},
		{"2002:c0a8:101::1", "private"},
		// The open internet.
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"100.63.255.255", ""},
		{"100.128.0.1", ""},
		{"172.32.0.1", ""},
		{"2001:4860:4860::8888", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			if got := outbound.Classify(netip.MustParseAddr(tt.ip)); got != tt.kind {
				t.Errorf("Classify(%s) = %q, want %q", tt.ip, got, tt.kind)
			}
		})
	}
}

func TestParseAllowlistReadsPrefixesAddressesAndHosts(t *testing.T) {
	a, err := outbound.ParseAllowlist("127.0.0.1/32, ::1  10.0.0.0/8,Old.Internal.")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "127.0.0.1/32,::1/128,10.0.0.0/8,old.internal" {
		t.Errorf("String() = %q", got)
	}
	if a, err := outbound.ParseAllowlist(""); err != nil || a.String() != "" {
		t.Errorf("empty list: %q %v", a.String(), err)
	}
	for _, bad := range []string{"10.0.0.0/33", "http://old.example", "old_site", "-old.example", "a..b"} {
		if _, err := outbound.ParseAllowlist(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// site is a test server on 127.0.0.1 and the clients to fetch from it.
type site struct {
	*httptest.Server
	port string
}

func newSite(t *testing.T, h http.HandlerFunc) site {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	return site{Server: s, port: u.Port()}
}

func allow(t *testing.T, list string) outbound.Allowlist {
	t.Helper()
	a, err := outbound.ParseAllowlist(list)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func fetch(c *outbound.Client, u string) (string, error) {
	resp, err := c.Get(context.Background(), u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestClientRefusesWhatIsNotOfTheInternet(t *testing.T) {
	hits := 0
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.1:"+r.URL.Query().Get("port")+"/ok", http.StatusFound)
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.org/x", http.StatusFound)
		case "/to-credentials":
			http.Redirect(w, r, "http://user:secret@localhost:"+r.URL.Query().Get("port")+"/ok", http.StatusFound)
		default:
			fmt.Fprint(w, "ok")
		}
	})
	var blocked *outbound.BlockedError
	tests := []struct {
		name  string
		allow string
		url   string
		check func(error) bool
	}{
		{"a loopback address without the allowlist", "", s.URL + "/ok",
			func(err error) bool { return errors.As(err, &blocked) && blocked.Kind == "loopback" }},
		{"a name that resolves to loopback", "", "http://localhost:" + s.port + "/ok",
			func(err error) bool { return errors.As(err, &blocked) && blocked.Kind == "loopback" }},
		{"the allowlist names another network", "10.0.0.0/8, 192.168.0.0/16", s.URL + "/ok",
			func(err error) bool { return errors.As(err, &blocked) }},
		{"a redirect from an allowed host to a loopback address", "localhost", "http://localhost:" + s.port + "/to-loopback?port=" + s.port,
			func(err error) bool { return errors.As(err, &blocked) && blocked.Addr.String() == "127.0.0.1" }},
		{"a redirect to another scheme", "127.0.0.1", s.URL + "/to-ftp",
			func(err error) bool { return errors.Is(err, outbound.ErrScheme) }},
		{"a redirect carrying credentials", "127.0.0.1, localhost", s.URL + "/to-credentials?port=" + s.port,
			func(err error) bool { return errors.Is(err, outbound.ErrCredentials) }},
		{"a URL carrying credentials", "127.0.0.1", "http://user:pw@127.0.0.1:" + s.port + "/ok",
			func(err error) bool { return errors.Is(err, outbound.ErrCredentials) }},
		{"a file URL", "127.0.0.1", "file:///etc/passwd",
			func(err error) bool { return errors.Is(err, outbound.ErrScheme) }},
		{"a URL without a host", "127.0.0.1", "http:///x",
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "names no host") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits
			c := outbound.New(outbound.Options{Allow: allow(t, tt.allow)})
			body, err := fetch(c, tt.url)
			if !tt.check(err) {
				t.Fatalf("fetch %s: %q, %v (%T)", tt.url, body, err, err)
			}
			if tt.name == "a loopback address without the allowlist" && hits != before {
				t.Error("the refused address was reached")
			}
		})
	}
	if blocked == nil || !strings.Contains(blocked.Error(), "is a loopback address") {
		t.Errorf("the refusal reads %v", blocked)
	}
}

func TestClientReachesAllowedAddressesAndHosts(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	for _, list := range []string{"127.0.0.1/32", "127.0.0.0/8", "127.0.0.1", "::ffff:127.0.0.1"} {
		body, err := fetch(outbound.New(outbound.Options{Allow: allow(t, list)}), s.URL+"/x")
		if err != nil || body != "ok" {
			t.Errorf("allow %s: %q, %v", list, body, err)
		}
	}
	body, err := fetch(outbound.New(outbound.Options{Allow: allow(t, "LOCALHOST")}), "http://localhost:"+s.port+"/x")
	if err != nil || body != "ok" {
		t.Errorf("allow by host name: %q, %v", body, err)
	}
}

func TestClientFollowsAtMostItsRedirects(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
		if n > 0 {
			http.Redirect(w, r, "/hop/"+strconv.Itoa(n-1), http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "arrived")
	})
	tests := []struct {
		max, hops int
		ok        bool
	}{
		{0, 3, true}, // the default is 3
		{0, 4, false},
		{1, 1, true},
		{1, 2, false},
		{-1, 0, true},
		{-1, 1, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d of at most %d", tt.hops, tt.max), func(t *testing.T) {
			c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), MaxRedirects: tt.max})
			body, err := fetch(c, s.URL+"/hop/"+strconv.Itoa(tt.hops))
			if tt.ok && (err != nil || body != "arrived") {
				t.Errorf("%q, %v", body, err)
			}
			if !tt.ok && !errors.Is(err, outbound.ErrTooManyRedirects) {
				t.Errorf("%q, %v; want ErrTooManyRedirects", body, err)
			}
		})
	}
}

func TestClientBoundsTheBody(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		} else {
			w.(http.Flusher).Flush() // no length: the body is chunked
		}
		io.WriteString(w, strings.Repeat("x", n))
	})
	c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), MaxBytes: 100})
	for _, tt := range []struct {
		query string
		ok    bool
	}{
		{"n=100", true},
		{"n=101", false},
		{"n=100&chunked=1", true},
		{"n=101&chunked=1", false},
		{"n=100000&chunked=1", false},
	} {
		body, err := fetch(c, s.URL+"/?"+tt.query)
		if tt.ok && (err != nil || len(body) != 100) {
			t.Errorf("%s: %d bytes, %v", tt.query, len(body), err)
		}
		if !tt.ok && !errors.Is(err, outbound.ErrTooLarge) {
			t.Errorf("%s: %d bytes, %v; want ErrTooLarge", tt.query, len(body), err)
		}
	}
}

func TestClientGivesUpAfterItsTimeout(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		w.(http.Flusher).Flush()
		io.WriteString(w, "slow")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := fetch(c, s.URL+"/")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}

func TestClientSendsNoCookiesOrCredentials(t *testing.T) {
	var got []http.Header
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		if r.URL.Path == "/first" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret", Path: "/"})
			http.Redirect(w, r, "/second", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	})
	c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), UserAgent: "Folio-test"})
	for range 2 {
		if _, err := fetch(c, s.URL+"/first"); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 4 {
		t.Fatalf("%d requests", len(got))
	}
	for i, h := range got {
		if h.Get("Cookie") != "" || h.Get("Authorization") != "" || h.Get("User-Agent") != "Folio-test" {
			t.Errorf("request %d sent %v", i, h)
		}
	}
}

func TestClientSendsTheCallersRequestWithItsHeaders(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s %s", r.Method, r.Header.Get("Signature"), r.Header.Get("User-Agent"), b)
	})
	c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), UserAgent: "Folio/test"})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.URL+"/inbox", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Signature", "sig")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got, want := string(body), "POST sig Folio/test {}"; got != want {
		t.Errorf("the server saw %q, want %q", got, want)
	}
}

func TestClientThatWantsTLSRefusesPlainHTTPAndRedirectsToIt(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	c := outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), HTTPSOnly: true})
	if _, err := fetch(c, s.URL+"/x"); !errors.Is(err, outbound.ErrScheme) {
		t.Errorf("plain http with HTTPSOnly: %v, want ErrScheme", err)
	}
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			fmt.Fprint(w, "ok")
			return
		}
		http.Redirect(w, r, s.URL+"/x", http.StatusFound)
	}))
	t.Cleanup(tls.Close)
	roots := x509.NewCertPool()
	roots.AddCert(tls.Certificate())
	c = outbound.New(outbound.Options{Allow: allow(t, "127.0.0.1"), HTTPSOnly: true, RootCAs: roots})
	if body, err := fetch(c, tls.URL+"/ok"); err != nil || body != "ok" {
		t.Fatalf("https with HTTPSOnly: %q, %v", body, err)
	}
	if _, err := fetch(c, tls.URL+"/"); !errors.Is(err, outbound.ErrScheme) {
		t.Errorf("a redirect from https to http with HTTPSOnly: %v, want ErrScheme", err)
	}
}
