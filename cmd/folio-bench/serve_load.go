package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loadRun is what one run of the load generator against one URL measured.
type loadRun struct {
	requests     int
	perSecond    float64
	p99          time.Duration // 0: no request was answered in time
	non2xx       int           // wrk counts 3xx as success; the built-in generator does not
	socketErrors int           // connect, read, write and timeout errors
	timeouts     int           // of which timeouts
	cpu          time.Duration // the server's CPU time per request answered; 0: not measured
}

// failed describes what went wrong in the run, "" when nothing did.
func (r loadRun) failed() string {
	var parts []string
	if r.non2xx > 0 {
		parts = append(parts, fmt.Sprintf("%d non-2xx responses", r.non2xx))
	}
	if r.socketErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d socket errors (%d timeouts)", r.socketErrors, r.timeouts))
	}
	if r.requests == 0 {
		parts = append(parts, "no request completed")
	}
	return strings.Join(parts, ", ")
}

// loadGenerator runs keep-alive GET load against one URL.
type loadGenerator struct {
	wrk         string // path of wrk; empty: the built-in generator
	connections int
	threads     int // wrk only
	duration    time.Duration
	timeout     time.Duration // a request not answered within it is a socket error
}

// loadFlags defines the load generator's flags on fs, and rounds, the
// number of interleaved rounds whose medians a table shows; generator
// checks them once fs is parsed.
func loadFlags(fs *flag.FlagSet) (rounds *int, generator func() (loadGenerator, error)) {
	duration := fs.Duration("duration", 10*time.Second, "length of each run (whole seconds)")
	connections := fs.Int("connections", 16, "keep-alive connections of the load generator")
	threads := fs.Int("threads", 2, "wrk threads")
	timeout := fs.Duration("timeout", 2*time.Second, "a request not answered within this (whole seconds) is a socket error; 2s is wrk's default")
	rounds = fs.Int("rounds", 3, "rounds; each runs every side once, in turn, and the table shows medians")
	return rounds, func() (loadGenerator, error) {
		switch {
		case *duration < time.Second || *timeout < time.Second:
			return loadGenerator{}, errors.New("-duration and -timeout must be at least 1s (wrk counts whole seconds)")
		case *connections < 1 || *threads < 1 || *rounds < 1:
			return loadGenerator{}, errors.New("-connections, -threads and -rounds must be at least 1")
		}
		gen := loadGenerator{connections: *connections, threads: *threads, duration: *duration, timeout: *timeout}
		if p, err := exec.LookPath("wrk"); err == nil {
			gen.wrk = p
		}
		return gen, nil
	}
}

func (g loadGenerator) String() string {
	if g.wrk != "" {
		return fmt.Sprintf("wrk -t%d -c%d -d%s --timeout %s --latency", g.threads, g.connections, g.duration, g.timeout)
	}
	return fmt.Sprintf("built-in Go generator (wrk not on PATH), %d keep-alive connections for %s, timeout %s",
		g.connections, g.duration, g.timeout)
}

func (g loadGenerator) run(url string) (loadRun, error) {
	if g.wrk != "" {
		return g.runWrk(url)
	}
	return g.runBuiltIn(url), nil
}

func (g loadGenerator) runWrk(url string) (loadRun, error) {
	out, err := exec.Command(g.wrk, "-t"+strconv.Itoa(g.threads), "-c"+strconv.Itoa(g.connections),
		"-d"+strconv.Itoa(int(g.duration.Seconds()))+"s", "--timeout", strconv.Itoa(int(g.timeout.Seconds()))+"s",
		"--latency", url).CombinedOutput()
	if err != nil {
		return loadRun{}, fmt.Errorf("wrk %s: %v: %s", url, err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		return loadRun{}, fmt.Errorf("wrk %s: %w: %s", url, err, out)
	}
	return r, nil
}

// parseWrk reads the report of `wrk --latency`: the request count, the
// rate, the 99th percentile of the latency distribution and the error
// lines, which wrk prints only when there were errors. A request answered
// after the timeout counts as a timeout, and its latency is not recorded:
// when none was answered in time, every percentile reads 0.
func parseWrk(out string) (loadRun, error) {
	var r loadRun
	var haveRate, haveP99, haveCount bool
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		fields := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Requests/sec:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Requests/sec:")), 64)
			if err != nil {
				return r, fmt.Errorf("requests/sec: %w", err)
			}
			r.perSecond, haveRate = v, true
		case len(fields) == 2 && fields[0] == "99%":
			d, err := time.ParseDuration(fields[1])
			if err != nil {
				return r, fmt.Errorf("99%% latency: %w", err)
			}
			r.p99, haveP99 = d, true
		case len(fields) >= 3 && fields[1] == "requests" && fields[2] == "in":
			n, err := strconv.Atoi(fields[0])
			if err != nil {
				return r, fmt.Errorf("request count: %w", err)
			}
			r.requests, haveCount = n, true
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:"):
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Non-2xx or 3xx responses:")))
			if err != nil {
				return r, fmt.Errorf("non-2xx responses: %w", err)
			}
			r.non2xx = n
		case strings.HasPrefix(line, "Socket errors:"):
			// Socket errors: connect 0, read 0, write 0, timeout 0
			for _, part := range strings.Split(strings.TrimPrefix(line, "Socket errors:"), ",") {
				kv := strings.Fields(part)
				if len(kv) != 2 {
					return r, fmt.Errorf("socket errors: %q", line)
				}
				n, err := strconv.Atoi(kv[1])
				if err != nil {
					return r, fmt.Errorf("socket errors: %w", err)
				}
				r.socketErrors += n
				if kv[0] == "timeout" {
					r.timeouts = n
				}
			}
		}
	}
	if !haveRate || !haveP99 || !haveCount {
		return r, errors.New("no Requests/sec, 99% or request count line in the report")
	}
	return r, nil
}

// runBuiltIn is the stand-in for wrk: one goroutine per connection, each
// sending GETs one after the other on its own keep-alive connection.
func (g loadGenerator) runBuiltIn(url string) loadRun {
	tr := &http.Transport{MaxIdleConnsPerHost: g.connections, MaxConnsPerHost: g.connections, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: g.timeout}
	ctx, cancel := context.WithTimeout(context.Background(), g.duration)
	defer cancel()
	type tally struct {
		latencies                 []time.Duration
		non2xx, sockErr, timeouts int
	}
	tallies := make([]tally, g.connections)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range tallies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := &tallies[c]
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := client.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				switch {
				case err != nil && ctx.Err() != nil:
					return // cut off by the end of the run, as wrk does not count either
				case err != nil:
					t.sockErr++
					if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
						t.timeouts++
					}
					continue // as in wrk, its latency is not recorded
				case resp.StatusCode/100 != 2:
					t.non2xx++
				}
				t.latencies = append(t.latencies, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var r loadRun
	var all []time.Duration
	for _, t := range tallies {
		all = append(all, t.latencies...)
		r.non2xx += t.non2xx
		r.socketErrors += t.sockErr
		r.timeouts += t.timeouts
	}
	r.requests = len(all)
	r.perSecond = float64(len(all)) / elapsed.Seconds()
	if len(all) > 0 {
		slices.Sort(all)
		r.p99 = all[(len(all)-1)*99/100]
	}
	return r
}
