package httpx

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestProxiesResolve(t *testing.T) {
	trusted, err := ParsePrefixes("127.0.0.0/8, ::1, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		remote  string
		host    string
		headers map[string]string
		base    string
		tls     bool
		ip      string
		baseURL string
		https   bool
	}{
		{name: "direct peer", remote: "203.0.113.7:5555", host: "example.com",
			ip: "203.0.113.7", baseURL: "http://example.com"},
		{name: "direct TLS peer", remote: "203.0.113.7:5555", host: "example.com", tls: true,
			ip: "203.0.113.7", baseURL: "https://example.com", https: true},
		{name: "trusted proxy, single XFF", remote: "127.0.0.1:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "198.51.100.9", "X-Forwarded-Proto": "https"},
			ip:      "198.51.100.9", baseURL: "https://example.com", https: true},
		{name: "trusted proxy, chain takes rightmost untrusted", remote: "127.0.0.1:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "1.1.1.1, 198.51.100.9, 10.0.0.2"},
			ip:      "198.51.100.9", baseURL: "http://example.com"},
		{name: "trusted proxy, all hops trusted", remote: "127.0.0.1:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "10.1.1.1, 10.0.0.2"},
			ip:      "10.1.1.1", baseURL: "http://example.com"},
		{name: "trusted proxy, garbage hop stops the walk", remote: "127.0.0.1:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "1.1.1.1, bogus, 10.0.0.2"},
			ip:      "10.0.0.2", baseURL: "http://example.com"},
		{name: "trusted proxy, X-Real-IP", remote: "127.0.0.1:1", host: "example.com",
			headers: map[string]string{"X-Real-IP": "198.51.100.10"},
			ip:      "198.51.100.10", baseURL: "http://example.com"},
		{name: "trusted proxy, proto http downgrades TLS", remote: "127.0.0.1:1", host: "example.com", tls: true,
			headers: map[string]string{"X-Forwarded-Proto": "http"},
			ip:      "127.0.0.1", baseURL: "http://example.com"},
		{name: "untrusted peer ignores XFF and proto", remote: "203.0.113.7:5555", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "1.2.3.4", "X-Real-IP": "5.6.7.8", "X-Forwarded-Proto": "https"},
			ip:      "203.0.113.7", baseURL: "http://example.com"},
		{name: "IPv6 direct", remote: "[2001:db8::1]:443", host: "[2001:db8::2]:8080",
			ip: "2001:db8::1", baseURL: "http://[2001:db8::2]:8080"},
		{name: "IPv6 loopback proxy", remote: "[::1]:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "2001:db8::7"},
			ip:      "2001:db8::7", baseURL: "http://example.com"},
		{name: "IPv4-mapped peer is unmapped and trusted", remote: "[::ffff:127.0.0.1]:1", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "::ffff:198.51.100.9"},
			ip:      "198.51.100.9", baseURL: "http://example.com"},
		{name: "base_url overrides host and scheme", remote: "203.0.113.7:1", host: "evil.example", base: "https://blog.example.com/",
			ip: "203.0.113.7", baseURL: "https://blog.example.com", https: true},
		{name: "malformed host falls back", remote: "203.0.113.7:1", host: "evil.com/<script>",
			ip: "203.0.113.7", baseURL: "http://localhost"},
		{name: "empty host falls back", remote: "203.0.113.7:1", host: "",
			ip: "203.0.113.7", baseURL: "http://localhost"},
		{name: "proxy on the Unix socket", remote: "@", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "198.51.100.9", "X-Forwarded-Proto": "https"},
			ip:      "198.51.100.9", baseURL: "https://example.com", https: true},
		{name: "proxy on the Unix socket, chain takes rightmost untrusted", remote: "@", host: "example.com",
			headers: map[string]string{"X-Forwarded-For": "1.1.1.1, 198.51.100.9, 127.0.0.1"},
			ip:      "198.51.100.9", baseURL: "http://example.com"},
		{name: "remote without port", remote: "203.0.113.7", host: "example.com",
			ip: "203.0.113.7", baseURL: "http://example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Proxies{Trusted: trusted, BaseURL: tt.base}
			var ip, base string
			var https bool
			h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ip, base, https = ClientIP(r), BaseURL(r), IsHTTPS(r)
			}))
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr, r.Host = tt.remote, tt.host
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			serve(h, r)
			if ip != tt.ip || base != tt.baseURL || https != tt.https {
				t.Fatalf("got ip=%q base=%q https=%v, want ip=%q base=%q https=%v", ip, base, https, tt.ip, tt.baseURL, tt.https)
			}
		})
	}
}

func TestClientIPWithoutMiddlewareTrustsNobody(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "127.0.0.1:9"
	r.Header.Set("X-Forwarded-For", "1.2.3.4")
	if got := ClientIP(r); got != "127.0.0.1" {
		t.Fatalf("ClientIP = %q, want the peer", got)
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := ParsePrefixes(" 127.0.0.0/8 ,::1/128, 192.168.1.7, 10.1.2.3/8,")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.0.0.0/8", "::1/128", "192.168.1.7/32", "10.0.0.0/8"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("prefix %d = %s, want %s", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "1.2.3.4/x"} {
		if _, err := ParsePrefixes(bad); err == nil {
			t.Errorf("ParsePrefixes(%q) succeeded", bad)
		}
	}
}
