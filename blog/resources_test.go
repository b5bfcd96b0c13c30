package blog_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

type pageRes struct {
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Slug        string  `json:"slug"`
	ContentHTML string  `json:"content_html"`
	Status      string  `json:"status"`
	SortOrder   int     `json:"sort_order"`
	ShowInNav   bool    `json:"show_in_nav"`
	PublishedAt *string `json:"published_at"`
	Template    string  `json:"template"`
	Config      string  `json:"config"`
}

func TestPages(t *testing.T) {
	e := newEnv(t)
	var about pageRes
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "About me", "status": "published", "sort_order": 2,
		"template": "about", "config": `{"email": "me@example.com"}`, "content_markdown": "Hi"}), 201, &about)
	if about.Slug != "about-me" || about.Template != "about" || about.PublishedAt == nil || about.ContentHTML != "<p>Hi</p>\n" {
		t.Fatalf("page = %+v", about)
	}
	var first, draft pageRes
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "First", "status": "published", "sort_order": 1}), 201, &first)
	if first.Template != "default" || first.Config != "{}" {
		t.Errorf("defaults: %+v", first)
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Draft page"}), 201, &draft)

	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"no title", map[string]any{"title": ""}, 422, "title: must not be empty"},
		{"unknown template", map[string]any{"title": "x", "template": "nope"}, 422, "template: no such page template"},
		{"path template", map[string]any{"title": "x", "template": "../site/home"}, 422, "template: no such page template"},
		{"missing required key", map[string]any{"title": "x", "template": "about", "config": `{"location": "Oslo"}`}, 422, `config: missing required key "email" of template "about"`},
		{"invalid config", map[string]any{"title": "x", "config": `{nope`}, 422, "config: must be a JSON object"},
		{"unknown status", map[string]any{"title": "x", "status": "gone"}, 422, ""},
		{"duplicate slug", map[string]any{"title": "x", "slug": "first"}, 409, "duplicate slug"},
		{"malformed", `[`, 400, "invalid request payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Do("POST", "/api/v1/admin/pages", tt.body), tt.status, tt.msg)
		})
	}

	var l page[pageRes]
	data(t, e.anon.Do("GET", "/api/v1/pages", nil), 200, &l)
	if l.Pagination.Total != 2 || l.Items[0].ID != first.ID || l.Items[1].ID != about.ID {
		t.Fatalf("public pages = %+v", l)
	}
	data(t, e.anon.Do("GET", "/api/v1/pages/slug/about-me", nil), 200, nil)
	expectError(t, e.anon.Do("GET", "/api/v1/pages/slug/"+draft.Slug, nil), 404, "resource not found")
	data(t, e.admin.Do("GET", "/api/v1/admin/pages?status=draft", nil), 200, &l)
	if l.Pagination.Total != 1 || l.Items[0].ID != draft.ID {
		t.Errorf("admin status filter = %+v", l)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/pages?keyword=ABOUT", nil), 200, &l)
	if l.Pagination.Total != 1 {
		t.Errorf("admin keyword filter = %+v", l)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+draft.ID, nil), 200, nil)

	var got pageRes
	data(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+about.ID, map[string]any{"show_in_nav": true}), 200, &got)
	if !got.ShowInNav || got.Template != "about" || got.Title != "About me" {
		t.Errorf("after PATCH: %+v", got)
	}
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+about.ID, map[string]any{"config": "{}"}), 422, `config: missing required key "email" of template "about"`)
	data(t, e.admin.Do("PUT", "/api/v1/admin/pages/"+about.ID, map[string]any{"title": "Plain"}), 200, &got)
	// The page was published: without a slug it keeps its own.
	if got.Template != "default" || got.Status != "draft" || got.Slug != "about-me" {
		t.Errorf("after PUT: %+v", got)
	}
	data(t, e.admin.Do("DELETE", "/api/v1/admin/pages/"+first.ID, nil), 200, nil)
	expectError(t, e.anon.Do("GET", "/api/v1/pages/slug/first", nil), 404, "")
	expectError(t, e.admin.Do("GET", "/api/v1/admin/pages/"+first.ID, nil), 404, "")
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "First again", "slug": "first"}), 201, nil)
}

func TestCategoriesAndTags(t *testing.T) {
	for _, res := range []string{"categories", "tags"} {
		t.Run(res, func(t *testing.T) {
			e := newEnv(t)
			a := e.createTerm(res, "Alpha Beta")
			if a.Slug != "alpha-beta" {
				t.Errorf("slug = %q", a.Slug)
			}
			b := e.createTerm(res, "Gamma")
			expectError(t, e.admin.Do("POST", "/api/v1/admin/"+res, map[string]string{"name": "x", "slug": "gamma"}), 409, "duplicate slug")
			expectError(t, e.admin.Do("POST", "/api/v1/admin/"+res, map[string]string{"name": ""}), 422, "name: must not be empty")
			expectError(t, e.admin.Do("POST", "/api/v1/admin/"+res, map[string]string{"name": "x", "slug": "UP"}), 422, "")
			expectError(t, e.admin.Do("POST", "/api/v1/admin/"+res, `{"name": true}`), 400, "invalid request payload")

			var l page[ref]
			data(t, e.anon.Do("GET", "/api/v1/"+res+"?keyword=gam", nil), 200, &l)
			if l.Pagination.Total != 1 || l.Items[0].ID != b.ID {
				t.Errorf("keyword list = %+v", l)
			}
			data(t, e.anon.Do("GET", "/api/v1/"+res+"?page_size=1&page=2", nil), 200, &l)
			if l.Pagination.Total != 2 || len(l.Items) != 1 || l.Items[0].ID != b.ID {
				t.Errorf("paged list = %+v", l)
			}
			data(t, e.admin.Do("GET", "/api/v1/admin/"+res, nil), 200, &l)
			var got ref
			data(t, e.anon.Do("GET", "/api/v1/"+res+"/"+a.ID, nil), 200, &got)
			data(t, e.admin.Do("GET", "/api/v1/admin/"+res+"/"+a.ID, nil), 200, &got)
			data(t, e.admin.Do("PATCH", "/api/v1/admin/"+res+"/"+a.ID, map[string]string{"name": "Renamed"}), 200, &got)
			if got.Name != "Renamed" || got.Slug != "alpha-beta" {
				t.Errorf("after PATCH: %+v", got)
			}
			data(t, e.admin.Do("PUT", "/api/v1/admin/"+res+"/"+a.ID, map[string]string{"name": "Put Name"}), 200, &got)
			if got.Slug != "put-name" {
				t.Errorf("after PUT: %+v", got)
			}

			// Deleting detaches it from posts.
			field, val := "category_id", any(b.ID)
			if res == "tags" {
				field, val = "tag_ids", []string{b.ID}
			}
			p := e.publish("Tagged", field, val)
			data(t, e.admin.Do("DELETE", "/api/v1/admin/"+res+"/"+b.ID, nil), 200, nil)
			var d post
			data(t, e.anon.Do("GET", "/api/v1/posts/"+p.ID, nil), 200, &d)
			if d.Category != nil || d.CategoryID != "" || len(d.Tags) != 0 {
				t.Errorf("post still attached: %+v", d)
			}
			expectError(t, e.anon.Do("GET", "/api/v1/"+res+"/"+b.ID, nil), 404, "resource not found")
			expectError(t, e.admin.Do("DELETE", "/api/v1/admin/"+res+"/"+b.ID, nil), 404, "")
			data(t, e.admin.Do("GET", "/api/v1/posts?"+map[string]string{"categories": "category_id", "tags": "tag_id"}[res]+"="+b.ID, nil), 200, &l)
			if l.Pagination.Total != 0 {
				t.Errorf("filter by deleted term found %d", l.Pagination.Total)
			}
			expectError(t, e.admin.Do("POST", "/api/v1/admin/posts", map[string]any{"title": "x", field: val}), 422, "")
			if c := e.createTerm(res, "Gamma"); c.Slug != "gamma" {
				t.Errorf("slug not freed: %q", c.Slug)
			}
		})
	}
}

type comment struct {
	ID        string `json:"id"`
	Author    string `json:"author"`
	Content   string `json:"content"`
	Email     string `json:"email"`
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	PostID    string `json:"post_id"`
	PostTitle string `json:"post_title"`
	Status    string `json:"status"`
}

func TestComments(t *testing.T) {
	e := newEnv(t)
	p := e.publish("Open")
	closed := e.publish("Closed", "show_comments", false)
	draft := e.createPost(map[string]any{"title": "Draft"})
	path := "/api/v1/posts/" + p.ID + "/comments"
	good := map[string]string{"author": "Ann", "email": "ann@example.com", "content": "Nice"}

	var rc map[string]any
	data(t, e.anon.Do("POST", path, good, "User-Agent", "tester/1"), 201, &rc)
	if rc["status"] != "pending" || rc["id"] == "" || rc["created_at"] == nil || len(rc) != 3 {
		t.Fatalf("receipt = %v", rc)
	}
	cases := []struct {
		name   string
		path   string
		body   any
		status int
		msg    string
	}{
		{"no author", path, map[string]string{"author": "", "email": "a@b.example", "content": "x"}, 422, "author: must not be empty"},
		{"long author", path, map[string]string{"author": fmt.Sprintf("%051d", 0), "email": "a@b.example", "content": "x"}, 422, "author: must be at most 50 characters"},
		{"bad email", path, map[string]string{"author": "a", "email": "nope", "content": "x"}, 422, "email: must be a valid email address"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.visitor("192.0.2.1").Do("POST", tt.path, tt.body), tt.status, tt.msg)
		})
	}
	c2 := e.visitor("192.0.2.2")
	expectError(t, c2.Do("POST", path, map[string]string{"author": "a", "email": "a@b.example", "content": ""}), 422, "content: must not be empty")
	expectError(t, c2.Do("POST", path, map[string]string{"author": "a", "email": "a@b.example", "content": fmt.Sprintf("%05001d", 0)}), 422, "content: must be at most 5000 characters")
	expectError(t, c2.Do("POST", "/api/v1/posts/"+closed.ID+"/comments", good), 403, "")
	expectError(t, c2.Do("POST", "/api/v1/posts/"+draft.ID+"/comments", good), 404, "resource not found")
	expectError(t, c2.Do("POST", "/api/v1/posts/0190a000-0000-7000-8000-000000000009/comments", good), 404, "resource not found")
	// The 5/min/IP limit: 5 attempts so far from this IP; the next is refused.
	r := c2.Do("POST", path, good)
	expectError(t, r, 429, "")
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}

	// Pending comments are not public.
	var pub page[map[string]any]
	data(t, e.anon.Do("GET", path, nil), 200, &pub)
	if pub.Pagination.Total != 0 || pub.Pagination.PageSize != 20 {
		t.Fatalf("public before review = %+v", pub)
	}
	var adm page[comment]
	data(t, e.admin.Do("GET", "/api/v1/admin/comments?status=pending&post_id="+p.ID, nil), 200, &adm)
	if adm.Pagination.Total != 1 {
		t.Fatalf("admin list = %+v", adm)
	}
	c := adm.Items[0]
	if c.Email != "ann@example.com" || c.IP != "127.0.0.1" || c.UserAgent != "tester/1" || c.PostTitle != "Open" || c.Status != "pending" {
		t.Errorf("admin item = %+v", c)
	}
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "great"}), 422, "status: must be approved, pending or spam")
	data(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "approved"}), 200, &c)
	if c.Status != "approved" || c.PostTitle != "Open" {
		t.Errorf("after review: %+v", c)
	}
	data(t, e.anon.Do("GET", path, nil), 200, &pub)
	// Exactly these keys: never the email, the IP or the user agent.
	if pub.Pagination.Total != 1 || fmt.Sprint(slices.Sorted(maps.Keys(pub.Items[0]))) != "[author author_handle author_url content created_at fediverse id reply_to]" ||
		pub.Items[0]["author"] != "Ann" || pub.Items[0]["fediverse"] != false {
		t.Fatalf("public after review = %+v", pub)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/comments?keyword=ANN", nil), 200, &adm)
	if adm.Pagination.Total != 1 {
		t.Errorf("keyword filter: %d", adm.Pagination.Total)
	}
	var stats map[string]int
	data(t, e.admin.Do("GET", "/api/v1/admin/comments/stats", nil), 200, &stats)
	if fmt.Sprint(stats) != "map[approved:1 pending:0 spam:0 total:1]" {
		t.Errorf("stats = %v", stats)
	}
	expectError(t, e.admin.Do("GET", "/api/v1/admin/comments?status=x", nil), 422, "")

	// Comments closed site-wide.
	s := e.settings.Get(t.Context())
	s.Post.EnableComment = false
	if err := e.settings.Put(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	expectError(t, e.visitor("192.0.2.3").Do("POST", path, good), 403, "")

	data(t, e.admin.Do("DELETE", "/api/v1/admin/comments/"+c.ID, nil), 200, nil)
	expectError(t, e.admin.Do("DELETE", "/api/v1/admin/comments/"+c.ID, nil), 404, "")
	expectError(t, e.admin.Do("PATCH", "/api/v1/admin/comments/"+c.ID, map[string]string{"status": "spam"}), 404, "")
}

type link struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Sort     int    `json:"sort"`
	Status   string `json:"status"`
	IsActive bool   `json:"is_active"`
}

func TestFriendLinks(t *testing.T) {
	e := newEnv(t)
	mk := func(body map[string]any) link {
		t.Helper()
		var l link
		data(t, e.admin.Do("POST", "/api/v1/admin/friend-links", body), 201, &l)
		return l
	}
	a := mk(map[string]any{"name": "A", "url": "https://a.example", "sort": 2, "is_active": true})
	mk(map[string]any{"name": "B", "url": "https://b.example", "sort": 1})
	mk(map[string]any{"name": "C", "url": "https://c.example", "sort": 2})
	p := mk(map[string]any{"name": "P", "url": "https://p.example", "is_active": false})
	d := mk(map[string]any{"name": "D", "url": "https://d.example", "is_active": true, "status": "down"})
	if !a.IsActive || a.Status != "active" || p.Status != "pending" || p.IsActive || d.Status != "down" || d.IsActive {
		t.Fatalf("status mapping: %+v %+v %+v", a, p, d)
	}
	expectError(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "x", "url": "https://a.example"}), 409, "duplicate url")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "x", "url": "javascript:alert(1)"}), 422, "")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "", "url": "https://x.example"}), 422, "name: must not be empty")
	expectError(t, e.admin.Do("POST", "/api/v1/admin/friend-links", map[string]any{"name": "x", "url": "https://x.example", "status": "gone"}), 422, "")

	var l page[link]
	data(t, e.anon.Do("GET", "/api/v1/friend-links", nil), 200, &l)
	var names []string
	for _, it := range l.Items {
		names = append(names, it.Name)
	}
	if fmt.Sprint(names) != "[B C A]" {
		t.Errorf("public order = %v", names)
	}
	expectError(t, e.anon.Do("GET", "/api/v1/friend-links/"+p.ID, nil), 404, "resource not found")
	data(t, e.anon.Do("GET", "/api/v1/friend-links/"+a.ID, nil), 200, nil)
	data(t, e.admin.Do("GET", "/api/v1/admin/friend-links/"+p.ID, nil), 200, nil)
	data(t, e.admin.Do("GET", "/api/v1/admin/friend-links?is_active=false", nil), 200, &l)
	if l.Pagination.Total != 2 {
		t.Errorf("inactive filter total = %d", l.Pagination.Total)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/friend-links?keyword=b.example", nil), 200, &l)
	if l.Pagination.Total != 1 {
		t.Errorf("keyword filter total = %d", l.Pagination.Total)
	}
	var got link
	data(t, e.admin.Do("PATCH", "/api/v1/admin/friend-links/"+p.ID, map[string]any{"is_active": true}), 200, &got)
	if got.Status != "active" || got.Name != "P" {
		t.Errorf("after PATCH: %+v", got)
	}
	data(t, e.admin.Do("PUT", "/api/v1/admin/friend-links/"+p.ID, map[string]any{"name": "P2", "url": "https://p2.example", "is_active": false}), 200, &got)
	if got.Status != "pending" || got.Sort != 0 {
		t.Errorf("after PUT: %+v", got)
	}
	data(t, e.admin.Do("DELETE", "/api/v1/admin/friend-links/"+a.ID, nil), 200, nil)
	expectError(t, e.admin.Do("GET", "/api/v1/admin/friend-links/"+a.ID, nil), 404, "")
	mk(map[string]any{"name": "A again", "url": "https://a.example"})
}
