package blog

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"folio/sqlstore"
)

// siteChangedKey names the meta row holding when an administrator last
// changed anything the classic site shows (unix microseconds). It lives in
// the database so that every process sharing it sees the same time.
const siteChangedKey = "blog.site_changed"

// siteCounter names the change counter bumped with siteChangedKey, so that
// every process sees a change of the site without a query
// (docs/design.md#caches-across-processes).
const siteCounter = "blog.site"

// markSiteChanged records that the site's content changed now: the time in
// the database (for Last-Modified) and a bump of the site counter (for
// every process's page cache). A failure to write the time only costs
// conditional requests their 304 until the next change, so it is logged,
// not returned; the bump cannot fail.
func (b *Blog) markSiteChanged(ctx context.Context) {
	err := setMeta(context.WithoutCancel(ctx), b.db, siteChangedKey, strconv.FormatInt(sqlstore.FromTime(b.now()), 10))
	b.siteChanges.Bump()
	if err != nil {
		b.logger.Error("blog: mark the site changed", "err", err)
	}
}

// siteState is what the classic site looks like as of a check: when it last
// changed, until when that holds without any write, and the change counters
// read before the check. Two checks with equal tags saw the same site.
type siteState struct {
	tag   stateTag
	until time.Time // zero: until the next write
}

type stateTag struct {
	changed        time.Time
	site, settings uint64
}

// valid reports whether st still describes the site at now, judged by the
// counters alone.
func (s *Site) valid(st *siteState, now time.Time) bool {
	return st != nil && st.tag.site == s.b.siteChanges.Load() && st.tag.settings == s.b.settingsChanges.Load() &&
		(st.until.IsZero() || now.Before(st.until))
}

// siteState returns the site's state as of now, the request's time. Where
// the change counters see every process, a state checked earlier holds
// while the counters have not moved and no scheduled post nor a new year
// has come: no query. Else it asks the database, sharing the query with
// concurrent requests.
func (s *Site) siteState(ctx context.Context, now time.Time) (*siteState, bool, error) {
	local := s.b.db.Changes().Local()
	if local {
		if st := s.state.Load(); s.valid(st, now) {
			return st, true, nil
		}
	}
	st, err := s.changed.do(func() (*siteState, error) {
		// The answer is shared with other requests: one client going
		// away must not fail it for them.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		st, err := s.checkState(ctx)
		if err == nil {
			s.state.Store(st)
		}
		return st, err
	})
	return st, local, err
}

// checkState reads the site's state. The counters are read first: a write
// announced during the query makes the state invalid at once.
func (s *Site) checkState(ctx context.Context) (*siteState, error) {
	tag := stateTag{site: s.b.siteChanges.Load(), settings: s.b.settingsChanges.Load()}
	now := s.b.now()
	// The copyright line shows the year, so a new year is a change too.
	year := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, now.Location())
	since := year
	if s.started.After(since) {
		since = s.started
	}
	changed, next, err := s.b.siteChangedAt(ctx, now, since)
	if err != nil {
		return nil, err
	}
	tag.changed = changed
	st := &siteState{tag: tag, until: year.AddDate(1, 0, 0)}
	if !next.IsZero() && next.Before(st.until) {
		st.until = next
	}
	return st, nil
}

// changedChecks shares checkState's query between the requests that wait
// for it at the same time, so that under load a cached page costs a
// fraction of a query instead of one each, without ever answering from a
// result older than the request: a request only takes the result of a
// query that started after it arrived. At most one query runs at a time;
// the requests that arrive meanwhile wait for the next one, which one of
// them runs when the current one ends. Where the change counters see every
// process, only the first request after a change gets here.
type changedChecks struct {
	mu      sync.Mutex
	running *changedCall // started
	queued  *changedCall // to start when running ends
}

type changedCall struct {
	start chan struct{} // holds one token: the waiter that takes it runs the query
	done  chan struct{}
	st    *siteState
	err   error
}

func newChangedCall() *changedCall {
	return &changedCall{start: make(chan struct{}, 1), done: make(chan struct{})}
}

// do returns the result of a call of check that started after do was
// called, running check itself when no other call is due to start.
// Waiting does not end with the request's context: the wait is one query
// long at most, and a queued call must keep a waiter to run it.
func (c *changedChecks) do(check func() (*siteState, error)) (*siteState, error) {
	c.mu.Lock()
	if c.running == nil {
		call := newChangedCall()
		c.running = call
		c.mu.Unlock()
		c.run(call, check)
		return call.st, call.err
	}
	call := c.queued
	if call == nil {
		call = newChangedCall()
		c.queued = call
	}
	c.mu.Unlock()
	select {
	case <-call.start:
		c.run(call, check)
	case <-call.done:
	}
	return call.st, call.err
}

// run runs call, then hands the queued call, if any, to one of its waiters.
func (c *changedChecks) run(call *changedCall, check func() (*siteState, error)) {
	call.st, call.err = check()
	close(call.done)
	c.mu.Lock()
	next := c.queued
	c.queued = nil
	c.running = next
	c.mu.Unlock()
	if next != nil {
		next.start <- struct{}{}
	}
}

// changesSite wraps an administrator's write: once it has succeeded, and
// before its answer leaves, the site is marked changed, so that a client
// reading a page right after the answer never gets a stale 304.
func (b *Blog) changesSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&markingWriter{ResponseWriter: w, mark: func() { b.markSiteChanged(r.Context()) }}, r)
	})
}

// markingWriter calls mark when a success status is written.
type markingWriter struct {
	http.ResponseWriter
	mark   func()
	headed bool
}

func (w *markingWriter) WriteHeader(code int) {
	if !w.headed {
		w.headed = true
		if code < 400 {
			w.mark()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *markingWriter) Write(p []byte) (int, error) {
	if !w.headed {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *markingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sidebarTerms are the sidebar's categories and tags with their counts of
// visible posts: on a large blog the most expensive part of a page (they
// count every visible post), and the same on every page.
type sidebarTerms struct {
	tag        stateTag
	cats, tags []siteTerm
}

// sidebar returns the sidebar's terms. Where the counters see every
// process they are kept for the site's state, like the pages, but are not
// dropped with them when a burst ends: the next page rendered after a
// quiet time then costs only its own queries.
func (s *Site) sidebar(ctx context.Context) (*sidebarTerms, error) {
	st := s.state.Load()
	local := s.b.db.Changes().Local() && s.valid(st, s.b.now())
	if local {
		if side := s.side.Load(); side != nil && side.tag.equal(st.tag) {
			return side, nil
		}
	}
	cats, err := s.b.usedCategories(ctx, sidebarMaxCategories)
	if err != nil {
		return nil, err
	}
	tags, err := s.b.usedTags(ctx, sidebarMaxTags)
	if err != nil {
		return nil, err
	}
	side := &sidebarTerms{cats: cats, tags: tags}
	// The state was loaded before the queries: a write announced since
	// has moved the counters, and this entry will not match.
	if local {
		side.tag = st.tag
		s.side.Store(side)
	}
	return side, nil
}
