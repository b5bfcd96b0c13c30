package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Exit statuses of every command (contrib/man/folio.1, EXIT STATUS).
const (
	exitOK    = 0 // done
	exitFail  = 1 // the command ran and failed, or found problems
	exitUsage = 2 // the command line is wrong
)

// command is one subcommand of folio.
type command struct {
	name     string
	synopsis string // the usage line, every flag of the command in it
	summary  string // one line for the command list
	help     string // one paragraph for folio help NAME
	// config gives the command the -config flag: it reads the configuration.
	config bool
	// minArgs and maxArgs bound the arguments after the flags.
	minArgs, maxArgs int
	// setup defines the command's own flags on fs and returns what runs
	// the command once fs has parsed them. Listing the flags in the help
	// calls it too, and ignores what it returns.
	setup func(fs *flag.FlagSet) func(inv *invocation) int
}

// invocation is what one run of a command gets.
type invocation struct {
	config         string   // -config, given before or after the command
	args           []string // the arguments after the command's flags
	stdin          io.Reader
	stdout, stderr io.Writer
	// bcryptCost becomes the loaded Config's bcryptCost: 0 in every
	// command; only tests set it (runWith), as they do for newApp.
	bcryptCost int
}

// noFlags is setup for a command without flags of its own.
func noFlags(run func(inv *invocation) int) func(*flag.FlagSet) func(*invocation) int {
	return func(*flag.FlagSet) func(*invocation) int { return run }
}

const configUsage = "read the configuration from `PATH` (default: $FOLIO_CONFIG, else folio.conf in the working directory when present)"

// commands lists every command, in the order the help shows them. The
// first is the default.
func commands() []command {
	return []command{
		{
			name:     "serve",
			synopsis: "folio [serve] [-config PATH]",
			summary:  "run the server; the default command",
			help: "Runs the blog and the file host. The address is bound first; then the database is " +
				"opened (created and migrated when needed) and, at the first start without " +
				"admin.password_hash, the administrator's password is generated and logged once. " +
				"SIGINT or SIGTERM stops accepting connections, lets in-flight requests finish " +
				"for up to 30 seconds, closes the database and exits 0.",
			config: true,
			setup:  noFlags(func(inv *invocation) int { return runServe(inv.config, inv.stderr) }),
		},
		{
			name:     "check-config",
			synopsis: "folio check-config [-config PATH]",
			summary:  "check the configuration file and environment, then exit",
			help: "Reads the configuration file and the FOLIO_* environment variables exactly as " +
				"serve does, without opening the database or creating anything. Prints " +
				"\"configuration OK\" and the file read, or every problem on standard error, each " +
				"naming its key and, for the file, its line, and exits 1.",
			config: true,
			setup:  noFlags(runCheckConfig),
		},
		{
			name:     "hash-password",
			synopsis: "folio hash-password",
			summary:  "read a password on standard input, print its bcrypt hash",
			help: "Reads one line from standard input and prints its bcrypt hash (cost 12), " +
				"for admin.password_hash.",
			setup: noFlags(func(inv *invocation) int { return runHashPassword(inv.stdin, inv.stdout, inv.stderr) }),
		},
		{
			name:     "reset-password",
			synopsis: "folio reset-password [-config PATH] [USERNAME]",
			summary:  "set a user's password and end all of their sessions and tokens",
			help: "Sets a new password for USERNAME, the administrator (admin.username) when it " +
				"is omitted, or any file-hosting user. On a terminal it asks twice without echo; " +
				"otherwise it reads one line from standard input. The password must be 8 to 72 " +
				"characters and at most 72 bytes (what bcrypt reads). In the same transaction every session, refresh token and API token of " +
				"the user is revoked; running servers see it on their next request. It refuses " +
				"the administrator while admin.password_hash is configured, since that hash is " +
				"applied at every start: change admin.password_hash instead.",
			config:  true,
			maxArgs: 1,
			setup:   noFlags(runResetPassword),
		},
		{
			name:     "fsck",
			synopsis: "folio fsck [-config PATH] [-fix [-force]] [-json]",
			summary:  "check stored files against their records; -fix repairs",
			help: "Compares the file host's records with the stored bytes: orphaned files, " +
				"missing bytes, wrong counts, unfinished work of crashed processes. Exits 0 " +
				"when nothing is wrong (or everything was fixed) and 1 when problems remain " +
				"(docs/filehost.md).",
			config: true,
			setup:  setupFsck,
		},
		{
			name:     "storage",
			synopsis: "folio storage migrate [-config PATH] -to s3|local [-jobs N] [-json]",
			summary:  "copy every stored object to the other storage driver, verified",
			help: "Copies every stored object (files and thumbnails) from storage.dir to the " +
				"bucket of storage.s3.* (-to s3), or back (-to local), reading each copy back " +
				"and comparing its MD5 with the source's, and the source's with the file " +
				"record's. Objects already at the destination with the same MD5 are kept, so " +
				"an interrupted run goes on where it stopped. It deletes nothing from the source " +
				"and changes no setting: set storage.driver and restart once it reports no " +
				"failure (docs/scaling.md#moving-to-s3).",
			config:  true,
			minArgs: 1,
			maxArgs: 1,
			setup:   setupStorage,
		},
		{
			name:     "backup",
			synopsis: "folio backup [-config PATH] [-force] FILE.tar.gz",
			summary:  "write the database and every stored file, with checksums, to FILE.tar.gz",
			help: "Writes a consistent snapshot of the SQLite database (VACUUM INTO, while servers " +
				"run), every stored object the snapshot's records point at and a manifest of " +
				"SHA-256 checksums to FILE.tar.gz. On PostgreSQL the archive holds the stored " +
				"objects only: dump the database with pg_dump -Fc first (docs/backup.md). An " +
				"existing FILE is refused unless -force.",
			config:  true,
			minArgs: 1,
			maxArgs: 1,
			setup:   setupBackup,
		},
		{
			name:     "restore",
			synopsis: "folio restore [-config PATH] FILE.tar.gz",
			summary:  "verify a backup and restore it into an empty data directory",
			help: "Verifies every entry of FILE.tar.gz against its manifest (sizes, SHA-256, names) " +
				"before anything becomes visible, then restores the database (SQLite) and the " +
				"stored objects into the configured database and storage.dir, which must be " +
				"empty. For a PostgreSQL site, restore the dump with pg_restore first " +
				"(docs/backup.md).",
			config:  true,
			minArgs: 1,
			maxArgs: 1,
			setup:   noFlags(runRestore),
		},
		{
			name:     "export",
			synopsis: "folio export [-config PATH] FILE.zip",
			summary:  "write the blog to a Folio archive of Markdown and JSON",
			help: "Writes posts and pages as Markdown files with front matter, and categories, " +
				"tags, comments, friend links and the blog's settings (without secrets such as " +
				"ai.api_key) as JSON, to the zip archive FILE.zip (docs/export-import.md). " +
				"Works while servers run.",
			config:  true,
			minArgs: 1,
			maxArgs: 1,
			setup:   noFlags(runExport),
		},
		{
			name:     "import",
			synopsis: "folio import [-config PATH] [-format folio|ghost|wxr|markdown] [-media [-from URL] [-owner NAME] [-fetch-allow LIST]] FILE|DIR",
			summary:  "import a Folio archive, a Ghost or WordPress export, or a Hugo or Jekyll site",
			help: "Imports posts, pages, categories, tags, approved comments, friend links and " +
				"settings from FILE: a Folio archive (folio export), a Ghost JSON export, a " +
				"WordPress WXR export or a zip, tar or tar.gz of a Hugo or Jekyll site, recognised " +
				"from the file unless -format names it; or from DIR, the folder of a Hugo or " +
				"Jekyll site (its posts and pages in Markdown). " +
				"With -media, the images and files the content references are downloaded into " +
				"the file host (a Hugo or Jekyll site's own are taken from it), owned by the " +
				"administrator, and the content links to them there; " +
				"the database must be one folio serve has set up. " +
				"Importing the same file twice adds nothing and downloads nothing twice. Running " +
				"servers see the import on their next request (docs/export-import.md).",
			config:  true,
			minArgs: 1,
			maxArgs: 1,
			setup:   setupImport,
		},
		{
			name:     "version",
			synopsis: "folio version",
			summary:  "print the version, the source revision and the Go version",
			help: "Prints the version (set at link time with -ldflags \"-X main.version=...\", " +
				"else the module version), and what the go command recorded of the source " +
				"checkout (revision, commit time, uncommitted changes) and the Go toolchain.",
			setup: noFlags(func(inv *invocation) int {
				fmt.Fprint(inv.stdout, versionText(version, readBuildInfo()))
				return exitOK
			}),
		},
		{
			name:     "help",
			synopsis: "folio help [COMMAND]",
			summary:  "describe every command, or one",
			help:     "Without COMMAND, lists every command and flag; with it, describes that command.",
			maxArgs:  1,
			setup:    noFlags(runHelp),
		},
	}
}

// run is main with its inputs and outputs passed in, so it can be tested.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(args, &invocation{stdin: stdin, stdout: stdout, stderr: stderr})
}

// runWith is run with base's inputs, outputs and bcryptCost.
func runWith(args []string, base *invocation) int {
	stdin, stdout, stderr := base.stdin, base.stdout, base.stderr
	cmds := commands()
	global := flag.NewFlagSet("folio", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() {} // written below, to stdout or stderr as fits
	config := global.String("config", "", configUsage)
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, cmds)
			return exitOK
		}
		printUsage(stderr, cmds)
		return exitUsage
	}
	cmd, rest := cmds[0], global.Args()
	if len(rest) > 0 {
		var ok bool
		if cmd, ok = findCommand(cmds, rest[0]); !ok {
			fmt.Fprintf(stderr, "folio: unknown command %q\n\n", rest[0])
			printUsage(stderr, cmds)
			return exitUsage
		}
		rest = rest[1:]
	}
	inv := &invocation{config: *config, stdin: stdin, stdout: stdout, stderr: stderr, bcryptCost: base.bcryptCost}
	fs := commandFlags(cmd, inv)
	fs.SetOutput(stderr) // the flag package's own message on a bad flag
	runCmd := cmd.setup(fs)
	// Flags may come before, between or after the arguments:
	// folio backup site.tar.gz -force.
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(stdout, cmd)
				return exitOK
			}
			printSynopsis(stderr, cmd)
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		inv.args = append(inv.args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case slices.Contains(inv.args, ""):
		fmt.Fprintf(stderr, "folio %s: empty argument\n", cmd.name)
		printSynopsis(stderr, cmd)
		return exitUsage
	case len(inv.args) > cmd.maxArgs:
		fmt.Fprintf(stderr, "folio %s: unexpected argument %q\n", cmd.name, inv.args[cmd.maxArgs])
		printSynopsis(stderr, cmd)
		return exitUsage
	case len(inv.args) < cmd.minArgs:
		fmt.Fprintf(stderr, "folio %s: missing argument\n", cmd.name)
		printSynopsis(stderr, cmd)
		return exitUsage
	}
	return runCmd(inv)
}

// commandFlags is the flag set of cmd before its own flags: -config, for
// the commands that read the configuration, written into inv.
func commandFlags(cmd command, inv *invocation) *flag.FlagSet {
	fs := flag.NewFlagSet("folio "+cmd.name, flag.ContinueOnError)
	fs.Usage = func() {} // run writes it, to stdout or stderr as fits
	if cmd.config {
		fs.StringVar(&inv.config, "config", inv.config, configUsage)
	}
	return fs
}

func findCommand(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runHelp is folio help [COMMAND].
func runHelp(inv *invocation) int {
	cmds := commands()
	if len(inv.args) == 0 {
		printUsage(inv.stdout, cmds)
		return exitOK
	}
	cmd, ok := findCommand(cmds, inv.args[0])
	if !ok {
		fmt.Fprintf(inv.stderr, "folio help: unknown command %q\n\n", inv.args[0])
		printUsage(inv.stderr, cmds)
		return exitUsage
	}
	printHelp(inv.stdout, cmd)
	return exitOK
}

// printUsage lists every command with its synopsis and own flags.
func printUsage(w io.Writer, cmds []command) {
	var b strings.Builder
	b.WriteString("Folio: a blog engine and an image/file host in one binary.\n\n")
	b.WriteString("usage: folio [-config PATH] [COMMAND [FLAGS] [ARGUMENTS]]\n\n")
	b.WriteString("Commands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.synopsis, c.summary)
		writeFlags(&b, ownFlags(c), "        ")
	}
	b.WriteString("\nFlags of every command that reads the configuration:\n")
	writeFlags(&b, configFlag(), "  ")
	b.WriteString("\nRun 'folio help COMMAND' for more about one command.\n\n")
	b.WriteString(exitStatusText)
	_, _ = io.WriteString(w, b.String())
}

const exitStatusText = "Exit status: 0 success, 1 failure, 2 usage error.\n"

// printHelp describes one command.
func printHelp(w io.Writer, cmd command) {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n", cmd.synopsis)
	b.WriteString(wrap(cmd.help, 76))
	fs := ownFlags(cmd)
	if cmd.config {
		fs = configFlag()
		cmd.setup(fs)
	}
	if hasFlags(fs) {
		b.WriteString("\nFlags:\n")
		writeFlags(&b, fs, "  ")
	}
	b.WriteString("\n" + exitStatusText)
	_, _ = io.WriteString(w, b.String())
}

// printSynopsis follows a usage error.
func printSynopsis(w io.Writer, cmd command) {
	fmt.Fprintf(w, "usage: %s\nRun 'folio help %s' for more.\n", cmd.synopsis, cmd.name)
}

// ownFlags are the flags cmd defines besides -config.
func ownFlags(cmd command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	cmd.setup(fs)
	return fs
}

func configFlag() *flag.FlagSet {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.String("config", "", configUsage)
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// writeFlags writes one line a flag: "-name ARG  usage".
func writeFlags(b *strings.Builder, fs *flag.FlagSet, indent string) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		name := "-" + f.Name
		if arg != "" {
			name += " " + arg
		}
		head := fmt.Sprintf("%s%-14s ", indent, name)
		lines := strings.Split(strings.TrimSuffix(wrap(usage, 78-len(head)), "\n"), "\n")
		b.WriteString(head + strings.Join(lines, "\n"+strings.Repeat(" ", len(head))) + "\n")
	})
}

// wrap breaks text into lines of at most width columns.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		if n > 0 && n+1+len(word) > width {
			b.WriteString("\n")
			n = 0
		}
		if n > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	b.WriteString("\n")
	return b.String()
}

// loadConfig reads the command's configuration as serve does, saying on
// its standard error what is wrong; ok is false then.
func (inv *invocation) loadConfig() (cfg *Config, ok bool) {
	cfg, err := loadConfig(inv.config, os.Environ())
	if err != nil {
		fmt.Fprintf(inv.stderr, "folio: configuration:\n%v\n", err)
		return nil, false
	}
	cfg.bcryptCost = inv.bcryptCost
	return cfg, true
}

// runCheckConfig is folio check-config: it loads the configuration as
// serve would and opens nothing else.
func runCheckConfig(inv *invocation) int {
	if _, ok := inv.loadConfig(); !ok {
		return exitFail
	}
	path, _ := configPath(inv.config, os.Getenv)
	if path == "" {
		path = "defaults and environment"
	}
	fmt.Fprintf(inv.stdout, "configuration OK: %s\n", path)
	return exitOK
}
