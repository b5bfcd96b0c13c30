// Command folio is Folio: a blog engine and an image/file host in one
// binary.
//
//	folio [-config PATH] [serve]   run the server (the default)
//	folio fsck [-fix [-force]] [-json]  check stored files against the records
//	folio export FILE.zip          write the blog to a Folio archive
//	folio import [-format F] FILE  import a Folio archive, Ghost or WordPress export
//	folio hash-password            read a password on stdin, print its bcrypt hash
//	folio version                  print the version
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/sqlstore"
)

// version is set at link time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main with its inputs and outputs passed in, so it can be tested.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("folio", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFlag := fs.String("config", "", "configuration file (default: folio.conf if present, or $FOLIO_CONFIG)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: folio [-config PATH] [serve | fsck [-fix [-force]] [-json] | hash-password | version]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmd, rest := "serve", fs.Args()
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
		if cmd == "fsck" { // it has flags of its own
			return runFsck(*configFlag, rest, stdout, stderr)
		}
		switch cmd { // flags and a file of their own
		case "export":
			return runExport(*configFlag, rest, stdout, stderr)
		case "import":
			return runImport(*configFlag, rest, stdout, stderr)
		}
		// Flags may also follow the subcommand: folio serve -config x.conf
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "folio: unexpected argument %q\n", fs.Arg(0))
			return 2
		}
	}
	switch cmd {
	case "serve":
		return runServe(*configFlag, stderr)
	case "hash-password":
		return runHashPassword(stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "folio", buildVersion())
		return 0
	case "help", "-h", "--help":
		fs.Usage()
		return 0
	}
	fmt.Fprintf(stderr, "folio: unknown command %q\n", cmd)
	fs.Usage()
	return 2
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

func runHashPassword(stdin io.Reader, stdout, stderr io.Writer) int {
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "folio: read password:", err)
		return 1
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		fmt.Fprintln(stderr, "folio: empty password (write it on standard input)")
		return 1
	}
	if len(pw) > 72 {
		fmt.Fprintln(stderr, "folio: password longer than 72 bytes, which bcrypt cannot use")
		return 1
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), 12)
	if err != nil {
		fmt.Fprintln(stderr, "folio:", err)
		return 1
	}
	fmt.Fprintln(stdout, string(hash))
	return 0
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
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		logger.Error("start-up failed", "err", err)
		return 1
	}
	err = serve(ctx, cfg, a.handler, logger, func(addr string) {
		logger.Info("ready", "addr", addr, "startup", time.Since(start).Round(time.Millisecond), "database", cfg.DBDriver)
	})
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
