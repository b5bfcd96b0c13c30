package filehost

import (
	"bytes"
	"context"
	"html"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"folio/auth"
	"folio/httpx/httpxtest"
)

// formAction finds the upload form's target on the upload page.
var formAction = regexp.MustCompile(`id="upload-form"[^>]*action="([^"]+)"`)

// uploadAction loads an upload page and returns its form's target, the
// form token in its query string.
func uploadAction(t *testing.T, b *httpxtest.Client, path string) string {
	t.Helper()
	res := b.Do("GET", path, nil).Expect(200)
	m := formAction.FindSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no upload form on %s: %.300s", path, res.Body)
	}
	return html.UnescapeString(string(m[1]))
}

// formFile is one file part of a form.
type formFile struct {
	name    string
	content []byte
}

// postFiles sends a multipart form as a browser does: fields first, then
// the files, from origin (the server's own when empty).
func postFiles(t *testing.T, b *httpxtest.Client, path, origin string, files []formFile, fields ...string) *httpxtest.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = mw.WriteField(fields[i], fields[i+1])
	}
	for _, f := range files {
		fw, err := mw.CreateFormFile("file", f.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(f.content)
	}
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, b.Base+path, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if origin == "" {
		origin = b.Base
	}
	req.Header.Set("Origin", origin)
	return b.Send(req)
}

func one(name string, content []byte) []formFile { return []formFile{{name, content}} }

func TestConsoleUploadPageShowsTheFormLimitsAndAlbums(t *testing.T) {
	e := newTestEnv(t)
	uid, b := e.consoleUser("alice")
	e.createAlbum(uid, "Holidays <2024>")
	e.createAlbum(e.createUser("bob", 0), "Bob's album")
	e.setUpload(func(u *UploadSettings) { u.AllowedTypes = List{"image/*", "pdf"} })

	res := b.Do("GET", "/console/upload", nil).Expect(200)
	if csp := res.Header.Get("Content-Security-Policy"); csp != auth.ConsoleCSP {
		t.Fatalf("CSP %q", csp)
	}
	for _, want := range []string{
		"<title>Upload · ",
		`<form id="upload-form"`, `enctype="multipart/form-data"`, `action="/console/upload?form_token=`,
		`<input type="file" id="upload-input" name="file" multiple accept="image/*,.pdf"`,
		`<select id="upload-album" name="album_id">`, `<option value="">No album</option>`,
		"Holidays &lt;2024&gt;",
		`<select id="upload-visibility" name="visibility">`, `<option value="unlisted" selected>Unlisted: anyone with the link</option>`,
		`<option value="restricted">Restricted: only you, and your share links</option>`,
		`<div id="dropzone"`, `<ul id="upload-queue"`, `data-endpoint="/api/v1/upload"`,
		"Up to 100 MiB a file", "Allowed types: image/*, pdf.", ".php", `<li id="upload-quota" data-used="0" data-quota="0">You use 0 B, with no quota, in 0 files.</li>`,
		`<select id="upload-format" name="format" form="upload-form">`, `<option value="url" selected>URL</option>`,
		`<option value="thumbnail">Thumbnail URL</option>`, `<button type="button" id="copy-all" class="secondary" hidden>Copy all</button>`,
		`<p id="copy-status" class="upload-copy-status" role="status"></p>`,
		`src="/console/static/upload.`,
	} {
		if !contains(res, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if contains(res, "Bob&#39;s album") || contains(res, "style=") {
		t.Error("page shows another user's album or an inline style")
	}
}

func TestConsoleUploadPageNeedsASession(t *testing.T) {
	e := newTestEnv(t)
	res := e.c.Clone().Do("GET", "/console/upload", nil).Expect(303)
	if loc := res.Location(); loc != "/console/login?next=%2Fconsole%2Fupload" {
		t.Fatalf("Location %q", loc)
	}
	// A Bearer token is no console session.
	_, api := e.newUser("alice", 0)
	api.Do("GET", "/console/upload", nil).Expect(303)
}

func TestConsoleUploadWithoutJavaScriptStoresTheFiles(t *testing.T) {
	e := newTestEnv(t)
	uid, b := e.consoleUser("alice")
	album := e.createAlbum(uid, "trip")
	action := uploadAction(t, b, "/console/upload")

	res := postFiles(t, b, action, "", []formFile{{"a b.png", pngBytes(t, 3, 3)}, {"notes.txt", []byte("hello")}},
		"album_id", album, "visibility", "public", "format", "markdown").Expect(200)
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1 AND album_id = $2 AND visibility = 'public' AND is_public", uid, album); n != 2 {
		t.Fatalf("%d public files in the album, want 2", n)
	}
	var hash string
	if err := e.db.QueryRow(context.Background(), `SELECT o.hash FROM files f JOIN objects o ON o.id = f.object_id
		WHERE f.user_id = $1 AND f.origin_name = 'a b.png'`, uid).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	url := b.Base + "/i/" + hash
	for _, want := range []string{
		// One compact row a file: every format's link for the script,
		// the chosen one in the field.
		`<li class="upload-item" data-state="done" data-url="` + url + `" data-markdown="![a b.png](` + url + `)"`,
		`data-bbcode="[img]` + url + `[/img]" data-thumbnail="` + b.Base + "/t/" + hash + `">`,
		`<span class="upload-thumb"><img src="/t/` + hash + `" alt="" width="48" height="48"></span>`,
		`<p class="upload-name">a b.png</p>`, `<p class="upload-size">`,
		`<input id="r0-link" type="text" readonly value="![a b.png](` + url + `)" data-format="markdown" aria-label="Markdown of a b.png">`,
		`<button type="button" data-copy="r0-link">Copy</button>`,
		`data-copy="r1-link"`, `<span class="upload-badge">TXT</span>`,
		// The format posted stays chosen, and the links are there as text.
		`<select id="upload-format" name="format" form="upload-form" data-posted="1">`, `<option value="markdown" selected>Markdown</option>`,
		`<textarea id="upload-all-text" readonly rows="4">![a b.png](` + url + ")\n![notes.txt](",
		`in 2 files.`,
		// The choices stay selected for the next form.
		`<option value="` + album + `" selected>trip</option>`, `<option value="public" selected>Public: listed in the plaza</option>`,
	} {
		if !contains(res, want) {
			t.Errorf("answer lacks %q", want)
		}
	}
	if !contains(res, `data-thumbnail="">`) {
		t.Error("a text file has a thumbnail link")
	}
	if used, n := e.usage(uid); n != 2 || used == 0 {
		t.Fatalf("usage %d/%d", used, n)
	}
}

func TestConsoleUploadFormRefusals(t *testing.T) {
	e := newTestEnv(t)
	uid, b := e.consoleUser("alice")
	_, small := e.consoleUser("small")
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET quota_bytes = 100 WHERE username = 'small'"); err != nil {
		t.Fatal(err)
	}
	bobAlbum := e.createAlbum(e.createUser("bob", 0), "bob's")
	e.setUpload(func(u *UploadSettings) { u.MaxFileSize = 4096 })
	action := uploadAction(t, b, "/console/upload")
	png := pngBytes(t, 2, 2)

	tests := []struct {
		name   string
		do     func() *httpxtest.Response
		status int
		want   []string
	}{
		{"no form token", func() *httpxtest.Response {
			return postFiles(t, b, "/console/upload", "", one("a.png", png))
		}, 403, []string{"another site or has expired"}},
		{"a wrong form token", func() *httpxtest.Response {
			return postFiles(t, b, "/console/upload?form_token=forged", "", one("a.png", png))
		}, 403, nil},
		{"another user's form token", func() *httpxtest.Response {
			return postFiles(t, small, action, "", one("a.png", png))
		}, 403, nil},
		{"from another origin", func() *httpxtest.Response {
			return postFiles(t, b, action, "https://evil.example", one("a.png", png))
		}, 403, nil},
		{"larger than max_file_size", func() *httpxtest.Response {
			return postFiles(t, b, action, "", one("big.bin", bytes.Repeat([]byte{1}, 5000)))
		}, 413, []string{`data-state="error"`, `<p class="upload-error" role="alert">Over the 4 KiB limit for one file.</p>`, "big.bin"}},
		{"forbidden type", func() *httpxtest.Response {
			return postFiles(t, b, action, "", one("run.exe", []byte("MZ")))
		}, 415, []string{`<p class="upload-error" role="alert">File type not allowed: .exe. Never taken: .php, .phtml, .exe,`, "run.exe"}},
		{"no file", func() *httpxtest.Response {
			return postFiles(t, b, action, "", nil, "permission", "0")
		}, 400, []string{`<p class="error" role="alert">File is required.</p>`}},
		{"another user's album", func() *httpxtest.Response {
			return postFiles(t, b, action, "", one("a.png", png), "album_id", bobAlbum)
		}, 400, []string{"Album_id is not one of your albums."}},
		{"a bad permission", func() *httpxtest.Response {
			return postFiles(t, b, action, "", one("a.png", png), "permission", "yes")
		}, 400, []string{"Permission must be 0 or 1."}},
		{"not multipart", func() *httpxtest.Response {
			return b.PostForm(action, "permission", "1")
		}, 403, nil}, // the token of a url-encoded form is a field
		{"quota full", func() *httpxtest.Response {
			return postFiles(t, small, uploadAction(t, small, "/console/upload"), "", one("a.bin", bytes.Repeat([]byte{7}, 101)))
		}, 507, []string{"Not enough room: 100 B of your 100 B is left, and this file is 101 B."}},
		{"an empty file", func() *httpxtest.Response {
			return postFiles(t, b, action, "", one("empty.png", nil))
		}, 400, []string{`<p class="upload-error" role="alert">Empty file (0 bytes): nothing to upload.</p>`, "empty.png"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.do()
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %.500s", res.Status, tc.status, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Fatalf("content type %q", ct)
			}
			if res.Header.Get("Content-Security-Policy") == "" {
				t.Fatal("no CSP")
			}
			for _, w := range tc.want {
				if !contains(res, w) {
					t.Errorf("answer lacks %q: %.2000s", w, res.Body)
				}
			}
		})
	}
	if n := e.count("SELECT COUNT(*) FROM files"); n != 0 {
		t.Fatalf("%d files stored by refused forms", n)
	}
	if left := e.tempFiles(); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
	_ = uid
}

func TestConsoleUploadFormKeepsWhatWasStoredBeforeAnError(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	if _, err := e.db.Exec(context.Background(), "UPDATE users SET quota_bytes = 150 WHERE username = 'alice'"); err != nil {
		t.Fatal(err)
	}
	res := postFiles(t, b, uploadAction(t, b, "/console/upload"), "",
		[]formFile{{"first.bin", bytes.Repeat([]byte{1}, 100)}, {"second.bin", bytes.Repeat([]byte{2}, 100)}}).Expect(507)
	if !contains(res, `data-state="done"`, "first.bin", `data-format="url"`, `data-state="error"`, "second.bin", "Not enough room: 50 B of your 150 B is left, and this file is 100 B.", "in 1 file.",
		"Only the files shown as uploaded below were stored") {
		t.Fatalf("answer: %.3000s", res.Body)
	}
	if n := e.count("SELECT COUNT(*) FROM files"); n != 1 {
		t.Fatalf("%d files stored, want 1", n)
	}
}

func TestConsoleUploadFormStoresNothingWhenAFileIsRefused(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	res := postFiles(t, b, uploadAction(t, b, "/console/upload"), "",
		[]formFile{{"a.png", pngBytes(t, 2, 2)}, {"run.exe", []byte("MZ")}, {"c.png", pngBytes(t, 3, 3)}}).Expect(415)
	if !contains(res, "Only the files shown as uploaded below were stored", "File type not allowed: .exe.") {
		t.Fatalf("answer: %.3000s", res.Body)
	}
	if contains(res, `data-state="done"`) {
		t.Fatal("a card for a file not stored")
	}
	if n := e.count("SELECT COUNT(*) FROM files"); n != 0 {
		t.Fatalf("%d files stored, want 0", n)
	}
	if left := e.tempFiles(); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestConsoleUploadFormTakesAtMostTwentyFiles(t *testing.T) {
	e := newTestEnv(t)
	uid, b := e.consoleUser("alice")
	var files []formFile
	for i := 0; i < consoleMaxFiles+2; i++ {
		files = append(files, formFile{"f" + itoa(i) + ".txt", []byte("file " + itoa(i))})
	}
	res := postFiles(t, b, uploadAction(t, b, "/console/upload"), "", files).Expect(200)
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", uid); n != consoleMaxFiles {
		t.Fatalf("%d files stored, want %d", n, consoleMaxFiles)
	}
	if !contains(res, "2 more files were not uploaded") {
		t.Fatalf("answer does not say files were left out: %.500s", res.Body)
	}
}

// The page's script sends each file to the API with the session cookie.
func TestUploadAPITakesTheConsoleSession(t *testing.T) {
	e := newTestEnv(t)
	uid, b := e.consoleUser("alice")
	res := postFiles(t, b, "/api/v1/upload", "", one("a.png", pngBytes(t, 2, 2)), "permission", "0")
	if env := res.Expect(200).U(); !env.Status {
		t.Fatalf("upload: %+v", env)
	}
	postFiles(t, b, "/api/v1/upload", "https://evil.example", one("b.png", pngBytes(t, 2, 3))).Expect(403)
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", uid); n != 1 {
		t.Fatalf("%d files", n)
	}
}

func TestGuestUploadPageFollowsTheSetting(t *testing.T) {
	e := newTestEnv(t)
	guest := e.c.Clone()
	for _, method := range []string{"GET", "POST"} {
		res := guest.Do(method, "/upload", nil)
		if res.Status != 404 || !contains(res, "Page not found") || res.Header.Get("Content-Security-Policy") == "" {
			t.Fatalf("%s /upload while off: %d %.300s", method, res.Status, res.Body)
		}
	}

	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = true; u.MaxFileSize = 2 << 20 })
	res := guest.Do("GET", "/upload", nil).Expect(200)
	for _, want := range []string{
		"<title>Guest upload · ", "Upload as a guest", "Uploading as a guest",
		`action="/upload?form_token=`, `data-endpoint="/api/v1/public/upload"`,
		"Up to 2 MiB a file, 10 files a minute from one address.", `id="upload-input"`, `id="dropzone"`,
	} {
		if !contains(res, want) {
			t.Errorf("guest page lacks %q", want)
		}
	}
	if res.Header.Get("Content-Security-Policy") != auth.ConsoleCSP {
		t.Error("no CSP")
	}
	if contains(res, "You use") {
		t.Error("the guest page shows a quota")
	}
}

func TestGuestUploadWithoutJavaScript(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = true })
	guest := e.c.Clone()
	action := uploadAction(t, guest, "/upload")
	png := pngBytes(t, 4, 4)

	res := postFiles(t, guest, action, "", []formFile{{"cat.png", png}, {"dog.png", pngBytes(t, 5, 5)}}).Expect(200)
	if !contains(res, `data-format="url"`, `data-markdown="![cat.png](`, "1 more file was not uploaded") {
		t.Fatalf("answer: %.2000s", res.Body)
	}
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", e.auth.GuestID()); n != 1 {
		t.Fatalf("guest owns %d files, want 1", n)
	}

	// Refused: no token, another browser's token, another origin.
	postFiles(t, guest, "/upload", "", one("a.png", png)).Expect(403)
	postFiles(t, e.c.Clone(), action, "", one("a.png", png)).Expect(403)
	postFiles(t, guest, action, "https://evil.example", one("a.png", png)).Expect(403)

	// The form spends the allowance of the guest endpoint: 10 a minute.
	for i := 1; i < guestPerMinute; i++ {
		postFiles(t, guest, action, "", one("n.png", pngBytes(t, 6, 6+i))).Expect(200)
	}
	res = postFiles(t, guest, action, "", one("late.png", png)).Expect(429)
	if res.Header.Get("Retry-After") == "" || !contains(res, "Too many uploads") {
		t.Fatalf("429: %v %.300s", res.Header, res.Body)
	}
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", e.auth.GuestID()); n != guestPerMinute {
		t.Fatalf("guest owns %d files, want %d", n, guestPerMinute)
	}

	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = false })
	postFiles(t, guest, action, "", one("a.png", png)).Expect(404)
}

func TestAcceptListHintsTheAllowedTypes(t *testing.T) {
	tests := []struct {
		allowed List
		want    string
	}{
		{List{}, ""},
		{List{"image/*"}, "image/*"},
		{List{"image/png", "pdf", "txt"}, "image/png,.pdf,.txt"},
	}
	for _, tc := range tests {
		if got := acceptList(tc.allowed); got != tc.want {
			t.Errorf("acceptList(%v) = %q, want %q", tc.allowed, got, tc.want)
		}
	}
}

func TestUploadPageScriptAndStylesAreServed(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	page := b.Do("GET", "/console/upload", nil).Expect(200)
	m := regexp.MustCompile(`src="(/console/static/upload\.[0-9a-f]+\.js)"`).FindSubmatch(page.Body)
	if m == nil {
		t.Fatal("no upload.js on the page")
	}
	js := b.Do("GET", string(m[1]), nil).Expect(200)
	if !strings.Contains(string(js.Body), `addEventListener("paste"`) {
		t.Fatal("upload.js does not listen for paste")
	}
	css, ok := e.svc.console.Templates().AssetURL("console.css")
	if !ok {
		t.Fatal("no console.css")
	}
	if !contains(b.Do("GET", css, nil).Expect(200), ".dropzone") {
		t.Fatal("the bundle lacks upload.css")
	}
}

func TestUploadPageOffersResumableUploadsToAccountsOnly(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("alice")
	page := b.Do("GET", "/console/upload", nil).Expect(200)
	for _, want := range []string{
		`data-tus-endpoint="/api/v1/tus/"`, `data-tus-threshold="16777216"`, `data-tus-chunk="8388608"`,
		`data-user="` + id + `"`,
	} {
		if !contains(page, want) {
			t.Errorf("the user's page lacks %q", want)
		}
	}
	m := regexp.MustCompile(`src="(/console/static/tus\.[0-9a-f]+\.js)"`).FindSubmatch(page.Body)
	if m == nil {
		t.Fatal("no tus.js on the page")
	}
	if js := b.Do("GET", string(m[1]), nil).Expect(200); !contains(js, `"Upload-Offset"`) {
		t.Error("tus.js does not send Upload-Offset")
	}

	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = true })
	if guest := e.c.Clone().Do("GET", "/upload", nil).Expect(200); contains(guest, "data-tus-endpoint") || contains(guest, "data-user=") {
		t.Error("the guest page offers resumable uploads")
	}
}
