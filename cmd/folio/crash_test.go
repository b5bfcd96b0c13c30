package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/sqlstore"
)

// The crash-consistency test (docs/filehost.md#crash-consistency): a real
// folio process is killed with SIGKILL while uploads and deletes stream in,
// five times over; before each restart fsck counts what the crash left, and
// after it (the janitor runs before the server serves) nothing may be wrong.
// At the end every acknowledged upload must be there with its bytes, every
// acknowledged delete gone, and the store must match the records exactly.
const (
	crashWorkers   = 16
	crashKills     = 5
	crashMinLoad   = 300 * time.Millisecond
	crashMaxLoad   = 1500 * time.Millisecond
	crashFinalLoad = time.Second
	crashDeletePct = 35 // share of operations that delete, once a worker has files
)

// outcome is what the client knows of a request.
type outcome int

const (
	untried outcome = iota // not (yet) sent
	acked                  // a success answer came back
	refused                // an error answer came back: it did not happen
	unknown                // no answer (the process died): it may or may not have happened
	unsent                 // the connection was refused (the process was dead): it did not happen
)

// crashUpload is one upload attempt. Its origin name is unique, so a
// record found in the database tells which attempt made it.
type crashUpload struct {
	name   string
	user   int
	md5    string
	size   int64
	shared bool // content from the pool several attempts upload
	up     outcome
	status int    // the answer's HTTP status, when there was one
	id     string // file id, when acknowledged
	key    string // storage key, when acknowledged
	url    string // short link, when acknowledged
	del    outcome
}

// crashLedger is what the clients know, shared by the workers.
type crashLedger struct {
	mu      sync.Mutex
	uploads []*crashUpload
	thumbs  int // thumbnails fetched
}

func (l *crashLedger) add(u *crashUpload) {
	l.mu.Lock()
	l.uploads = append(l.uploads, u)
	l.mu.Unlock()
}

func (l *crashLedger) counts() (up, del map[outcome]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	up, del = map[outcome]int{}, map[outcome]int{}
	for _, u := range l.uploads {
		up[u.up]++
		del[u.del]++
	}
	return up, del
}

// crashProcess is one run of the binary.
type crashProcess struct {
	cmd    *exec.Cmd
	base   string
	log    string        // the path of its log
	exited chan struct{} // closed once it has exited and been reaped
	err    error         // how it exited, once exited is closed
}

// crashSite is an fsckSite served by the real binary.
type crashSite struct {
	fsckSite
	bin   string
	serve string       // the configuration of `folio serve`
	app   string       // on PostgreSQL, the application_name in its DSN, which Folio's session names start with
	conn  *sqlstore.DB // the test's own connection
	logs  string
	runs  int
}

func newCrashSite(t *testing.T, bin string) *crashSite {
	t.Helper()
	s := &crashSite{fsckSite: newFsckSite(t), bin: bin, logs: t.TempDir()}
	s.conn = s.db.Open(t)
	dsn := s.db.DSN
	if s.db.Driver == "postgres" {
		s.app = "folio-crash-" + strings.ReplaceAll(sqlstore.NewID(), "-", "")[20:]
		dsn = withApplicationName(dsn, s.app)
	}
	s.serve = filepath.Join(t.TempDir(), "serve.conf")
	// The password is authtest.AdminPassword, at bcrypt's lowest cost.
	conf := "database.driver = " + s.db.Driver + "\ndatabase.dsn = \"" + dsn + "\"\nstorage.dir = \"" + s.storage + "\"\n" +
		"server.addr = 127.0.0.1:0\nadmin.password_hash = $2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W\n"
	if err := os.WriteFile(s.serve, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i := 1; i <= s.runs; i++ {
				t.Logf("log of run %d (end):\n%s", i, tail(filepath.Join(s.logs, fmt.Sprintf("run%d.log", i))))
			}
		}
	})
	return s
}

// withApplicationName names the sessions of a PostgreSQL DSN, URL or
// key=value pairs.
func withApplicationName(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			q := u.Query()
			q.Set("application_name", name)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " application_name=" + name
}

// openSessions counts the killed process's PostgreSQL sessions still
// open. Such a session keeps running what it had received when its client
// died (a statement, a COMMIT) and ends only when it next reads from the
// closed connection; fsck and the restarted process wait for them, as
// their writes may still land (docs/filehost.md#crash-consistency), and
// the test counts on that.
func (s *crashSite) openSessions(t *testing.T) int {
	t.Helper()
	if s.app == "" {
		return 0 // SQLite: a dead process writes nothing more
	}
	var n int
	if err := s.conn.QueryRow(context.Background(), "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name LIKE $1", s.app+" folio-%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// start runs `folio serve` on the site and waits until it is ready, which
// is after its first janitor pass (docs/filehost.md#crash-consistency).
func (s *crashSite) start(t *testing.T) *crashProcess {
	t.Helper()
	s.runs++
	logPath := filepath.Join(s.logs, fmt.Sprintf("run%d.log", s.runs))
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.bin, "-config", s.serve, "serve")
	cmd.Env = os.Environ()
	cmd.Stderr, cmd.Stdout = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	p := &crashProcess{cmd: cmd, log: logPath, exited: make(chan struct{})}
	addrc := make(chan string, 1)
	ready := regexp.MustCompile(`msg=ready addr=(\S+)`)
	go func() {
		defer logFile.Close()
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	// Whatever happens to the test, the process does not outlive it.
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case addr := <-addrc:
		p.base = "http://" + addr
	case <-p.exited:
		t.Fatalf("folio exited before it was ready: %v\n%s", p.err, tail(logPath))
	case <-time.After(90 * time.Second):
		t.Fatalf("folio was not ready after 90 s\n%s", tail(logPath))
	}
	res, err := (&http.Client{Timeout: time.Minute}).Get(p.base + "/api/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("health = %d", res.StatusCode)
	}
	return p
}

// kill sends SIGKILL and reaps the process.
func (p *crashProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		t.Fatal("folio did not die after SIGKILL")
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *crashProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		if p.err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", p.err, tail(p.log))
		}
	case <-time.After(time.Minute):
		t.Fatalf("folio did not stop after SIGTERM\n%s", tail(p.log))
	}
}

// tail is the end of a log without its access lines, for failure
// messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(line, "msg=request ") {
			lines = append(lines, line)
		}
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// fsckCounts are the report fields the test follows.
type fsckCounts struct {
	Orphans, Missing, RefCount, Usage, Intents, Temps, InFlight, StoredKeys, Objects int
}

func (c fsckCounts) problems() int {
	return c.Orphans + c.Missing + c.RefCount + c.Usage + c.Intents + c.Temps
}

func (s *crashSite) fsckCounts(t *testing.T) (fsckCounts, map[string]any) {
	t.Helper()
	_, rep := s.fsckJSON(t)
	n := func(field string) int {
		v, ok := rep[field].(float64)
		if !ok {
			t.Fatalf("fsck -json: %s = %v", field, rep[field])
		}
		return int(v)
	}
	return fsckCounts{Orphans: n("orphans"), Missing: n("missing"), RefCount: n("ref_count_errors"),
		Usage: n("usage_errors"), Intents: n("intents"), Temps: n("temps"), InFlight: n("in_flight"),
		StoredKeys: n("stored_keys"), Objects: n("objects")}, rep
}

// crashClient speaks the file host's JSON API.
type crashClient struct {
	http *http.Client
	base string
}

func newCrashClient(base string) *crashClient {
	return &crashClient{base: base, http: &http.Client{Timeout: 2 * time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: crashWorkers * 2}}}
}

// headFrom sends a HEAD of path as from a client at address ip (the
// server trusts loopback proxies by default).
func (c *crashClient) headFrom(path, ip string) (*http.Response, error) {
	req, err := http.NewRequest("HEAD", c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Forwarded-For", ip)
	return c.http.Do(req)
}

// call sends a request and decodes the envelope's data into out, or
// returns its message when the status is not 2xx; err is set only when no
// complete answer came back.
func (c *crashClient) call(method, path, token, ctype string, body io.Reader, out any) (int, string, error) {
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, "", err
	}
	if len(raw) == 0 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		return res.StatusCode, "", nil
	}
	var env struct {
		Message string
		Data    json.RawMessage
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return 0, "", fmt.Errorf("%s %s: %v in %q", method, path, err, raw)
	}
	if res.StatusCode/100 != 2 {
		return res.StatusCode, env.Message, nil
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return 0, "", fmt.Errorf("%s %s: %v in %q", method, path, err, raw)
		}
	}
	return res.StatusCode, "", nil
}

func (c *crashClient) mustJSON(t *testing.T, method, path, token string, in, out any, want int) {
	t.Helper()
	b, _ := json.Marshal(in)
	code, msg, err := c.call(method, path, token, "application/json", bytes.NewReader(b), out)
	if err != nil || code != want {
		t.Fatalf("%s %s: %d %q %v, want %d", method, path, code, msg, err, want)
	}
}

// crashUser is an account the workers upload as.
type crashUser struct {
	id, token string
}

// setUpUsers logs in as the administrator, makes two more users and an API
// token for each (docs/filehost-accounts.md).
func setUpUsers(t *testing.T, c *crashClient) []crashUser {
	t.Helper()
	login := func(name, password string) (string, string) {
		var pair struct {
			AccessToken string `json:"access_token"`
			User        struct{ ID string }
		}
		c.mustJSON(t, "POST", "/api/v1/auth/login", "", map[string]string{"username": name, "password": password}, &pair, 200)
		var tok struct{ Token string }
		c.mustJSON(t, "POST", "/api/v1/tokens", pair.AccessToken, map[string]string{"name": "crash test"}, &tok, 201)
		return pair.User.ID, tok.Token
	}
	adminID, adminToken := login(authtest.AdminUsername, authtest.AdminPassword)
	users := []crashUser{{adminID, adminToken}}
	for _, name := range []string{"crash-one", "crash-two"} {
		c.mustJSON(t, "POST", "/api/v1/admin/users", adminToken, map[string]any{
			"username": name, "email": name + "@example.com", "password": "crash-password", "role": "user", "quota_bytes": 0}, nil, 201)
		id, token := login(name, "crash-password")
		users = append(users, crashUser{id, token})
	}
	return users
}

// crashWorker uploads and deletes as one user, deleting only its own
// acknowledged uploads.
type crashWorker struct {
	t      *testing.T
	n      int
	user   int
	token  string
	rng    *rand.Rand
	noise  []byte
	pool   [][]byte
	ledger *crashLedger
	mine   []*crashUpload // acknowledged, not yet deleted
	seq    int
}

// loop works until stop is closed; a request under way then finishes.
func (w *crashWorker) loop(c *crashClient, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if len(w.mine) > 0 && w.rng.IntN(100) < crashDeletePct {
			w.delete(c)
		} else {
			w.upload(c)
		}
	}
}

// content picks an upload's bytes: from the shared pool (identical content
// uploaded by many, so shared objects and their ref counts are exercised),
// a small PNG (whose thumbnail is then made), or random bytes of 1 KiB to
// 4 MiB, large enough that kills land mid-write.
func (w *crashWorker) content() (data []byte, ext string, shared bool) {
	switch r := w.rng.IntN(100); {
	case r < 20:
		return w.pool[w.rng.IntN(len(w.pool))], "bin", true
	case r < 30:
		img := image.NewNRGBA(image.Rect(0, 0, 16+w.rng.IntN(300), 16+w.rng.IntN(300)))
		img.Pix = w.cut(len(img.Pix))
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
			panic(err)
		}
		return buf.Bytes(), "png", false
	case r < 65:
		return w.cut(1<<10 + w.rng.IntN(63<<10)), "bin", false
	case r < 85:
		return w.cut(64<<10 + w.rng.IntN(960<<10)), "bin", false
	default:
		return w.cut(1<<20 + w.rng.IntN(3<<20)), "bin", false
	}
}

// cut copies size bytes of noise from a random place and stamps them with
// the worker and the attempt, so that no two are alike. (Generating random
// bytes afresh would be slow under the race detector.)
func (w *crashWorker) cut(size int) []byte {
	data := make([]byte, size)
	copy(data, w.noise[w.rng.IntN(len(w.noise)-size+1):])
	binary.BigEndian.PutUint64(data, uint64(w.n)<<32|uint64(w.seq))
	return data
}

func (w *crashWorker) upload(c *crashClient) {
	w.seq++
	data, ext, shared := w.content()
	sum := md5.Sum(data)
	u := &crashUpload{name: fmt.Sprintf("w%02d-%05d.%s", w.n, w.seq, ext), user: w.user,
		md5: hex.EncodeToString(sum[:]), size: int64(len(data)), shared: shared}
	// A multipart body with the one file, streamed from data.
	const boundary = "folio-crash-test"
	ctype := "multipart/form-data; boundary=" + boundary
	body := io.MultiReader(
		strings.NewReader("--"+boundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\""+u.name+"\"\r\n"+
			"Content-Type: application/octet-stream\r\n\r\n"),
		bytes.NewReader(data),
		strings.NewReader("\r\n--"+boundary+"--\r\n"))
	w.ledger.add(u)
	var res struct {
		ID, Key, MD5 string
		Size         int64
		Links        struct {
			URL          string `json:"url"`
			ThumbnailURL string `json:"thumbnail_url"`
		}
	}
	code, msg, err := c.call("POST", "/api/v1/upload", w.token, ctype, body, &res)
	w.ledger.mu.Lock()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		u.up = unsent
	case err != nil:
		u.up = unknown
	case code != 200:
		u.up, u.status = refused, code
	default:
		u.up, u.status, u.id, u.key, u.url = acked, code, res.ID, res.Key, linkPath(res.Links.URL)
	}
	w.ledger.mu.Unlock()
	if u.up == refused && !(code == 409 && u.shared) {
		// Only a 409 is expected: the same content was being deleted
		// while this upload meant to share it (docs/api.md#uploads).
		w.t.Errorf("upload %s refused: %d %q", u.name, code, msg)
	}
	if u.up != acked {
		return
	}
	if res.MD5 != u.md5 || res.Size != u.size || res.ID == "" {
		w.t.Errorf("upload %s answered md5 %s size %d id %q, sent md5 %s size %d", u.name, res.MD5, res.Size, res.ID, u.md5, u.size)
	}
	w.mine = append(w.mine, u)
	if ext == "png" && w.rng.IntN(2) == 0 {
		w.thumb(c, u, res.Links.ThumbnailURL)
	}
}

// linkPath is the path of an absolute link: the process that made it may
// have been on another port.
func linkPath(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.Path
}

// thumb fetches a PNG's thumbnail, which the server makes on this first
// request: its placement is recorded by an intent too.
func (w *crashWorker) thumb(c *crashClient, u *crashUpload, link string) {
	path := linkPath(link)
	if !strings.HasPrefix(path, "/t/") {
		w.t.Errorf("upload %s: thumbnail_url %q", u.name, link)
		return
	}
	code, _, err := c.call("GET", path, "", "", nil, nil)
	if err != nil {
		return // killed meanwhile
	}
	if code != 200 {
		w.t.Errorf("thumbnail of %s: %d", u.name, code)
		return
	}
	w.ledger.mu.Lock()
	w.ledger.thumbs++
	w.ledger.mu.Unlock()
}

func (w *crashWorker) delete(c *crashClient) {
	i := w.rng.IntN(len(w.mine))
	u := w.mine[i]
	w.mine = append(w.mine[:i], w.mine[i+1:]...)
	code, msg, err := c.call("DELETE", "/api/v1/files/"+u.id, w.token, "", nil, nil)
	w.ledger.mu.Lock()
	defer w.ledger.mu.Unlock()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		w.mine = append(w.mine, u) // not deleted: perhaps next time
	case err != nil:
		u.del = unknown
	case code == 200:
		u.del = acked
	case code == 404:
		w.t.Errorf("delete of acknowledged upload %s (%s): 404, the record is lost", u.name, u.id)
		u.del = refused
	default:
		w.t.Errorf("delete of %s (%s): %d %q", u.name, u.id, code, msg)
		u.del = refused
	}
}

// crashLoad is the workers at work on one process.
type crashLoad struct {
	c    *crashClient
	quit chan struct{}
	wg   sync.WaitGroup
}

// runLoad starts the workers on base.
func runLoad(workers []*crashWorker, base string) *crashLoad {
	l := &crashLoad{c: newCrashClient(base), quit: make(chan struct{})}
	for _, w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			w.loop(l.c, l.quit)
		}()
	}
	return l
}

// halt tells the workers to start nothing new; the requests under way go
// on.
func (l *crashLoad) halt() { close(l.quit) }

// wait waits until every worker has finished its last request.
func (l *crashLoad) wait() {
	l.wg.Wait()
	l.c.http.CloseIdleConnections()
}

// crashRound is what one kill left, and what the restart left.
type crashRound struct {
	load          time.Duration
	before, after fsckCounts
	janitor       map[string]int // the janitor's report at the restart
	sessions      int            // PostgreSQL sessions of the killed process still open once it was reaped
}

func TestKill9DuringUploadsAndDeletesLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it several times")
	}
	began := time.Now()
	dir := t.TempDir()
	bin := filepath.Join(dir, "folio")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	built := time.Since(began)

	s := newCrashSite(t, bin)
	db := s.conn

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	var key [32]byte
	binary.BigEndian.PutUint64(key[:], seed)
	noise := make([]byte, 8<<20)
	rand.NewChaCha8(key).Read(noise)
	// The pool: contents many uploads share, stamped apart from the
	// workers' (cut).
	pool := make([][]byte, 6)
	for i, size := range []int{2 << 10, 40 << 10, 300 << 10, 1 << 20, 5 << 19, 7 << 19} {
		pool[i] = bytes.Clone(noise[len(noise)-size:])
		binary.BigEndian.PutUint64(pool[i], 1<<63|uint64(i))
	}

	proc := s.start(t)
	users := setUpUsers(t, newCrashClient(proc.base))
	ledger := &crashLedger{}
	workers := make([]*crashWorker, crashWorkers)
	for i := range workers {
		workers[i] = &crashWorker{t: t, n: i, user: i % len(users), token: users[i%len(users)].token,
			rng: rand.New(rand.NewPCG(seed, uint64(i+1))), noise: noise, pool: pool, ledger: ledger}
	}

	var rounds []crashRound
	for k := 1; k <= crashKills; k++ {
		r := crashRound{load: crashMinLoad + time.Duration(rng.Int64N(int64(crashMaxLoad-crashMinLoad)))}
		load := runLoad(workers, proc.base)
		time.Sleep(r.load) // the load runs for this long: when the kill lands is the point
		load.halt()        // what is under way now is what the kill interrupts
		proc.kill(t)
		load.wait()
		r.sessions = s.openSessions(t)

		// What the crash left, before any janitor ran: only intents and
		// temporary files; every placed key is covered by an intent.
		var rep map[string]any
		r.before, rep = s.fsckCounts(t)
		if r.before.Orphans+r.before.Missing+r.before.RefCount+r.before.Usage != 0 {
			t.Errorf("kill %d left more than intents and temporary files: %+v\n%v", k, r.before, rep["details"])
		}

		proc = s.start(t)
		// Its first pass settled exactly what fsck found.
		r.janitor = janitorSaid(t, proc.log)
		if r.janitor["intents"] != r.before.Intents || r.janitor["temps"] != r.before.Temps || r.janitor["instances"] != 1 {
			t.Errorf("restart %d: the janitor reported %v; fsck had found %+v", k, r.janitor, r.before)
		}
		// The new process also makes the thumbnails and sizes the killed
		// one had queued (docs/filehost.md#sizes): what it is placing is in
		// flight until its jobs are done.
		waitForImageJobs(t, db)
		r.after, rep = s.fsckCounts(t)
		if r.after.problems() != 0 || r.after.InFlight != 0 {
			t.Errorf("after restart %d (janitor: %v): %+v\n%v", k, r.janitor, r.after, rep["details"])
		}
		var n int
		if err := db.QueryRow(context.Background(), "SELECT COUNT(*) FROM instances").Scan(&n); err != nil || n != 1 {
			t.Errorf("after restart %d: %d registered instances (%v), want the live one only", k, n, err)
		}
		rounds = append(rounds, r)
		if t.Failed() {
			break
		}
	}

	// Some load on the last process, which then stops cleanly.
	load := runLoad(workers, proc.base)
	time.Sleep(crashFinalLoad)
	load.halt()
	load.wait()
	checkThroughAPI(t, newCrashClient(proc.base), users, ledger)
	proc.stop(t)

	final, rep := s.fsckCounts(t)
	if final.problems() != 0 || final.InFlight != 0 {
		t.Errorf("fsck after the clean stop: %+v\n%v", final, rep["details"])
	}
	if left, err := os.ReadDir(filepath.Join(s.storage, ".tmp")); err != nil || len(left) != 0 {
		t.Errorf("temporary folder after the clean stop: %v (%v)", left, err)
	}
	var n int
	if err := db.QueryRow(context.Background(), "SELECT COUNT(*) FROM instances").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d registered instances after the clean stop (%v), want 0", n, err)
	}
	files, unknownStored, unknownDeleted := checkStore(t, db, s.storage, users, ledger)

	up, del := ledger.counts()
	var per []string
	var before fsckCounts
	after, deleted := 0, 0
	for _, r := range rounds {
		per = append(per, fmt.Sprintf("%d/%d/%d", r.before.Orphans, r.before.Intents, r.before.Temps))
		before.Orphans += r.before.Orphans
		before.Intents += r.before.Intents
		before.Temps += r.before.Temps
		after += r.after.problems()
		deleted += r.janitor["deleted"]
	}
	t.Logf("crash figures: driver %s, kills %d; uploads acknowledged %d, refused %d, unknown %d (%d stored), not sent %d; "+
		"deletes acknowledged %d, unknown %d (%d done); thumbnails made %d; "+
		"before the janitor orphans/intents/temps %d/%d/%d (per kill %s), keys the janitor deleted %d; "+
		"after the janitor problems %d; at the end %d files, %d objects, %d stored keys; build %v, total %v",
		s.db.Driver, len(rounds), up[acked], up[refused], up[unknown], unknownStored, up[unsent], del[acked], del[unknown], unknownDeleted, ledger.thumbs,
		before.Orphans, before.Intents, before.Temps, strings.Join(per, " "), deleted,
		after, files, final.Objects, final.StoredKeys, built.Round(100*time.Millisecond), time.Since(began).Round(100*time.Millisecond))
	for i, r := range rounds {
		t.Logf("kill %d after %v of load; %d database sessions of the killed process still open once it was reaped; the janitor at the restart: %v",
			i+1, r.load.Round(time.Millisecond), r.sessions, r.janitor)
	}
}

// janitorSaid reads the counts of the janitor's start-up report from a
// log: intents, rolled_back, deleted, kept_referenced, temps, instances.
// Nil when it reported nothing.
func janitorSaid(t *testing.T, logPath string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		_, counts, ok := strings.Cut(line, `msg="janitor: settled what dead processes left" `)
		if !ok {
			continue
		}
		said := map[string]int{}
		for _, kv := range strings.Fields(counts) {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("janitor report %q: %v", line, err)
			}
			said[k] = n
		}
		return said
	}
	return nil
}

// checkThroughAPI asks the running server about every upload: an
// acknowledged one is there with its MD5 and served by its short link; an
// acknowledged delete is gone.
func checkThroughAPI(t *testing.T, c *crashClient, users []crashUser, l *crashLedger) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, u := range l.uploads {
		if u.up != acked || u.del == unknown {
			continue
		}
		// Each link is checked from an address of its own: one client
		// asking for hundreds of deleted links is what the miss limit
		// refuses (docs/api.md#limits).
		from := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		var rec struct{ ID, MD5, Key string }
		code, _, err := c.call("GET", "/api/v1/files/"+u.id, users[u.user].token, "", nil, &rec)
		if err != nil {
			t.Fatal(err)
		}
		link := u.url
		switch u.del {
		case untried, unsent:
			if code != 200 || rec.MD5 != u.md5 || rec.Key != u.key {
				t.Errorf("acknowledged upload %s (%s): %d %+v", u.name, u.id, code, rec)
				continue
			}
			res, err := c.headFrom(link, from)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("ETag") != `"`+u.md5+`"` {
				t.Errorf("short link of %s: %d, ETag %s", u.name, res.StatusCode, res.Header.Get("ETag"))
			}
		case acked:
			if code != 404 {
				t.Errorf("acknowledged delete of %s (%s): the record answers %d", u.name, u.id, code)
			}
			if u.shared {
				continue // other records may still hold the content
			}
			res, err := c.headFrom(link, from)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 404 {
				t.Errorf("short link of the deleted %s: %d", u.name, res.StatusCode)
			}
		}
	}
}

// checkStore reads the database and the storage folder of the stopped
// site: each record comes from an upload that was acknowledged or whose
// answer was lost; each object's bytes are there with its MD5; ref counts
// and usage are exact; nothing is stored that no record points at. It
// returns the number of file records, and how the requests whose answers
// were lost turned out: uploads stored and deletes done.
func checkStore(t *testing.T, db *sqlstore.DB, root string, users []crashUser, l *crashLedger) (files, stored, deleted int) {
	t.Helper()
	ctx := context.Background()
	type object struct {
		md5, key string
		size     int64
		refs     int
		files    int
	}
	objects := map[string]*object{}
	rows, err := db.Query(ctx, "SELECT id, md5, storage_key, size, ref_count FROM objects")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		o := &object{}
		if err := rows.Scan(&id, &o.md5, &o.key, &o.size, &o.refs); err != nil {
			t.Fatal(err)
		}
		objects[id] = o
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	type record struct {
		id, user, object, name string
		size                   int64
	}
	var records []record
	rows, err = db.Query(ctx, "SELECT id, user_id, object_id, origin_name, size FROM files")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r record
		if err := rows.Scan(&r.id, &r.user, &r.object, &r.name, &r.size); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	// Every record: from an upload that may have happened, with its content.
	l.mu.Lock()
	byName := map[string]*crashUpload{}
	for _, u := range l.uploads {
		byName[u.name] = u
	}
	l.mu.Unlock()
	seen := map[string]string{}
	used := map[string][2]int64{}
	for _, r := range records {
		used[r.user] = [2]int64{used[r.user][0] + r.size, used[r.user][1] + 1}
		o := objects[r.object]
		if o == nil {
			t.Errorf("record %s (%s) points at no object", r.id, r.name)
			continue
		}
		o.files++
		u := byName[r.name]
		switch {
		case u == nil:
			t.Errorf("record %s (%s) comes from no upload", r.id, r.name)
			continue
		case seen[r.name] != "":
			t.Errorf("upload %s has two records, %s and %s", r.name, seen[r.name], r.id)
		case u.up == refused || u.up == unsent:
			t.Errorf("upload %s was refused (%d) or never sent but has record %s", r.name, u.status, r.id)
		case u.up == acked && u.id != r.id:
			t.Errorf("upload %s was acknowledged as %s but has record %s", r.name, u.id, r.id)
		case u.del == acked:
			t.Errorf("upload %s was deleted (acknowledged) but its record %s is there", r.name, r.id)
		case users[u.user].id != r.user:
			t.Errorf("upload %s of user %s has record %s of user %s", r.name, users[u.user].id, r.id, r.user)
		}
		seen[r.name] = r.id
		if o.md5 != u.md5 || r.size != u.size || o.size != u.size {
			t.Errorf("record %s (%s): md5 %s, %d bytes (object %d); sent md5 %s, %d bytes", r.id, r.name, o.md5, r.size, o.size, u.md5, u.size)
		}
	}
	// Every acknowledged upload not deleted has its record.
	for _, u := range byName {
		if u.up == acked && (u.del == untried || u.del == unsent) && seen[u.name] == "" {
			t.Errorf("acknowledged upload %s (%s) has no record", u.name, u.id)
		}
		if u.up == unknown && seen[u.name] != "" {
			stored++
		}
		if u.del == unknown && seen[u.name] == "" {
			deleted++
		}
	}
	// Usage is the sum of the records.
	for _, usr := range users {
		var usedBytes, count int64
		if err := db.QueryRow(ctx, "SELECT used_bytes, file_count FROM users WHERE id = $1", usr.id).Scan(&usedBytes, &count); err != nil {
			t.Fatal(err)
		}
		if want := used[usr.id]; usedBytes != want[0] || count != want[1] {
			t.Errorf("user %s: used_bytes %d, file_count %d; records sum to %d bytes, %d files", usr.id, usedBytes, count, want[0], want[1])
		}
	}
	// Every object: referenced as often as it says, its bytes there with
	// its MD5.
	keys := map[string]bool{}
	for id, o := range objects {
		keys[o.key] = true
		if o.files == 0 || o.refs != o.files {
			t.Errorf("object %s: ref_count %d, %d records", id, o.refs, o.files)
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(o.key)))
		if err != nil {
			t.Errorf("object %s: %v", id, err)
			continue
		}
		h := md5.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != o.md5 || n != o.size {
			t.Errorf("object %s (%s): stored bytes have md5 %s, %d bytes; the row says %s, %d", id, o.key, got, n, o.md5, o.size)
		}
	}
	// Nothing stored that no record points at; the temporary folder empty.
	thumb := regexp.MustCompile(`^thumbs/([0-9a-f-]{36})\.(jpg|png)$`)
	var strays []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".tmp" && p != root {
			return filepath.SkipDir // checked apart: empty
		}
		if d.IsDir() {
			return nil
		}
		key, _ := filepath.Rel(root, p)
		key = filepath.ToSlash(key)
		if m := thumb.FindStringSubmatch(key); keys[key] || m != nil && objects[m[1]] != nil {
			return nil
		}
		strays = append(strays, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(strays)
	if len(strays) > 0 {
		t.Errorf("%d stored files no record points at: %v", len(strays), strays)
	}
	return len(records), stored, deleted
}

// waitForImageJobs waits, at most a minute, until no job of the file
// host's background making of image sizes is left.
func waitForImageJobs(t testing.TB, db *sqlstore.DB) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := db.QueryRow(context.Background(), "SELECT COUNT(*) FROM jobs WHERE kind = 'filehost.images' AND state <> 'failed'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d image jobs still queued after a minute", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
