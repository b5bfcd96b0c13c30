// Command folio is Folio: a blog engine and an image/file host in one
// binary. Its commands are in the table of commands.go; `folio help`
// describes them, and contrib/man/folio.1 is the manual.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"folio/sqlstore"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// loadConfig finds and reads the configuration file and the environment.
func loadConfig(flagPath string, environ []string) (*Config, error) {
	getenv := func(k string) string {
		for _, kv := range environ {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	path, _ := configPath(flagPath, getenv)
	if path == "" {
		return LoadConfig("", nil, environ)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("configuration file: %w", err)
	}
	defer f.Close()
	return LoadConfig(path, f, environ)
}

func newLogger(cfg *Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// newLoggerAsync is newLogger writing through logs, off the request path.
func newLoggerAsync(cfg *Config, logs *asyncLog) *slog.Logger {
	format := textFormat
	if cfg.LogFormat == "json" {
		format = jsonFormat
	}
	return slog.New(logs.serverHandler(newLogger(cfg, logs.out).Handler(), format))
}

func runServe(configFlag string, stderr io.Writer) int {
	sqlstore.LimitCHeap()
	cfg, err := loadConfig(configFlag, os.Environ())
	if err != nil {
		fmt.Fprintf(stderr, "folio: configuration:\n%v\n", err)
		return 1
	}
	logs := newAsyncLog(stderr)
	defer logs.close()
	logger := newLoggerAsync(cfg, logs)
	start := time.Now()
	// Bound before newApp, which may generate the administrator's first
	// password and print it: a start that cannot serve must fail before
	// it creates or shows anything.
	ln, err := listen(cfg.Addr, cfg.SocketMode)
	if err != nil {
		logger.Error("start-up failed", "err", fmt.Errorf("listen on %s: %w", cfg.Addr, err))
		return 1
	}
	cfg.listenAddr = listenerAddr(ln)
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	metricsLn, err := listenMetrics(cfg)
	if err != nil {
		ln.Close()
		logger.Error("start-up failed", "err", err)
		return 1
	}
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		ln.Close()
		if metricsLn != nil {
			metricsLn.Close()
		}
		logger.Error("start-up failed", "err", err)
		return 1
	}
	if heapFloorWanted(os.LookupEnv) {
		defer startHeapFloor(heapFloorBytes, a.mem.setBusyGC)()
	}
	// The metrics listener stops with the main server, however it stops.
	mctx, stopMetrics := context.WithCancel(ctx)
	metricsDone := make(chan struct{})
	go func() {
		defer close(metricsDone)
		if metricsLn != nil {
			serveMetrics(mctx, metricsLn, a.obs.reg, logger)
		}
	}()
	err = serve(ctx, ln, a.handler, logger, func(addr string) {
		site, console := startURLs(cfg.BaseURL, addr, cfg.ConsoleEnabled)
		attrs := []any{"addr", addr}
		if site != "" {
			attrs = append(attrs, "url", site)
		}
		if console != "" {
			attrs = append(attrs, "console", console)
		}
		logger.Info("ready", append(attrs, "startup", time.Since(start).Round(time.Millisecond), "database", cfg.DBDriver)...)
	})
	stopMetrics()
	<-metricsDone
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a.Close(cctx)
	if err != nil {
		logger.Error("server stopped", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}

// startURLs are the site's and the console's addresses as the start-up
// lines give them, for a person to open (docs/operating.md#first-start):
// server.base_url when set, else the bound address, a loopback one in
// place of "any address", which a browser cannot open. console is empty
// when the console is off. Both are empty for a Unix socket without
// server.base_url: no browser opens a socket.
func startURLs(baseURL, addr string, consoleOn bool) (site, console string) {
	site = strings.TrimRight(baseURL, "/") + "/"
	if baseURL == "" && strings.HasPrefix(addr, "unix:") {
		return "", ""
	}
	if baseURL == "" {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			host, port = addr, ""
		}
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		if port != "" {
			host = net.JoinHostPort(host, port)
		}
		site = "http://" + host + "/"
	}
	if consoleOn {
		console = site + "console/"
	}
	return site, console
}
