package blog

import (
	"context"
	"database/sql"
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

// markSiteChanged records that the site's content changed now. A failure
// only costs conditional requests their 304 until the next change, so it
// is logged, not returned.
func (b *Blog) markSiteChanged(ctx context.Context) {
	_, err := b.db.Exec(context.WithoutCancel(ctx), `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		siteChangedKey, strconv.FormatInt(sqlstore.FromTime(b.now()), 10))
	if err != nil {
		b.logger.Error("blog: mark the site changed", "err", err)
	}
}

// siteChangedAt is when the classic site last changed as of now: the
// newest of the last administrator change, the newest publication time
// that has passed (a scheduled post appears without any write), and since,
// the start of this process (templates and file settings change only with
// a restart). Every page and feed shares it: each also shows the
// navigation and the settings.
func (b *Blog) siteChangedAt(ctx context.Context, now time.Time, since time.Time) (time.Time, error) {
	var stamp sql.NullString
	var published sql.NullInt64
	err := b.db.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = $1),
		(SELECT MAX(p.published_at) FROM posts p WHERE `+publicCond+`$2)`,
		siteChangedKey, sqlstore.FromTime(now)).Scan(&stamp, &published)
	if err != nil {
		return time.Time{}, err
	}
	last := since
	if us, err := strconv.ParseInt(stamp.String, 10, 64); err == nil {
		if t := sqlstore.Time(us); t.After(last) {
			last = t
		}
	}
	if published.Valid {
		if t := sqlstore.Time(published.Int64); t.After(last) {
			last = t
		}
	}
	return last, nil
}

// changedChecks shares siteChangedAt's query between the requests that
// wait for it at the same time, so that under load a cached page costs a
// fraction of a query instead of one each, without ever answering from a
// result older than the request: a request only takes the result of a
// query that started after it arrived. At most one query runs at a time;
// the requests that arrive meanwhile wait for the next one, which one of
// them runs when the current one ends.
type changedChecks struct {
	mu      sync.Mutex
	running *changedCall // started
	queued  *changedCall // to start when running ends
}

type changedCall struct {
	start chan struct{} // holds one token: the waiter that takes it runs the query
	done  chan struct{}
	at    time.Time
	err   error
}

func newChangedCall() *changedCall {
	return &changedCall{start: make(chan struct{}, 1), done: make(chan struct{})}
}

// do returns the result of a call of check that started after do was
// called, running check itself when no other call is due to start.
// Waiting does not end with the request's context: the wait is one query
// long at most, and a queued call must keep a waiter to run it.
func (c *changedChecks) do(check func() (time.Time, error)) (time.Time, error) {
	c.mu.Lock()
	if c.running == nil {
		call := newChangedCall()
		c.running = call
		c.mu.Unlock()
		c.run(call, check)
		return call.at, call.err
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
	return call.at, call.err
}

// run runs call, then hands the queued call, if any, to one of its waiters.
func (c *changedChecks) run(call *changedCall, check func() (time.Time, error)) {
	call.at, call.err = check()
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
