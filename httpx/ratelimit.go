package httpx

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter allows each client IP n requests, then one more per period,
// the allowance growing back by one each period up to n. So no client ever
// gets more than n requests in a period, however slowly it sends them: a
// bucket refilling at n per period would let a client whose requests take a
// while each (a login's bcrypt) through a 21st of "20 per minute" within
// the minute. Entries whose allowance is whole again are forgotten, and the
// table never holds more than MaxClients entries, so a flood of distinct
// addresses cannot grow memory without bound. Limits are per process.
type RateLimiter struct {
	limit      rate.Limit
	burst      int
	period     time.Duration
	maxClients int
	now        func() time.Time

	mu        sync.Mutex
	clients   map[string]*rate.Limiter
	lastSweep time.Time
	// blockedUntil is a time, in Unix nanoseconds, before which some
	// client may have no allowance left; 0 when none may. Allow raises it
	// when it leaves a client without one, so that AnyBlocked costs a hot
	// path one atomic load while every client has some allowance.
	blockedUntil atomic.Int64
}

// DefaultMaxClients bounds a limiter's table (about 150 bytes an entry).
const DefaultMaxClients = 16384

// NewRateLimiter allows n requests per period per client IP.
func NewRateLimiter(n int, period time.Duration) *RateLimiter {
	return &RateLimiter{
		limit:      rate.Every(period),
		burst:      n,
		period:     period,
		maxClients: DefaultMaxClients,
		now:        time.Now,
		clients:    make(map[string]*rate.Limiter),
	}
}

// Allow takes one token for key. When none is left it reports how long until
// the next one.
func (l *RateLimiter) Allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > l.period || len(l.clients) >= l.maxClients {
		l.sweep(now)
	}
	lim, ok := l.clients[key]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.clients[key] = lim
	}
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	if tokens := lim.TokensAt(now); tokens < 1 {
		l.raiseBlockedUntil(now.Add(time.Duration((1 - tokens) * float64(l.period))))
	}
	return true, 0
}

// raiseBlockedUntil moves blockedUntil to t unless it is later already.
func (l *RateLimiter) raiseBlockedUntil(t time.Time) {
	until := t.UnixNano()
	for {
		old := l.blockedUntil.Load()
		if until <= old || l.blockedUntil.CompareAndSwap(old, until) {
			return
		}
	}
}

// AnyBlocked reports whether some client may have used its allowance;
// false means Blocked is false for every key. While none has, it costs one
// atomic load, so a hot path that refuses blocked clients asks it first and
// calls Blocked only when it is true.
func (l *RateLimiter) AnyBlocked() bool {
	until := l.blockedUntil.Load()
	if until == 0 {
		return false
	}
	if l.now().UnixNano() < until {
		return true
	}
	l.blockedUntil.CompareAndSwap(until, 0)
	return false
}

// Blocked reports, taking nothing, whether key has used its allowance, and
// how long until it has one again. For limits on failures (wrong
// passwords), checked before the attempt and taken only when it fails.
func (l *RateLimiter) Blocked(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.clients[key]
	if !ok {
		return false, 0
	}
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - tokens) * float64(l.period))
}

// sweep forgets clients whose allowance is whole again (forgetting them
// changes nothing). If the table is still full, it drops arbitrary
// entries: under a flood, a forgotten client merely gets a fresh allowance.
func (l *RateLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for k, lim := range l.clients {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.clients, k)
		}
	}
	for k := range l.clients {
		if len(l.clients) < l.maxClients*3/4 {
			break
		}
		delete(l.clients, k)
	}
}

// Len is the number of clients currently tracked.
func (l *RateLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// Middleware answers 429 with Retry-After, in envelope env, once a client IP
// has used its allowance.
func (l *RateLimiter) Middleware(env Envelope) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ok, wait := l.Allow(ClientIP(r)); !ok {
				TooManyRequests(w, r, env, wait)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// TooManyRequests writes a 429 with Retry-After in whole seconds (at least 1).
func TooManyRequests(w http.ResponseWriter, r *http.Request, env Envelope, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	env.Error(w, r, &Error{Status: http.StatusTooManyRequests, Code: 42900, Msg: "too many requests, slow down"})
}
