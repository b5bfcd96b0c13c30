package httpx

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for RateLimiter.now.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestLimiter(n int, period time.Duration) (*RateLimiter, *fakeClock) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := NewRateLimiter(n, period)
	l.now = clock.now
	return l, clock
}

func TestRateLimiterBurstThen429(t *testing.T) {
	tests := []struct {
		env  Envelope
		code string
	}{
		{FileAPI, `"code":42900`},
		{BlogAPI, `"code":429`},
		{Lsky, `"code":42900`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.env), func(t *testing.T) {
			l, _ := newTestLimiter(10, time.Minute)
			h := l.Middleware(tt.env)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
			for i := 1; i <= 10; i++ {
				if w := serve(h, reqFrom("198.51.100.1")); w.Code != 204 {
					t.Fatalf("request %d: status %d, want 204", i, w.Code)
				}
			}
			w := serve(h, reqFrom("198.51.100.1"))
			if w.Code != 429 {
				t.Fatalf("11th request: status %d, want 429", w.Code)
			}
			if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
				t.Fatalf("Retry-After %q, want an integer >= 1", w.Header().Get("Retry-After"))
			}
			if !strings.Contains(w.Body.String(), tt.code) {
				t.Fatalf("body %s lacks %s", w.Body, tt.code)
			}
			if w := serve(h, reqFrom("198.51.100.2")); w.Code != 204 {
				t.Fatalf("another IP: status %d, want 204", w.Code)
			}
		})
	}
}

func reqFrom(ip string) *http.Request {
	r := httptest.NewRequest("POST", "/", nil)
	r.RemoteAddr = ip + ":1234"
	return r
}

func TestRateLimiterRefills(t *testing.T) {
	l, clock := newTestLimiter(10, time.Minute)
	for range 10 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatal("burst refused")
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > time.Minute {
		t.Fatalf("after burst: ok=%v wait=%v, want refused with wait in (0, 1m]", ok, wait)
	}
	clock.advance(wait)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after waiting the advised time")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("second request after one refill allowed")
	}
	clock.advance(10 * time.Minute)
	for i := range 10 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("after ten quiet periods request %d refused", i+1)
		}
	}
}

// Requests that arrive slowly, as logins do behind bcrypt, still get no
// more than n within the period: the 11th of "10 a minute" is refused even
// 50 seconds in.
func TestRateLimiterCountsSlowRequestsWithinThePeriod(t *testing.T) {
	l, clock := newTestLimiter(10, time.Minute)
	for i := range 10 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d refused", i+1)
		}
		clock.advance(5 * time.Second)
	}
	if ok, wait := l.Allow("a"); ok || wait <= 0 {
		t.Fatalf("11th request at 50s: ok=%v wait=%v, want refused", ok, wait)
	}
}

func TestRateLimiterBoundedUnderFlood(t *testing.T) {
	l, clock := newTestLimiter(10, time.Minute)
	for i := range 100_000 {
		l.Allow(fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255))
		if i%1000 == 0 {
			clock.advance(time.Millisecond)
		}
	}
	if n := l.Len(); n > DefaultMaxClients {
		t.Fatalf("Len = %d after flood, want <= %d", n, DefaultMaxClients)
	}
}

func TestRateLimiterSweepsIdle(t *testing.T) {
	l, clock := newTestLimiter(10, time.Minute)
	for i := range 100 {
		l.Allow(fmt.Sprint("idle-", i))
	}
	clock.advance(30 * time.Second)
	l.Allow("recent")
	clock.advance(31 * time.Second)
	l.Allow("trigger")
	if n := l.Len(); n != 2 {
		t.Fatalf("Len = %d after idle period, want 2 (recent and trigger)", n)
	}
}

func TestTooManyRequestsRoundsUp(t *testing.T) {
	tests := []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {time.Millisecond, "1"}, {1500 * time.Millisecond, "2"}, {10 * time.Second, "10"}}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		TooManyRequests(w, httptest.NewRequest("GET", "/", nil), FileAPI, tt.wait)
		if got := w.Header().Get("Retry-After"); got != tt.want || w.Code != 429 {
			t.Errorf("wait %v: %d Retry-After %q, want 429 %q", tt.wait, w.Code, got, tt.want)
		}
	}
}

func TestRateLimiterBlockedTakesNothing(t *testing.T) {
	l, clock := newTestLimiter(5, time.Minute)
	for i := range 10 {
		if blocked, _ := l.Blocked("a"); blocked {
			t.Fatalf("blocked after %d looks", i)
		}
	}
	for range 5 {
		l.Allow("a")
	}
	blocked, wait := l.Blocked("a")
	if !blocked || wait <= 0 || wait > time.Minute {
		t.Fatalf("after the allowance: blocked=%v wait=%v", blocked, wait)
	}
	if blocked, _ := l.Blocked("b"); blocked {
		t.Fatal("another key is blocked")
	}
	clock.advance(wait)
	if blocked, _ := l.Blocked("a"); blocked {
		t.Fatal("still blocked after the advised wait")
	}
}

func TestRateLimiterAnyBlockedWhileSomeClientIsOut(t *testing.T) {
	l, clock := newTestLimiter(3, time.Minute)
	for i := range 2 {
		l.Allow("a")
		l.Allow("b")
		if l.AnyBlocked() {
			t.Fatalf("some client blocked after %d of 3 each", i+1)
		}
	}
	l.Allow("a")
	if !l.AnyBlocked() {
		t.Fatal("a has used its allowance, but no client is blocked")
	}
	_, wait := l.Blocked("a")
	clock.advance(wait - time.Nanosecond)
	if !l.AnyBlocked() {
		t.Fatal("no client blocked before a's wait is over")
	}
	clock.advance(time.Nanosecond)
	if l.AnyBlocked() {
		t.Fatal("a client blocked after a's wait is over")
	}
	if blocked, _ := l.Blocked("a"); blocked {
		t.Fatal("AnyBlocked is false while Blocked is true")
	}
	// A refused request keeps the client out until its next allowance.
	l.Allow("a")
	if ok, _ := l.Allow("a"); ok || !l.AnyBlocked() {
		t.Fatalf("after a refusal: allowed %v, any blocked %v", ok, l.AnyBlocked())
	}
}

// BenchmarkRateLimiterHitCheck is what a hot path pays to refuse blocked
// clients: AnyBlocked while no client is blocked, against Blocked's lock
// and lookup.
//
//	go test -run '^$' -bench RateLimiterHitCheck ./httpx/
func BenchmarkRateLimiterHitCheck(b *testing.B) {
	l := NewRateLimiter(60, time.Minute)
	l.Allow("198.51.100.1")
	b.Run("AnyBlocked", func(b *testing.B) {
		for b.Loop() {
			if l.AnyBlocked() {
				b.Fatal("blocked")
			}
		}
	})
	b.Run("Blocked", func(b *testing.B) {
		for b.Loop() {
			if blocked, _ := l.Blocked("198.51.100.1"); blocked {
				b.Fatal("blocked")
			}
		}
	})
}
