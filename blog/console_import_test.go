package blog_test

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"folio/auth"
	"folio/httpx/httpxtest"
)

// importAction finds the import form's target on the import page: the form
// token rides in its query string.
var importAction = regexp.MustCompile(`id="import-form"[^>]*action="([^"]+)"`)

func (e *env) importAction() string {
	e.t.Helper()
	res, _ := consolePage(e.t, e.admin, "/console/blog/import", 200)
	m := importAction.FindSubmatch(res.Body)
	if m == nil {
		e.t.Fatalf("no import form: %.500s", res.Body)
	}
	return html.UnescapeString(string(m[1]))
}

// reportRow reads one kind's line of the report's table: imported,
// skipped, changed; ok is false when the table has no such line.
func reportRow(res *httpxtest.Response, label string) (counts [3]int, ok bool) {
	re := regexp.MustCompile(`<th scope="row">` + regexp.QuoteMeta(label) + `(?:<small[^<]*</small>)?</th>\s*` +
		`<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>`)
	m := re.FindSubmatch(res.Body)
	if m == nil {
		return counts, false
	}
	for i := range counts {
		counts[i], _ = strconv.Atoi(string(m[i+1]))
	}
	return counts, true
}

// warningItems are the report's warnings, unescaped.
func warningItems(res *httpxtest.Response) []string {
	body := string(res.Body)
	start := strings.Index(body, `<ul id="import-warnings"`)
	if start < 0 {
		return nil
	}
	end := strings.Index(body[start:], "</ul>")
	var out []string
	for _, m := range regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(body[start:start+end], -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func warningNaming(ws []string, item string) bool {
	for _, w := range ws {
		if strings.Contains(w, item) {
			return true
		}
	}
	return false
}

func TestBlogConsoleImportPageShowsTheFormAndTheExport(t *testing.T) {
	e := newConsoleEnv(t)
	res, _ := consolePage(t, e.admin, "/console/blog/import", 200)
	if csp := res.Header.Get("Content-Security-Policy"); csp != auth.ConsoleCSP {
		t.Fatalf("CSP %q", csp)
	}
	if !has(res, "<title>Import and export · ", `<h1>Import and export</h1>`,
		`href="/console/blog/import" aria-current="page">Import and export</a>`,
		`enctype="multipart/form-data" action="/console/blog/import?form_token=`,
		`<input type="file" id="import-file" name="file" required data-max-size="67108864" data-max-size-text="64 MiB"`,
		`<select id="import-format" name="format"`, `<option value="" selected>Recognise from the file</option>`,
		`<option value="folio">`, `<option value="ghost">`, `<option value="wxr">`, `<option value="markdown">`,
		"<dt>Folio</dt>", "<dt>Ghost</dt>", "<dt>WordPress</dt>", "<dt>Hugo</dt>", "<dt>Jekyll</dt>",
		`<input type="checkbox" id="import-media" name="media" value="1"`, "Bring images home",
		`<input type="url" id="import-from" name="from" value=""`, "Old site's address",
		`<a class="button" id="export-download" href="/api/v1/admin/export" download>`) {
		t.Fatalf("import page: %s", res.Body)
	}
	// No inline script or style: the console's CSP would refuse them.
	if has(res, "<script>") || has(res, " style=") || has(res, " onclick=") {
		t.Fatalf("inline script or style: %s", res.Body)
	}
	// The dashboard leads here.
	if dash, _ := consolePage(t, e.admin, "/console/blog", 200); !has(dash, `href="/console/blog/import">Import or export</a>`) {
		t.Fatalf("dashboard: %s", dash.Body)
	}
	// The export button downloads with the console's session.
	exp := e.admin.Do("GET", "/api/v1/admin/export", nil).Expect(200)
	if ct := exp.Header.Get("Content-Type"); ct != "application/zip" || !strings.HasPrefix(string(exp.Body), "PK") {
		t.Fatalf("export: %s %.20q", ct, exp.Body)
	}
}

func TestBlogConsoleImportShowsTheReport(t *testing.T) {
	e := newConsoleSiteEnv(t)
	wxr := readSample(t, "console/wordpress-small.xml")

	res := e.admin.Upload(e.importAction(), "file", "wordpress-small.xml", wxr, "format", "").Expect(200)
	if !has(res, "<title>Import report · ", "<h1>Import report</h1>", "Imported <strong>wordpress-small.xml</strong>, read as a WordPress export (WXR).",
		`href="/console/blog/posts">See the posts</a>`, `href="/console/blog/import">Import another file</a>`) {
		t.Fatalf("report: %s", res.Body)
	}
	for _, tc := range []struct {
		label string
		want  [3]int
	}{{"Posts", [3]int{2, 0, -1}}, {"Pages", [3]int{1, 0, -1}}, {"Tags", [3]int{1, 0, -1}}, {"Comments", [3]int{0, 0, 0}}} {
		got, ok := reportRow(res, tc.label)
		if !ok || got[0] != tc.want[0] || got[1] != tc.want[1] || (tc.want[2] >= 0 && got[2] != tc.want[2]) {
			t.Errorf("%s: %v (found %v), want %v", tc.label, got, ok, tc.want)
		}
	}
	// Redirects and media show only when the import met some.
	if _, ok := reportRow(res, "Redirects"); ok {
		t.Error("a redirects row without redirects")
	}
	if _, ok := reportRow(res, "Media"); ok {
		t.Error("a media row without media")
	}
	ws := warningItems(res)
	if !warningNaming(ws, "notes-to-self") {
		t.Fatalf("warnings do not name the private post: %q", ws)
	}
	// The private post is not public: the site does not show it.
	e.anon.Do("GET", "/posts/notes-to-self", nil).Expect(404)
	e.anon.Do("GET", "/posts/spring-planting", nil).Expect(200)

	// Again: everything is skipped, and says so.
	res = e.admin.Upload(e.importAction(), "file", "wordpress-small.xml", wxr).Expect(200)
	if got, _ := reportRow(res, "Posts"); got != [3]int{0, 2, 0} {
		t.Fatalf("posts of the second import: %v", got)
	}

	// A Ghost export, named as such.
	res = e.admin.Upload(e.importAction(), "file", "ghost-small.json", readSample(t, "console/ghost-small.json"), "format", "ghost").Expect(200)
	if !has(res, "read as a Ghost export.") {
		t.Fatalf("ghost report: %s", res.Body)
	}
	if got, ok := reportRow(res, "Posts"); !ok || got[0] != 2 || got[1] != 0 {
		t.Fatalf("ghost posts: %v", got)
	}
	if got, _ := reportRow(res, "Tags"); got[0] != 1 {
		t.Fatalf("ghost tags: %v", got)
	}
	if ws := warningItems(res); !warningNaming(ws, "members-corner") {
		t.Fatalf("the members-only post is not named: %q", ws)
	}
	e.anon.Do("GET", "/posts/members-corner", nil).Expect(404)
}

// TestBlogConsoleImportShowsRefusalsOnTheForm: a file or a field the import
// refuses is the form again, with the message in the console's error
// style, the status the API answers, what was typed, and nothing
// imported.
func TestBlogConsoleImportShowsRefusalsOnTheForm(t *testing.T) {
	e, b := newEnvWith(t, setup{console: true})
	b.SetImportLimit(4096)
	wxr := readSample(t, "console/wordpress-small.xml")
	tests := []struct {
		name    string
		file    []byte
		fields  []string
		status  int
		msg     string
		invalid string // the field marked aria-invalid
	}{
		{"no file", nil, []string{"format", "wxr"}, 400, "File is required.", "import-file"},
		{"empty file", []byte{}, nil, 400, "The file is empty.", "import-file"},
		{"not an export", []byte("hello, world"), nil, 400, "Unknown file format", ""},
		{"unknown format", []byte("{}"), []string{"format", "blogger"}, 400, "Unknown format &#34;blogger&#34;", "import-format"},
		{"wrong format", wxr, []string{"format", "ghost"}, 400, "Not a valid Ghost export", ""},
		{"bad address", wxr, []string{"from", "ftp://old.example"}, 400, "From must be the old site&#39;s address, an http(s) URL", "import-from"},
		{"bad media", wxr, []string{"media", "perhaps"}, 400, "Media must be 1, true or on", "import-media"},
		{"too large", []byte(strings.Repeat("x", 5000)), nil, 413, "The file is larger than the import limit of 1 MiB.", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			field := "file"
			if tc.file == nil {
				field = ""
			}
			res := e.admin.Upload(e.importAction(), field, "f", tc.file, tc.fields...).Expect(tc.status)
			if !has(res, `<p class="error" role="alert">`+tc.msg, `id="import-form"`, "<h1>Import and export</h1>") {
				t.Fatalf("answer: %s", res.Body)
			}
			if tc.invalid != "" && !regexp.MustCompile(`id="`+tc.invalid+`"[^>]*aria-invalid="true"`).Match(res.Body) {
				t.Fatalf("%s is not marked invalid: %s", tc.invalid, res.Body)
			}
		})
	}
	// What was typed comes back.
	res := e.admin.Upload(e.importAction(), "file", "f", wxr, "format", "ghost", "media", "1", "from", "ftp://old.example/<x>").Expect(400)
	if !has(res, `<option value="ghost" selected>`, `name="media" value="1" aria-describedby="import-media-hint" checked`,
		`name="from" value="ftp://old.example/&lt;x&gt;"`) {
		t.Fatalf("the form as typed: %s", res.Body)
	}
	var n int
	if err := e.db.QueryRow(t.Context(), "SELECT COUNT(*) FROM posts").Scan(&n); err != nil || n != 0 {
		t.Fatalf("posts after refused imports: %d (%v)", n, err)
	}
}

// TestBlogConsoleImportIsTheAdministratorsAndNeedsItsToken: a user, a form
// without its token or with another's, and a form from another site are
// refused, and import nothing.
func TestBlogConsoleImportIsTheAdministratorsAndNeedsItsToken(t *testing.T) {
	e := newConsoleEnv(t)
	wxr := readSample(t, "console/wordpress-small.xml")
	user := e.userSession()
	user.Do("GET", "/console/blog/import", nil).Expect(403)
	user.Upload("/console/blog/import?form_token="+e.adminToken(), "file", "f.xml", wxr).Expect(403)
	if loc := e.anon.Clone().Do("GET", "/console/blog/import", nil).Expect(303).Location(); !strings.HasPrefix(loc, "/console/login?next=") {
		t.Fatalf("signed out: to %q", loc)
	}
	e.admin.Upload("/console/blog/import", "file", "f.xml", wxr).Expect(403)
	e.admin.Upload("/console/blog/import?form_token=not-a-token", "file", "f.xml", wxr).Expect(403)
	e.admin.Upload("/console/blog/import", "file", "f.xml", wxr, "form_token", e.adminToken()).Expect(403) // in the body: not read
	action := e.importAction()
	e.admin.Header.Set("Origin", "https://elsewhere.example")
	e.admin.Upload(action, "file", "f.xml", wxr).Expect(403)
	e.admin.Header.Del("Origin")
	var n int
	if err := e.db.QueryRow(t.Context(), "SELECT COUNT(*) FROM posts").Scan(&n); err != nil || n != 0 {
		t.Fatalf("posts after refused forms: %d (%v)", n, err)
	}
}

// TestImportAPIReadsTheOldSitesAddress: the API's form is the console's;
// its new fields are checked and named when refused.
func TestImportAPIReadsTheOldSitesAddress(t *testing.T) {
	e := newEnv(t)
	ghost := readSample(t, "console/ghost-small.json")
	for _, tc := range []struct {
		name   string
		fields []string
		msg    string
	}{
		{"not http", []string{"from", "ftp://old.example"}, "from must be the old site's address, an http(s) URL such as https://old.example"},
		{"no host", []string{"from", "https://"}, "from must be the old site's address, an http(s) URL such as https://old.example"},
		{"with a query", []string{"from", "https://old.example/?a=1"}, "from must be the old site's address, an http(s) URL such as https://old.example"},
		{"too long", []string{"from", "https://old.example/" + strings.Repeat("a", 2048)}, "from is too long (at most 2048 bytes)"},
		{"media not a yes or no", []string{"media", "2"}, "media must be 1, true or on (yes), or 0, false, off or empty (no)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "g.json", ghost, tc.fields...), 400, tc.msg)
		})
	}
	// A good address, media off: imported.
	res := e.importFile("g.json", ghost, "from", "https://old.example", "media", "off", "format", "ghost")
	if res.Posts.Created != 2 {
		t.Fatalf("posts: %+v", res)
	}
}
