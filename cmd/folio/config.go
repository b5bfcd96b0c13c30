package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/httpx"
	"folio/httpx/outbound"
	"folio/sqlstore"
	"folio/storage"
)

// Config is everything Folio reads at start-up. Runtime settings start from
// Settings and may be overridden later through the settings API.
type Config struct {
	Addr           string // host:port, or unix:PATH for a Unix domain socket
	SocketMode     os.FileMode
	BaseURL        string
	TrustedProxies []netip.Prefix
	DBDriver       string
	DBDSN          string
	StorageDir     string
	// StorageDriver names a row of storage.Drivers: "local" (StorageDir)
	// or "s3" (S3).
	StorageDriver  string
	S3             storage.S3Config
	AccelRedirect  string // storage.local.accel_redirect; empty: Folio sends the files
	ThemeDir       string
	ConsoleEnabled bool
	LogLevel       slog.Level
	LogFormat      string
	MetricsAddr    string // empty: no metrics listener
	// FetchAllow names what an import may download from although it is
	// not of the open internet (import.fetch_allow).
	FetchAllow outbound.Allowlist
	// FederationAllow and FederationAllowHTTP let federation reach what
	// is not of the open internet, and plain http, for tests
	// (federation.allow_private_addresses, federation.allow_http).
	FederationAllow     outbound.Allowlist
	FederationAllowHTTP bool

	AdminEnabled      bool
	AdminUsername     string
	AdminPasswordHash string
	SessionSecret     string
	SessionTTL        time.Duration
	Profile           auth.Profile

	Settings Settings

	// listenAddr is the address bound, once runServe has bound it: the
	// start-up lines' URLs use its port when server.addr asks for any.
	listenAddr string
	// bcryptCost is the cost of the passwords Folio hashes; 0, what every
	// command leaves it at, is auth's own (12). Only tests set it, to
	// bcrypt's least, since under the race detector a hash at 12 takes
	// seconds; TestUserPasswordsAreHashedAtTheProductionCost holds newApp,
	// and TestResetPasswordHashesAtTheProductionCost folio reset-password,
	// to 12 when it is unset.
	bcryptCost int
}

// option is one configuration key: its built-in default and how to apply a
// text value to a Config.
type option struct {
	key  string
	def  string
	help string
	set  func(c *Config, v string) error
}

func str(dst func(c *Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *dst(c) = v; return nil }
}

// options lists every key that is not a runtime setting. Runtime settings
// (site.*, post.*, render.*, ai.*, upload.*) come from settingKeys.
func options() []option {
	return []option{
		{"server.addr", ":8080", "address to listen on: host:port, or unix:PATH for a Unix domain socket", func(c *Config, v string) error {
			if v == "" {
				return errors.New("must not be empty")
			}
			if path, ok := strings.CutPrefix(v, "unix:"); ok {
				if err := checkSocketPath(path); err != nil {
					return err
				}
			}
			c.Addr = v
			return nil
		}},
		{"server.socket_mode", "0660", "permissions of the socket file when server.addr is unix:PATH (octal)", func(c *Config, v string) error {
			m, err := strconv.ParseUint(v, 8, 32)
			if err != nil || m > 0o777 {
				return errors.New("want an octal file mode such as 0660")
			}
			c.SocketMode = os.FileMode(m)
			return nil
		}},
		{"server.base_url", "", "public origin for absolute links; empty: from Host and X-Forwarded-Proto", func(c *Config, v string) error {
			v = strings.TrimRight(v, "/")
			if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
				return errors.New("must start with http:// or https://")
			}
			c.BaseURL = v
			return nil
		}},
		{"server.trusted_proxies", "127.0.0.0/8,::1/128", "CIDR list whose X-Forwarded-For/X-Real-IP/X-Forwarded-Proto are believed", func(c *Config, v string) error {
			p, err := httpx.ParsePrefixes(v)
			if err != nil {
				return fmt.Errorf("want a comma-separated CIDR list: %v", err)
			}
			c.TrustedProxies = p
			return nil
		}},
		{"database.driver", "sqlite", "sqlite or postgres", func(c *Config, v string) error {
			if v != "sqlite" && v != "postgres" {
				return errors.New("must be sqlite or postgres")
			}
			c.DBDriver = v
			return nil
		}},
		{"database.dsn", "data/folio.db", "SQLite file path, or a PostgreSQL connection string", str(func(c *Config) *string { return &c.DBDSN })},
		{"storage.dir", "data/files", "folder for uploaded files and thumbnails", func(c *Config, v string) error {
			if v == "" {
				return errors.New("must not be empty")
			}
			c.StorageDir = v
			return nil
		}},
		{"storage.driver", "local", "where uploaded files live: " + storageDriverHelp(), func(c *Config, v string) error {
			if _, ok := storage.Lookup(v); !ok {
				return errors.New("must be " + orList(storageDriverNames()))
			}
			c.StorageDriver = v
			return nil
		}},
		{"storage.local.accel_redirect", "", "internal location of the nginx in front that sends the stored files (X-Accel-Redirect), e.g. /_folio_files/; empty: Folio sends them", func(c *Config, v string) error {
			if v != "" && (!strings.HasPrefix(v, "/") || !strings.HasSuffix(v, "/") || strings.ContainsAny(v, "?#%\\ \t") || strings.Contains(v, "/../") || strings.Contains(v, "/./")) {
				return errors.New("must be a path that starts and ends with /, such as /_folio_files/, or empty for off")
			}
			c.AccelRedirect = v
			return nil
		}},
		{"storage.s3.endpoint", "", "URL of the S3-compatible server, e.g. http://127.0.0.1:7070", str(func(c *Config) *string { return &c.S3.Endpoint })},
		{"storage.s3.bucket", "", "bucket holding the files", str(func(c *Config) *string { return &c.S3.Bucket })},
		{"storage.s3.region", "us-east-1", "region the requests are signed for", str(func(c *Config) *string { return &c.S3.Region })},
		{"storage.s3.access_key", "", "access key id", str(func(c *Config) *string { return &c.S3.AccessKey })},
		{"storage.s3.secret_key", "", "secret access key", str(func(c *Config) *string { return &c.S3.SecretKey })},
		{"storage.s3.prefix", "", "key folder inside the bucket, e.g. folio/; empty: the bucket's root", str(func(c *Config) *string { return &c.S3.Prefix })},
		{"storage.s3.path_style", "true", "address the bucket as endpoint/bucket (true) or as bucket.endpoint host (false)", func(c *Config, v string) error {
			b, err := sqlstore.ParseBool(v)
			c.S3.PathStyle = b
			return err
		}},
		{"storage.s3.redirect", "false", "answer short-link GETs with a 302 to a presigned URL instead of the bytes", func(c *Config, v string) error {
			b, err := sqlstore.ParseBool(v)
			c.S3.Redirect = b
			return err
		}},
		{"theme.dir", "", "optional folder whose templates override the embedded ones by name", str(func(c *Config) *string { return &c.ThemeDir })},
		{"console.enabled", "true", "serve the web console (/console/, /upload); false for API-only sites", func(c *Config, v string) error {
			b, err := sqlstore.ParseBool(v)
			c.ConsoleEnabled = b
			return err
		}},
		{"log.level", "info", "debug, info, warn or error", func(c *Config, v string) error {
			return c.LogLevel.UnmarshalText([]byte(v))
		}},
		{"log.format", "text", "text or json", func(c *Config, v string) error {
			if v != "text" && v != "json" {
				return errors.New("must be text or json")
			}
			c.LogFormat = v
			return nil
		}},
		{"metrics.addr", "", "address of the Prometheus /metrics listener (e.g. 127.0.0.1:9464); empty: off", func(c *Config, v string) error {
			if v != "" {
				if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
					return errors.New("must be host:port or :port, or empty for off")
				}
			}
			c.MetricsAddr = v
			return nil
		}},
		{"import.fetch_allow", "", "hosts, addresses and CIDR prefixes an import may download images from although they are loopback, private or link-local (e.g. 10.0.0.0/8, old.internal); empty: the open internet only", func(c *Config, v string) error {
			a, err := outbound.ParseAllowlist(v)
			if err != nil {
				return fmt.Errorf("want a comma-separated list of hosts, addresses and CIDR prefixes: %v", err)
			}
			c.FetchAllow = a
			return nil
		}},
		{"federation.allow_private_addresses", "", "hosts, addresses and CIDR prefixes federation may reach although they are loopback, private or link-local (for tests); empty: the open internet only", func(c *Config, v string) error {
			a, err := outbound.ParseAllowlist(v)
			if err != nil {
				return fmt.Errorf("want a comma-separated list of hosts, addresses and CIDR prefixes: %v", err)
			}
			c.FederationAllow = a
			return nil
		}},
		{"federation.allow_http", "false", "whether federation may fetch from and deliver to plain http URLs (for tests)", func(c *Config, v string) error {
			b, err := sqlstore.ParseBool(v)
			c.FederationAllowHTTP = b
			return err
		}},
		{"admin.enabled", "true", "whether the administrator may log in", func(c *Config, v string) error {
			b, err := sqlstore.ParseBool(v)
			c.AdminEnabled = b
			return err
		}},
		{"admin.username", "admin", "administrator user name", func(c *Config, v string) error {
			if !validUsername(v) {
				return errors.New("must be 3-32 characters of A-Z a-z 0-9 _ -")
			}
			c.AdminUsername = v
			return nil
		}},
		{"admin.password_hash", "", "bcrypt hash (folio hash-password); empty: generated at first start and logged once", func(c *Config, v string) error {
			if _, err := bcrypt.Cost([]byte(v)); v != "" && (!strings.HasPrefix(v, "$2") || err != nil) {
				return errors.New("must be a bcrypt hash (make one with: folio hash-password)")
			}
			c.AdminPasswordHash = v
			return nil
		}},
		{"admin.session_secret", "", "secret for signing sessions and tokens; empty: generated once and kept in the database", func(c *Config, v string) error {
			if v != "" && len(v) < 16 {
				return errors.New("must be at least 16 characters")
			}
			c.SessionSecret = v
			return nil
		}},
		{"admin.session_ttl_hours", "168", "administrator session lifetime in hours", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 24*366 {
				return errors.New("must be a whole number of hours from 1 to 8784")
			}
			c.SessionTTL = time.Duration(n) * time.Hour
			return nil
		}},
		{"admin.profile.display_name", "", "administrator display name", str(func(c *Config) *string { return &c.Profile.DisplayName })},
		{"admin.profile.email", "", "administrator e-mail", str(func(c *Config) *string { return &c.Profile.Email })},
		{"admin.profile.bio", "", "administrator bio", str(func(c *Config) *string { return &c.Profile.Bio })},
		{"admin.profile.avatar", "", "administrator avatar URL", str(func(c *Config) *string { return &c.Profile.Avatar })},
		{"admin.profile.website", "", "administrator website", str(func(c *Config) *string { return &c.Profile.Website })},
		{"admin.profile.location", "", "administrator location", str(func(c *Config) *string { return &c.Profile.Location })},
	}
}

func validUsername(v string) bool {
	if len(v) < 3 || len(v) > 32 {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// setter finds how to apply key: a start-up option or a runtime setting.
func setter(key string) (func(c *Config, v string) error, bool) {
	for _, o := range options() {
		if o.key == key {
			return o.set, true
		}
	}
	for _, k := range settingKeys() {
		if k == key {
			return func(c *Config, v string) error {
				err := c.Settings.SetText(key, v)
				var fe *sqlstore.FieldError
				if errors.As(err, &fe) {
					return errors.New(fe.Msg)
				}
				return err
			}, true
		}
	}
	return nil, false
}

// EnvName is the environment variable for a key: FOLIO_ + upper case, dots
// as underscores.
func EnvName(key string) string {
	return "FOLIO_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// allKeys lists every configuration key.
func allKeys() []string {
	var keys []string
	for _, o := range options() {
		keys = append(keys, o.key)
	}
	return append(keys, settingKeys()...)
}

// LoadConfig builds the configuration: defaults, then the file at path (when
// path is non-empty), then the environment. Every problem is reported
// together, each naming its key and, for the file, the line.
func LoadConfig(path string, file io.Reader, environ []string) (*Config, error) {
	c := &Config{Settings: defaultSettings()}
	var errs []error
	for _, o := range options() {
		if err := o.set(c, o.def); err != nil {
			errs = append(errs, fmt.Errorf("default of %s: %v", o.key, err))
		}
	}
	if file != nil {
		errs = append(errs, parseFile(c, path, file)...)
	}
	errs = append(errs, applyEnv(c, environ)...)
	if c.DBDriver == "postgres" && (c.DBDSN == "" || c.DBDSN == "data/folio.db") {
		errs = append(errs, errors.New("database.dsn: set a PostgreSQL connection string when database.driver is postgres"))
	}
	if d := storageDriver(c); d.Validate != nil {
		if err := d.Validate(c.storageConfig("")); err != nil {
			errs = append(errs, err)
		}
	}
	if c.AccelRedirect != "" && c.StorageDriver != "local" {
		errs = append(errs, errors.New("storage.local.accel_redirect: only with storage.driver local (nginx sends files from storage.dir); set it empty with "+c.StorageDriver))
	}
	if err := c.Settings.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%v", err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func parseFile(c *Config, path string, r io.Reader) []error {
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			errs = append(errs, fmt.Errorf("%s:%d: want key = value, got %q", path, line, text))
			continue
		}
		value = unquote(strings.TrimSpace(value))
		set, known := setter(key)
		if !known {
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q", path, line, key))
			continue
		}
		if err := set(c, value); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %v", path, line, key, err))
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", path, err))
	}
	return errs
}

// unquote strips one pair of matching double or single quotes, so values
// with leading or trailing spaces can be written.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// applyEnv applies FOLIO_* variables. Unknown FOLIO_ names are errors, so a
// typo does not silently fall back to a default; FOLIO_CONFIG and the test
// suite's FOLIO_TEST_* are not configuration keys.
func applyEnv(c *Config, environ []string) []error {
	byEnv := map[string]string{}
	for _, k := range allKeys() {
		byEnv[EnvName(k)] = k
	}
	var names []string
	values := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "FOLIO_") || name == "FOLIO_CONFIG" || strings.HasPrefix(name, "FOLIO_TEST_") {
			continue
		}
		names = append(names, name)
		values[name] = value
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		key, ok := byEnv[name]
		if !ok {
			errs = append(errs, fmt.Errorf("environment %s: unknown key", name))
			continue
		}
		set, _ := setter(key)
		if err := set(c, values[name]); err != nil {
			errs = append(errs, fmt.Errorf("environment %s: %s: %v", name, key, err))
		}
	}
	return errs
}

// configPath picks the configuration file: the -config flag, else
// FOLIO_CONFIG, else folio.conf in the working directory when it exists.
// required reports whether a missing file is an error.
func configPath(flagPath string, getenv func(string) string) (path string, required bool) {
	if flagPath != "" {
		return flagPath, true
	}
	if p := getenv("FOLIO_CONFIG"); p != "" {
		return p, true
	}
	if _, err := os.Stat("folio.conf"); err == nil {
		return "folio.conf", false
	}
	return "", false
}
