package filehost

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/auth"
	"folio/httpx/httpxtest"
)

var (
	tokenValueField = regexp.MustCompile(`id="token-value" type="text" readonly value="([^"]+)"`)
	revokeAction    = regexp.MustCompile(`action="/console/tokens/([0-9a-f-]+)/revoke"`)
	onceField       = regexp.MustCompile(`<input type="hidden" name="once" value="([A-Za-z0-9_-]{22})">`)
	preBlock        = func(id string) *regexp.Regexp { return regexp.MustCompile(`(?s)<pre id="` + id + `">(.*?)</pre>`) }
)

// createConsoleToken creates a token through the console's form and returns
// the page that shows it and its value.
func createConsoleToken(t *testing.T, b *httpxtest.Client, name string) (*httpxtest.Response, string) {
	t.Helper()
	page := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	return sendTokenForm(t, b, page.FormToken(), formOnce(t, page), name)
}

// formOnce is the one-time value of the tokens page's create form.
func formOnce(t *testing.T, page *httpxtest.Response) string {
	t.Helper()
	m := onceField.FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("the create form has no one-time value: %.500s", page.Body)
	}
	return string(m[1])
}

// sendTokenForm sends the create form and returns the page that shows the
// token and its value.
func sendTokenForm(t *testing.T, b *httpxtest.Client, formToken, once, name string) (*httpxtest.Response, string) {
	t.Helper()
	res := b.PostForm("/console/tokens", "form_token", formToken, "once", once, "name", name, "expires_at", "")
	res.Expect(http.StatusOK)
	m := tokenValueField.FindSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no token value on the created page: %.500s", res.Body)
	}
	return res, html.UnescapeString(string(m[1]))
}

// tokenFormFrom posts a url-encoded form with the given Origin header.
func tokenFormFrom(b *httpxtest.Client, origin, path string, form url.Values) *httpxtest.Response {
	b.T.Helper()
	req, err := http.NewRequest(http.MethodPost, b.Base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	return b.Send(req)
}

// bearerUpload uploads a PNG with an Authorization header.
func bearerUpload(t *testing.T, e *testEnv, tok string) *httpxtest.Response {
	t.Helper()
	c := e.c.Clone()
	c.Header.Set("Authorization", "Bearer "+tok)
	return c.Upload("/api/v1/upload", "file", "photo.png", pngBytes(t, 8, 8))
}

func TestConsoleTokenIsShownOnceWorksAndStopsWhenRevoked(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")

	list := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	if list.Header.Get("Content-Security-Policy") != auth.ConsoleCSP {
		t.Fatalf("tokens page CSP = %q", list.Header.Get("Content-Security-Policy"))
	}
	if !contains(list, `<form id="token-create" method="post" action="/console/tokens">`, `id="token-name"`, `id="token-expires"`,
		"You have no API tokens yet.", `<pre id="picgo-config">`, `<pre id="curl-example">`, placeholderToken) {
		t.Fatalf("tokens page lacks its parts: %s", list.Body)
	}

	created, tok := createConsoleToken(t, b, "ShareX laptop")
	if created.Header.Get("Content-Security-Policy") != auth.ConsoleCSP || created.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("created page headers: %v", created.Header)
	}
	if !strings.HasPrefix(tok, auth.APITokenPrefix) {
		t.Fatalf("token value %q lacks the prefix", tok)
	}
	if created.Header.Get("Set-Cookie") != "" && strings.Contains(created.Header.Get("Set-Cookie"), tok) {
		t.Fatal("the token travelled in a cookie")
	}
	base := e.c.Base
	curl := `curl -H "Authorization: Bearer ` + tok + `" -F "file=@photo.jpg" ` + base + "/api/v1/upload"
	if !contains(created, `id="token-created"`, "shown only this once", `<form id="download-sxcu" method="post" action="/console/tokens/sxcu" data-download>`,
		`name="token" value="`+tok+`"`, html.EscapeString(curl)) {
		t.Fatalf("created page lacks its parts: %s", created.Body)
	}
	m := preBlock("picgo-config").FindSubmatch(created.Body)
	if m == nil {
		t.Fatalf("no PicGo block: %s", created.Body)
	}
	var picgo struct {
		PicBed struct {
			Uploader string
			Lankong  map[string]any
		}
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &picgo); err != nil {
		t.Fatalf("PicGo block is not JSON: %v: %s", err, m[1])
	}
	if l := picgo.PicBed.Lankong; picgo.PicBed.Uploader != "lankong" || l["server"] != base || l["token"] != "Bearer "+tok || l["lskyProVersion"] != "V2" {
		t.Fatalf("PicGo block = %+v", picgo)
	}

	list = b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	if strings.Contains(string(list.Body), tok) {
		t.Fatal("the tokens page shows a token's value")
	}
	if !contains(list, `<table id="tokens-table" class="cards">`, `<tr data-token="ShareX laptop">`, "Not yet", "Never") {
		t.Fatalf("tokens table: %s", list.Body)
	}

	if u := bearerUpload(t, e, tok).Expect(http.StatusOK).U(); !u.Status {
		t.Fatalf("upload with the token: %+v", u)
	}
	if !contains(b.Do("GET", "/console/tokens", nil), `<tr data-token="ShareX laptop">`) ||
		contains(b.Do("GET", "/console/tokens", nil), "Not yet") {
		t.Fatal("last use is not shown after the token was used")
	}

	id := revokeAction.FindSubmatch(list.Body)
	if id == nil {
		t.Fatalf("no revoke form: %s", list.Body)
	}
	res := b.PostForm("/console/tokens/"+string(id[1])+"/revoke", "form_token", list.FormToken()).Expect(http.StatusSeeOther)
	if res.Location() != "/console/tokens" {
		t.Fatalf("revoke went to %q", res.Location())
	}
	after := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	if !contains(after, "Token revoked.", "You have no API tokens yet.") {
		t.Fatalf("after revoke: %s", after.Body)
	}
	bearerUpload(t, e, tok).Expect(http.StatusUnauthorized)
	// Revoking twice finds nothing.
	b.PostForm("/console/tokens/"+string(id[1])+"/revoke", "form_token", list.FormToken()).Expect(http.StatusNotFound)
}

// A create form that arrives twice (a double click that slipped past the
// script, a reload of the answer) makes one token and shows it both times;
// too late, or after a revocation, it makes none and says so.
func TestConsoleTokenFormSentTwiceMakesOneToken(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("tess")
	page := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	tok, once := page.FormToken(), formOnce(t, page)
	rows := func() int {
		return strings.Count(string(b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK).Body), `<tr data-token=`)
	}

	first, value := sendTokenForm(t, b, tok, once, "Double click")
	again, valueAgain := sendTokenForm(t, b, tok, once, "Double click")
	if value != valueAgain {
		t.Fatalf("the form sent twice showed two values: %q and %q", value, valueAgain)
	}
	if contains(first, `id="token-repeated"`) || !contains(again, `id="token-repeated"`, "it made this one token") {
		t.Errorf("the repeat is not said, or said the first time: %s", again.Body)
	}
	if n := rows(); n != 1 {
		t.Fatalf("%d tokens listed after one form sent twice, want 1", n)
	}
	bearerUpload(t, e, value).Expect(http.StatusOK)

	// Two at the same moment: still one token, the same value shown.
	next := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	if formOnce(t, next) == once {
		t.Fatal("the page offers the same one-time value again")
	}
	var wg sync.WaitGroup
	values := make([]string, 2)
	for i := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := b.PostForm("/console/tokens", "form_token", next.FormToken(), "once", formOnce(t, next), "name", "Racing", "expires_at", "")
			if m := tokenValueField.FindSubmatch(res.Body); res.Status == http.StatusOK && m != nil {
				values[i] = string(m[1])
			}
		}()
	}
	wg.Wait()
	if values[0] == "" || values[0] != values[1] {
		t.Fatalf("two forms at once showed %q", values)
	}
	if n := rows(); n != 2 {
		t.Fatalf("%d tokens listed, want 2", n)
	}

	// Past the window the form is refused, and makes nothing.
	if _, err := e.db.Exec(context.Background(), "UPDATE api_tokens SET created_at = created_at - $1",
		(auth.APITokenRepeatWindow + time.Minute).Microseconds()); err != nil {
		t.Fatal(err)
	}
	late := b.PostForm("/console/tokens", "form_token", tok, "once", once, "name", "Double click", "expires_at", "").Expect(http.StatusConflict)
	if !contains(late, "This form was already sent: it made the token “Double click”") || tokenValueField.Match(late.Body) {
		t.Errorf("a late repeat: %s", late.Body)
	}
	// A one-time value of another shape than the server makes is refused.
	b.PostForm("/console/tokens", "form_token", tok, "once", "not-a-once", "name", "Forged", "expires_at", "").Expect(http.StatusConflict)
	if n := rows(); n != 2 {
		t.Fatalf("%d tokens listed after refused repeats, want 2", n)
	}
}

func TestConsoleTokenExpiryIsReadAsUTC(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("alice")
	res := b.PostForm("/console/tokens", "form_token", pageToken(b, "/console/tokens"), "name", "yearly", "expires_at", "2099-01-31T12:30")
	res.Expect(http.StatusOK)
	toks, _, err := e.auth.ListAPITokens(context.Background(), id, 10, 0)
	if err != nil || len(toks) != 1 || toks[0].ExpiresAt == nil {
		t.Fatalf("tokens = %+v, %v", toks, err)
	}
	if want := time.Date(2099, 1, 31, 12, 30, 0, 0, time.UTC); !toks[0].ExpiresAt.Equal(want) {
		t.Fatalf("expiry = %v, want %v", toks[0].ExpiresAt, want)
	}
	if !contains(b.Do("GET", "/console/tokens", nil), "2099-01-31 12:30 UTC") {
		t.Fatal("the expiry is not listed in UTC")
	}
}

func TestConsoleTokenFormRefusesBadInputAndKeepsIt(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("alice")
	past := e.svc.now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	tests := []struct {
		name, tokenName, expires, problem string
	}{
		{"empty name", "   ", "", "Give the token a name"},
		{"name too long", strings.Repeat("n", 101), "", "Give the token a name"},
		{"past expiry", "old", past, "The expiry must be in the future"},
		{"expiry that is no time", "odd", "next tuesday", "Enter the expiry as a date and time"},
		{"expiry with a bad day", "odd", "2099-02-30T10:00", "Enter the expiry as a date and time"},
		{"markup in the name is kept as text", "<b>\"x\"</b>" + strings.Repeat("n", 100), "", "Give the token a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := b.PostForm("/console/tokens", "form_token", pageToken(b, "/console/tokens"), "name", tt.tokenName, "expires_at", tt.expires)
			res.Expect(http.StatusUnprocessableEntity)
			if !contains(res, tt.problem, `value="`+html.EscapeString(tt.tokenName)+`"`, `value="`+html.EscapeString(tt.expires)+`"`, `id="token-create"`) {
				t.Fatalf("the refused form does not say why or keep the input: %s", res.Body)
			}
			if strings.Contains(string(res.Body), `id="token-value"`) {
				t.Fatal("a refused form showed a token")
			}
		})
	}
	t.Run("a NUL in the name", func(t *testing.T) {
		b.PostForm("/console/tokens", "form_token", pageToken(b, "/console/tokens"), "name", "a\x00b").Expect(http.StatusUnprocessableEntity)
	})
	if toks, total, err := e.auth.ListAPITokens(context.Background(), id, 10, 0); err != nil || total != 0 {
		t.Fatalf("refused forms made tokens: %+v %v", toks, err)
	}
}

func TestConsoleTokenFormsNeedTheFormTokenAndOurOrigin(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("alice")
	tok, err := e.auth.CreateAPIToken(context.Background(), id, "kept", nil)
	if err != nil {
		t.Fatal(err)
	}
	ft := pageToken(b, "/console/tokens")
	forms := []struct {
		path string
		form url.Values
	}{
		{"/console/tokens", url.Values{"name": {"sneaky"}}},
		{"/console/tokens/sxcu", url.Values{"token": {tok.Token}}},
		{"/console/tokens/" + tok.ID + "/revoke", url.Values{}},
	}
	for _, f := range forms {
		t.Run(f.path, func(t *testing.T) {
			if res := tokenFormFrom(b, e.c.Base, f.path, f.form); res.Status != http.StatusForbidden {
				t.Fatalf("without a form token: %d", res.Status)
			}
			withToken := url.Values{"form_token": {ft}}
			for k, v := range f.form {
				withToken[k] = v
			}
			if res := tokenFormFrom(b, "https://evil.example", f.path, withToken); res.Status != http.StatusForbidden {
				t.Fatalf("from another origin: %d", res.Status)
			}
			anon := e.c.Clone()
			if res := tokenFormFrom(anon, e.c.Base, f.path, withToken); res.Status != http.StatusSeeOther ||
				!strings.HasPrefix(res.Location(), "/console/login") {
				t.Fatalf("without a session: %d %q", res.Status, res.Location())
			}
		})
	}
	// A Bearer token does not open the console.
	api := e.c.Clone()
	api.Header.Set("Authorization", "Bearer "+tok.Token)
	if res := api.Do("GET", "/console/tokens", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("tokens page with a Bearer token: %d", res.Status)
	}
	if toks, total, err := e.auth.ListAPITokens(context.Background(), id, 10, 0); err != nil || total != 1 {
		t.Fatalf("refused forms changed the tokens: %+v %v", toks, err)
	}
}

func TestRevokingAnotherUsersTokenIsNotFound(t *testing.T) {
	e := newTestEnv(t)
	aliceID, _ := e.consoleUser("alice")
	_, bob := e.consoleUser("bob")
	tok, err := e.auth.CreateAPIToken(context.Background(), aliceID, "alice's", nil)
	if err != nil {
		t.Fatal(err)
	}
	ft := pageToken(bob, "/console/tokens")
	for _, id := range []string{tok.ID, "not-an-id", "00000000-0000-7000-8000-000000000000"} {
		res := bob.PostForm("/console/tokens/"+id+"/revoke", "form_token", ft)
		if res.Status != http.StatusNotFound || !contains(res, "There is no such token.") {
			t.Fatalf("revoke %s as bob: %d %.300s", id, res.Status, res.Body)
		}
	}
	if strings.Contains(string(bob.Do("GET", "/console/tokens", nil).Body), "alice&#39;s") {
		t.Fatal("bob's page lists alice's token")
	}
	bearerUpload(t, e, tok.Token).Expect(http.StatusOK)
}

func TestShareXUploaderMatchesTheUploadAnswer(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	created, tok := createConsoleToken(t, b, "ShareX")
	res := b.PostForm("/console/tokens/sxcu", "form_token", created.FormToken(), "token", tok).Expect(http.StatusOK)
	host := strings.TrimPrefix(e.c.Base, "http://")
	wantName := strings.ReplaceAll(host, ":", "-") + ".sxcu"
	if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename="`+wantName+`"` {
		t.Fatalf("Content-Disposition = %q", cd)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q", ct)
	}
	var sx struct {
		Version, Name, DestinationType, RequestMethod, RequestURL, Body, FileFormName string
		URL, ThumbnailURL, ErrorMessage                                               string
		Headers                                                                       map[string]string
	}
	if err := json.Unmarshal(res.Body, &sx); err != nil {
		t.Fatalf(".sxcu is not JSON: %v: %s", err, res.Body)
	}
	if sx.RequestURL != e.c.Base+"/api/v1/upload" || sx.Headers["Authorization"] != "Bearer "+tok ||
		sx.RequestMethod != "POST" || sx.Body != "MultipartFormData" || sx.Name != "Folio ("+host+")" {
		t.Fatalf(".sxcu = %+v", sx)
	}

	// Upload as ShareX would and read the answer with the uploader's paths.
	shareX := e.c.Clone()
	for k, v := range sx.Headers {
		shareX.Header.Set(k, v)
	}
	up := shareX.Upload(strings.TrimPrefix(sx.RequestURL, e.c.Base), sx.FileFormName, "shot.png", pngBytes(t, 8, 8)).Expect(http.StatusOK)
	url, thumb := shareXPath(t, up.Body, sx.URL), shareXPath(t, up.Body, sx.ThumbnailURL)
	if !strings.HasPrefix(url, e.c.Base+"/i/") || !strings.HasPrefix(thumb, e.c.Base+"/t/") {
		t.Fatalf("ShareX would read url %q, thumbnail %q", url, thumb)
	}
	shareX.Do("GET", strings.TrimPrefix(url, e.c.Base), nil).Expect(http.StatusOK)
	failed := shareX.Upload("/api/v1/upload", "", "", nil, "permission", "1")
	if failed.Status < 400 || shareXPath(t, failed.Body, sx.ErrorMessage) == "" {
		t.Fatalf("ShareX would read no error message from %d %s", failed.Status, failed.Body)
	}
}

// shareXPath resolves a ShareX "{json:a.b.c}" template against a JSON body.
func shareXPath(t *testing.T, body []byte, tmpl string) string {
	t.Helper()
	path, ok := strings.CutPrefix(tmpl, "{json:")
	if !ok || !strings.HasSuffix(path, "}") {
		t.Fatalf("not a {json:} template: %q", tmpl)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("answer is not JSON: %s", body)
	}
	for _, k := range strings.Split(strings.TrimSuffix(path, "}"), ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: no object at %q in %s", tmpl, k, body)
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

func TestShareXDownloadRefusesWhatIsNotAToken(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	ft := pageToken(b, "/console/tokens")
	for _, junk := range []string{"", "abc", "folio_", "folio_short", "Bearer folio_" + strings.Repeat("a", 40),
		"folio_" + strings.Repeat("a", 39) + "!", "folio_" + strings.Repeat("a", 200), "fa1.user.123.mac"} {
		res := b.PostForm("/console/tokens/sxcu", "form_token", ft, "token", junk)
		if res.Status != http.StatusUnprocessableEntity || res.Header.Get("Content-Disposition") != "" {
			t.Fatalf("sxcu for %q: %d %v", junk, res.Status, res.Header)
		}
	}
}

func TestConsoleTokensArePaged(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("alice")
	for i := 0; i < tokensPageSize+1; i++ {
		if _, err := e.auth.CreateAPIToken(context.Background(), id, "t"+strings.Repeat("x", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	first := b.Do("GET", "/console/tokens", nil).Expect(http.StatusOK)
	if n := strings.Count(string(first.Body), "<tr data-token="); n != tokensPageSize || !contains(first, "Page 1 of 2", `href="/console/tokens?page=2"`) {
		t.Fatalf("first page: %d rows: %s", n, first.Body)
	}
	second := b.Do("GET", "/console/tokens?page=2", nil).Expect(http.StatusOK)
	if n := strings.Count(string(second.Body), "<tr data-token="); n != 1 || !contains(second, `<tr data-token="t">`) {
		t.Fatalf("second page: %d rows: %s", n, second.Body)
	}
	b.Do("GET", "/console/tokens?page=x", nil).Expect(http.StatusBadRequest)
}
