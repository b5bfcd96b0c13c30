package blog_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCreatePostFullResource(t *testing.T) {
	e := newEnv(t)
	cat := e.createTerm("categories", "Go")
	t1, t2 := e.createTerm("tags", "Zeta"), e.createTerm("tags", "Alpha")
	p := e.createPost(map[string]any{
		"title": "Hello, World!", "content_markdown": "# Intro\n\nSome *text*.\n\n## Part two\n",
		"status": "published", "category_id": cat.ID, "tag_ids": []string{t1.ID, t2.ID, t1.ID},
		"content_html": "<b>ignored</b>", "cover_image": "https://img.example/c.png",
	})
	if p.Slug != "hello-world" || p.Status != "published" || p.PublishedAt == nil || !p.ShowComments {
		t.Fatalf("post = %+v", p)
	}
	if p.Category == nil || *p.Category != cat || p.CategoryID != cat.ID {
		t.Errorf("category = %+v", p.Category)
	}
	if len(p.Tags) != 2 || p.Tags[0].Name != "Alpha" || p.Tags[1].Name != "Zeta" {
		t.Errorf("tags = %+v", p.Tags)
	}
	if p.ContentHTML == nil || !strings.Contains(*p.ContentHTML, `<h1 id="intro">Intro</h1>`) || strings.Contains(*p.ContentHTML, "ignored") {
		t.Errorf("content_html = %v", p.ContentHTML)
	}
	if p.Summary != "Some text." { // headings are left out of the summary
		t.Errorf("auto summary = %q", p.Summary)
	}
	if len(p.TOC) != 2 || p.TOC[0]["id"] != "intro" || p.TOC[1]["level"] != float64(2) || p.TOC[1]["text"] != "Part two" {
		t.Errorf("toc = %v", p.TOC)
	}
	// Draft by default, no published_at.
	d := e.createPost(map[string]any{"title": "Draft"})
	if d.Status != "draft" || d.PublishedAt != nil || d.Category != nil || d.CategoryID != "" || d.Tags == nil {
		t.Errorf("draft = %+v", d)
	}
}

func TestPostValidation(t *testing.T) {
	e := newEnv(t)
	e.createPost(map[string]any{"title": "Taken", "slug": "taken"})
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"empty title", map[string]any{"title": "  "}, 422, "title: must not be empty"},
		{"bad slug", map[string]any{"title": "x", "slug": "Bad Slug"}, 422, "slug: must be 1-100 characters of a-z, 0-9 and -"},
		{"long slug", map[string]any{"title": "x", "slug": strings.Repeat("a", 101)}, 422, ""},
		{"unknown status", map[string]any{"title": "x", "status": "live"}, 422, "status: must be draft, published or archived"},
		{"unknown category", map[string]any{"title": "x", "category_id": "0190a000-0000-7000-8000-000000000009"}, 422, "category_id: category does not exist"},
		{"malformed category", map[string]any{"title": "x", "category_id": "nope"}, 422, ""},
		{"unknown tag", map[string]any{"title": "x", "tag_ids": []string{"0190a000-0000-7000-8000-000000000009"}}, 422, "tag_ids: a tag does not exist"},
		{"bad cover", map[string]any{"title": "x", "cover_image": "javascript:alert(1)"}, 422, ""},
		{"duplicate slug", map[string]any{"title": "x", "slug": "taken"}, 409, "duplicate slug"},
		{"malformed JSON", `{"title":`, 400, "invalid request payload"},
		{"wrong type", `{"title": 5}`, 400, "invalid request payload"},
		{"bad published_at", `{"title": "x", "published_at": "yesterday"}`, 400, "invalid request payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Do("POST", "/api/v1/admin/posts", tt.body), tt.status, tt.msg)
		})
	}
}

func TestSlugDerivation(t *testing.T) {
	e := newEnv(t)
	tests := []struct{ title, want string }{
		{"Hello, World!", "hello-world"},
		{"Hello, World!", "hello-world-2"},
		{"  Go 1.26 -- released  ", "go-1-26-released"},
		{"Ünïcödé only ASCII kept", "n-c-d-only-ascii-kept"},
	}
	for _, tt := range tests {
		if p := e.createPost(map[string]any{"title": tt.title}); p.Slug != tt.want {
			t.Errorf("slug of %q = %q, want %q", tt.title, p.Slug, tt.want)
		}
	}
	p := e.createPost(map[string]any{"title": "你好世界"})
	if len(p.Slug) != 8 || strings.Trim(p.Slug, "abcdefghijkmnpqrstuvwxyz23456789") != "" {
		t.Errorf("random slug = %q", p.Slug)
	}
}

func TestSoftDeleteFreesSlugAndHides(t *testing.T) {
	e := newEnv(t)
	p := e.publish("Gone", "slug", "gone")
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
	for _, path := range []string{"/api/v1/posts/" + p.ID, "/api/v1/posts/slug/gone", "/api/v1/admin/posts/" + p.ID, "/api/v1/admin/posts/slug/gone"} {
		expectError(t, e.admin.Do("GET", path, nil), 404, "resource not found")
	}
	expectError(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 404, "resource not found")
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "x"}), 404, "")
	var l page[post]
	data(t, e.admin.Do("GET", "/api/v1/admin/posts", nil), 200, &l)
	if l.Pagination.Total != 0 {
		t.Errorf("admin list still holds the deleted post: %+v", l)
	}
	again := e.publish("Back", "slug", "gone")
	if again.Slug != "gone" || again.ID == p.ID {
		t.Errorf("slug not freed: %+v", again)
	}
}

func TestPublicVisibility(t *testing.T) {
	e := newEnv(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	visible := e.publish("Visible")
	hidden := []post{
		e.createPost(map[string]any{"title": "Draft"}),
		e.createPost(map[string]any{"title": "Archived", "status": "archived"}),
		e.publish("Future", "published_at", future),
	}
	deleted := e.publish("Deleted")
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+deleted.ID, nil), 200, nil)
	hidden = append(hidden, deleted)
	for _, p := range hidden {
		expectError(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID, nil), 404, "resource not found")
		expectError(t, e.anon.Do("GET", "/api/v1/posts/slug/"+p.Slug, nil), 404, "resource not found")
		expectError(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID+"/comments", nil), 404, "")
	}
	var l page[post]
	data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, &l)
	if l.Pagination.Total != 1 || len(l.Items) != 1 || l.Items[0].ID != visible.ID {
		t.Fatalf("public list = %+v", l)
	}
	if l.Items[0].ContentMarkdown != nil || l.Items[0].ContentHTML != nil {
		t.Error("public list items carry content")
	}
	var d post
	data(t, e.anon.Do("GET", "/api/v1/posts/slug/"+visible.Slug, nil), 200, &d)
	if d.ContentMarkdown == nil || d.ContentHTML == nil || d.ID != visible.ID {
		t.Errorf("detail = %+v", d)
	}
	expectError(t, e.anon.Do("GET", "/api/v1/posts/not-a-uuid", nil), 404, "resource not found")
	// The admin sees everything but the deleted one.
	data(t, e.admin.Do("GET", "/api/v1/admin/posts", nil), 200, &l)
	if l.Pagination.Total != 4 {
		t.Errorf("admin total = %d, want 4", l.Pagination.Total)
	}
	for _, p := range hidden[:3] {
		data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
		data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/"+p.Slug, nil), 200, nil)
	}
}

func TestPostOrderingAndPaging(t *testing.T) {
	e := newEnv(t)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 25 {
		// Published out of creation order: newest published first.
		at := base.Add(time.Duration((i*7)%25) * time.Hour).Format(time.RFC3339)
		ids = append(ids, e.publish(fmt.Sprintf("Post %d", i), "published_at", at).ID)
	}
	var l page[post]
	data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, &l)
	if len(l.Items) != 10 || l.Pagination.Page != 1 || l.Pagination.PageSize != 10 || l.Pagination.Total != 25 {
		t.Fatalf("default paging = %+v", l.Pagination)
	}
	var all page[post]
	data(t, e.anon.Do("GET", "/api/v1/posts?page_size=1000", nil), 200, &all)
	if all.Pagination.PageSize != 100 || len(all.Items) != 25 {
		t.Fatalf("capped paging = %+v", all.Pagination)
	}
	for i := 1; i < len(all.Items); i++ {
		if !all.Items[i-1].PublishedAt.After(*all.Items[i].PublishedAt) {
			t.Fatalf("public order broken at %d", i)
		}
	}
	var p3 page[post]
	data(t, e.anon.Do("GET", "/api/v1/posts?page=3&page_size=10", nil), 200, &p3)
	if len(p3.Items) != 5 || p3.Items[0].ID != all.Items[20].ID {
		t.Errorf("page 3 = %d items", len(p3.Items))
	}
	expectError(t, e.anon.Do("GET", "/api/v1/posts?page=x", nil), 400, "")
	// Admin: created_at DESC.
	data(t, e.admin.Do("GET", "/api/v1/admin/posts?page_size=100", nil), 200, &all)
	for i, p := range all.Items {
		if p.ID != ids[len(ids)-1-i] {
			t.Fatalf("admin order: item %d is %s", i, p.Title)
		}
	}
}

func TestPostFilters(t *testing.T) {
	e := newEnv(t)
	cat := e.createTerm("categories", "Cooking")
	tag := e.createTerm("tags", "Soup")
	a := e.publish("Tomato soup", "category_id", cat.ID, "tag_ids", []string{tag.ID})
	b := e.publish("Bread", "content_markdown", "Needs flour and 50% water")
	d := e.createPost(map[string]any{"title": "Secret soup", "tag_ids": []string{tag.ID}})
	tests := []struct {
		path string
		want []string
	}{
		{"/api/v1/posts?keyword=SOUP", []string{a.ID}},
		{"/api/v1/posts?keyword=50%25", []string{b.ID}},
		{"/api/v1/posts?keyword=5_", nil},
		{"/api/v1/posts?tag_id=" + tag.ID, []string{a.ID}},
		{"/api/v1/posts?category_id=" + cat.ID, []string{a.ID}},
		{"/api/v1/admin/posts?tag_id=" + tag.ID, []string{d.ID, a.ID}},
		{"/api/v1/admin/posts?status=draft", []string{d.ID}},
		{"/api/v1/admin/posts?status=published&keyword=soup", []string{a.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var l page[post]
			data(t, e.admin.Do("GET", tt.path, nil), 200, &l)
			var got []string
			for _, p := range l.Items {
				got = append(got, p.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || l.Pagination.Total != len(tt.want) {
				t.Errorf("got %v (total %d), want %v", got, l.Pagination.Total, tt.want)
			}
		})
	}
	expectError(t, e.admin.Do("GET", "/api/v1/admin/posts?status=bogus", nil), 422, "")
	expectError(t, e.admin.Do("GET", "/api/v1/posts?tag_id=bogus", nil), 400, "")
}

func TestPutAndPatchPost(t *testing.T) {
	e := newEnv(t)
	cat := e.createTerm("categories", "C")
	tag := e.createTerm("tags", "T")
	p := e.createPost(map[string]any{"title": "Orig", "slug": "orig", "summary": "Hand written", "category_id": cat.ID,
		"tag_ids": []string{tag.ID}, "show_comments": false, "status": "published"})

	// PATCH changes only what is sent.
	var got post
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"content_markdown": "New body"}), 200, &got)
	if got.Title != "Orig" || got.Slug != "orig" || got.Summary != "Hand written" || got.Category == nil || len(got.Tags) != 1 ||
		got.ShowComments || *got.ContentHTML != "<p>New body</p>\n" || !got.PublishedAt.Equal(*p.PublishedAt) {
		t.Fatalf("after PATCH: %+v", got)
	}
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"category_id": "", "tag_ids": []string{}, "summary": ""}), 200, &got)
	if got.Category != nil || len(got.Tags) != 0 || got.Summary != "New body" {
		t.Fatalf("after clearing PATCH: %+v", got)
	}
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": ""}), 422, "title: must not be empty")

	// PUT replaces everything: omitted fields take their defaults, but a
	// post once published keeps its slug when none is sent.
	data(t, e.admin.Do("PUT", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "Replaced"}), 200, &got)
	if got.Title != "Replaced" || got.Slug != "orig" || got.Status != "draft" || !got.ShowComments || *got.ContentMarkdown != "" {
		t.Fatalf("after PUT: %+v", got)
	}
	other := e.createPost(map[string]any{"title": "Other", "slug": "other"})
	expectError(t, e.admin.Do("PUT", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "x", "slug": "other"}), 409, "duplicate slug")
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+other.ID, `{"status": 1}`), 400, "invalid request payload")
	expectError(t, e.admin.Do("PUT", "/api/v1/admin/posts/0190a000-0000-7000-8000-000000000009", map[string]any{"title": "x"}), 404, "resource not found")
	// Keeping one's own slug is no conflict.
	data(t, e.admin.Do("PUT", "/api/v1/admin/posts/"+other.ID, map[string]any{"title": "Other", "slug": "other"}), 200, nil)
}

func TestSummaryRules(t *testing.T) {
	e := newEnv(t)
	s := e.settings.Get(t.Context())
	s.Post.SummaryLength = 5
	if err := e.settings.Put(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	p := e.createPost(map[string]any{"title": "S", "content_markdown": "**Ünïcode** text here"})
	if p.Summary != "Ünïc…" { // one word: cut inside it
		t.Fatalf("auto summary = %q", p.Summary)
	}
	// Sending back the derived summary keeps it derived: new content, new summary.
	var got post
	data(t, e.admin.Do("PUT", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "S", "summary": p.Summary, "content_markdown": "Other words"}), 200, &got)
	if got.Summary != "Othe…" {
		t.Fatalf("summary after PUT = %q", got.Summary)
	}
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"summary": "Mine"}), 200, &got)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"content_markdown": "Changed again"}), 200, &got)
	if got.Summary != "Mine" {
		t.Fatalf("hand-written summary lost: %q", got.Summary)
	}
}

func TestTOCFollowsSetting(t *testing.T) {
	e := newEnv(t)
	p := e.publish("T", "content_markdown", "## A\n\n### B `c`")
	var d map[string]any
	data(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID, nil), 200, &d)
	if fmt.Sprint(d["toc"]) != "[map[id:a level:2 text:A] map[id:b-c level:3 text:B c]]" {
		t.Errorf("toc = %v", d["toc"])
	}
	s := e.settings.Get(t.Context())
	s.Post.EnableTOC = false
	if err := e.settings.Put(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	d = nil
	data(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID, nil), 200, &d)
	if _, ok := d["toc"]; ok {
		t.Errorf("toc present with enable_toc off: %v", d["toc"])
	}
}
