package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"

	"golang.org/x/crypto/bcrypt"
)

// newTestApp wires the whole of Folio on a fresh database and temp storage.
func newTestApp(t testing.TB) (*app, *httpxtest.Client) {
	t.Helper()
	return newTestAppOn(t, sqlstoretest.NewConfig(t))
}

// newTestAppOn wires the whole of Folio on the database db names, which may
// already hold data, and temp storage; env adds FOLIO_* settings.
func newTestAppOn(t testing.TB, db sqlstoretest.Config, env ...string) (*app, *httpxtest.Client) {
	t.Helper()
	return newTestAppLogging(t, db, slog.New(slog.NewTextHandler(io.Discard, nil)), env...)
}

// newTestAppLogging is newTestAppOn logging to logger.
func newTestAppLogging(t testing.TB, db sqlstoretest.Config, logger *slog.Logger, env ...string) (*app, *httpxtest.Client) {
	t.Helper()
	cfg, err := LoadConfig("", nil, append([]string{
		"FOLIO_DATABASE_DRIVER=" + db.Driver,
		"FOLIO_DATABASE_DSN=" + db.DSN,
		"FOLIO_STORAGE_DIR=" + t.TempDir(),
		// the password is authtest.AdminPassword
		"FOLIO_ADMIN_PASSWORD_HASH=$2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W",
	}, env...))
	if err != nil {
		t.Fatal(err)
	}
	// The least cost: passwords the tests set are hashed in milliseconds,
	// not the seconds cost 12 takes under the race detector (the cost
	// production uses is TestUserPasswordsAreHashedAtTheProductionCost's).
	cfg.bcryptCost = bcrypt.MinCost
	a, err := newApp(context.Background(), cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a, httpxtest.NewServer(t, a.handler)
}

// TestUserPasswordsAreHashedAtTheProductionCost wires Folio as every
// command does, without the test apps' least bcrypt cost, and finds a new
// user's password hashed at cost 12.
func TestUserPasswordsAreHashedAtTheProductionCost(t *testing.T) {
	db := sqlstoretest.NewConfig(t)
	cfg, err := LoadConfig("", nil, []string{
		"FOLIO_DATABASE_DRIVER=" + db.Driver, "FOLIO_DATABASE_DSN=" + db.DSN, "FOLIO_STORAGE_DIR=" + t.TempDir(),
		"FOLIO_ADMIN_PASSWORD_HASH=$2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W",
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	c := httpxtest.NewServer(t, a.handler)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	c.Do("POST", "/api/v1/admin/users", map[string]any{"username": "nina", "email": "nina@example.com",
		"password": "nina password", "role": "user", "quota_bytes": 0}).Expect(201)
	var hash string
	if err := a.db.QueryRow(context.Background(), "SELECT password_hash FROM users WHERE username = $1", "nina").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost != 12 {
		t.Errorf("a new user's password is hashed at cost %d (%v), want 12", cost, err)
	}
}

func TestHealthReportsDatabaseState(t *testing.T) {
	a, c := newTestApp(t)
	res := c.Do("GET", "/api/v1/health", nil).Expect(200)
	if got := strings.TrimSpace(string(res.Body)); got != `{"code":200,"data":{"render_mode":"classic","status":"ok"},"msg":"ok"}` {
		t.Errorf("health body = %s", got)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("security headers missing")
	}
	a.db.Close()
	res = c.Do("GET", "/api/v1/health", nil).Expect(503)
	var data map[string]string
	httpxtest.Into(t, res.B().Data, &data)
	if data["status"] != "unavailable" || res.B().Code != 503 {
		t.Errorf("503 body = %s", res.Body)
	}
}

func TestUnknownRoutesAnswerJSON(t *testing.T) {
	_, c := newTestApp(t)
	tests := []struct {
		method, path string
		status       int
		envelope     string
		allow        string
	}{
		{"GET", "/api/v1/no-such-thing", 404, "B", ""},
		// Sharing a prefix with a file-host group is no ownership.
		{"GET", "/api/v1/files-nope/x/y", 404, "B", ""},
		{"POST", "/api/v1/health", 405, "B", "GET, HEAD, OPTIONS"},
		{"DELETE", "/api/v1/upload", 405, "A", "POST"},
		{"POST", "/i/0123abcd", 405, "A", "GET, HEAD"},
		// Unclean paths are not redirected to an HTML page.
		{"GET", "/api/v1//posts", 404, "B", ""},
		{"GET", "/api/v1/posts/./x", 404, "B", ""},
		{"POST", "/api/v1/files//x", 404, "A", ""},
		// Under /api/v1/admin/ credentials come first, known path or not.
		{"GET", "/api/v1/admin/nope", 401, "B", ""},
		{"DELETE", "/api/v1/admin/posts", 401, "B", ""},
		{"GET", "/api/v1/admin/users/x/y", 401, "A", ""},
		{"GET", "/api/v1/admin", 401, "B", ""},
		// Query text no database can store is refused up front.
		{"GET", "/api/v1/posts?keyword=%00", 400, "B", ""},
		{"GET", "/api/v1/public/plaza?order_by=%ff", 400, "A", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			res := c.Do(tt.method, tt.path, nil).Expect(tt.status)
			switch tt.envelope {
			case "A":
				if e := res.A(); e.Code != tt.status*100 || e.Message == "" {
					t.Errorf("envelope A = %s", res.Body)
				}
			case "B":
				if e := res.B(); e.Code != tt.status || e.Msg == "" {
					t.Errorf("envelope B = %s", res.Body)
				}
			}
			if tt.allow != "" && res.Header.Get("Allow") != tt.allow {
				t.Errorf("Allow = %q, want %q", res.Header.Get("Allow"), tt.allow)
			}
		})
	}
}

func TestUnknownAdminRoutesAfterLogin(t *testing.T) {
	_, c := newTestApp(t)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	if e := c.Do("GET", "/api/v1/admin/nope", nil).Expect(404).B(); e.Msg != "resource not found" {
		t.Errorf("404 msg %q", e.Msg)
	}
	r := c.Do("DELETE", "/api/v1/admin/posts", nil).Expect(405)
	if r.Header.Get("Allow") == "" {
		t.Error("405 without Allow")
	}
}

func TestHealthFollowsTheCORSSetting(t *testing.T) {
	a, c := newTestApp(t)
	if got := c.Do("GET", "/api/v1/health", nil, "Origin", "https://elsewhere.example").Expect(200).Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("CORS header %q with enable_cors off", got)
	}
	set := a.settings.Get(context.Background())
	set.Render.EnableCORS = true
	if err := a.settings.Put(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if got := c.Do("GET", "/api/v1/health", nil, "Origin", "https://elsewhere.example").Expect(200).Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Fatalf("CORS header %q with enable_cors on, want *", got)
	}
	if got := c.Do("OPTIONS", "/api/v1/health", nil).Expect(204).Header.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "GET") {
		t.Fatalf("preflight allows %q", got)
	}
}

func TestRunRejectsBadUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"version", "extra"}, 2, "unexpected argument"},
		{[]string{"-nope"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		if code := run(tt.args, strings.NewReader(""), io.Discard, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.out) {
			t.Errorf("run(%v) = %d, %q", tt.args, code, stderr.String())
		}
	}
}

func TestHashPasswordAndVersion(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"hash-password"}, strings.NewReader("hunter2 hunter2\n"), &out, &errOut); code != 0 {
		t.Fatalf("hash-password exit %d: %s", code, errOut.String())
	}
	if !regexp.MustCompile(`^\$2a\$12\$[./A-Za-z0-9]{53}\n$`).MatchString(out.String()) {
		t.Errorf("hash = %q", out.String())
	}
	if code := run([]string{"hash-password"}, strings.NewReader("\n"), io.Discard, io.Discard); code != 1 {
		t.Errorf("empty password exit %d, want 1", code)
	}
	out.Reset()
	if code := run([]string{"version"}, nil, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "folio ") {
		t.Errorf("version = %d %q", code, out.String())
	}
}

func TestStartURLsArePagesABrowserCanOpen(t *testing.T) {
	for _, tt := range []struct {
		name, base, addr string
		consoleOn        bool
		site, console    string
	}{
		{"loopback", "", "127.0.0.1:8080", true, "http://127.0.0.1:8080/", "http://127.0.0.1:8080/console/"},
		{"any IPv4 address", "", "0.0.0.0:8080", true, "http://127.0.0.1:8080/", "http://127.0.0.1:8080/console/"},
		{"any address (:8080)", "", "[::]:8080", true, "http://127.0.0.1:8080/", "http://127.0.0.1:8080/console/"},
		{"one IPv6 address", "", "[::1]:9000", true, "http://[::1]:9000/", "http://[::1]:9000/console/"},
		{"base_url wins", "https://blog.example", "0.0.0.0:8080", true, "https://blog.example/", "https://blog.example/console/"},
		{"base_url with a slash", "https://blog.example/", "[::]:8080", true, "https://blog.example/", "https://blog.example/console/"},
		{"console off", "", "127.0.0.1:8080", false, "http://127.0.0.1:8080/", ""},
		{"Unix socket", "", "unix:/run/folio/folio.sock", true, "", ""},
		{"Unix socket with base_url", "https://blog.example", "unix:/run/folio/folio.sock", true, "https://blog.example/", "https://blog.example/console/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			site, console := startURLs(tt.base, tt.addr, tt.consoleOn)
			if site != tt.site || console != tt.console {
				t.Errorf("startURLs = %q, %q, want %q, %q", site, console, tt.site, tt.console)
			}
		})
	}
}

// TestBinaryStartsPrintsPasswordOnceAndStopsCleanly builds the real binary
// and runs it twice in an empty folder, as a fresh machine would.
func TestBinaryStartsPrintsPasswordOnceAndStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "folio")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	db := sqlstoretest.NewConfig(t)
	env := append(os.Environ(), "FOLIO_SERVER_ADDR=127.0.0.1:0", "FOLIO_DATABASE_DRIVER="+db.Driver, "FOLIO_DATABASE_DSN="+db.DSN)
	if db.Driver == "sqlite" {
		env = append(os.Environ(), "FOLIO_SERVER_ADDR=127.0.0.1:0") // the defaults: data/folio.db, data/files
	}

	first := startBinary(t, bin, dir, env)
	if !strings.Contains(first.log, "generated the administrator password") {
		t.Errorf("first start did not print the generated password:\n%s", first.log)
	}
	// The first start says where to go: the ready line gives the site's
	// and the console's URLs, the password line the sign-in page.
	site := "http://" + first.addr + "/"
	if want := "msg=ready addr=" + first.addr + " url=" + site + " console=" + site + "console/ "; !strings.Contains(first.log, want) {
		t.Errorf("ready line lacks %q:\n%s", want, first.log)
	}
	if want := "sign in at " + site + "console/login as admin with it;"; !strings.Contains(first.log, want) {
		t.Errorf("password line lacks %q:\n%s", want, first.log)
	}
	if res, err := http.Get(site + "console/login"); err != nil || res.StatusCode != 200 {
		t.Errorf("the sign-in URL the log gives: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	first.stop(t)
	if db.Driver == "sqlite" {
		for _, p := range []string{"data/folio.db", "data/files"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("%s not created: %v", p, err)
			}
		}
	}
	second := startBinary(t, bin, dir, env)
	if strings.Contains(second.log, "generated the administrator password") {
		t.Errorf("second start printed a new password:\n%s", second.log)
	}
	second.stop(t)
}

type running struct {
	cmd  *exec.Cmd
	addr string // host:port from the ready line
	log  string
	done chan error
}

func startBinary(t *testing.T, bin, dir string, env []string) *running {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = dir, env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &running{cmd: cmd, done: make(chan error, 1)}
	addrc := make(chan string, 1)
	logc := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			b.WriteString(line + "\n")
			if m := regexp.MustCompile(`msg=ready addr=(\S+)`).FindStringSubmatch(line); m != nil {
				addrc <- m[1]
				logc <- b.String()
			}
		}
	}()
	go func() { r.done <- cmd.Wait() }()
	select {
	case addr := <-addrc:
		r.addr, r.log = addr, <-logc
		res, err := http.Get("http://" + addr + "/api/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("health = %d", res.StatusCode)
		}
		t.Logf("start to healthy: %v", time.Since(start))
	case err := <-r.done:
		t.Fatalf("folio exited early: %v", err)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("folio did not become ready")
	}
	return r
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(40 * time.Second):
		r.cmd.Process.Kill()
		t.Fatal("folio did not stop after SIGTERM")
	}
}
