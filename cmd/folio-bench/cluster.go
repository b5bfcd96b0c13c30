package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// clusterBench is `folio-bench cluster`: several clients put a mixed
// workload on a site (normally the proxy in front of several folio
// processes, docs/scaling.md), each operation a write followed at once by
// a read that must see it. Behind a round-robin proxy the read usually
// lands on another process than the write, so every operation checks
// read-your-writes across processes. Every violation is counted and
// printed, and the command fails when there was one.
func clusterBench(args []string) error {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	base := fs.String("url", "", "the site's base URL (the proxy)")
	admin := fs.String("admin", "", "the administrator's user:password")
	clients := fs.Int("clients", 8, "concurrent clients")
	duration := fs.Duration("duration", 20*time.Second, "length of the workload")
	mix := fs.String("mix", "all", "all: every kind of operation; upload: uploads only (for the kill test)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object instead of text")
	reportPath := fs.String("report", "", "also write the report as JSON to this file")
	large := fs.Int("large", 0, "make every eighth upload a file of this many bytes (0: none), so that a kill can land inside a multipart upload")
	fs.Parse(args)
	if *base == "" || !strings.Contains(*admin, ":") || *clients < 1 || *clients > 60000 {
		return errors.New("usage: folio-bench cluster -url URL -admin USER:PASSWORD [-clients N] [-duration D] [-mix all|upload] [-large BYTES] [-json] [-report FILE]")
	}
	if *large < 0 || *large > 1<<30 {
		return errors.New("-large: 0 to 1 GiB")
	}
	kinds := clusterKinds
	if *mix == "upload" {
		kinds = []opKind{{"upload", 1, (*clusterClient).opUpload}}
	} else if *mix != "all" {
		return fmt.Errorf("-mix %q: want all or upload", *mix)
	}
	user, pass, _ := strings.Cut(*admin, ":")
	c, err := newCluster(strings.TrimRight(*base, "/"), user, pass, *clients)
	if err != nil {
		return err
	}
	c.large = *large
	rep := c.run(kinds, *clients, *duration)
	// What the clients were told succeeded must still be there, once,
	// with its bytes: after a kill too.
	c.verifyUploads(rep)
	js, _ := json.MarshalIndent(rep, "", "  ")
	if *reportPath != "" {
		if err := os.WriteFile(*reportPath, append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		fmt.Printf("%s\n", js)
	} else {
		rep.print(os.Stdout)
	}
	if rep.ViolationCount > 0 {
		return fmt.Errorf("%d violations", rep.ViolationCount)
	}
	return nil
}

// opKind is one kind of operation of the workload, picked with weight.
type opKind struct {
	name   string
	weight int
	run    func(*clusterClient) error
}

var clusterKinds = []opKind{
	{"upload", 30, (*clusterClient).opUpload},
	{"delete", 10, (*clusterClient).opDelete},
	{"post", 15, (*clusterClient).opPost},
	{"token", 15, (*clusterClient).opToken},
	{"login", 10, (*clusterClient).opLogin},
	{"settings", 10, (*clusterClient).opSettings},
}

// cluster is the state the clients share.
type cluster struct {
	base        string
	user, pass  string
	http        *http.Client
	adminToken  string // an access token of the administrator, for admin writes
	uploadToken string // an API token, for uploads
	runID       string // tells this run's names from an earlier run's
	ipBase      int
	seq         atomic.Int64
	large       int // bytes of every eighth upload; 0: none

	// settingsMu makes settings operations one at a time: the value a
	// read must show is then the last one written, with no other client
	// writing in between.
	settingsMu sync.Mutex

	report *clusterReport

	mu         sync.Mutex
	uploads    []ackedUpload // acknowledged and not deleted
	violations []violation
	count      int
}

type ackedUpload struct {
	name, link, md5 string
	size            int
}

type violation struct {
	Op       string `json:"op"`
	Expected string `json:"expected"`
	Seen     string `json:"seen"`
}

// clusterClient is one client: its own fake address, so that the
// per-process, per-address rate limits of logins (docs/api.md#limits)
// count each client apart, and its own random source.
type clusterClient struct {
	*cluster
	ip string
	r  *rand.Rand
}

// clusterReport is what a run measured.
type clusterReport struct {
	Clients        int                   `json:"clients"`
	Seconds        float64               `json:"seconds"`
	Ops            int                   `json:"ops"`
	OpsPerSecond   float64               `json:"ops_per_second"`
	Requests       int64                 `json:"requests"`
	Retries        int64                 `json:"retries"`
	Kinds          map[string]*kindStats `json:"kinds"`
	Verified       int                   `json:"verified_uploads"`
	ViolationCount int                   `json:"violation_count"`
	Violations     []violation           `json:"violations"`
	requests       atomic.Int64
	retries        atomic.Int64
}

type kindStats struct {
	N            int     `json:"n"`
	Failed       int     `json:"failed"`
	OpsPerSecond float64 `json:"ops_per_second"`
	P50ms        float64 `json:"p50_ms"`
	P99ms        float64 `json:"p99_ms"`
	latencies    []time.Duration
}

func newCluster(base, user, pass string, clients int) (*cluster, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients * 2, DisableCompression: true}
	c := &cluster{base: base, user: user, pass: pass, http: &http.Client{Transport: tr, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		runID: fmt.Sprintf("%06x", rand.IntN(1<<24)), ipBase: rand.IntN(200),
		report: &clusterReport{Clients: clients, Kinds: map[string]*kindStats{}}}
	setup := &clusterClient{cluster: c, ip: "198.19.255.1", r: rand.New(rand.NewPCG(1, 2))}
	var login struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	body, _ := json.Marshal(map[string]string{"username": user, "password": pass})
	if st, b, err := setup.send("POST", "/api/v1/auth/login", "", jsonBody(body), nil); err != nil || st != 200 || json.Unmarshal(b, &login) != nil {
		return nil, fmt.Errorf("log in as %s: %d %v %.200s", user, st, err, b)
	}
	c.adminToken = login.Data.AccessToken
	tok, _, err := setup.newToken("folio-bench cluster " + c.runID)
	if err != nil {
		return nil, err
	}
	c.uploadToken = tok
	return c, nil
}

func (c *cluster) violate(op, expected, seen string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	if len(c.violations) < 50 {
		c.violations = append(c.violations, violation{op, expected, seen})
	}
}

// errViolated ends an operation after a violation was recorded.
var errViolated = errors.New("violation")

func (c *cluster) run(kinds []opKind, clients int, d time.Duration) *clusterReport {
	rep := c.report
	for _, k := range kinds {
		rep.Kinds[k.name] = &kindStats{}
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &clusterClient{cluster: c, r: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))),
				ip: fmt.Sprintf("198.18.%d.%d", c.ipBase+i/250, 1+i%250)}
			for ctx.Err() == nil {
				n := cl.r.IntN(total)
				k := kinds[0]
				for _, k = range kinds {
					if n -= k.weight; n < 0 {
						break
					}
				}
				t0 := time.Now()
				err := k.run(cl)
				el := time.Since(t0)
				if err != nil && !errors.Is(err, errViolated) {
					c.violate(k.name, "the operation to complete", err.Error())
				}
				mu.Lock()
				s := rep.Kinds[k.name]
				s.N++
				if err != nil {
					s.Failed++
				}
				s.latencies = append(s.latencies, el)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	for _, s := range rep.Kinds {
		rep.Ops += s.N
		s.OpsPerSecond = float64(s.N) / rep.Seconds
		if len(s.latencies) > 0 {
			slices.Sort(s.latencies)
			q := func(f float64) float64 {
				return float64(s.latencies[int(f*float64(len(s.latencies)-1))].Microseconds()) / 1000
			}
			s.P50ms, s.P99ms = q(0.5), q(0.99)
		}
	}
	rep.OpsPerSecond = float64(rep.Ops) / rep.Seconds
	return rep
}

// verifyUploads fetches every acknowledged upload that was not deleted
// through the site: its bytes must have the MD5 the answer gave, and its
// unique name must name one file, not two (a retried upload must not
// leave a duplicate).
func (c *cluster) verifyUploads(rep *clusterReport) {
	cl := &clusterClient{cluster: c, ip: "198.19.255.2", r: rand.New(rand.NewPCG(3, 4))}
	for _, u := range c.uploads {
		st, b, err := cl.send("GET", u.link, "", nil, nil)
		if err != nil || st != 200 || md5hex(b) != u.md5 {
			c.violate("verify", fmt.Sprintf("GET %s: 200 with MD5 %s", u.link, u.md5), describe(st, b, err))
			continue
		}
		named, err := cl.filesNamed(u.name)
		if err != nil || len(named) != 1 {
			c.violate("verify", fmt.Sprintf("one file named %s", u.name), fmt.Sprintf("%d (%v)", len(named), err))
			continue
		}
		rep.Verified++
	}
	rep.Requests, rep.Retries = rep.requests.Load(), rep.retries.Load()
	rep.ViolationCount, rep.Violations = c.count, c.violations
}

func (r *clusterReport) print(w io.Writer) {
	names := make([]string, 0, len(r.Kinds))
	for name := range r.Kinds {
		names = append(names, name)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "%d clients, %.1f s: %d operations (%.1f ops/s), %d requests, %d retried\n",
		r.Clients, r.Seconds, r.Ops, r.OpsPerSecond, r.Requests, r.Retries)
	for _, name := range names {
		k := r.Kinds[name]
		fmt.Fprintf(w, "  %-9s %6d  %7.1f ops/s  p50 %7.1f ms  p99 %7.1f ms  failed %d\n",
			name, k.N, k.OpsPerSecond, k.P50ms, k.P99ms, k.Failed)
	}
	fmt.Fprintf(w, "uploads verified afterwards: %d\n", r.Verified)
	fmt.Fprintf(w, "violations: %d\n", r.ViolationCount)
	for _, v := range r.Violations {
		fmt.Fprintf(w, "  %s: expected %s, saw %s\n", v.Op, v.Expected, v.Seen)
	}
}

// retryable: the proxy could not reach a process, or it died with the
// request (connection error, 502, 504). Sent again, the request goes
// to another process.
func retryable(status int, err error) bool {
	return err != nil || status == http.StatusBadGateway || status == http.StatusGatewayTimeout
}

const maxAttempts = 8

// send sends one request, again while it is retryable; body makes the
// body anew for each attempt. It returns the last status and body.
func (c *clusterClient) send(method, path, bearer string, body func() (string, io.Reader), header http.Header) (int, []byte, error) {
	var st int
	var b []byte
	var err error
	for attempt := range maxAttempts {
		if attempt > 0 {
			c.report.retries.Add(1)
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		st, b, err = c.once(method, path, bearer, body, header)
		if !retryable(st, err) {
			return st, b, err
		}
	}
	return st, b, err
}

func (c *clusterClient) once(method, path, bearer string, body func() (string, io.Reader), header http.Header) (int, []byte, error) {
	var rd io.Reader
	ct := ""
	if body != nil {
		ct, rd = body()
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("X-Forwarded-For", c.ip)
	c.report.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if sc := resp.Header.Values("Set-Cookie"); len(sc) > 0 && header != nil {
		header["Set-Cookie"] = sc
	}
	return resp.StatusCode, b, nil
}

func jsonBody(b []byte) func() (string, io.Reader) {
	return func() (string, io.Reader) { return "application/json", bytes.NewReader(b) }
}

func describe(st int, b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d %.200s", st, b)
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// expect records a violation unless the status is want.
func (c *clusterClient) expect(op, what string, want, st int, b []byte, err error) error {
	if err != nil || st != want {
		c.violate(op, fmt.Sprintf("%s: %d", what, want), describe(st, b, err))
		return errViolated
	}
	return nil
}

type uploadResult struct {
	Status bool `json:"status"`
	Data   struct {
		ID         string `json:"id"`
		MD5        string `json:"md5"`
		Size       int    `json:"size"`
		OriginName string `json:"origin_name"`
		Links      struct {
			URL string `json:"url"`
		} `json:"links"`
	} `json:"data"`
}

// upload uploads a new image under a name of its own. An attempt that
// failed retryably may still have been stored (the process died after
// its commit, before its answer): before trying again it asks whether a
// file of that name exists, and takes it instead of storing a second.
func (c *clusterClient) upload(op string) (id string, u ackedUpload, err error) {
	n := c.seq.Add(1)
	u.name = fmt.Sprintf("cluster-%s-%d.png", c.runID, n)
	img := pngOf(c.ipBase<<40+int(n), 48+int(n%16), 48)
	if c.large > 0 && n%8 == 0 {
		// Bytes of no image, larger than a part of the S3 store's
		// multipart upload.
		u.name = fmt.Sprintf("cluster-%s-%d.bin", c.runID, n)
		img = make([]byte, c.large)
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], uint64(c.ipBase))
		binary.LittleEndian.PutUint64(seed[8:], uint64(n))
		rand.NewChaCha8(seed).Read(img)
	}
	u.md5, u.size = md5hex(img), len(img)
	body := func() (string, io.Reader) { return uploadForm(img, u.name, "1") }
	for attempt := range maxAttempts {
		if attempt > 0 {
			c.report.retries.Add(1)
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
			if named, err := c.filesNamed(u.name); err != nil {
				continue
			} else if len(named) > 0 {
				f := named[0]
				if f.MD5 != u.md5 {
					c.violate(op, "a retried upload's first attempt to hold its bytes, MD5 "+u.md5, "MD5 "+f.MD5)
					return "", u, errViolated
				}
				u.link = pathOf(f.Links.URL)
				return f.ID, u, nil
			}
		}
		st, b, err := c.once("POST", "/api/v1/upload", c.uploadToken, body, nil)
		if retryable(st, err) {
			continue
		}
		var res uploadResult
		if st != 200 || json.Unmarshal(b, &res) != nil || !res.Status {
			c.violate(op, "upload: 200 with status true", describe(st, b, nil))
			return "", u, errViolated
		}
		if res.Data.MD5 != u.md5 || res.Data.Size != u.size {
			c.violate(op, fmt.Sprintf("upload answer: MD5 %s, %d bytes", u.md5, u.size),
				fmt.Sprintf("MD5 %s, %d bytes", res.Data.MD5, res.Data.Size))
			return "", u, errViolated
		}
		u.link = pathOf(res.Data.Links.URL)
		return res.Data.ID, u, nil
	}
	return "", u, errors.New("upload: no process answered")
}

// filesNamed lists the upload token's owner's files of this name.
func (c *clusterClient) filesNamed(name string) ([]uploadFile, error) {
	var page struct {
		Data struct {
			Items []uploadFile `json:"items"`
		} `json:"data"`
	}
	st, b, err := c.send("GET", "/api/v1/files?keyword="+url.QueryEscape(name), c.uploadToken, nil, nil)
	if err != nil || st != 200 || json.Unmarshal(b, &page) != nil {
		return nil, fmt.Errorf("list files: %s", describe(st, b, err))
	}
	var named []uploadFile
	for _, f := range page.Data.Items {
		if f.OriginName == name {
			named = append(named, f)
		}
	}
	return named, nil
}

type uploadFile struct {
	ID         string `json:"id"`
	MD5        string `json:"md5"`
	OriginName string `json:"origin_name"`
	Links      struct {
		URL string `json:"url"`
	} `json:"links"`
}

// opUpload: upload, then GET the short link: the same bytes.
func (c *clusterClient) opUpload() error {
	_, u, err := c.upload("upload")
	if err != nil {
		return err
	}
	st, b, err := c.send("GET", u.link, "", nil, nil)
	if err := c.expect("upload", "GET "+u.link, 200, st, b, err); err != nil {
		return err
	}
	if got := md5hex(b); got != u.md5 {
		c.violate("upload", "GET "+u.link+": MD5 "+u.md5, "MD5 "+got)
		return errViolated
	}
	c.mu.Lock()
	c.uploads = append(c.uploads, u)
	c.mu.Unlock()
	return nil
}

// opDelete: upload, delete the file, then its short link is 404.
func (c *clusterClient) opDelete() error {
	id, u, err := c.upload("delete")
	if err != nil {
		return err
	}
	st, b, err := c.send("DELETE", "/api/v1/files/"+id, c.uploadToken, nil, nil)
	if err := c.expect("delete", "DELETE the file", 200, st, b, err); err != nil {
		return err
	}
	st, b, err = c.send("GET", u.link, "", nil, nil)
	return c.expect("delete", "GET "+u.link+" of the deleted file", 404, st, b, err)
}

// opPost: publish a post, then the classic site shows it.
func (c *clusterClient) opPost() error {
	title := fmt.Sprintf("Cluster post %s-%d", c.runID, c.seq.Add(1))
	post, _ := json.Marshal(map[string]any{"title": title, "status": "published",
		"content_markdown": "Written by `folio-bench cluster`.\n"})
	var created struct {
		Data struct {
			Slug string `json:"slug"`
		} `json:"data"`
	}
	st, b, err := c.send("POST", "/api/v1/admin/posts", c.adminToken, jsonBody(post), nil)
	if err != nil || st/100 != 2 || json.Unmarshal(b, &created) != nil || created.Data.Slug == "" {
		c.violate("post", "POST /api/v1/admin/posts: 2xx with a slug", describe(st, b, err))
		return errViolated
	}
	st, b, err = c.send("GET", "/posts/"+created.Data.Slug, "", nil, nil)
	if err := c.expect("post", "GET /posts/"+created.Data.Slug, 200, st, b, err); err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(title)) {
		c.violate("post", "the post page to show "+title, fmt.Sprintf("%.200s", b))
		return errViolated
	}
	return nil
}

// newToken creates an API token of the administrator.
func (c *clusterClient) newToken(name string) (token, id string, err error) {
	var created struct {
		Data struct {
			ID    string `json:"id"`
			Token string `json:"token"`
		} `json:"data"`
	}
	body, _ := json.Marshal(map[string]string{"name": name})
	st, b, err := c.send("POST", "/api/v1/tokens", c.adminToken, jsonBody(body), nil)
	if err != nil || st != 201 || json.Unmarshal(b, &created) != nil || created.Data.Token == "" {
		return "", "", fmt.Errorf("create a token: %s", describe(st, b, err))
	}
	return created.Data.Token, created.Data.ID, nil
}

// opToken: create an API token and use it, revoke it and use it: 401.
func (c *clusterClient) opToken() error {
	tok, id, err := c.newToken(fmt.Sprintf("cluster %s-%d", c.runID, c.seq.Add(1)))
	if err != nil {
		return err
	}
	st, b, err := c.send("GET", "/api/v1/tokens?size=1", tok, nil, nil)
	if err := c.expect("token", "a new token used", 200, st, b, err); err != nil {
		return err
	}
	st, b, err = c.send("DELETE", "/api/v1/tokens/"+id, c.adminToken, nil, nil)
	if err := c.expect("token", "DELETE the token", 200, st, b, err); err != nil {
		return err
	}
	st, b, err = c.send("GET", "/api/v1/tokens?size=1", tok, nil, nil)
	return c.expect("token", "a revoked token used", 401, st, b, err)
}

// opLogin: sign in for a session, use it, sign out, use it: 401.
func (c *clusterClient) opLogin() error {
	body, _ := json.Marshal(map[string]string{"username": c.user, "password": c.pass})
	h := http.Header{}
	st, b, err := c.send("POST", "/api/v1/admin/auth/login", "", jsonBody(body), h)
	if err := c.expect("login", "POST /api/v1/admin/auth/login", 200, st, b, err); err != nil {
		return err
	}
	cookie := ""
	for _, sc := range h["Set-Cookie"] {
		if v, ok := strings.CutPrefix(sc, "folio_session="); ok {
			cookie, _, _ = strings.Cut(v, ";")
		}
	}
	if cookie == "" {
		c.violate("login", "a folio_session cookie", strings.Join(h["Set-Cookie"], "; "))
		return errViolated
	}
	session := http.Header{"Cookie": {"folio_session=" + cookie}, "Origin": {c.base}}
	st, b, err = c.send("GET", "/api/v1/admin/auth/me", "", nil, session)
	if err := c.expect("login", "the new session used", 200, st, b, err); err != nil {
		return err
	}
	st, b, err = c.send("POST", "/api/v1/admin/auth/logout", "", nil, session)
	if err := c.expect("login", "POST /api/v1/admin/auth/logout", 200, st, b, err); err != nil {
		return err
	}
	st, b, err = c.send("GET", "/api/v1/admin/auth/me", "", nil, http.Header{"Cookie": session["Cookie"]})
	return c.expect("login", "the ended session used", 401, st, b, err)
}

// opSettings: change the site name, then the settings API and the
// classic home page show it; turn guest upload on or off, then the guest
// upload page is there (200) or not (404).
func (c *clusterClient) opSettings() error {
	c.settingsMu.Lock()
	defer c.settingsMu.Unlock()
	name := fmt.Sprintf("Cluster site %s-%d", c.runID, c.seq.Add(1))
	body, _ := json.Marshal(map[string]any{"site": map[string]string{"site_name": name}})
	st, b, err := c.send("PUT", "/api/v1/admin/settings", c.adminToken, jsonBody(body), nil)
	if err := c.expect("settings", "PUT site.site_name", 200, st, b, err); err != nil {
		return err
	}
	var got struct {
		Data struct {
			Site struct {
				SiteName string `json:"site_name"`
			} `json:"site"`
		} `json:"data"`
	}
	st, b, err = c.send("GET", "/api/v1/admin/settings", c.adminToken, nil, nil)
	if err := c.expect("settings", "GET /api/v1/admin/settings", 200, st, b, err); err != nil {
		return err
	}
	if json.Unmarshal(b, &got) != nil || got.Data.Site.SiteName != name {
		c.violate("settings", "site_name "+name, "site_name "+got.Data.Site.SiteName)
		return errViolated
	}
	st, b, err = c.send("GET", "/", "", nil, nil)
	if err := c.expect("settings", "GET /", 200, st, b, err); err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(name)) {
		c.violate("settings", "the home page to show "+name, fmt.Sprintf("%.200s", b))
		return errViolated
	}
	on := c.r.IntN(2) == 0
	body, _ = json.Marshal(map[string]any{"upload": map[string]bool{"allow_guest_upload": on}})
	st, b, err = c.send("PUT", "/api/v1/admin/settings", c.adminToken, jsonBody(body), nil)
	if err := c.expect("settings", "PUT upload.allow_guest_upload", 200, st, b, err); err != nil {
		return err
	}
	want := map[bool]int{true: 200, false: 404}[on]
	st, b, err = c.send("GET", "/upload", "", nil, nil)
	return c.expect("settings", fmt.Sprintf("GET /upload with allow_guest_upload %v", on), want, st, b, err)
}
