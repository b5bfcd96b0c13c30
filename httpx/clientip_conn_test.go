package httpx

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// connServer is a test server whose connections carry a client record
// (ConnContext), trusting loopback peers as serve's default does, with
// h behind Proxies.Middleware and AccessLog.
func connServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	p := Proxies{Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewUnstartedServer(Chain(h, p.Middleware, AccessLog(logger)))
	srv.Config.ConnContext = ConnContext
	return srv
}

// TestConnRecordKeepsEachRequestsClient sends requests with different
// forwarding headers on one keep-alive connection: each gets its own
// client, and a goroutine still holding the first request's context
// reads the first request's values throughout (run with -race).
func TestConnRecordKeepsEachRequestsClient(t *testing.T) {
	type seen struct {
		ip, base string
		https    bool
		rec      *clientInfo
		logger   *slog.Logger
	}
	var (
		mu    sync.Mutex
		got   []seen
		first context.Context
		stop  = make(chan struct{})
		done  = make(chan string, 1)
	)
	srv := connServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, seen{ClientIP(r), BaseURL(r), IsHTTPS(r), info(r), Logger(r)})
		n := len(got)
		mu.Unlock()
		if n == 1 {
			first = context.WithoutCancel(r.Context())
			// A job that outlives its request, reading its values while
			// the connection serves the next requests.
			go func(ctx context.Context) {
				for {
					ci := ctx.Value(clientKey).(*clientInfo)
					if ci.ip != "203.0.113.1" || BaseURLOf(ctx) != "https://a.example" || !ci.https {
						done <- fmt.Sprintf("the first request's context reads %q %q %v", ci.ip, BaseURLOf(ctx), ci.https)
						return
					}
					select {
					case <-stop:
						done <- ""
						return
					default:
					}
				}
			}(first)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv.Start()
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	send := func(host string, hdr ...string) {
		t.Helper()
		req := "GET /x HTTP/1.1\r\nHost: " + host + "\r\n"
		for _, h := range hdr {
			req += h + "\r\n"
		}
		if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	xff1, proto := "X-Forwarded-For: 203.0.113.1", "X-Forwarded-Proto: https"
	send("a.example", xff1, proto)
	send("a.example", xff1, proto)
	send("a.example", "X-Forwarded-For: 203.0.113.2", proto)
	send("a.example", xff1, proto)
	send("a.example", xff1)
	send("b.example", xff1, proto)
	send("a.example")
	send("a.example", "X-Real-IP: 198.51.100.7", proto)
	close(stop)
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}

	want := []seen{
		{ip: "203.0.113.1", base: "https://a.example", https: true},
		{ip: "203.0.113.1", base: "https://a.example", https: true},
		{ip: "203.0.113.2", base: "https://a.example", https: true},
		{ip: "203.0.113.1", base: "https://a.example", https: true},
		{ip: "203.0.113.1", base: "http://a.example"},
		{ip: "203.0.113.1", base: "https://b.example", https: true},
		{ip: "127.0.0.1", base: "http://a.example"},
		{ip: "198.51.100.7", base: "https://a.example", https: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d requests served, want %d", len(got), len(want))
	}
	for i, g := range got {
		if g.ip != want[i].ip || g.base != want[i].base || g.https != want[i].https {
			t.Errorf("request %d: ip %q base %q https %v, want %q %q %v", i+1, g.ip, g.base, g.https, want[i].ip, want[i].base, want[i].https)
		}
		if g.logger == slog.Default() {
			t.Errorf("request %d: the default logger, not AccessLog's", i+1)
		}
	}
	// The requests made of the first one's inputs share the connection's
	// record; the others have their own.
	for i, shared := range []bool{true, true, false, true, false, false, false, false} {
		if (got[i].rec == got[0].rec) != shared {
			t.Errorf("request %d shares the connection's record: %v, want %v", i+1, got[i].rec == got[0].rec, shared)
		}
	}
	if ci := first.Value(clientKey).(*clientInfo); ci.ip != "203.0.113.1" || ci.baseURL != "https://a.example" {
		t.Errorf("the first request's context reads %q %q after the connection's later requests", ci.ip, ci.baseURL)
	}
}

// TestConnRecordOverHTTP2 sends requests at once on one HTTP/2
// connection, each from another forwarded client: each request sees its
// own (run with -race).
func TestConnRecordOverHTTP2(t *testing.T) {
	srv := connServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			t.Errorf("served over %s", r.Proto)
		}
		io.WriteString(w, ClientIP(r))
	})
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			ip := fmt.Sprintf("203.0.113.%d", i+1)
			req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
			req.Header.Set("X-Forwarded-For", ip)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if string(b) != ip {
				t.Errorf("request from %s saw %q", ip, b)
			}
		})
	}
	wg.Wait()
}

// TestConnRecordAllocatesNothing: a connection's request with its first
// request's inputs costs Proxies.Middleware and AccessLog no allocation,
// neither a record nor a copy of the request.
func TestConnRecordAllocatesNothing(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var ip string
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip = ClientIP(r)
		w.WriteHeader(http.StatusNoContent)
	}), Proxies{Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}.Middleware, AccessLog(logger))
	req := httptest.NewRequest("GET", "/x", nil)
	req.RemoteAddr = "127.0.0.1:1234"
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	req = req.WithContext(ConnContext(req.Context(), nil))
	w := &nopWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, req) }); n != 0 {
		t.Fatalf("%v allocations a request, want none", n)
	}
	if ip != "203.0.113.9" {
		t.Fatalf("client %q, want 203.0.113.9", ip)
	}
}

// TestConnRecordNestedLayers: a second Proxies.Middleware or AccessLog
// inside the first, on a connection's record, does not take the record
// or writer the outer one is using.
func TestConnRecordNestedLayers(t *testing.T) {
	var buf strings.Builder
	outer := slog.New(slog.NewTextHandler(io.Discard, nil))
	inner := slog.New(slog.NewTextHandler(&buf, nil))
	p := Proxies{}
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}), p.Middleware, AccessLog(outer), p.Middleware, AccessLog(outer), AccessLog(inner))
	req := httptest.NewRequest("GET", "/x", nil)
	req = req.WithContext(ConnContext(req.Context(), nil))
	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusTeapot {
			t.Fatalf("status %d", rec.Code)
		}
	}
	if n := strings.Count(buf.String(), "status=418"); n != 2 {
		t.Fatalf("the inner log has %d lines of status 418, want 2:\n%s", n, buf.String())
	}
}
