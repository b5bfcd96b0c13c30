package blog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"folio/blog"
)

type fakeStorage struct {
	st  blog.StorageStats
	err error
}

func (f fakeStorage) StorageUsage(context.Context) (blog.StorageStats, error) { return f.st, f.err }

func TestBlogDashboardCountsPostsByStatusAndShowsTheQueue(t *testing.T) {
	e := newConsoleEnv(t)
	e.createPost(map[string]any{"title": "Draft one"})
	e.createPost(map[string]any{"title": "Draft two"})
	p := e.publish("Out now")
	e.publish("Later on", "published_at", time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339))
	e.createPost(map[string]any{"title": "Old", "status": "archived"})
	data(t, e.anon.Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{
		"author": "Ann", "email": "ann@example.com", "content": "First <b>comment</b>"}), 201, nil)

	res, _ := consolePage(t, e.admin, "/console/blog", 200)
	if !has(res, "<title>Blog · ", `href="/console/blog/posts?status=draft">Drafts</a></dt><dd>2</dd>`,
		`?status=scheduled">Scheduled</a></dt><dd>1</dd>`, `?status=published">Published</a></dt><dd>1</dd>`,
		`?status=archived">Archived</a></dt><dd>1</dd>`, `href="/console/blog/comments">Comments waiting</a></dt><dd>1</dd>`,
		"Ann", `<a href="/posts/out-now">Out now</a>`, "First &lt;b&gt;comment&lt;/b&gt;", "Later on",
		`href="/console/blog/posts/new"`, `href="/console/admin"`) {
		t.Fatalf("dashboard: %s", res.Body)
	}
	if has(res, `id="storage-usage"`) {
		t.Error("a storage panel without a file host")
	}
}

func TestBlogDashboardShowsTheFileHostsStorage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store fakeStorage
		want  bool
	}{
		{"numbers", fakeStorage{st: blog.StorageStats{Files: 42, Bytes: 3 << 20, StoredBytes: 2 << 20, Users: 7}}, true},
		{"failing", fakeStorage{err: errors.New("down")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEnvWith(t, setup{console: true, deps: func(d *blog.Deps) { d.Storage = tc.store }})
			res, _ := consolePage(t, e.admin, "/console/blog", 200)
			if got := has(res, `id="storage-usage"`, "<dd>42</dd>", "2 MiB", "3 MiB", "<dd>7</dd>"); got != tc.want {
				t.Fatalf("storage panel %v, want %v: %s", got, tc.want, res.Body)
			}
		})
	}
}
