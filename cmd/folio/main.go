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
	return slog.New(logs.handler(newLogger(cfg, logs.out).Handler()))
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
	ln, err := listen(cfg.Addr)
	if err != nil {
		logger.Error("start-up failed", "err", fmt.Errorf("listen on %s: %w", cfg.Addr, err))
		return 1
	}
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
		logger.Info("ready", "addr", addr, "startup", time.Since(start).Round(time.Millisecond), "database", cfg.DBDriver)
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

func listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
