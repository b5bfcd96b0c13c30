package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"folio/auth"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// runOut runs folio with args and returns its exit status and outputs.
func runOut(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// flagNames are the flags a command defines, -config included.
func flagNames(cmd command) []string {
	fs := commandFlags(cmd, &invocation{})
	cmd.setup(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	return names
}

func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runOut(args, "")
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, cmd := range commands() {
				if !strings.Contains(out, cmd.synopsis+"\n") || !strings.Contains(out, cmd.summary) {
					t.Errorf("the usage does not list %s with its synopsis and summary:\n%s", cmd.name, out)
				}
				for _, f := range flagNames(cmd) {
					if !regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(f) + `\b`).MatchString(out) {
						t.Errorf("the usage does not describe %s of %s", f, cmd.name)
					}
				}
			}
			if !strings.Contains(out, "Exit status: 0 success, 1 failure, 2 usage error.") {
				t.Error("the usage does not give the exit statuses")
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, cmd := range commands() {
		t.Run(cmd.name, func(t *testing.T) {
			for _, args := range [][]string{{"help", cmd.name}, {cmd.name, "-h"}, {cmd.name, "--help"}} {
				code, out, errOut := runOut(args, "")
				if code != 0 || errOut != "" {
					t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
				}
				if !strings.HasPrefix(out, "usage: "+cmd.synopsis+"\n") || !strings.Contains(out, strings.Fields(cmd.help)[0]) {
					t.Errorf("%v printed:\n%s", args, out)
				}
				for _, f := range flagNames(cmd) {
					if !strings.Contains(out, "\n  "+f) {
						t.Errorf("%v does not describe %s", args, f)
					}
				}
			}
		})
	}
}

// The synopsis is the one line a reader sees first: every flag is in it.
func TestSynopsisNamesEveryFlag(t *testing.T) {
	for _, cmd := range commands() {
		if !strings.HasPrefix(cmd.synopsis, "folio ") {
			t.Errorf("%s: synopsis %q", cmd.name, cmd.synopsis)
		}
		if cmd.summary == "" || cmd.help == "" {
			t.Errorf("%s has no summary or help", cmd.name)
		}
		for _, f := range flagNames(cmd) {
			if !regexp.MustCompile(regexp.QuoteMeta(f) + `\b`).MatchString(cmd.synopsis) {
				t.Errorf("%s: synopsis %q lacks %s", cmd.name, cmd.synopsis, f)
			}
		}
	}
}

func TestBadUsageExitsTwoWithTheUsage(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-config"}, "flag needs an argument: -config"},
		{[]string{"version", "extra"}, `folio version: unexpected argument "extra"`},
		{[]string{"version", "-config", "x.conf"}, "flag provided but not defined: -config"},
		{[]string{"serve", "now"}, `folio serve: unexpected argument "now"`},
		{[]string{"check-config", "-x"}, "flag provided but not defined: -x"},
		{[]string{"fsck", "-force"}, "-force only goes with -fix"},
		{[]string{"reset-password", "alice", "bob"}, `unexpected argument "bob"`},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"help", "fsck", "serve"}, `unexpected argument "serve"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runOut(tt.args, "")
			if code != 2 || !strings.Contains(errOut, tt.msg) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, tt.msg)
			}
			if !strings.Contains(errOut, "usage: folio") && tt.args[0] != "fsck" {
				t.Errorf("no usage after the message: %q", errOut)
			}
		})
	}
}

// manSection is the text of one .Sh section of contrib/man/folio.1.
func manSection(t *testing.T, page, name string) string {
	t.Helper()
	start := strings.Index(page, "\n.Sh "+name+"\n")
	if start < 0 {
		t.Fatalf("the man page has no section %s", name)
	}
	rest := page[start+len(name)+5:]
	if end := strings.Index(rest, "\n.Sh "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

func TestManPageDocumentsEveryCommandKeyAndVariable(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "contrib", "man", "folio.1"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	cmds := manSection(t, page, "COMMANDS")
	for _, cmd := range commands() {
		if !strings.Contains(cmds, "\n.It Cm "+cmd.name+"\n") && !strings.Contains(cmds, "\n.It Cm "+cmd.name+" ") {
			t.Errorf("COMMANDS has no item for %s", cmd.name)
		}
	}
	conf := manSection(t, page, "CONFIGURATION")
	for _, k := range allKeys() {
		if !strings.Contains(conf, "\n.It Cm "+k+"\n") {
			t.Errorf("CONFIGURATION has no item for %s", k)
		}
		if !regexp.MustCompile(`\n\.Ev ` + EnvName(k) + `[ \n]`).MatchString(conf) {
			t.Errorf("CONFIGURATION does not name %s", EnvName(k))
		}
	}
	if env := manSection(t, page, "ENVIRONMENT"); !strings.Contains(env, "FOLIO_CONFIG") {
		t.Error("ENVIRONMENT does not name FOLIO_CONFIG")
	}
	for _, sec := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "FILES", "SIGNALS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"} {
		manSection(t, page, sec)
	}
}

func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"nothing recorded", "dev", nil, "folio dev\n"},
		{"a build without VCS information", "dev",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("GOOS", "linux", "GOARCH", "amd64")},
			"folio dev\ngo: go1.26.8 linux/amd64\n"},
		{"a clean checkout", "dev",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261125221416-ad802246a58a"},
				Settings: vcs("vcs.revision", "ad802246a58af7660fd1d8584bbf8e6b351e11d7", "vcs.time", "2026-11-25T22:14:16Z", "vcs.modified", "false")},
			"folio v0.0.0-20261125221416-ad802246a58a\nrevision: ad802246a58af7660fd1d8584bbf8e6b351e11d7\ncommit time: 2026-11-25T22:14:16Z\ngo: go1.26.8\n"},
		{"uncommitted changes", "dev",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0+dirty"},
				Settings: vcs("vcs.revision", "ad80224", "vcs.modified", "true")},
			"folio v1.4.0+dirty\nrevision: ad80224-dirty\ngo: go1.26.8\n"},
		{"-ldflags -X main.version wins", "1.2.3",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: vcs("vcs.revision", "ad80224")},
			"folio 1.2.3\nrevision: ad80224\ngo: go1.26.8\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionText(tt.stamped, tt.bi); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	code, out, _ := runOut([]string{"version"}, "")
	if code != 0 || out != versionText(version, readBuildInfo()) {
		t.Errorf("folio version: %d %q", code, out)
	}
}

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notCreated := filepath.Join(dir, "not-created")
	good := write("good.conf", "# a site\ndatabase.dsn = "+filepath.Join(notCreated, "folio.db")+
		"\nstorage.dir = "+filepath.Join(notCreated, "files")+"\nupload.max_file_size = 20M\n")
	bad := write("bad.conf", "server.addr = :8081\nlog.level = loud\nnope = 1\nadmin.session_ttl_hours = 0\n")
	tests := []struct {
		name    string
		args    []string
		env     []string
		code    int
		out     string
		errOuts []string
	}{
		{"a good file", []string{"check-config", "-config", good}, nil, 0, "configuration OK: " + good + "\n", nil},
		{"-config before the command", []string{"-config", good, "check-config"}, nil, 0, "configuration OK: " + good + "\n", nil},
		{"FOLIO_CONFIG", []string{"check-config"}, []string{"FOLIO_CONFIG", good}, 0, "configuration OK: " + good + "\n", nil},
		{"no file", []string{"check-config"}, nil, 0, "configuration OK: defaults and environment\n", nil},
		{"every problem of a file, by line", []string{"check-config", "-config", bad}, nil, 1, "",
			[]string{bad + ":2: log.level", bad + `:3: unknown key "nope"`, bad + ":4: admin.session_ttl_hours"}},
		{"a bad environment variable", []string{"check-config", "-config", good}, []string{"FOLIO_LOG_FORMAT", "xml"}, 1, "",
			[]string{"environment FOLIO_LOG_FORMAT: log.format: must be text or json"}},
		{"an unknown environment variable", []string{"check-config"}, []string{"FOLIO_SERVER_ADRR", ":80"}, 1, "",
			[]string{"environment FOLIO_SERVER_ADRR: unknown key"}},
		{"a missing file", []string{"check-config", "-config", filepath.Join(dir, "none.conf")}, nil, 1, "",
			[]string{"configuration file", "none.conf"}},
	}
	t.Chdir(t.TempDir()) // no folio.conf here
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := 0; i+1 < len(tt.env); i += 2 {
				t.Setenv(tt.env[i], tt.env[i+1])
			}
			code, out, errOut := runOut(tt.args, "")
			if code != tt.code || out != tt.out {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			for _, want := range tt.errOuts {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
		})
	}
	if _, err := os.Stat(notCreated); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("check-config created the data folder: %v", err)
	}
}

// A start that cannot listen fails before it opens the database: no
// generated administrator password is printed, or stored where nobody saw it.
func TestServeOnABusyAddressFailsBeforeMakingAPassword(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	db := sqlstoretest.NewConfig(t)
	storageDir := filepath.Join(t.TempDir(), "files")
	t.Chdir(t.TempDir())
	for k, v := range map[string]string{"FOLIO_SERVER_ADDR": addr, "FOLIO_DATABASE_DRIVER": db.Driver,
		"FOLIO_DATABASE_DSN": db.DSN, "FOLIO_STORAGE_DIR": storageDir} {
		t.Setenv(k, v)
	}
	code, _, errOut := runOut([]string{"serve"}, "")
	if code != 1 || !strings.Contains(errOut, "listen on "+addr) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "password") {
		t.Errorf("a password was printed:\n%s", errOut)
	}
	if _, err := os.Stat(storageDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the storage folder was created: %v", err)
	}
	if db.Driver == "sqlite" {
		if _, err := os.Stat(db.DSN); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the database was created: %v", err)
		}
		return
	}
	opened, err := sqlstore.Open(context.Background(), db.Driver, db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	if _, err := auth.Open(context.Background(), opened, auth.Config{}); err == nil {
		t.Error("the database holds an administrator")
	}
}
