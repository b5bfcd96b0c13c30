package blog_test

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

// editorToken opens the new-post editor as the administrator and returns
// its form token.
func (e *env) editorToken() string {
	e.t.Helper()
	_, tok := consolePage(e.t, e.admin, "/console/blog/posts/new", 200)
	return tok
}

// consolePostForm is a complete editor form; pairs replace its fields.
func consolePostForm(tok string, pairs ...string) []string {
	f := map[string]string{"form_token": tok, "title": "Console post", "slug": "", "content_markdown": "Some *text*.",
		"summary": "", "cover_image": "", "status": "draft", "published_at": "", "category_id": "", "tags": "", "show_comments": "1"}
	for i := 0; i+1 < len(pairs); i += 2 {
		f[pairs[i]] = pairs[i+1]
	}
	var out []string
	for k, v := range f {
		out = append(out, k, v)
	}
	return out
}

// createInConsole posts the new-post form and returns the new post's id.
func (e *env) createInConsole(tok string, pairs ...string) string {
	e.t.Helper()
	res := e.admin.PostForm("/console/blog/posts", consolePostForm(tok, pairs...)...).Expect(303)
	id, ok := strings.CutPrefix(res.Location(), "/console/blog/posts/")
	if !ok || id == "" {
		e.t.Fatalf("create led to %q", res.Location())
	}
	return id
}

// adminPost reads a post through the admin API.
func (e *env) adminPost(id string) post {
	e.t.Helper()
	var p post
	data(e.t, e.admin.Do("GET", "/api/v1/admin/posts/"+id, nil), 200, &p)
	return p
}

func TestConsolePostsSignedOutGoToSignIn(t *testing.T) {
	e := newConsoleEnv(t)
	res := e.anon.Do("GET", "/console/blog/posts?status=draft", nil).Expect(303)
	if got, want := res.Location(), "/console/login?next="+url.QueryEscape("/console/blog/posts?status=draft"); got != want {
		t.Fatalf("Location %q, want %q", got, want)
	}
	for _, path := range []string{"/console/blog/posts", "/console/blog/preview", "/console/blog/posts/0123456789abcdef0123456789abcdef/delete"} {
		if res := e.anon.PostForm(path, "title", "x"); res.Status != 303 || !strings.HasPrefix(res.Location(), "/console/login") {
			t.Errorf("POST %s signed out: %d %q", path, res.Status, res.Location())
		}
	}
}

func TestConsolePostsRefuseAUserSession(t *testing.T) {
	e := newConsoleEnv(t)
	p := e.createPost(nil)
	u := e.userSession()
	for _, path := range []string{"/console/blog/posts", "/console/blog/posts/new", "/console/blog/posts/" + p.ID} {
		if res := u.Do("GET", path, nil); res.Status != 403 {
			t.Errorf("GET %s as a user: %d, want 403", path, res.Status)
		}
	}
	for _, path := range []string{"/console/blog/posts", "/console/blog/posts/" + p.ID, "/console/blog/posts/" + p.ID + "/delete", "/console/blog/preview"} {
		if res := u.PostForm(path, "title", "x"); res.Status != 403 {
			t.Errorf("POST %s as a user: %d, want 403", path, res.Status)
		}
	}
	if e.adminPost(p.ID).Title != p.Title {
		t.Fatal("a user changed the post")
	}
}

func TestConsolePostsRefuseAFormWithoutToken(t *testing.T) {
	e := newConsoleEnv(t)
	p := e.createPost(nil)
	for _, path := range []string{"/console/blog/posts", "/console/blog/posts/" + p.ID, "/console/blog/posts/" + p.ID + "/delete", "/console/blog/preview"} {
		e.admin.PostForm(path, "title", "x", "content_markdown", "y").Expect(403)
		e.admin.PostForm(path, "title", "x", "form_token", "forged").Expect(403)
	}
	e.adminPost(p.ID) // still there
}

func TestConsoleCreatePost(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	cat := e.createTerm("categories", "Notes")
	id := e.createInConsole(tok, "title", "Hello Console", "content_markdown", "Body\r\n\r\n## Part", "category_id", cat.ID,
		"summary", "By hand", "cover_image", "/i/abc.png", "show_comments", "")
	p := e.adminPost(id)
	if p.Title != "Hello Console" || p.Slug != "hello-console" || *p.ContentMarkdown != "Body\n\n## Part" || p.Status != "draft" ||
		p.CategoryID != cat.ID || p.Summary != "By hand" || p.CoverImage != "/i/abc.png" || p.ShowComments || p.PublishedAt != nil {
		t.Fatalf("created %+v", p)
	}
	res, _ := consolePage(t, e.admin, "/console/blog/posts/"+id, 200)
	if !has(res, "Post created.", `data-draft-key="post:`+id+`"`, `data-saved="post:new"`, `value="Hello Console"`,
		`href="/console/blog/posts/`+id+`/revisions"`, `href="/console/blog/posts/`+id+`/preview"`) {
		t.Fatalf("editor after create: %s", res.Body)
	}
	if has(res, "View on site") {
		t.Fatal("a draft links to the site")
	}
	// The flash is shown once: a reload is not a save.
	if res, _ := consolePage(t, e.admin, "/console/blog/posts/"+id, 200); has(res, "data-saved") {
		t.Fatal("data-saved on a plain reload")
	}
}

func TestConsolePostEditorPages(t *testing.T) {
	e := newConsoleEnv(t)
	e.createTerm("tags", "golang")
	res, _ := consolePage(t, e.admin, "/console/blog/posts/new", 200)
	if !has(res, "<h1>New post</h1>", `data-draft-key="post:new"`, `empty: made from the title when saved`, `data-md-source`,
		`data-md-preview`, `data-md-status`, `<option value="golang">`, "editor.", `name="published_at"`,
		`<small id="tags-hint">separated by commas; a new name creates the tag</small>`) {
		t.Fatalf("new post page: %s", res.Body)
	}
	// The editor never fills the slug in from the title (docs/console.md#posts-and-the-editor).
	if has(res, "data-slug-source") || has(res, "data-slug-target") || has(res, "slug-note") {
		t.Fatal("a new post's slug follows its title or says it is published")
	}
	if has(res, "Generate with AI") {
		t.Fatal("the AI button shows while AI is off")
	}
	if res.Header.Get("Content-Security-Policy") == "" {
		t.Fatal("no CSP")
	}
}

func TestConsolePostFormRefusals(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	e.publish("Taken", "slug", "taken")
	tests := []struct {
		name   string
		pairs  []string
		status int
		field  string
	}{
		{"empty title", []string{"title", "  "}, 422, "post-title"},
		{"bad slug", []string{"slug", "Not A Slug"}, 422, "post-slug"},
		{"unknown status", []string{"status", "live"}, 422, "post-status"},
		{"bad date", []string{"published_at", "tomorrow"}, 422, "post-published"},
		{"bad utc date", []string{"published_at_utc", "soon"}, 422, "post-published"},
		{"unknown category", []string{"category_id", "0123456789abcdef0123456789abcdef"}, 422, "post-category"},
		{"bad cover", []string{"cover_image", "javascript:alert(1)"}, 422, "post-cover"},
		{"long tag", []string{"tags", strings.Repeat("t", 101)}, 422, "post-tags"},
		{"taken slug", []string{"slug", "taken"}, 409, "post-slug"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs := append([]string{"content_markdown", "Typed <text> stays"}, tc.pairs...)
			res := e.admin.PostForm("/console/blog/posts", consolePostForm(tok, pairs...)...).Expect(tc.status)
			if !has(res, "Typed &lt;text&gt; stays</textarea>", `role="alert"`) {
				t.Fatalf("the form was not shown again with the text: %s", res.Body)
			}
			invalid := regexp.MustCompile(`id="` + tc.field + `"[^>]*aria-invalid="true"`)
			if !invalid.Match(res.Body) {
				t.Fatalf("%s not marked aria-invalid: %s", tc.field, res.Body)
			}
		})
	}
	var list page[post]
	data(t, e.admin.Do("GET", "/api/v1/admin/posts", nil), 200, &list)
	if list.Pagination.Total != 1 {
		t.Fatalf("%d posts after refused forms, want 1", list.Pagination.Total)
	}
	var tagList page[ref]
	data(t, e.admin.Do("GET", "/api/v1/admin/tags", nil), 200, &tagList)
	if tagList.Pagination.Total != 0 {
		t.Fatalf("refused forms left tags: %+v", tagList.Items)
	}
}

func TestConsoleSavePost(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	id := e.createInConsole(tok, "title", "First")
	res := e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "title", "Second", "slug", "second-slug",
		"content_markdown", "New body", "status", "published")...).Expect(303)
	if res.Location() != "/console/blog/posts/"+id {
		t.Fatalf("save led to %q", res.Location())
	}
	p := e.adminPost(id)
	if p.Title != "Second" || p.Slug != "second-slug" || *p.ContentMarkdown != "New body" || p.Status != "published" || p.PublishedAt == nil {
		t.Fatalf("saved %+v", p)
	}
	page, _ := consolePage(t, e.admin, "/console/blog/posts/"+id, 200)
	if !has(page, "Saved.", `data-saved=""`, `href="/posts/second-slug"`, "View on site") {
		t.Fatalf("editor after save: %s", page.Body)
	}
	// A refused save changes nothing and keeps what was typed.
	res = e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "title", "", "content_markdown", "Unsaved")...).Expect(422)
	if !has(res, "Unsaved</textarea>", "Title: must not be empty.") {
		t.Fatalf("refused save: %s", res.Body)
	}
	if e.adminPost(id).Title != "Second" {
		t.Fatal("a refused save changed the post")
	}
}

func TestConsoleSaveMarksTheSiteChanged(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	changed := func() string {
		var v string
		_ = e.db.QueryRow(context.Background(), "SELECT value FROM meta WHERE key = 'blog.site_changed'").Scan(&v)
		return v
	}
	before := changed()
	id := e.createInConsole(tok)
	afterCreate := changed()
	if afterCreate == "" || afterCreate == before {
		t.Fatalf("create did not mark the site changed: %q → %q", before, afterCreate)
	}
	time.Sleep(2 * time.Millisecond)
	e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "title", "Again")...).Expect(303)
	afterSave := changed()
	if afterSave == afterCreate {
		t.Fatal("save did not mark the site changed")
	}
	time.Sleep(2 * time.Millisecond)
	e.admin.PostForm("/console/blog/posts/"+id+"/delete", "form_token", tok).Expect(303)
	if changed() == afterSave {
		t.Fatal("delete did not mark the site changed")
	}
}

func TestConsoleDeletePost(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	p := e.publish("Doomed", "slug", "doomed")
	res := e.admin.PostForm("/console/blog/posts/"+p.ID+"/delete", "form_token", tok).Expect(303)
	if res.Location() != "/console/blog/posts" {
		t.Fatalf("delete led to %q", res.Location())
	}
	e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil).Expect(404)
	list, _ := consolePage(t, e.admin, "/console/blog/posts", 200)
	if !has(list, "Post deleted.") || has(list, "Doomed") {
		t.Fatalf("list after delete: %s", list.Body)
	}
	// The slug is free again.
	e.createInConsole(tok, "title", "Doomed", "slug", "doomed")
}

func TestConsolePostUnknownIDs(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	for _, id := range []string{"0123456789abcdef0123456789abcdef", "nope", "new-ish"} {
		e.admin.Do("GET", "/console/blog/posts/"+id, nil).Expect(404)
		e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok)...).Expect(404)
		e.admin.PostForm("/console/blog/posts/"+id+"/delete", "form_token", tok).Expect(404)
	}
	gone := e.createPost(nil)
	e.admin.Do("DELETE", "/api/v1/admin/posts/"+gone.ID, nil, "Origin", e.admin.Base).Expect(200)
	e.admin.Do("GET", "/console/blog/posts/"+gone.ID, nil).Expect(404)
}

func TestConsolePostTagsCreatedInline(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	old := e.createTerm("tags", "Go")
	id := e.createInConsole(tok, "tags", "GO, Fresh Ideas , fresh ideas,,  ")
	p := e.adminPost(id)
	if len(p.Tags) != 2 {
		t.Fatalf("tags %+v, want Go and Fresh Ideas", p.Tags)
	}
	names := map[string]string{}
	for _, tg := range p.Tags {
		names[tg.Name] = tg.ID
	}
	if names["Go"] != old.ID || names["Fresh Ideas"] == "" {
		t.Fatalf("tags %+v: Go must be reused, Fresh Ideas created", p.Tags)
	}
	res, _ := consolePage(t, e.admin, "/console/blog/posts/"+id, 200)
	if !has(res, `value="Fresh Ideas, Go"`) {
		t.Fatalf("the editor does not show the tags: %s", res.Body)
	}
	// Clearing the field detaches them; the tags stay.
	e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "tags", "")...).Expect(303)
	if tags := e.adminPost(id).Tags; len(tags) != 0 {
		t.Fatalf("tags after clearing: %+v", tags)
	}
}

func TestConsoleSchedulesAPost(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	future := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Minute)
	id := e.createInConsole(tok, "title", "Later", "status", "published", "published_at", future.Format("2006-01-02T15:04"))
	p := e.adminPost(id)
	if p.PublishedAt == nil || !p.PublishedAt.Equal(future) {
		t.Fatalf("published_at %v, want %v (UTC)", p.PublishedAt, future)
	}
	e.anon.Do("GET", "/api/v1/posts/"+id, nil).Expect(404)
	list, _ := consolePage(t, e.admin, "/console/blog/posts?status=scheduled", 200)
	if !has(list, "Later", "Scheduled for", future.Format("2006-01-02 15:04 UTC")) {
		t.Fatalf("scheduled list: %s", list.Body)
	}
	if list, _ := consolePage(t, e.admin, "/console/blog/posts?status=published", 200); has(list, "Later") {
		t.Fatal("a scheduled post is listed as published")
	}

	// The script sends the writer's local time as RFC 3339.
	local := time.FixedZone("UTC+2", 2*3600)
	at := time.Date(2030, 5, 1, 9, 30, 0, 0, local)
	e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "title", "Later", "status", "published",
		"published_at", "2030-05-01T09:30", "published_at_utc", at.Format(time.RFC3339))...).Expect(303)
	if got := e.adminPost(id).PublishedAt; got == nil || !got.Equal(at) {
		t.Fatalf("published_at %v, want %v", got, at)
	}
	res, _ := consolePage(t, e.admin, "/console/blog/posts/"+id, 200)
	if !has(res, `value="2030-05-01T07:30"`) {
		t.Fatalf("the editor does not show the date in UTC: %s", res.Body)
	}

	// Clearing the date of a scheduled post publishes it now.
	e.admin.PostForm("/console/blog/posts/"+id, consolePostForm(tok, "title", "Later", "status", "published")...).Expect(303)
	got := e.adminPost(id).PublishedAt
	if got == nil || got.After(time.Now()) {
		t.Fatalf("published_at %v after clearing, want now", got)
	}
	e.anon.Do("GET", "/api/v1/posts/"+id, nil).Expect(200)
	if list, _ := consolePage(t, e.admin, "/console/blog/posts?status=published", 200); !has(list, "Later") {
		t.Fatal("the post is not listed as published")
	}
}

func TestConsolePostsListFilters(t *testing.T) {
	e := newConsoleEnv(t)
	cat := e.createTerm("categories", "Travel")
	e.createPost(map[string]any{"title": "Draft about Lisbon"})
	e.publish("Published in Travel", "category_id", cat.ID)
	e.publish("Scheduled piece", "published_at", time.Now().Add(24*time.Hour).UTC().Format(time.RFC3339))
	e.createPost(map[string]any{"title": "Old archive", "status": "archived"})

	tests := []struct {
		query    string
		want     []string
		wantNone []string
	}{
		{"", []string{"Draft about Lisbon", "Published in Travel", "Scheduled piece", "Old archive"}, nil},
		{"?status=all", []string{"Draft about Lisbon", "Old archive"}, nil},
		{"?status=draft", []string{"Draft about Lisbon"}, []string{"Published in Travel", "Scheduled piece", "Old archive"}},
		{"?status=scheduled", []string{"Scheduled piece", "Scheduled for"}, []string{"Draft about Lisbon", "Published in Travel"}},
		{"?status=published", []string{"Published in Travel"}, []string{"Scheduled piece", "Draft about Lisbon"}},
		{"?status=archived", []string{"Old archive"}, []string{"Draft about Lisbon"}},
		{"?q=lisbon", []string{"Draft about Lisbon"}, []string{"Old archive"}},
		{"?category=" + cat.ID, []string{"Published in Travel"}, []string{"Draft about Lisbon"}},
		{"?q=nothing-like-this", []string{"No post matches."}, []string{"Draft about Lisbon"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res, _ := consolePage(t, e.admin, "/console/blog/posts"+tc.query, 200)
			for _, w := range tc.want {
				if !has(res, w) {
					t.Errorf("%q missing", w)
				}
			}
			for _, w := range tc.wantNone {
				if has(res, w) {
					t.Errorf("%q listed", w)
				}
			}
		})
	}
	for _, q := range []string{"?page=x", "?status=live", "?category=bad!"} {
		e.admin.Do("GET", "/console/blog/posts"+q, nil).Expect(400)
	}
}

func TestConsolePostsListPagesKeepTheFilters(t *testing.T) {
	e := newConsoleEnv(t)
	for i := 0; i < 21; i++ {
		e.createPost(map[string]any{"title": "Post about cats"})
	}
	e.createPost(map[string]any{"title": "Other"})
	res, _ := consolePage(t, e.admin, "/console/blog/posts?q=cats&status=draft", 200)
	if !has(res, `href="/console/blog/posts?page=2&amp;q=cats&amp;status=draft"`, "Page 1 of 2") {
		t.Fatalf("pager: %s", res.Body)
	}
	res, _ = consolePage(t, e.admin, "/console/blog/posts?page=2&q=cats&status=draft", 200)
	if strings.Count(string(res.Body), "Post about cats") != 1 {
		t.Fatalf("page 2: %s", res.Body)
	}
}

func TestConsolePreview(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()
	preview := func(src string, headers ...string) *httpxtest.Response {
		t.Helper()
		body := url.Values{"content_markdown": {src}}.Encode()
		h := append([]string{"Content-Type", "application/x-www-form-urlencoded", "Origin", e.admin.Base}, headers...)
		return e.admin.Do("POST", "/console/blog/preview", []byte(body), h...)
	}
	res := preview("| a | b |\n|---|---|\n| 1 | 2 |\n\nNote[^1]\n\n[^1]: The footnote.\n\n<script>alert(1)</script>\n\n## Head", "X-Form-Token", tok).Expect(200)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	var out struct {
		HTML string `json:"html"`
		TOC  []struct {
			Level int    `json:"level"`
			Text  string `json:"text"`
			ID    string `json:"id"`
		} `json:"toc"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<table>", "<td>1</td>", `class="footnotes"`, "The footnote.", "&lt;script&gt;"} {
		if !strings.Contains(out.HTML, want) {
			t.Errorf("preview lacks %q: %s", want, out.HTML)
		}
	}
	if strings.Contains(out.HTML, "<script>") {
		t.Fatalf("raw HTML passed through: %s", out.HTML)
	}
	if len(out.TOC) != 1 || out.TOC[0].Text != "Head" {
		t.Fatalf("toc %+v", out.TOC)
	}
	preview("# Hi").Expect(403)
	preview("# Hi", "X-Form-Token", "forged").Expect(403)
	preview(strings.Repeat("x", 1<<20+1), "X-Form-Token", tok).Expect(413)
}

func TestConsolePostEditorSaysAPublishedSlugMovesTheURL(t *testing.T) {
	e := newConsoleEnv(t)
	published := e.publish("Out there", "slug", "out-there")
	draft := e.createPost(map[string]any{"title": "Not yet", "slug": "not-yet"})
	for _, tc := range []struct {
		name, id string
		want     []string
		not      []string
	}{
		{"published: the current slug and the note", published.ID,
			[]string{`value="out-there"`, `aria-describedby="slug-hint slug-note"`, "empty: keeps the current one",
				`<small id="slug-note" class="slug-note muted">Published at /posts/out-there. Changing the slug moves the post to a new URL; the old one redirects there.</small>`},
			nil},
		{"never published: no note", draft.ID,
			[]string{`value="not-yet"`, "empty: made from the title when saved"},
			[]string{"slug-note", "keeps the current one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := consolePage(t, e.admin, "/console/blog/posts/"+tc.id, 200)
			if !has(res, tc.want...) {
				t.Fatalf("editor lacks %q: %s", tc.want, res.Body)
			}
			for _, n := range tc.not {
				if has(res, n) {
					t.Errorf("editor has %q", n)
				}
			}
		})
	}
}
