package filehost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

// shareJSON is a share link as the API answers it.
type shareJSON struct {
	ID          string     `json:"id"`
	URL         string     `json:"url"`
	ExpiresAt   *time.Time `json:"expires_at"`
	MaxViews    *int       `json:"max_views"`
	Views       int        `json:"views"`
	HasPassword bool       `json:"has_password"`
	CreatedAt   time.Time  `json:"created_at"`
}

// path is the link's path (the server's address removed).
func (sh shareJSON) path() string { return sh.URL[strings.Index(sh.URL, "/s/"):] }

func mustShare(t *testing.T, c *httpxtest.Client, fileID string, body map[string]any) shareJSON {
	t.Helper()
	var got struct{ Data shareJSON }
	if err := json.Unmarshal(c.Do("POST", "/api/v1/files/"+fileID+"/shares", body).Expect(201).Body, &got); err != nil {
		t.Fatal(err)
	}
	return got.Data
}

// browser is a client that asks for pages, as browsers do.
func browser(c *httpxtest.Client) *httpxtest.Client {
	b := c.Clone()
	b.Header.Del("Authorization")
	b.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	return b
}

var ticketPath = regexp.MustCompile(`<img class="media" src="(/s/raw/[^"]+)"`)

// rawPath is the ticketed address of the bytes on a share page.
func rawPath(t *testing.T, page *httpxtest.Response) string {
	t.Helper()
	m := ticketPath.FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no image on the share page: %s", page.Body)
	}
	return html.UnescapeString(string(m[1]))
}

func TestShareLinkAPI(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	u := mustUpload(t, alice, "cat.png", pngBytes(t, 20, 10))

	plain := mustShare(t, alice, u.ID, nil)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{32}$`).MatchString(plain.URL) ||
		plain.ExpiresAt != nil || plain.MaxViews != nil || plain.Views != 0 || plain.HasPassword {
		t.Fatalf("a plain link: %+v", plain)
	}
	exp := clock.now().Add(time.Hour).UTC().Truncate(time.Second)
	full := mustShare(t, alice, u.ID, map[string]any{"expires_at": exp.Format(time.RFC3339), "max_views": 3, "password": "open sesame"})
	if full.ExpiresAt == nil || !full.ExpiresAt.Equal(exp) || full.MaxViews == nil || *full.MaxViews != 3 || !full.HasPassword {
		t.Fatalf("a limited link: %+v", full)
	}
	if strings.Contains(string(alice.Do("GET", "/api/v1/files/"+u.ID+"/shares", nil).Body), "open sesame") {
		t.Fatal("the password shows in the list")
	}
	var list struct{ Data []shareJSON }
	json.Unmarshal(alice.Do("GET", "/api/v1/files/"+u.ID+"/shares", nil).Expect(200).Body, &list)
	if len(list.Data) != 2 || list.Data[0].ID != full.ID || list.Data[1].URL != plain.URL {
		t.Fatalf("list, newest first: %+v", list.Data)
	}

	for _, tt := range []struct {
		name   string
		c      *httpxtest.Client
		method string
		path   string
		body   any
		status int
		msg    string
	}{
		{"another user's file", bob, "POST", "/api/v1/files/" + u.ID + "/shares", nil, 404, "resource not found"},
		{"another user's list", bob, "GET", "/api/v1/files/" + u.ID + "/shares", nil, 404, "resource not found"},
		{"another user's revoke", bob, "DELETE", "/api/v1/files/" + u.ID + "/shares/" + plain.ID, nil, 404, "resource not found"},
		{"an unknown file", alice, "POST", "/api/v1/files/00000000-0000-4000-8000-000000000000/shares", nil, 404, "resource not found"},
		{"a malformed file id", alice, "GET", "/api/v1/files/nope/shares", nil, 404, "resource not found"},
		{"an unknown link", alice, "DELETE", "/api/v1/files/" + u.ID + "/shares/00000000-0000-4000-8000-000000000000", nil, 404, "resource not found"},
		{"no credentials", e.c, "POST", "/api/v1/files/" + u.ID + "/shares", nil, 401, "unauthorized: missing or invalid credentials"},
		{"malformed JSON", alice, "POST", "/api/v1/files/" + u.ID + "/shares", "{", 400, "invalid request payload"},
		{"wrong type", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"max_views": "3"}, 400, "invalid request payload"},
		{"past expiry", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"expires_at": "2020-01-01T00:00:00Z"}, 400, "expires_at must be in the future"},
		{"bad expiry", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"expires_at": "soon"}, 400, "expires_at must be an RFC 3339 time such as 2026-12-31T23:59:59Z"},
		{"zero views", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"max_views": 0}, 400, "max_views must be from 1 to 1000000000"},
		{"too many views", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"max_views": 1_000_000_001}, 400, "max_views must be from 1 to 1000000000"},
		{"empty password", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"password": ""}, 400, "password must be at least 8 characters long"},
		{"short password", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"password": "1234567"}, 400, "password must be at least 8 characters long"},
		// Characters, not bytes: 7 characters in 14 bytes are too few.
		{"short password in many bytes", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"password": "ääääääа"}, 400, "password must be at least 8 characters long"},
		{"long password", alice, "POST", "/api/v1/files/" + u.ID + "/shares", map[string]any{"password": strings.Repeat("x", 73)}, 400, "password must be at most 72 bytes of text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.c.Do(tt.method, tt.path, tt.body).Expect(tt.status)
			if env := res.A(); env.Message != tt.msg || env.Code != tt.status*100 {
				t.Fatalf("answer %+v, want %q", env, tt.msg)
			}
		})
	}

	alice.Do("DELETE", "/api/v1/files/"+u.ID+"/shares/"+plain.ID, nil).Expect(200)
	alice.Do("DELETE", "/api/v1/files/"+u.ID+"/shares/"+plain.ID, nil).Expect(404)
	e.c.Do("GET", plain.path(), nil).Expect(404)
	// Deleting the file takes its links with it.
	alice.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(200)
	var n int
	e.db.QueryRow(t.Context(), "SELECT COUNT(*) FROM shares").Scan(&n)
	if n != 0 {
		t.Fatalf("%d links outlive their file", n)
	}
}

func TestSharePageShowsTheFileToAnyone(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	img := pngBytes(t, 30, 20)
	u := mustUpload(t, alice, "Sunset über Kyoto.png", img) // private
	sh := mustShare(t, alice, u.ID, nil)
	b := browser(e.c)

	page := b.Do("GET", sh.path(), nil).Expect(200)
	for _, h := range []struct{ name, want string }{
		{"Content-Security-Policy", "default-src 'self'"},
		{"Referrer-Policy", "same-origin"},
		{"X-Robots-Tag", "noindex, nofollow"},
		{"Cache-Control", "no-store"},
	} {
		if got := page.Header.Get(h.name); !strings.Contains(got, h.want) {
			t.Errorf("%s: %q, want %q", h.name, got, h.want)
		}
	}
	base := sh.URL[:strings.Index(sh.URL, "/s/")]
	if !contains(page, `<meta property="og:title" content="Sunset über Kyoto.png">`,
		`<meta property="og:url" content="`+sh.URL+`">`,
		`<meta property="og:image" content="`+base+`/s/raw/`,
		`<meta property="og:image:width" content="30">`,
		`<meta name="twitter:card" content="summary_large_image">`,
		`alt="Sunset über Kyoto.png" width="30" height="20"`) {
		t.Fatalf("share page: %s", page.Body)
	}
	raw := rawPath(t, page)
	got := e.c.Do("GET", raw, nil).Expect(200)
	if !bytes.Equal(got.Body, img) || got.Header.Get("Cache-Control") != "private, max-age=900" ||
		!strings.HasPrefix(got.Header.Get("Content-Disposition"), "inline;") {
		t.Fatalf("raw: %d bytes, headers %v", len(got.Body), got.Header)
	}
	part := e.c.Do("GET", raw, nil, "Range", "bytes=0-9").Expect(206)
	if !bytes.Equal(part.Body, img[:10]) {
		t.Fatal("a range of the raw bytes differs")
	}
	dl := e.c.Do("GET", raw+"&download=1", nil).Expect(200)
	if !strings.HasPrefix(dl.Header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("download: %q", dl.Header.Get("Content-Disposition"))
	}

	// Tickets: tampered, of another link, or for a purpose they were not
	// made for, open nothing.
	other := mustShare(t, alice, u.ID, nil)
	otherRaw := rawPath(t, b.Do("GET", other.path(), nil).Expect(200))
	ticket := otherRaw[strings.Index(otherRaw, "?t=")+3:]
	token := strings.TrimPrefix(sh.path(), "/s/")
	for name, path := range map[string]string{
		"no ticket":          "/s/raw/" + token,
		"tampered ticket":    raw[:len(raw)-2] + "xx",
		"another's ticket":   "/s/raw/" + token + "?t=" + ticket,
		"a session value":    "/s/raw/" + token + "?t=" + e.auth.Seal(sharePasswordPurpose, sh.ID, time.Now().Add(time.Hour)),
		"an unknown token":   "/s/raw/" + strings.Repeat("A", 32) + raw[strings.Index(raw, "?"):],
		"a malformed token":  "/s/raw/short" + raw[strings.Index(raw, "?"):],
		"a page, malformed":  "/s/short",
		"a page, unknown":    "/s/" + strings.Repeat("A", 32),
		"a static, unknown":  "/s/static/nope.css",
		"a thumbnail, known": "/t/" + strings.Repeat("0", 8),
	} {
		if res := e.c.Do("GET", path, nil); res.Status != 404 {
			t.Errorf("%s: %d, want 404", name, res.Status)
		}
	}
}

func TestShareViewsAreCountedExactly(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "doc.pdf", pdfBytes)
	sh := mustShare(t, alice, u.ID, map[string]any{"max_views": 5})

	const visitors = 20
	var wg sync.WaitGroup
	statuses := make(chan int, visitors)
	for i := 0; i < visitors; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.c.Clone().Do("GET", sh.path(), nil).Status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[200] != 5 || count[404] != visitors-5 {
		t.Fatalf("of %d visitors: %v, want exactly 5 pages and the rest 404", visitors, count)
	}
	var list struct{ Data []shareJSON }
	json.Unmarshal(alice.Do("GET", "/api/v1/files/"+u.ID+"/shares", nil).Expect(200).Body, &list)
	if list.Data[0].Views != 5 {
		t.Fatalf("views %d, want 5", list.Data[0].Views)
	}
	// A HEAD spends no view, and a file that is not an image gets a
	// download button.
	sh2 := mustShare(t, alice, u.ID, map[string]any{"max_views": 1})
	e.c.Do("HEAD", sh2.path(), nil).Expect(200)
	page := browser(e.c).Do("GET", sh2.path(), nil).Expect(200)
	if !contains(page, `class="button" href="/s/raw/`, `&amp;download=1">Download</a>`, `<meta name="twitter:card" content="summary">`) ||
		contains(page, "<img") {
		t.Fatalf("a PDF's share page: %s", page.Body)
	}
	browser(e.c).Do("GET", sh2.path(), nil).Expect(404)
}

func TestShareLinkExpires(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 3, 3))
	sh := mustShare(t, alice, u.ID, map[string]any{"expires_at": clock.now().Add(time.Minute).UTC().Format(time.RFC3339Nano)})
	page := e.c.Do("GET", sh.path(), nil).Expect(200)
	if !contains(page, "This link stops working at") {
		t.Fatalf("the page does not say when the link ends: %s", page.Body)
	}
	raw := rawPath(t, page)
	clock.advance(time.Minute)
	e.c.Do("GET", sh.path(), nil).Expect(404)
	e.c.Do("GET", raw, nil).Expect(404)
	// A file that expires takes its links with it at once.
	v := mustUpload(t, alice, "b.png", pngBytes(t, 4, 3), "expires_in", "60")
	sh = mustShare(t, alice, v.ID, nil)
	e.c.Do("GET", sh.path(), nil).Expect(200)
	clock.advance(time.Minute)
	e.c.Do("GET", sh.path(), nil).Expect(404)
}

func TestSharePasswordForm(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	img := pngBytes(t, 8, 8)
	u := mustUpload(t, alice, "secret.png", img)
	sh := mustShare(t, alice, u.ID, map[string]any{"password": "open sesame", "max_views": 2})
	other := mustShare(t, alice, u.ID, map[string]any{"password": "other secret"})
	b := browser(e.c)

	form := b.Do("GET", sh.path(), nil).Expect(200)
	if !contains(form, `<input id="share-password" type="password" name="password"`, `action="`+sh.path()+`"`) || contains(form, "<img class") {
		t.Fatalf("password form: %s", form.Body)
	}
	tok := form.FormToken()
	wrong := b.PostForm(sh.path(), "form_token", tok, "password", "nope").Expect(401)
	if !contains(wrong, "That password is not right.") {
		t.Fatalf("wrong password page: %s", wrong.Body)
	}
	b.PostForm(sh.path(), "password", "open sesame").Expect(403) // no form token
	if res := b.PostForm(sh.path(), "form_token", tok, "password", "open sesame"); res.Status != 303 || res.Location() != sh.path() {
		t.Fatalf("right password: %d %s", res.Status, res.Location())
	}
	page := b.Do("GET", sh.path(), nil).Expect(200)
	if !bytes.Equal(e.c.Do("GET", rawPath(t, page), nil).Expect(200).Body, img) {
		t.Fatal("the bytes after the password differ")
	}
	// The cookie opens this link only.
	if res := b.Do("GET", other.path(), nil).Expect(200); !contains(res, `name="password"`) {
		t.Fatal("one link's password cookie opened another")
	}
	// The views count after the form: the second view is the last.
	b.Do("GET", sh.path(), nil).Expect(200)
	b.Do("GET", sh.path(), nil).Expect(404)

	// Five wrong answers a minute from one address (the one above counts:
	// four more), then 429, even for the right one.
	c := browser(e.c)
	tok = c.Do("GET", other.path(), nil).Expect(200).FormToken()
	for i := 0; i < 4; i++ {
		c.PostForm(other.path(), "form_token", tok, "password", fmt.Sprint("guess", i)).Expect(401)
	}
	res := c.PostForm(other.path(), "form_token", tok, "password", "other secret").Expect(429)
	if res.Header.Get("Retry-After") == "" || !contains(res, "Too many wrong passwords") {
		t.Fatalf("429: %v %s", res.Header, res.Body)
	}
}

func TestMissingLinksAnswerBrowsersWithAPage(t *testing.T) {
	e := newTestEnv(t)
	for _, path := range []string{"/i/0123456789abcdef", "/t/0123456789abcdef", "/f/nothex", "/s/" + strings.Repeat("B", 32)} {
		t.Run(path, func(t *testing.T) {
			page := browser(e.c).Do("GET", path, nil).Expect(404)
			if page.Header.Get("Content-Type") != "text/html; charset=utf-8" || !contains(page, "<h1>Not found</h1>") ||
				page.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'self'") {
				t.Fatalf("browser: %v %s", page.Header, page.Body)
			}
			// The page's stylesheet is there.
			css := regexp.MustCompile(`href="(/s/static/public\.[0-9a-f]+\.css)"`).FindSubmatch(page.Body)
			if css == nil {
				t.Fatalf("no stylesheet: %s", page.Body)
			}
			e.c.Do("GET", string(css[1]), nil).Expect(200)
			for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0.1, application/json"} {
				c := e.c.Clone()
				c.Header.Set("Accept", accept)
				res := c.Do("GET", path, nil).Expect(404)
				if env := res.A(); env.Code != 40400 || res.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("Accept %q: %+v %v", accept, env, res.Header)
				}
			}
		})
	}
}

func TestConsoleSharesAFile(t *testing.T) {
	e := newTestEnv(t)
	aliceID, b := e.consoleUser("alice")
	u := mustUpload(t, e.clientFor(aliceID), "pic.png", pngBytes(t, 6, 6))
	page := "/console/files/" + u.ID
	tok := pageToken(b, page)

	for _, tt := range []struct {
		name   string
		fields []string
		msg    string
	}{
		{"a made-up expiry", []string{"expires_in", "-1"}, "Choose when the link expires from the list."},
		{"views not a number", []string{"max_views", "ten"}, "Enter from 1 to 1000000000 views, or leave it empty."},
		{"zero views", []string{"max_views", "0"}, "Enter from 1 to 1000000000 views, or leave it empty."},
		{"a long password", []string{"password", strings.Repeat("p", 73)}, "Use a password of 8 to 72 characters, or leave it empty."},
		{"a password over 72 bytes in fewer characters", []string{"password", strings.Repeat("ü", 40)}, "That password is too long: accented letters, other scripts and emoji take 2 to 4 of the 72 bytes a password may use."},
		{"a short password", []string{"password", "seven77"}, "Use a password of 8 to 72 characters, or leave it empty."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := b.PostForm(page+"/shares", append([]string{"form_token", tok}, tt.fields...)...).Expect(422)
			if !contains(res, html.EscapeString(tt.msg)) {
				t.Fatalf("no %q in %s", tt.msg, res.Body)
			}
		})
	}
	b.PostForm(page+"/shares", "max_views", "3").Expect(403) // no form token

	res := b.PostForm(page+"/shares", "form_token", tok, "expires_in", "86400", "max_views", "3", "password", "pässwörd")
	if res.Status != 303 || res.Location() != page {
		t.Fatalf("create: %d %s", res.Status, res.Location())
	}
	detail := b.Do("GET", page, nil).Expect(200)
	if !contains(detail, "Share link created.", `<label for="share-1">Share link</label>`, "0 views of 3", "· password", "· until <time") {
		t.Fatalf("file page: %s", detail.Body)
	}
	var list struct{ Data []shareJSON }
	json.Unmarshal(e.clientFor(aliceID).Do("GET", "/api/v1/files/"+u.ID+"/shares", nil).Expect(200).Body, &list)
	if len(list.Data) != 1 || !list.Data[0].HasPassword || list.Data[0].ExpiresAt == nil {
		t.Fatalf("stored: %+v", list.Data)
	}
	// Another user cannot see or revoke it.
	_, eve := e.consoleUser("eve")
	eve.Do("GET", page, nil).Expect(404)
	eve.PostForm(page+"/shares/"+list.Data[0].ID+"/delete", "form_token", pageToken(eve, "/console/files")).Expect(404)

	b.PostForm(page+"/shares/"+strings.Repeat("0", 8)+"/delete", "form_token", tok).Expect(404)
	if res := b.PostForm(page+"/shares/"+list.Data[0].ID+"/delete", "form_token", tok); res.Status != 303 {
		t.Fatalf("revoke: %d", res.Status)
	}
	e.c.Do("GET", list.Data[0].path(), nil).Expect(404)
}

// visitorAt is a browser at address ip (the test server trusts loopback
// proxies) that has opened the password form of path on e: it returns the
// visitor and the form's token.
func visitorAt(t *testing.T, e *testEnv, ip, path string) (*httpxtest.Client, string) {
	t.Helper()
	c := browser(e.c)
	c.Header.Set("X-Forwarded-For", ip)
	return c, c.Do("GET", path, nil).Expect(200).FormToken()
}

func TestSharePasswordGuessesAreLimitedPerLink(t *testing.T) {
	cfg := sqlstoreConfig(t)
	dir := t.TempDir()
	one := newTestEnvOn(t, cfg.Open(t), dir)
	two := newTestEnvOn(t, cfg.Open(t), dir) // another process of the site
	clock := newTestClock(one, two)
	_, alice := one.newUser("alice", 0)
	u := mustUpload(t, alice, "secret.png", pngBytes(t, 8, 8))
	sh := mustShare(t, alice, u.ID, map[string]any{"password": "open sesame"})
	path := sh.path()
	// answer posts one answer from a new address, to either process.
	addr := 0
	answer := func(password string) *httpxtest.Response {
		t.Helper()
		addr++
		e := []*testEnv{one, two}[addr%2]
		c, tok := visitorAt(t, e, fmt.Sprintf("198.51.100.%d", addr), path)
		return c.PostForm(path, "form_token", tok, "password", password)
	}

	// 30 wrong answers from 30 addresses, to two processes: the first 20
	// are checked, then the link's form is closed for the rest of the 15
	// minutes that began with the first, whatever the address.
	for i := 1; i <= 30; i++ {
		res := answer(fmt.Sprint("guess number ", i))
		if i <= shareGuesses {
			res.Expect(401)
			continue
		}
		res.Expect(429)
		if ra := res.Header.Get("Retry-After"); ra != "900" || !contains(res, "Too many wrong passwords for this link.") {
			t.Fatalf("answer %d: Retry-After %q, %s", i, ra, res.Body)
		}
	}
	// The right password too, or the lock would not stop a guesser.
	answer("open sesame").Expect(429)
	// The form says so before anyone types an answer into it.
	if form, _ := visitorAt(t, two, "198.51.100.240", path); !contains(form.Do("GET", path, nil).Expect(200), "too many wrong passwords. It takes answers again at ") {
		t.Fatal("the password form of a locked link does not say it is locked")
	}
	clock.advance(10 * time.Minute)
	if ra := answer("open sesame").Expect(429).Header.Get("Retry-After"); ra != "300" {
		t.Fatalf("Retry-After %q, want the 300 seconds left of the window", ra)
	}
	// A client that does not ask for pages gets the JSON envelope.
	c, tok := visitorAt(t, two, "198.51.100.250", path)
	c.Header.Set("Accept", "application/json")
	res := c.PostForm(path, "form_token", tok, "password", "open sesame").Expect(429)
	if env := res.A(); env.Code != 42900 || res.Header.Get("Retry-After") != "300" {
		t.Fatalf("JSON 429: %+v %v", env, res.Header)
	}
	// The owner sees why in the console.
	page := one.consoleAs("alice", testPassword).Do("GET", "/console/files/"+u.ID, nil).Expect(200)
	if !contains(page, "too many wrong passwords: locked until <time") {
		t.Fatalf("the file page does not show the lock: %s", page.Body)
	}
	// A visitor who had the cookie before still sees the page: only the
	// form is closed.
	if _, err := one.db.Exec(t.Context(), "UPDATE shares SET guesses = 0"); err != nil {
		t.Fatal(err)
	}
	early, tok := visitorAt(t, one, "192.0.2.1", path)
	early.PostForm(path, "form_token", tok, "password", "open sesame").Expect(303)
	if _, err := one.db.Exec(t.Context(), "UPDATE shares SET guesses = $1", shareGuesses); err != nil {
		t.Fatal(err)
	}
	answer("open sesame").Expect(429)
	early.Do("GET", path, nil).Expect(200)

	// After the window the right password opens the link; a right answer
	// gives its count back, so those who know the password never close it.
	clock.advance(5 * time.Minute)
	answer("open sesame").Expect(303)
	for i := 1; i < shareGuesses; i++ {
		answer(fmt.Sprint("again ", i)).Expect(401)
	}
	for range 5 {
		answer("open sesame").Expect(303)
	}
	answer("the last wrong one").Expect(401)
	answer("open sesame").Expect(429)
	if page := one.consoleAs("alice", testPassword).Do("GET", "/console/files/"+u.ID, nil); !contains(page, "locked until") {
		t.Fatalf("the file page does not show the lock: %s", page.Body)
	}
}

func TestConcurrentShareGuessesCheckNoMoreThanTheLimit(t *testing.T) {
	cfg := sqlstoreConfig(t)
	dir := t.TempDir()
	one := newTestEnvOn(t, cfg.Open(t), dir)
	two := newTestEnvOn(t, cfg.Open(t), dir)
	_, alice := one.newUser("alice", 0)
	u := mustUpload(t, alice, "secret.png", pngBytes(t, 8, 8))
	path := mustShare(t, alice, u.ID, map[string]any{"password": "open sesame"}).path()

	const guessers = 2 * shareGuesses
	type guesser struct {
		c   *httpxtest.Client
		tok string
	}
	var gs []guesser
	for i := range guessers {
		c, tok := visitorAt(t, []*testEnv{one, two}[i%2], fmt.Sprintf("203.0.113.%d", i+1), path)
		gs = append(gs, guesser{c, tok})
	}
	statuses := make(chan int, guessers)
	var wg sync.WaitGroup
	for i, g := range gs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- g.c.PostForm(path, "form_token", g.tok, "password", fmt.Sprint("wrong ", i)).Status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[401] != shareGuesses || count[429] != guessers-shareGuesses {
		t.Fatalf("of %d wrong answers at once: %v, want exactly %d checked (401) and the rest 429", guessers, count, shareGuesses)
	}
}

// A share link that has expired says so, and when, to a browser and to
// JSON clients alike, with the 404 the spec gives every dead link; one
// whose views are spent says that; a revoked link, one whose file was
// deleted and an unknown token stay "not found".
func TestClosedShareLinksSayWhy(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 3, 3))
	end := clock.now().Add(time.Hour).UTC().Truncate(time.Second)
	expired := mustShare(t, alice, u.ID, map[string]any{"expires_at": end.Format(time.RFC3339), "password": "open sesame"})
	usedUp := mustShare(t, alice, u.ID, map[string]any{"max_views": 1})
	revoked := mustShare(t, alice, u.ID, nil)
	alice.Do("DELETE", "/api/v1/files/"+u.ID+"/shares/"+revoked.ID, nil).Expect(200)
	v := mustUpload(t, alice, "b.png", pngBytes(t, 4, 3))
	gone := mustShare(t, alice, v.ID, nil)
	alice.Do("DELETE", "/api/v1/files/"+v.ID, nil).Expect(200)
	browser(e.c).Do("GET", usedUp.path(), nil).Expect(200)
	clock.advance(time.Hour)

	said := "This share link expired on " + end.Format("2 January 2006 at 15:04") + " UTC."
	tests := []struct {
		name, method, path string
		title, page, api   string
	}{
		{"expired, its page", "GET", expired.path(), "Link expired", said, "share link expired at " + end.Format(time.RFC3339)},
		{"expired, its password form's answer", "POST", expired.path(), "Link expired", said, "share link expired at " + end.Format(time.RFC3339)},
		{"used up", "GET", usedUp.path(), "Link used up", "opened as many times as it allows", "share link has no views left"},
		{"revoked", "GET", revoked.path(), "Not found", "There is nothing at this address.", "resource not found"},
		{"its file deleted", "GET", gone.path(), "Not found", "There is nothing at this address.", "resource not found"},
		{"unknown", "GET", "/s/" + strings.Repeat("C", 32), "Not found", "There is nothing at this address.", "resource not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := browser(e.c).Do(tt.method, tt.path, nil).Expect(404)
			if !contains(page, "<h1>"+tt.title+"</h1>", tt.page) || page.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("browser: %v %s", page.Header, page.Body)
			}
			if tt.title != "Link expired" && contains(page, "expired on") {
				t.Errorf("says expired: %s", page.Body)
			}
			c := e.c.Clone()
			c.Header.Set("Accept", "application/json")
			res := c.Do(tt.method, tt.path, nil).Expect(404)
			if env := res.A(); env.Code != 40400 || env.Message != tt.api {
				t.Errorf("JSON: %+v", env)
			}
		})
	}
}
