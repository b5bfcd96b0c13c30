package main

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"folio/blog/httpsig"
	"folio/sqlstore"
)

// federationBench is `folio-bench federation`: the fan-out of one post to
// many followers (docs/testing.md#federation-fan-out-benchmark). It starts
// a real folio process with federation on, a fleet of test inboxes on
// distinct loopback addresses 127.0.x.y (Linux answers all of
// 127.0.0.0/8), one shared inbox per address, seeds the followers, and
// publishes one post through the API. It waits until every inbox got its
// Create and prints the time that took, the requests made (one per shared
// inbox, not one per follower), Folio's peak resident memory and the
// deliveries a second. A sample of the deliveries has its signature
// verified with the key the actor document publishes.
//
// The followers are rows written straight into ap_followers with SQL:
// following a blog 10,000 times through its inbox would measure the inbox,
// not the fan-out, and the blog exports no hook for tests. A benchmark is
// a command of its own and may write the table it seeds; it writes no
// other.
func federationBench(args []string) error {
	fs := flag.NewFlagSet("federation", flag.ExitOnError)
	bin := fs.String("folio", "", "folio binary (default: built from ./cmd/folio into the work folder)")
	followers := fs.Int("followers", 10_000, "followers to seed")
	hosts := fs.Int("hosts", 1_000, "inbox hosts the followers live on (1-64,000), each with one shared inbox")
	dbKind := fs.String("db", "sqlite", "sqlite or postgres")
	dsn := fs.String("dsn", os.Getenv("FOLIO_TEST_POSTGRES_DSN"), "with -db postgres: a postgres:// URL of the server; the benchmark creates a fresh database there and drops it afterwards (default: $FOLIO_TEST_POSTGRES_DSN)")
	sample := fs.Float64("verify", 0.01, "share of the deliveries whose signature is verified")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up when not every inbox got the post by then")
	logPath := fs.String("log", "", "keep the server's log in this file")
	fs.Parse(args)
	switch {
	case *hosts < 1 || *hosts > 64_000:
		return errors.New("-hosts must be 1-64000")
	case *followers < *hosts:
		return errors.New("-followers must be at least -hosts")
	case *sample < 0 || *sample > 1:
		return errors.New("-verify must be between 0 and 1")
	}
	fresh, drop, err := benchDatabase(*dbKind, *dsn)
	if err != nil {
		return err
	}
	defer drop()
	*dsn = fresh

	dir, err := os.MkdirTemp("", "folio-federation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if *bin, err = buildFolio(*bin, dir); err != nil {
		return err
	}
	if *logPath == "" {
		*logPath = filepath.Join(dir, "folio.log")
	}

	fleet, err := startFleet(*hosts, *sample)
	if err != nil {
		return err
	}
	defer fleet.close()

	p, err := startFolioWith(*bin, dir, *dsn, *logPath, func(addr string) string {
		return fmt.Sprintf("site.site_url = http://%s\nfederation.enabled = true\n"+
			"federation.allow_private_addresses = 127.0.0.0/8\nfederation.allow_http = true\n", addr)
	})
	if err != nil {
		return err
	}
	defer p.stop()
	site := p.base

	// The key the deliveries must be signed with, as a follower's server
	// reads it: from the actor document.
	key, keyID, err := actorKey(site + "/ap/actor")
	if err != nil {
		return err
	}
	fleet.setKey(key, keyID)

	seedStart := time.Now()
	if err := seedFollowers(*dbKind, *dsn, filepath.Join(dir, "folio.db"), fleet, *followers); err != nil {
		return err
	}
	fmt.Printf("seeded %d followers on %d hosts in %.1f s\n", *followers, *hosts, time.Since(seedStart).Seconds())

	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	if err := call("POST", site+"/api/v1/auth/login", "", "application/json",
		strings.NewReader(`{"username":"admin","password":"`+benchPassword+`"}`), &login); err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	before := p.rss()

	slug := "fan-out"
	fleet.want(site + "/posts/" + slug)
	post, _ := json.Marshal(map[string]any{"title": "One post to every follower", "slug": slug, "status": "published",
		"content_markdown": benchMarkdown()})
	start := time.Now()
	var created struct{}
	if err := call("POST", site+"/api/v1/admin/posts", login.Data.AccessToken, "application/json",
		strings.NewReader(string(post)), &created); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	published := time.Since(start)

	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	deadline := time.After(*timeout)
wait:
	for {
		select {
		case <-fleet.done:
			break wait
		case <-progress.C:
			fmt.Printf("  %.0f s: %d of %d hosts reached\n", time.Since(start).Seconds(), fleet.reached.Load(), *hosts)
		case <-deadline:
			return fmt.Errorf("after %s only %d of %d hosts got the post (log: %s)", *timeout, fleet.reached.Load(), *hosts, *logPath)
		case <-p.done:
			return fmt.Errorf("folio exited during the fan-out (log: %s)", *logPath)
		}
	}
	all := time.Since(start)
	// Duplicates come after the first delivery to a host, if at all: give
	// them a moment to show before counting.
	time.Sleep(2 * time.Second)
	peak := procField(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid), "VmHWM:")

	r := fleet.report()
	fmt.Printf("\nfolio-bench federation: one post to %d followers on %d inbox hosts, %s\n", *followers, *hosts, *dbKind)
	fmt.Printf("publish answered in:        %s\n", published.Round(time.Millisecond))
	fmt.Printf("all deliveries arrived in:  %.2f s\n", all.Seconds())
	fmt.Printf("requests made:              %d (one per shared inbox: %d hosts)\n", r.requests, *hosts)
	fmt.Printf("deliveries a second:        %.0f requests, %.0f followers reached\n",
		float64(r.requests)/all.Seconds(), float64(*followers)/all.Seconds())
	fmt.Printf("folio RSS before publishing: %s; peak (VmHWM): %s\n", mib(before), mib(peak))
	fmt.Printf("signatures verified:        %d of %d sampled, %d failed\n", r.verified, r.sampled, r.badSignatures)
	fmt.Printf("machine:                    %d CPUs\n", runtime.NumCPU())

	var problems []string
	if r.requests != *hosts {
		problems = append(problems, fmt.Sprintf("%d requests for %d shared inboxes", r.requests, *hosts))
	}
	if r.badSignatures > 0 {
		problems = append(problems, fmt.Sprintf("%d sampled signatures did not verify, the first: %s", r.badSignatures, r.firstBad))
	}
	if r.wrong > 0 {
		problems = append(problems, fmt.Sprintf("%d deliveries were not the post's Create, the first: %s", r.wrong, r.firstWrong))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// fleet is the test inboxes: one listener per loopback address, all on
// one port, so that each inbox URL has a host of its own.
type fleet struct {
	port      int
	addrs     []string
	listeners []net.Listener
	srv       *http.Server
	sample    int // every sample-th host has its delivery's signature verified; 0: none

	mu      sync.Mutex
	key     crypto.PublicKey
	keyID   string
	object  string
	hits    map[string]int // requests a host got
	rep     fleetReport
	reached atomic.Int64
	done    chan struct{}
}

type fleetReport struct {
	requests, sampled, verified, badSignatures, wrong int
	firstBad, firstWrong                              string
}

// startFleet listens on 127.0.x.y for n addresses from 127.0.1.1 on
// (leaving 127.0.0.0/24, where Folio listens, alone), on one port free on
// all of them.
func startFleet(n int, share float64) (*fleet, error) {
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)
	}
	f := &fleet{addrs: addrs, hits: map[string]int{}, done: make(chan struct{})}
	if share > 0 {
		f.sample = max(1, int(1/share+0.5))
	}
	var err error
	for try := 0; try < 10; try++ {
		if err = f.listen(); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the fleet of inboxes: %w", err)
	}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 10 * time.Second}
	for _, ln := range f.listeners {
		go f.srv.Serve(ln)
	}
	return f, nil
}

// listen takes a port free on the first address and the same port on the
// others; when one of them has it taken, it lets all go for another try.
func (f *fleet) listen() error {
	first, err := net.Listen("tcp", f.addrs[0]+":0")
	if err != nil {
		return err
	}
	f.listeners = []net.Listener{first}
	f.port = first.Addr().(*net.TCPAddr).Port
	for _, a := range f.addrs[1:] {
		ln, err := net.Listen("tcp", fmt.Sprintf("%s:%d", a, f.port))
		if err != nil {
			for _, l := range f.listeners {
				l.Close()
			}
			f.listeners = nil
			if errors.Is(err, syscall.EADDRINUSE) {
				return err
			}
			return fmt.Errorf("listen on %s (Linux answers all of 127.0.0.0/8; other systems need the addresses set up): %w", a, err)
		}
		f.listeners = append(f.listeners, ln)
	}
	return nil
}

func (f *fleet) close() { f.srv.Close() }

func (f *fleet) host(i int) string { return fmt.Sprintf("%s:%d", f.addrs[i], f.port) }

func (f *fleet) setKey(key crypto.PublicKey, keyID string) {
	f.mu.Lock()
	f.key, f.keyID = key, keyID
	f.mu.Unlock()
}

// want names the object every delivery must create.
func (f *fleet) want(object string) {
	f.mu.Lock()
	f.object = object
	f.mu.Unlock()
}

func (f *fleet) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/inbox" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		return
	}
	var activity struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	var object struct {
		ID string `json:"id"`
	}
	json.Unmarshal(body, &activity)
	json.Unmarshal(activity.Object, &object)

	f.mu.Lock()
	defer f.mu.Unlock()
	f.rep.requests++
	if activity.Type != "Create" || object.ID != f.object {
		f.rep.wrong++
		if f.rep.firstWrong == "" {
			f.rep.firstWrong = fmt.Sprintf("%s of %q to %s", activity.Type, object.ID, r.Host)
		}
	}
	f.hits[r.Host]++
	if f.hits[r.Host] == 1 {
		i := f.index(r.Host)
		if f.sample > 0 && i%f.sample == 0 {
			f.rep.sampled++
			if err := f.check(r, body); err != nil {
				f.rep.badSignatures++
				if f.rep.firstBad == "" {
					f.rep.firstBad = fmt.Sprintf("%s: %v", r.Host, err)
				}
			} else {
				f.rep.verified++
			}
		}
		if f.reached.Add(1) == int64(len(f.addrs)) {
			close(f.done)
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// index is the position of a fleet host in addrs.
func (f *fleet) index(host string) int {
	var x, y int
	fmt.Sscanf(host, "127.0.%d.%d:", &x, &y)
	return (x-1)*250 + y - 1
}

// check verifies a delivery as a follower's server would: the headers
// Mastodon requires signed, by the actor's key, with a matching digest and
// a current date.
func (f *fleet) check(r *http.Request, body []byte) error {
	sig, err := httpsig.Parse(r.Header)
	if err != nil {
		return err
	}
	if sig.KeyID != f.keyID {
		return fmt.Errorf("signed by %q, want %q", sig.KeyID, f.keyID)
	}
	if err := sig.Verify(r, f.key, []string{"(request-target)", "host", "date", "digest"}); err != nil {
		return err
	}
	if err := httpsig.CheckDigest(r.Header, body); err != nil {
		return err
	}
	return httpsig.CheckDate(r.Header, time.Now(), 5*time.Minute)
}

func (f *fleet) report() fleetReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rep
}

// actorKey reads the public key of the actor document at url.
func actorKey(url string) (crypto.PublicKey, string, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/activity+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var actor struct {
		PublicKey struct {
			ID           string `json:"id"`
			PublicKeyPem string `json:"publicKeyPem"`
		} `json:"publicKey"`
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&actor); err != nil {
		return nil, "", fmt.Errorf("GET %s: %w", url, err)
	}
	key, err := httpsig.ParsePublicKey(actor.PublicKey.PublicKeyPem)
	if err != nil {
		return nil, "", fmt.Errorf("the actor's key: %w", err)
	}
	return key, actor.PublicKey.ID, nil
}

// seedFollowers writes n accepted followers spread evenly over the fleet's
// hosts, each delivered to through its host's shared inbox.
func seedFollowers(kind, dsn, sqlitePath string, f *fleet, n int) error {
	ctx := context.Background()
	if kind == "sqlite" {
		dsn = sqlitePath
	}
	db, err := sqlstore.Open(ctx, kind, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	var existing int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM ap_followers`).Scan(&existing); err != nil {
		return fmt.Errorf("count followers: %w", err)
	}
	if existing > 0 {
		return fmt.Errorf("the database already has %d followers: the benchmark wants one with none", existing)
	}
	stamp := sqlstore.FromTime(time.Now())
	return db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for i := range n {
			host := f.host(i % len(f.addrs))
			actor := fmt.Sprintf("http://%s/users/u%d", host, i)
			if _, err := tx.Exec(ctx, `INSERT INTO ap_followers (actor_id, follow_id, status, inbox, host, created_at, updated_at)
				VALUES ($1, $2, 'accepted', $3, $4, $5, $5)`,
				actor, actor+"/follow", "http://"+host+"/inbox", host, stamp); err != nil {
				return fmt.Errorf("seed followers: %w", err)
			}
		}
		return nil
	})
}

// benchDatabase is the database of a -db kind and -dsn pair: "" for
// SQLite, or a fresh database on the PostgreSQL server dsn names, which
// drop removes.
func benchDatabase(kind, dsn string) (string, func(), error) {
	switch {
	case kind == "sqlite":
		return "", func() {}, nil
	case kind != "postgres":
		return "", nil, errors.New("-db must be sqlite or postgres")
	case dsn == "":
		return "", nil, errors.New("-db postgres needs -dsn (or FOLIO_TEST_POSTGRES_DSN)")
	}
	return freshPostgres(dsn)
}

// freshPostgres creates an empty database on the server dsn names and
// returns its DSN and a function that drops it.
func freshPostgres(dsn string) (string, func(), error) {
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("-dsn must be a postgres:// URL")
	}
	admin, err := sqlstore.Open(ctx, "postgres", dsn)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("folio_fanout_%d_%d", time.Now().Unix(), os.Getpid())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u.Path = "/" + name
	return u.String(), func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			fmt.Fprintf(os.Stderr, "folio-bench: drop database %s: %v\n", name, err)
		}
		admin.Close()
	}, nil
}
