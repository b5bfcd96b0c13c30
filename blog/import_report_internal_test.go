package blog

import (
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"folio/httpx"
	"folio/templates"
)

func TestImportFormOptions(t *testing.T) {
	for _, tc := range []struct {
		name, format, media, from string
		want                      ImportOptions
		field, msg                string
	}{
		{name: "nothing said", want: ImportOptions{}},
		{name: "every format by name", format: "markdown", want: ImportOptions{Format: FormatMarkdown}},
		{name: "a checkbox", media: "on", want: ImportOptions{Media: true}},
		{name: "a checkbox's value", media: "1", want: ImportOptions{Media: true}},
		{name: "a script's true", format: "ghost", media: "TRUE", from: "https://old.example", want: ImportOptions{Format: "ghost", Media: true, MediaOrigin: "https://old.example"}},
		{name: "an unticked box", media: "off", from: "http://old.example:8080/blog/", want: ImportOptions{MediaOrigin: "http://old.example:8080/blog/"}},
		{name: "unknown format", format: "blogger", field: "format", msg: `unknown format "blogger" (want folio, ghost, wxr or markdown)`},
		{name: "media neither yes nor no", media: "2", field: "media", msg: "media must be 1, true or on (yes), or 0, false, off or empty (no)"},
		{name: "from not http", from: "ftp://old.example", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
		{name: "from a path", from: "/blog", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
		{name: "from with a user", from: "https://me@old.example", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
		{name: "from with a fragment", from: "https://old.example/#top", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
		{name: "from with a space", from: "https://old.example/a b", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
		{name: "from not UTF-8", from: "https://old.example/\xff", field: "from", msg: "from must be the old site's address, an http(s) URL such as https://old.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &importUpload{opts: ImportOptions{Format: tc.format}, from: tc.from}
			err := u.options(tc.media)
			if tc.msg == "" {
				if err != nil || !reflect.DeepEqual(u.opts, tc.want) {
					t.Fatalf("options %+v, %v; want %+v", u.opts, err, tc.want)
				}
				return
			}
			he := httpx.AsError(err)
			if he.Status != http.StatusBadRequest || he.Msg != tc.msg || u.field != tc.field {
				t.Fatalf("refusal %d %q of field %q; want 400 %q of %q", he.Status, he.Msg, u.field, tc.msg, tc.field)
			}
		})
	}
}

func TestUploadNameIsTheLastElementShortened(t *testing.T) {
	for in, want := range map[string]string{
		"site.zip":                    "site.zip",
		`C:\Users\jo\export.xml`:      "export.xml",
		"../../etc/passwd":            "passwd",
		"bad\xffname.json":            "badname.json",
		strings.Repeat("é", 120):      strings.Repeat("é", 100) + "…",
		"":                            "",
		" spaced.json ":               "spaced.json",
		"a/":                          "",
		"ghost-2024-06-01-10-00.json": "ghost-2024-06-01-10-00.json",
	} {
		if got := uploadName(in); got != want {
			t.Errorf("uploadName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestImportReportRowsAndLosses(t *testing.T) {
	r := &ImportResult{Posts: ImportCount{3, 1, 2}, Tags: ImportCount{Created: 4},
		Losses: map[string]int{"raw HTML kept as text": 2, "script removed": 5, "embed made a link": 2, "never": 0}}
	var kinds []string
	for _, row := range r.Rows() {
		kinds = append(kinds, row.Kind)
	}
	if want := []string{"posts", "pages", "categories", "tags", "comments", "friend links"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("rows without redirects or media: %q", kinds)
	}
	r.Redirects, r.Media = ImportCount{Created: 1}, ImportCount{Changed: 1}
	rows := r.Rows()
	if len(rows) != 8 || rows[6] != (ImportRow{"redirects", ImportCount{Created: 1}}) || rows[7] != (ImportRow{"media", ImportCount{Changed: 1}}) {
		t.Fatalf("rows with redirects and media: %+v", rows)
	}
	want := []ImportLoss{{"script removed", 5}, {"embed made a link", 2}, {"raw HTML kept as text", 2}}
	if got := r.LossList(); !reflect.DeepEqual(got, want) {
		t.Fatalf("losses %+v, want %+v", got, want)
	}
}

// TestImportReportPage renders the console's report of a result that has
// everything: every row, the settings, the losses by kind and the
// warnings, escaped.
func TestImportReportPage(t *testing.T) {
	tmpl, err := templates.NewConsole()
	if err != nil {
		t.Fatal(err)
	}
	res := &ImportResult{Format: FormatMarkdown, Posts: ImportCount{5, 1, 2}, Pages: ImportCount{Created: 1}, Redirects: ImportCount{Created: 3},
		Media: ImportCount{Created: 4, Skipped: 1, Changed: 1}, Settings: SettingsCount{Updated: 2, Skipped: 9},
		Losses:   map[string]int{"gallery shortcode": 1, "raw HTML kept as text": 3},
		Warnings: []string{`Hugo post "first": an image left at https://old.example/a.png (404)`, `post "<b>x</b>": made a draft`}}
	body, err := tmpl.Render("blog-import", &templates.ConsoleView{Title: "Import report",
		Data: importView{Report: newImportReport("site <1>.zip", res), Formats: importFormats}})
	if err != nil {
		t.Fatal(err)
	}
	page := string(body)
	row := func(label string, n ...string) *regexp.Regexp {
		return regexp.MustCompile(`<th scope="row">` + label + `(<small class="hint">[^<]+</small>)?</th>\s*<td class="num">` + n[0] +
			`</td>\s*<td class="num">` + n[1] + `</td>\s*<td class="num">` + n[2] + `</td>`)
	}
	for _, re := range []*regexp.Regexp{row("Posts", "5", "1", "2"), row("Pages", "1", "0", "0"), row("Friend links", "0", "0", "0"),
		row("Redirects", "3", "0", "0"), row("Media", "4", "1", "1")} {
		if !re.MatchString(page) {
			t.Errorf("no row %s", re)
		}
	}
	for _, want := range []string{"Imported <strong>site &lt;1&gt;.zip</strong>, read as a Hugo or Jekyll site.",
		"changed: left at the old address", "Settings: 2 changed, 9 already the same.",
		`<tr><th scope="row">raw HTML kept as text</th><td class="num">3</td></tr>` + "\n" + `<tr><th scope="row">gallery shortcode</th><td class="num">1</td></tr>`,
		`<li>Hugo post &#34;first&#34;: an image left at https://old.example/a.png (404)</li>`, `<li>post &#34;&lt;b&gt;x&lt;/b&gt;&#34;: made a draft</li>`,
		`href="/console/blog/posts">See the posts</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, `id="import-form"`) {
		t.Error("the report shows the form too")
	}

	// Nothing lost, nothing to warn about: no losses table, and says so.
	body, err = tmpl.Render("blog-import", &templates.ConsoleView{Data: importView{Report: newImportReport("", &ImportResult{Format: FormatWXR})}})
	if err != nil {
		t.Fatal(err)
	}
	page = string(body)
	if strings.Contains(page, "import-losses") || strings.Contains(page, "import-settings") || strings.Contains(page, "Redirects") ||
		!strings.Contains(page, "None: everything came in as the export had it.") || !strings.Contains(page, `<p id="import-done">Imported a WordPress export (WXR).</p>`) {
		t.Errorf("an empty report: %s", page)
	}
}
