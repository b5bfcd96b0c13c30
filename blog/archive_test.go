package blog_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/blog"
)

// importResult is the data of POST /api/v1/admin/import.
type importResult struct {
	Format      string         `json:"format"`
	Posts       count          `json:"posts"`
	Pages       count          `json:"pages"`
	Categories  count          `json:"categories"`
	Tags        count          `json:"tags"`
	Comments    count          `json:"comments"`
	FriendLinks count          `json:"friend_links"`
	Settings    map[string]int `json:"settings"`
	Warnings    []string       `json:"warnings"`
}

type count struct {
	Created int `json:"created"`
	Skipped int `json:"skipped"`
}

// importFile posts a file to the import route and returns its result.
func (e *env) importFile(name string, content []byte, fields ...string) importResult {
	e.t.Helper()
	var res importResult
	data(e.t, e.admin.Upload("/api/v1/admin/import", "file", name, content, fields...), 200, &res)
	return res
}

// fillBlog gives a blog one of everything, in every state that matters.
func fillBlog(t *testing.T, e *env) {
	news := e.createTerm("categories", "News")
	data(t, e.admin.Do("POST", "/api/v1/admin/categories", map[string]string{"name": "Go & more", "slug": "go-more"}), 201, nil)
	goTag := e.createTerm("tags", "Go")
	var japan ref
	data(t, e.admin.Do("POST", "/api/v1/admin/tags", map[string]string{"name": "日本", "slug": "japan"}), 201, &japan)
	past := time.Date(2024, 3, 4, 5, 6, 7, 891234000, time.UTC)
	p1 := e.createPost(map[string]any{"title": `A "quoted": title`, "status": "published", "summary": "Hand-written\nsummary",
		"content_markdown": "# Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<b>raw</b>\n\n---\nnot front matter\n", "category_id": news.ID,
		"tag_ids": []string{goTag.ID, japan.ID}, "cover_image": "/img/cover.png", "published_at": past})
	e.createPost(map[string]any{"title": "Draft ünïcode", "content_markdown": "no newline at the end", "show_comments": false})
	e.createPost(map[string]any{"title": "Archived", "status": "archived", "published_at": past, "content_markdown": ""})
	e.createPost(map[string]any{"title": "Scheduled", "status": "published", "published_at": time.Now().Add(48 * time.Hour).UTC()})
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "About", "status": "published", "sort_order": 2,
		"show_in_nav": true, "template": "about", "config": `{"email": "a@b.example", "location": "Here \"there\""}`,
		"content_markdown": "Who we are.\n"}), 201, nil)
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Draft page"}), 201, nil)
	for i, author := range []string{"Ann", "Bob", "Cy"} {
		var rc struct{ ID string }
		data(t, e.visitor("192.0.2."+string(rune('1'+i))).Do("POST", "/api/v1/posts/"+p1.ID+"/comments",
			map[string]string{"author": author, "email": strings.ToLower(author) + "@example.org", "content": "Comment <b>" + author + "</b>"}), 201, &rc)
		status := []string{"approved", "spam", "pending"}[i]
		data(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+rc.ID, map[string]string{"status": status}), 200, nil)
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "Friend", "url": "https://friend.example/",
		"description": "A friend", "logo": "https://friend.example/logo.png", "sort": 3}), 201, nil)
	data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "Maybe", "url": "https://maybe.example/",
		"is_active": false}), 201, nil)
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{
		"site": map[string]any{"site_name": "Round trip", "footer": "© me"},
		"post": map[string]any{"summary_length": 120, "enable_toc": false},
		"ai":   map[string]any{"api_key": "sk-secret-key-123456", "model": "some-model"},
	}), 200, nil)
}

// snapshot is everything the admin API shows of a blog, without ids.
type snapshot struct {
	Posts      []map[string]any
	Pages      []map[string]any
	Categories []map[string]any
	Tags       []map[string]any
	Comments   []map[string]any
	Links      []map[string]any
	Settings   map[string]any
}

func (e *env) snapshot() snapshot {
	e.t.Helper()
	list := func(path string, drop ...string) []map[string]any {
		var pg page[map[string]any]
		data(e.t, e.admin.Do("GET", path, nil), 200, &pg)
		for _, it := range pg.Items {
			for _, k := range append(drop, "id") {
				delete(it, k)
			}
		}
		slices.SortFunc(pg.Items, func(a, b map[string]any) int { return strings.Compare(mustJSON(e.t, a), mustJSON(e.t, b)) })
		return pg.Items
	}
	var s snapshot
	var posts page[post]
	data(e.t, e.admin.Do("GET", "/api/v1/admin/posts?page_size=100", nil), 200, &posts)
	for _, it := range posts.Items {
		var p map[string]any
		data(e.t, e.admin.Do("GET", "/api/v1/admin/posts/"+it.ID, nil), 200, &p)
		delete(p, "id")
		delete(p, "category_id")
		if c, ok := p["category"].(map[string]any); ok {
			delete(c, "id")
		}
		for _, tg := range p["tags"].([]any) {
			delete(tg.(map[string]any), "id")
		}
		s.Posts = append(s.Posts, p)
	}
	slices.SortFunc(s.Posts, func(a, b map[string]any) int { return strings.Compare(a["slug"].(string), b["slug"].(string)) })
	s.Pages = list("/api/v1/admin/pages?page_size=100")
	s.Categories = list("/api/v1/admin/categories?page_size=100")
	s.Tags = list("/api/v1/admin/tags?page_size=100")
	s.Comments = list("/api/v1/admin/comments?page_size=100", "post_id")
	s.Links = list("/api/v1/admin/friend-links?page_size=100")
	data(e.t, e.admin.Do("GET", "/api/v1/admin/settings", nil), 200, &s.Settings)
	delete(s.Settings["ai"].(map[string]any), "api_key")
	delete(s.Settings, "upload")
	return s
}

func TestExportImportRoundTripKeepsEverything(t *testing.T) {
	src := newEnv(t)
	fillBlog(t, src)
	r := src.admin.Do("GET", "/api/v1/admin/export", nil).Expect(200)
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" {
		t.Fatalf("Content-Type %q", ct)
	}
	wantDisp := `attachment; filename="folio-export-` + time.Now().UTC().Format("20060102") + `.zip"`
	if d := r.Header.Get("Content-Disposition"); d != wantDisp {
		t.Fatalf("Content-Disposition %q, want %q", d, wantDisp)
	}
	archive := r.Body
	files := zipFiles(t, archive)
	names := slices.Sorted(maps.Keys(files))
	want := []string{"categories.json", "comments.json", "friend_links.json", "manifest.json", "pages/about.md", "pages/draft-page.md",
		"posts/a-quoted-title.md", "posts/archived.md", "posts/draft-n-code.md", "posts/scheduled.md", "settings.json", "tags.json"}
	if !slices.Equal(names, want) {
		t.Fatalf("archive files %q, want %q", names, want)
	}
	var m struct {
		Format  string         `json:"format"`
		Version int            `json:"version"`
		Counts  map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	wantCounts := map[string]int{"posts": 4, "pages": 2, "categories": 2, "tags": 2, "comments": 3, "friend_links": 2}
	if m.Format != "folio-blog" || m.Version != 1 || !maps.Equal(m.Counts, wantCounts) {
		t.Fatalf("manifest %+v", m)
	}
	if s := string(files["settings.json"]); strings.Contains(s, "api_key") || strings.Contains(s, "sk-secret") {
		t.Fatalf("settings.json holds the AI key: %s", s)
	}
	post := string(files["posts/a-quoted-title.md"])
	for _, line := range []string{"---\ntitle: \"A \\\"quoted\\\": title\"\n", "\nsummary: \"Hand-written\\nsummary\"\n",
		"\ncategory: \"news\"\n", "\ntags: [\"go\", \"japan\"]\n", "\npublished_at: 2024-03-04T05:06:07.891234Z\n",
		"\n---\n# Intro\n"} {
		if !strings.Contains(post, line) {
			t.Errorf("post file lacks %q:\n%s", line, post)
		}
	}

	dst := newEnv(t)
	res := dst.importFile("site.zip", archive)
	wantRes := importResult{Format: "folio", Posts: count{4, 0}, Pages: count{2, 0}, Categories: count{2, 0}, Tags: count{2, 0},
		Comments: count{3, 0}, FriendLinks: count{2, 0}, Warnings: []string{}}
	if res.Settings["updated"] != 5 {
		t.Errorf("settings %v, want 5 keys updated", res.Settings)
	}
	res.Settings = nil
	if !reflect.DeepEqual(res, wantRes) {
		t.Fatalf("import result\n got %+v\nwant %+v", res, wantRes)
	}
	before, after := src.snapshot(), dst.snapshot()
	if !reflect.DeepEqual(before, after) {
		a, b := mustJSON(t, before), mustJSON(t, after)
		t.Fatalf("the imported blog differs:\nexported %s\nimported %s", a, b)
	}

	again := dst.importFile("site.zip", archive, "format", "folio")
	if again.Posts != (count{0, 4}) || again.Pages != (count{0, 2}) || again.Categories != (count{0, 2}) || again.Tags != (count{0, 2}) ||
		again.Comments != (count{0, 3}) || again.FriendLinks != (count{0, 2}) || again.Settings["updated"] != 0 || len(again.Warnings) != 0 {
		t.Fatalf("second import %+v, want everything skipped", again)
	}
	if !reflect.DeepEqual(dst.snapshot(), after) {
		t.Fatal("the second import changed the blog")
	}
}

func zipFiles(t *testing.T, archive []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// makeZip builds an archive from name → content pairs.
func makeZip(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(files[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const manifestV1 = `{"format": "folio-blog", "version": 1}`

func TestImportOfAnArchiveSkipsTakenSlugsAndReportsThem(t *testing.T) {
	e := newEnv(t)
	e.publish("Mine", "slug", "hello", "content_markdown", "my words")
	archive := makeZip(t, "manifest.json", manifestV1,
		"posts/hello.md", "---\ntitle: \"Theirs\"\nslug: \"hello\"\nstatus: \"published\"\n---\ntheir words\n",
		"posts/new.md", "---\ntitle: New\nslug: new\ntags: [fresh, \"missing\"]\n---\nnew words\n",
		"posts/broken.md", "no front matter",
		"tags.json", `[{"name": "Fresh", "slug": "fresh"}]`,
		"comments.json", `[{"post": "hello", "author": "A", "email": "a@b.example", "content": "hi", "status": "approved", "created_at": "2024-01-01T00:00:00Z"}]`,
		"notes.txt", "hello")
	res := e.importFile("a.zip", archive)
	if res.Posts != (count{1, 1}) || res.Tags != (count{1, 0}) || res.Comments != (count{0, 0}) {
		t.Fatalf("result %+v", res)
	}
	wantWarnings := []string{
		`posts/hello.md skipped: slug "hello" is taken by a different post, which was kept`,
		`posts/new.md: tag "missing" is not in the export nor in the blog; left out`,
		`posts/broken.md skipped: no front matter (the file must start with a --- line)`,
		`comments.json item 1 skipped: its post "hello" was not imported (slug taken)`,
		`notes.txt: not a file of a Folio archive; ignored`,
	}
	if !slices.Equal(res.Warnings, wantWarnings) {
		t.Fatalf("warnings\n got %q\nwant %q", res.Warnings, wantWarnings)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/hello", nil), 200, &p)
	if *p.ContentMarkdown != "my words" {
		t.Fatalf("the existing post changed: %q", *p.ContentMarkdown)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/new", nil), 200, &p)
	if p.Status != "draft" || *p.ContentMarkdown != "new words\n" || len(p.Tags) != 1 || p.Tags[0].Slug != "fresh" {
		t.Fatalf("new post %+v", p)
	}
}

func TestImportRefusesWhatItCannotRead(t *testing.T) {
	e, b := newEnvWith(t, setup{})
	b.SetImportLimit(4096)
	tests := []struct {
		name    string
		content []byte
		fields  []string
		status  int
		msg     string
	}{
		{"unknown format name", []byte("{}"), []string{"format", "blogger"}, 400, `unknown format "blogger" (want folio, ghost, wxr or markdown)`},
		{"unrecognised file", []byte("hello"), nil, 400, "unknown file format: not a Folio archive, a Ghost JSON export, a WordPress WXR file or an archive of a Hugo or Jekyll site"},
		{"empty file", nil, nil, 400, "the file is empty"},
		{"zip named as ghost", makeZip(t, "manifest.json", manifestV1), []string{"format", "ghost"}, 400, "not a valid Ghost export: not a JSON object"},
		{"json named as folio", []byte(`{"db": []}`), []string{"format", "folio"}, 400, "not a Folio archive: the file is not a zip archive"},
		{"zip without manifest", makeZip(t, "posts/a.md", "x"), []string{"format", "folio"}, 400, "not a Folio archive: it has no manifest.json"},
		{"newer archive", makeZip(t, "manifest.json", `{"format": "folio-blog", "version": 2}`), nil, 400, "Folio archive version 2 is not supported (this Folio reads version 1)"},
		{"json without data", []byte(`{"posts": []}`), nil, 400, "not a Ghost export: the JSON has no db[].data or data object"},
		{"malformed json", []byte(`{"db": [{"data": {"posts": [{]}}]}`), nil, 400, "not a valid Ghost export: the JSON is broken at line 1, column 30: ']' is not expected there"},
		{"rss of another blog", []byte(`<?xml version="1.0"?><rss version="2.0"><channel></channel></rss>`), nil, 400, "not a WordPress export: the RSS document has no WordPress (wp:) namespace"},
		{"broken xml", []byte(`<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item>`), nil, 400, "not a valid WordPress export: line 1: the file ends before its XML does (it is cut short)"},
		{"bad settings", makeZip(t, "manifest.json", manifestV1, "settings.json", `{"render": {"render_mode": "fancy"}}`), nil, 400, "settings.json: render.render_mode: must be classic or headless"},
		{"too large", bytes.Repeat([]byte("x"), 4097), nil, 413, "the file is larger than the import limit of 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "f", tt.content, tt.fields...), tt.status, tt.msg)
		})
	}
	expectError(t, e.admin.Upload("/api/v1/admin/import", "", "", nil, "format", "ghost"), 400, "file is required")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/import", map[string]string{"file": "x"}), 400, "send multipart/form-data with the export in the field file")
	expectError(t, e.anon.Upload("/api/v1/admin/import", "file", "f", []byte("{}")), 401, "")
	expectError(t, e.anon.Do("GET", "/api/v1/admin/export", nil), 401, "")
	user := e.anon.Clone()
	user.Header.Set("Authorization", "Bearer "+e.userToken())
	expectError(t, user.Do("GET", "/api/v1/admin/export", nil), 403, "")
	expectError(t, user.Upload("/api/v1/admin/import", "file", "f", []byte("{}")), 403, "")
	// A post over its own bound, in an archive within the import limit.
	b.SetImportLimit(blog.MaxImportSize)
	expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "a.zip", makeZip(t, "manifest.json", manifestV1,
		"posts/big.md", "---\ntitle: Big\n---\n"+strings.Repeat("x", 2<<20))), 400, "posts/big.md is too large (at most 1 MiB + 64 KiB when decompressed)")
	var n int
	if err := e.db.QueryRow(t.Context(), "SELECT COUNT(*) FROM posts").Scan(&n); err != nil || n != 0 {
		t.Fatalf("posts after refused imports: %d (%v)", n, err)
	}
}

// TestImportSkipsTextNoDatabaseStores imports items holding NUL
// characters, which PostgreSQL refuses: each is skipped with a warning and
// the rest of the import goes on in the same transaction.
func TestImportSkipsTextNoDatabaseStores(t *testing.T) {
	e := newEnv(t)
	archive := makeZip(t, "manifest.json", manifestV1,
		"posts/nul.md", "---\ntitle: \"a\\u0000b\"\n---\nx\n",
		"pages/nul.md", "---\ntitle: Page\nslug: nul\n---\nbody \x00 here\n",
		"pages/config.md", "---\ntitle: Config\nconfig: \"{\\\"k\\\": \\\"\\u0000\\\"}\"\n---\n",
		"posts/plain.md", "---\ntitle: Written by hand: no quotes\nslug: 'hand'\ntags: [a-tag, \"b-tag\"]\nshow_comments: false\n---\nok\n",
		"tags.json", `[{"name": "A", "slug": "a-tag"}, {"name": "B", "slug": "b-tag"}, {"name": "N\u0000", "slug": "n"}]`,
		"friend_links.json", `[{"name": "F", "url": "https://f.example/\u0000"}, {"name": "G", "url": "https://g.example/", "status": "active"}]`,
		"comments.json", `[{"post": "hand", "author": "A", "email": "a@b.example", "content": "x\u0000", "status": "approved", "created_at": "2024-01-01T00:00:00Z"},
			{"post": "hand", "author": "B", "email": "not an email", "content": "fine", "status": "pending", "created_at": "2024-01-01T00:00:00Z"}]`)
	res := e.importFile("a.zip", archive)
	if res.Posts != (count{1, 0}) || res.Pages != (count{0, 0}) || res.Tags != (count{2, 0}) || res.FriendLinks != (count{1, 0}) ||
		res.Comments != (count{1, 0}) || len(res.Warnings) != 6 {
		t.Fatalf("result %+v", res)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/hand", nil), 200, &p)
	if p.Title != "Written by hand: no quotes" || p.ShowComments || len(p.Tags) != 2 {
		t.Fatalf("post %+v", p)
	}
}
