package blog_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/blog"
)

// siteFile is one file of an archive made in a test.
type siteFile struct{ name, content string }

// siteFiles reads the fixture folder testdata/import/<dir>, every file
// under top.
func siteFiles(t testing.TB, dir, top string) []siteFile {
	t.Helper()
	root := filepath.Join("..", "testdata", "import", dir)
	var files []siteFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files = append(files, siteFile{top + filepath.ToSlash(rel), string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// pack writes files as a zip, a tar or a tar.gz (format), as a person's
// archiver would: folders as entries of their own too.
func pack(t testing.TB, format string, files []siteFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	if format == "zip" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			w, err := zw.Create(f.name)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write([]byte(f.content))
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var gz *gzip.Writer
	tw := tar.NewWriter(&buf)
	if format == "tar.gz" {
		gz = gzip.NewWriter(&buf)
		tw = tar.NewWriter(gz)
	}
	dirs := map[string]bool{}
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, f := range files {
		for d := filepath.ToSlash(filepath.Dir(f.name)); d != "." && !dirs[d]; d = filepath.ToSlash(filepath.Dir(d)) {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: at}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o644, Size: int64(len(f.content)), ModTime: at}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(f.content))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// importSite posts an archive to the import route and returns its result
// whole.
func (e *env) importSite(name string, archive []byte, fields ...string) blog.ImportResult {
	e.t.Helper()
	var res blog.ImportResult
	data(e.t, e.admin.Upload("/api/v1/admin/import", "file", name, archive, fields...), 200, &res)
	return res
}

func (e *env) markdownOfPost(slug string) string {
	e.t.Helper()
	var p post
	data(e.t, e.admin.Do("GET", "/api/v1/admin/posts/slug/"+slug, nil), 200, &p)
	return *p.ContentMarkdown
}

// pageSummary is what the site tests check of an imported page.
type pageSummary struct {
	Title, Status, Markdown string
	SortOrder               int
}

func (e *env) pageSummaries() map[string]pageSummary {
	e.t.Helper()
	var pg page[map[string]any]
	data(e.t, e.admin.Do("GET", "/api/v1/admin/pages", nil), 200, &pg)
	out := map[string]pageSummary{}
	for _, p := range pg.Items {
		out[p["slug"].(string)] = pageSummary{Title: p["title"].(string), Status: p["status"].(string),
			Markdown: p["content_markdown"].(string), SortOrder: int(p["sort_order"].(float64))}
	}
	return out
}

func checkResult(t *testing.T, got, want blog.ImportResult) {
	t.Helper()
	if want.Losses == nil {
		want.Losses = map[string]int{}
	}
	if want.Warnings == nil {
		want.Warnings = []string{}
	}
	want.Format = "markdown"
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	if !bytes.Equal(g, w) {
		t.Fatalf("result\n got %s\nwant %s", g, w)
	}
}

// TestImportOfAHugoSite imports the zip of a Hugo site, all in one folder
// as a code host's download has it: TOML, YAML and JSON front matter,
// sections, a page bundle, list pages, aliases, several categories, a
// summary and a teaser, shortcodes, a draft, a scheduled and an expired
// post, a file whose front matter is broken, and a theme's files.
func TestImportOfAHugoSite(t *testing.T) {
	e := newSiteEnv(t)
	archive := pack(t, "zip", siteFiles(t, "hugo", "notes-main/"))
	res := e.importSite("notes.zip", archive)
	dir := "notes-main/content/"
	checkResult(t, res, blog.ImportResult{
		Posts: blog.ImportCount{Created: 6, Changed: 3}, Pages: blog.ImportCount{Created: 1},
		Categories: blog.ImportCount{Created: 1}, Tags: blog.ImportCount{Created: 6}, Redirects: blog.ImportCount{Created: 4},
		Losses: map[string]int{`Hugo shortcode "notice" kept as text`: 1},
		Warnings: []string{
			dir + "posts/2021/broken-front-matter.md skipped: line 5: want , or ] to close the [ of line 4, not : x",
			dir + `posts/bundle-post/index.md: cover image "map.svg" is a path relative to the old page; left out`,
			dir + "posts/expired-offer.md: it expired on 2020-01-01T00:00:00Z (expiryDate); imported as a draft",
			dir + `posts/toml-front-matter.md: categories "Writing", "Notes" became tags: a Folio post has one category`,
			dir + `posts/toml-front-matter.md: Hugo shortcode "notice" kept as text`,
			"9 other files ignored: not posts or pages (themes, layouts, static files, list pages)",
		}})
	wantPosts := map[string]postSummary{
		"toml-front-matter": {Slug: "toml-front-matter", Title: `Notes on "TOML" front matter`, Status: "published", Published: "2019-03-11T15:00:00Z",
			Summary: "What a TOML block looks like.", Category: "tools", Tags: []string{"hugo", "notes", "toml", "writing"}, ShowComments: true},
		"yaml-usual-choice": {Slug: "yaml-usual-choice", Title: "YAML: the usual choice", Status: "published", Published: "2019-03-04T00:00:00Z",
			Summary: "Most Hugo sites write their front matter in YAML.", Category: "tools", Cover: "/images/yaml-cover.jpg",
			Tags: []string{"hugo", "yaml"}, ShowComments: true},
		"json-front-matter": {Slug: "json-front-matter", Title: "JSON front matter", Status: "draft",
			Summary: "A JSON object opens the file: no fences at all.", Cover: "https://cdn.example.org/json.png", Tags: []string{"hugo", "json"}, ShowComments: true},
		"a-future-post": {Slug: "a-future-post", Title: "A post from the future", Status: "published", Published: "2099-06-01T12:00:00Z",
			Summary: "Scheduled for later.", Tags: []string{"hugo"}, ShowComments: true},
		"expired-offer": {Slug: "expired-offer", Title: "Expired offer", Status: "draft", Summary: "This offer is over.", Tags: []string{}, ShowComments: true},
		"bundle-post": {Slug: "bundle-post", Title: "A page bundle", Status: "published", Published: "2020-02-01T23:00:00Z",
			Summary: "The post and its files live in one folder.", Tags: []string{}, ShowComments: true},
	}
	if got := e.postSummaries(); !reflect.DeepEqual(got, wantPosts) {
		t.Fatalf("posts\n got %+v\nwant %+v", got, wantPosts)
	}
	wantMD := "TOML front matter sits between two lines of plus signs.\n\n" +
		"![A fence](/images/fence.png)\n\n_Plus signs, *three* of them_\n\n" +
		"```toml\ntitle = \"Example\"\ndraft = false\n```\n\n" +
		"Watch the talk: [YouTube video](https://www.youtube.com/watch?v=dQw4w9WgXcQ)\n\n" +
		"Compare with the [YAML post](/posts/yaml-usual-choice) and /posts/bundle-post.\n\n" +
		"[Gist someone/4d1a2c3b](https://gist.github.com/someone/4d1a2c3b)\n\n" +
		"[Tweet](https://twitter.com/someone/status/1453110110599868418)\n\n" +
		"{{< notice warning >}}\nThemes may render this box.\n{{< /notice >}}\n\n" +
		"Write {{< figure src=\"x.png\" >}} to show a figure in Hugo.\n"
	if got := e.markdownOfPost("toml-front-matter"); got != wantMD {
		t.Fatalf("content\n got %q\nwant %q", got, wantMD)
	}
	if got := e.markdownOfPost("yaml-usual-choice"); got != "Keys, colons and lists.\n\n[Vimeo video](https://vimeo.com/76979871)\n" {
		t.Fatalf("content %q", got)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/toml-front-matter", nil), 200, &p)
	if p.CreatedAt.Format(time.RFC3339) != "2019-03-11T15:00:00Z" || p.UpdatedAt.Format(time.RFC3339) != "2019-03-12T08:30:00Z" {
		t.Fatalf("times %v %v", p.CreatedAt, p.UpdatedAt)
	}
	wantPages := map[string]pageSummary{"about": {Title: "About this site", Status: "published", SortOrder: 3,
		Markdown: "Sam writes these notes between trips.\n"}}
	if got := e.pageSummaries(); !reflect.DeepEqual(got, wantPages) {
		t.Fatalf("pages\n got %+v\nwant %+v", got, wantPages)
	}

	// The aliases lead to the posts and the page they name, on the site
	// and in the API.
	for old, now := range map[string]string{"/posts/old-toml-notes": "/posts/toml-front-matter", "/posts/toml-notes": "/posts/toml-front-matter",
		"/posts/yaml-front-matter": "/posts/yaml-usual-choice", "/pages/about-us": "/pages/about"} {
		if r := e.anon.Do("GET", old, nil).Expect(301); r.Location() != now {
			t.Errorf("GET %s: Location %q, want %q", old, r.Location(), now)
		}
	}
	e.anon.Do("GET", "/api/v1/posts/slug/toml-notes", nil).Expect(301)
	// The scheduled post waits for its time; the draft is not shown.
	e.html("/posts/a-future-post", 404)
	e.html("/posts/json-front-matter", 404)
	siteHas(t, "bundle", e.html("/posts/bundle-post", 200), "A page bundle")

	// A second import finds everything there.
	again := e.importSite("notes.zip", archive, "format", "markdown")
	checkResult(t, again, blog.ImportResult{
		Posts: blog.ImportCount{Skipped: 6}, Pages: blog.ImportCount{Skipped: 1},
		Categories: blog.ImportCount{Skipped: 1}, Tags: blog.ImportCount{Skipped: 6}, Redirects: blog.ImportCount{Skipped: 4},
		Warnings: []string{
			dir + "posts/2021/broken-front-matter.md skipped: line 5: want , or ] to close the [ of line 4, not : x",
			"9 other files ignored: not posts or pages (themes, layouts, static files, list pages)",
		}})
}

// TestImportOfAJekyllSite imports the tar.gz of a Jekyll site: dated post
// names (in _posts and a folder below it), drafts, pages at the root and in
// _pages, space-separated categories, a custom excerpt separator,
// redirect_from, published: false, Liquid tags, and the files of the theme.
func TestImportOfAJekyllSite(t *testing.T) {
	e := newSiteEnv(t)
	archive := pack(t, "tar.gz", siteFiles(t, "jekyll", ""))
	res := e.importSite("log.tar.gz", archive)
	checkResult(t, res, blog.ImportResult{
		Posts: blog.ImportCount{Created: 5, Changed: 3}, Pages: blog.ImportCount{Created: 2},
		Categories: blog.ImportCount{Created: 1}, Tags: blog.ImportCount{Created: 4}, Redirects: blog.ImportCount{Created: 1},
		Losses: map[string]int{`Liquid tag "include" kept as text`: 1, "Liquid {{ … }} kept as text": 1},
		Warnings: []string{
			"_posts/undated-entry.md skipped: a Jekyll post's file name starts with its date (YYYY-MM-DD-name.md)",
			`_posts/2015-11-17-first-entry.markdown: categories "update" became tags: a Folio post has one category`,
			`_posts/2015-11-17-first-entry.markdown: Liquid tag "include" kept as text`,
			"_posts/2016-02-01-second-entry.md: Liquid {{ … }} kept as text",
			"_posts/2020/2020-08-15-summer-visit.md: it has no title; its title was made of its file name",
			"9 other files ignored: not posts or pages (themes, layouts, static files, list pages)",
		}})
	wantPosts := map[string]postSummary{
		"first-entry": {Slug: "first-entry", Title: "First entry in the log", Status: "published", Published: "2015-11-17T15:16:01Z",
			Summary: "The first boats came in at dawn. Read the next entry. Today's tides: " +
				"{% include tide-table.html %} Templates write {{ page.title }} to show a title.",
			Category: "harbour", Tags: []string{"update"}, ShowComments: true},
		"second-entry": {Slug: "second-entry", Title: "Second entry", Status: "published", Published: "2016-02-01T00:00:00Z",
			Summary: "A quiet night.", Category: "harbour", Tags: []string{"boats", "night-shift"}},
		"hidden-entry": {Slug: "hidden-entry", Title: "Hidden entry", Status: "draft", Summary: "Not ready to be read.", Tags: []string{}, ShowComments: true},
		"summer-visit": {Slug: "summer-visit", Title: "Summer Visit", Status: "published", Published: "2020-08-15T00:00:00Z",
			Summary: "A tall ship visited.", Tags: []string{}, ShowComments: true},
		"storm-report": {Slug: "storm-report", Title: "Storm report", Status: "draft", Summary: "Winds rising.", Tags: []string{"weather"}, ShowComments: true},
	}
	if got := e.postSummaries(); !reflect.DeepEqual(got, wantPosts) {
		t.Fatalf("posts\n got %+v\nwant %+v", got, wantPosts)
	}
	wantMD := "The first boats came in at dawn. Read the [next entry](/posts/second-entry).\n\n" +
		"```ruby\ndef tide(hour)\n  \"high\" if hour < 6\nend\n```\n\nToday's tides:\n\n{% include tide-table.html %}\n\n" +
		"Templates write {{ page.title }} to show a title.\n\n![Map](/assets/map.png)\n"
	if got := e.markdownOfPost("first-entry"); got != wantMD {
		t.Fatalf("content\n got %q\nwant %q", got, wantMD)
	}
	wantMD = "A quiet night.\n\nOnly the ferry moved. See the [first entry](/posts/first-entry) and the page of {{ page.author }}.\n"
	if got := e.markdownOfPost("second-entry"); got != wantMD {
		t.Fatalf("content\n got %q\nwant %q", got, wantMD)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/second-entry", nil), 200, &p)
	if p.UpdatedAt.Format(time.RFC3339) != "2016-02-03T10:00:00Z" {
		t.Fatalf("updated %v", p.UpdatedAt)
	}
	wantPages := map[string]pageSummary{
		"about":   {Title: "About", Status: "published", Markdown: "The log is kept by the harbour master's office.\n\nWrite to us at the [office](/contact/).\n"},
		"contact": {Title: "Contact", Status: "draft", Markdown: "Ring the bell twice.\n"},
	}
	if got := e.pageSummaries(); !reflect.DeepEqual(got, wantPages) {
		t.Fatalf("pages\n got %+v\nwant %+v", got, wantPages)
	}
	if r := e.anon.Do("GET", "/posts/second", nil).Expect(301); r.Location() != "/posts/second-entry" {
		t.Errorf("redirect to %q", r.Location())
	}

	again := e.importSite("log.tar.gz", archive)
	checkResult(t, again, blog.ImportResult{
		Posts: blog.ImportCount{Skipped: 5}, Pages: blog.ImportCount{Skipped: 2},
		Categories: blog.ImportCount{Skipped: 1}, Tags: blog.ImportCount{Skipped: 4}, Redirects: blog.ImportCount{Skipped: 1},
		Warnings: []string{
			"_posts/undated-entry.md skipped: a Jekyll post's file name starts with its date (YYYY-MM-DD-name.md)",
			"9 other files ignored: not posts or pages (themes, layouts, static files, list pages)",
		}})
}

// TestImportOfASiteTakesTheShapesPeopleArchive: the content folder alone,
// one section, loose files, a site inside a folder, a Jekyll _posts
// folder's files, in zips and tars.
func TestImportOfASiteTakesTheShapesPeopleArchive(t *testing.T) {
	onlyContent := func(files []siteFile) []siteFile {
		var out []siteFile
		for _, f := range files {
			if rest, ok := strings.CutPrefix(f.name, "content/posts/"); ok {
				out = append(out, siteFile{"posts/" + rest, f.content})
			}
		}
		return out
	}
	post := func(title string) string {
		return "---\ntitle: " + title + "\ndate: 2020-01-01\n---\nText of " + title + ".\n"
	}
	tests := []struct {
		name          string
		format        string
		files         []siteFile
		posts, pages  []string
		liquidIn      string // a post whose body is read as Jekyll's
		shortcodeFree string // a post whose body's shortcodes were converted
	}{
		{"the content folder alone", "zip", func() []siteFile {
			var out []siteFile
			for _, f := range siteFiles(t, "hugo", "") {
				if strings.HasPrefix(f.name, "content/") {
					out = append(out, f)
				}
			}
			return out
		}(), []string{"a-future-post", "bundle-post", "expired-offer", "json-front-matter", "toml-front-matter", "yaml-usual-choice"}, []string{"about"}, "", "toml-front-matter"},
		{"one section of it", "tar", onlyContent(siteFiles(t, "hugo", "")),
			[]string{"a-future-post", "bundle-post", "expired-offer", "json-front-matter", "toml-front-matter", "yaml-usual-choice"}, nil, "", "toml-front-matter"},
		{"loose files are posts", "zip", []siteFile{{"first.md", post("First")}, {"second.markdown", post("Second")}, {"notes.txt", "x"}},
			[]string{"first", "second"}, nil, "", ""},
		{"files beside a section are pages", "zip", []siteFile{{"about.md", post("About")}, {"blog/2020/hello.md", post("Hello")}},
			[]string{"hello"}, []string{"about"}, "", ""},
		{"a site in one folder", "tar.gz", siteFiles(t, "jekyll", "harbour-log-1.0/"),
			[]string{"first-entry", "hidden-entry", "second-entry", "storm-report", "summer-visit"}, []string{"about", "contact"}, "first-entry", ""},
		{"the files of _posts", "zip", []siteFile{{"2019-01-02-dated.md", "---\ntitle: Dated\n---\n{% highlight go %}\nx\n{% endhighlight %}\n"},
			{"__MACOSX/._2019-01-02-dated.md", "junk"}}, []string{"dated"}, nil, "dated", ""},
		{"a _posts folder", "tar", []siteFile{{"_posts/2019-01-02-dated.md", "---\ntitle: Dated\n---\n{% highlight go %}\nx\n{% endhighlight %}\n"}},
			[]string{"dated"}, nil, "dated", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			res := e.importSite("site."+tt.format, pack(t, tt.format, tt.files))
			var posts, pages []string
			for slug := range e.postSummaries() {
				posts = append(posts, slug)
			}
			for slug := range e.pageSummaries() {
				pages = append(pages, slug)
			}
			slices.Sort(posts)
			slices.Sort(pages)
			if res.Format != "markdown" || !slices.Equal(posts, tt.posts) || !slices.Equal(pages, tt.pages) ||
				res.Posts.Created != len(tt.posts) || res.Pages.Created != len(tt.pages) {
				t.Fatalf("posts %v pages %v, want %v %v; result %+v", posts, pages, tt.posts, tt.pages, res)
			}
			if tt.liquidIn != "" && e.markdownOfPost(tt.liquidIn) != "```go\nx\n```\n" && !strings.Contains(e.markdownOfPost(tt.liquidIn), "```ruby") {
				t.Errorf("%s was not read as Jekyll's: %q", tt.liquidIn, e.markdownOfPost(tt.liquidIn))
			}
			if tt.shortcodeFree != "" && strings.Contains(e.markdownOfPost(tt.shortcodeFree), "{{< youtube") {
				t.Errorf("%s was not read as Hugo's", tt.shortcodeFree)
			}
		})
	}
}

// TestImportOfASiteRefusesWhatItCannotRead: an archive that holds no site,
// a damaged one and one past the bounds are refused whole; a file too
// large for a post is skipped and the rest imported.
func TestImportOfASiteRefusesWhatItCannotRead(t *testing.T) {
	e, b := newEnvWith(t, setup{})
	var many bytes.Buffer
	gz := gzip.NewWriter(&many)
	tw := tar.NewWriter(gz)
	for i := range 100_001 {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("x/%d.md", i), Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	gz.Close()
	big := pack(t, "tar.gz", []siteFile{{"content/posts/big.md", "---\ntitle: Big\n---\n" + strings.Repeat("word ", 3<<20)}})
	tests := []struct {
		name    string
		content []byte
		fields  []string
		limit   int64
		status  int
		msg     string
	}{
		{"a zip without Markdown", makeZip(t, "static/a.css", "body {}", "README.txt", "hi"), nil, 0, 400,
			"not a Hugo or Jekyll site: it has no Markdown posts or pages (content/, _posts/ or Markdown files)"},
		{"a damaged gzip file", []byte("\x1f\x8b\x08\x00garbage that is no deflate stream"), nil, 0, 400, "not a Hugo or Jekyll site: the gzip file is damaged"},
		{"a cut tar.gz", func() []byte { a := pack(t, "tar.gz", siteFiles(t, "hugo", "")); return a[:len(a)/2] }(), nil, 0, 400,
			"not a Hugo or Jekyll site: the gzip file is damaged"},
		{"a tar of garbage", append([]byte("x"+strings.Repeat("\x00", 256)+"ustar\x0000"), bytes.Repeat([]byte("?"), 300)...), nil, 0, 400,
			"not a Hugo or Jekyll site: the file is not a valid tar archive"},
		{"JSON named as a site", []byte(`{"db": []}`), []string{"format", "markdown"}, 0, 400,
			"not a Hugo or Jekyll site: the file is not a zip, tar or tar.gz archive"},
		{"a tar.gz that expands past the limit", big, nil, 1 << 20, 413, "the archive expands to more than the import limit of 1 MiB"},
		{"a tar of too many files", many.Bytes(), nil, 0, 413, "the archive holds more than 100000 files"},
		{"a zip of too many files", manyZip(t), []string{"format", "markdown"}, 0, 413, "the archive holds more than 100000 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.SetImportLimit(blog.MaxImportSize)
			if tt.limit != 0 {
				b.SetImportLimit(tt.limit)
			}
			expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "site", tt.content, tt.fields...), tt.status, tt.msg)
			if n := e.contentRows(); n != 0 {
				t.Fatalf("%d rows written", n)
			}
		})
	}
	b.SetImportLimit(blog.MaxImportSize)
	res := e.importSite("site.tar.gz", pack(t, "tar.gz", []siteFile{{"content/posts/big.md", "---\ntitle: Big\n---\n" + strings.Repeat("word ", 1<<20)},
		{"content/posts/small.md", "---\ntitle: Small\n---\nwords\n"}}))
	if res.Posts.Created != 1 || !slices.Contains(res.Warnings, "content/posts/big.md skipped: it is larger than 1 MiB + 64 KiB") {
		t.Fatalf("result %+v", res)
	}
}

func manyZip(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 100_001 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("x/%d.md", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	return buf.Bytes()
}

// TestImportDirReadsASiteFolder imports a folder with the folders a site's
// working copy has besides its content, which are not read; an import
// whose context has ended writes nothing.
func TestImportDirReadsASiteFolder(t *testing.T) {
	e, b := newEnvWith(t, setup{})
	dir := t.TempDir()
	for _, f := range append(siteFiles(t, "jekyll", ""), siteFile{".git/HEAD", "ref: refs/heads/main\n"},
		siteFile{"node_modules/pkg/readme.md", "---\ntitle: not a page\n---\n"}, siteFile{"_site/index.html", "<p>built</p>"}) {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := b.ImportDir(ctx, os.DirFS(dir), blog.ImportOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("import with its context ended: %v", err)
	}
	if n := e.contentRows(); n != 0 {
		t.Fatalf("%d rows written", n)
	}
	// The Markdown read counts against the import limit.
	b.SetImportLimit(1 << 10)
	var ee *blog.ExpandError
	if _, err := b.ImportDir(t.Context(), os.DirFS(dir), blog.ImportOptions{}); !errors.As(err, &ee) ||
		ee.Msg != "the folder's Markdown files hold more than the import limit of 1 MiB" {
		t.Fatalf("import over the limit: %v", err)
	}
	if n := e.contentRows(); n != 0 {
		t.Fatalf("%d rows written", n)
	}
	b.SetImportLimit(blog.MaxImportSize)
	res, err := b.ImportDir(t.Context(), os.DirFS(dir), blog.ImportOptions{Format: blog.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Warnings[len(res.Warnings)-1]
	if res.Posts.Created != 5 || res.Pages.Created != 2 ||
		last != "9 other files ignored: not posts or pages (themes, layouts, static files, list pages); folders not read: .git, _site, node_modules" {
		t.Fatalf("result %+v", res)
	}
	var ie *blog.InputError
	if _, err := b.ImportDir(t.Context(), os.DirFS(dir), blog.ImportOptions{Format: blog.FormatGhost}); !errors.As(err, &ie) {
		t.Fatalf("a folder as a Ghost export: %v", err)
	}
}

// TestImportOfJekyllPostsAsJekyllNamesThem: Jekyll also publishes posts
// whose month and day have one digit, and posts written in HTML; both
// come in, the HTML one converted to Markdown.
func TestImportOfJekyllPostsAsJekyllNamesThem(t *testing.T) {
	e := newSiteEnv(t)
	res := e.importSite("site.zip", pack(t, "zip", []siteFile{
		{"_config.yml", "title: x\n"},
		{"_posts/2021-9-1-short-date.md", "---\ntitle: Short date\n---\nSeptember.\n"},
		{"_posts/2022-06-05-written-in-html.html", "---\ntitle: Written in HTML\n---\n<p>An <em>HTML</em> post.</p>\n<table><tr><th>a</th></tr><tr><td>1</td></tr></table>\n"},
		{"_posts/2021-02-30-no-such-day.md", "---\ntitle: No such day\n---\nx\n"},
	}))
	if res.Posts.Created != 2 {
		t.Fatalf("posts %+v, warnings %q", res.Posts, res.Warnings)
	}
	if got := e.markdownOfPost("written-in-html"); got != "An *HTML* post.\n\n| a |\n| --- |\n| 1 |\n" {
		t.Errorf("the HTML post's Markdown: %q", got)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/short-date", nil), 200, &p)
	if p.PublishedAt == nil || !p.PublishedAt.Equal(time.Date(2021, 9, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the short date's post is published at %v", p.PublishedAt)
	}
	siteLacks(t, "the HTML post", e.html("/posts/written-in-html", 200), "&lt;p&gt;", "&lt;table")
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, "_posts/2021-02-30-no-such-day.md skipped") }) {
		t.Errorf("warnings %q", res.Warnings)
	}
}
