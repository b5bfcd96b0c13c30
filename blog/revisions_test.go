package blog_test

import (
	"fmt"
	"testing"
	"time"

	"folio/sqlstore"
)

// revisionItem is the JSON shape of a revision in lists.
type revisionItem struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	Size      int       `json:"size"`
}

// revisionsOf lists the revisions of a post or page (res "posts" or
// "pages") through the API.
func (e *env) revisionsOf(res, id string) page[revisionItem] {
	e.t.Helper()
	var pg page[revisionItem]
	data(e.t, e.admin.Do("GET", "/api/v1/admin/"+res+"/"+id+"/revisions?page_size=100", nil), 200, &pg)
	return pg
}

func (e *env) setRevisionsKept(n int) {
	e.t.Helper()
	data(e.t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"post": map[string]any{"revisions_kept": n}}), 200, nil)
}

func TestSavesKeepTheVersionTheyReplace(t *testing.T) {
	e := newEnv(t)
	cat := e.createTerm("categories", "Notes")
	tag := e.createTerm("tags", "go")
	p := e.createPost(map[string]any{"title": "First", "content_markdown": "one\ntwo", "category_id": cat.ID, "tag_ids": []string{tag.ID}})
	if got := e.revisionsOf("posts", p.ID); got.Pagination.Total != 0 {
		t.Fatalf("creating made %d revisions", got.Pagination.Total)
	}
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "Second", "content_markdown": "one\n2\nthree"}), 200, nil)
	// A PUT of what was read back changes nothing: no revision.
	var cur post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil), 200, &cur)
	data(t, e.admin.Do("PUT", "/api/v1/admin/posts/"+p.ID, map[string]any{
		"title": cur.Title, "slug": cur.Slug, "summary": cur.Summary, "content_markdown": *cur.ContentMarkdown,
		"status": cur.Status, "published_at": cur.PublishedAt, "show_comments": cur.ShowComments,
		"category_id": cur.CategoryID, "tag_ids": []string{tag.ID}}), 200, nil)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{}), 200, nil)

	list := e.revisionsOf("posts", p.ID)
	if list.Pagination.Total != 1 || len(list.Items) != 1 {
		t.Fatalf("revisions %+v, want the first version only", list)
	}
	it := list.Items[0]
	if it.Title != "First" || it.Size != len("one\ntwo") || it.CreatedAt.IsZero() {
		t.Errorf("revision item %+v", it)
	}

	var rev map[string]any
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID+"/revisions/"+it.ID, nil), 200, &rev)
	for k, want := range map[string]any{"id": it.ID, "title": "First", "content_markdown": "one\ntwo", "slug": "first",
		"status": "draft", "category_id": cat.ID, "show_comments": true} {
		if rev[k] != want {
			t.Errorf("revision %s = %v, want %v", k, rev[k], want)
		}
	}
	if tags, _ := rev["tag_ids"].([]any); len(tags) != 1 || tags[0] != tag.ID {
		t.Errorf("revision tag_ids %v", rev["tag_ids"])
	}

	// Restoring saves the snapshot through the save path, which keeps
	// the version it replaces.
	var restored post
	data(t, e.admin.Do("POST", "/api/v1/admin/posts/"+p.ID+"/revisions/"+it.ID+"/restore", nil), 200, &restored)
	if restored.Title != "First" || *restored.ContentMarkdown != "one\ntwo" || restored.Slug != "first" || restored.Category == nil {
		t.Errorf("restored post %+v", restored)
	}
	list = e.revisionsOf("posts", p.ID)
	if list.Pagination.Total != 2 || list.Items[0].Title != "Second" || list.Items[1].Title != "First" {
		t.Errorf("after restore, revisions %+v, want Second then First", list.Items)
	}
}

func TestRevisionsKeptFollowsTheSetting(t *testing.T) {
	e := newEnv(t)
	for _, bad := range []int{-1, 1001} {
		expectError(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"post": map[string]any{"revisions_kept": bad}}), 422, "")
	}
	e.setRevisionsKept(2)
	p := e.createPost(map[string]any{"title": "v0"})
	for i := 1; i <= 4; i++ {
		data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": fmt.Sprint("v", i)}), 200, nil)
	}
	list := e.revisionsOf("posts", p.ID)
	if list.Pagination.Total != 2 || list.Items[0].Title != "v3" || list.Items[1].Title != "v2" {
		t.Fatalf("revisions %+v, want v3 and v2", list.Items)
	}
	// 0 keeps none, and drops those kept so far at the next save.
	e.setRevisionsKept(0)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "v5"}), 200, nil)
	if list := e.revisionsOf("posts", p.ID); list.Pagination.Total != 0 {
		t.Errorf("with revisions_kept 0: %d revisions", list.Pagination.Total)
	}
}

func TestPageRevisions(t *testing.T) {
	e := newEnv(t)
	var pg struct {
		ID   string `json:"id"`
		Slug string `json:"slug"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "About", "content_markdown": "old"}), 201, &pg)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+pg.ID, map[string]any{"content_markdown": "new", "sort_order": 3}), 200, nil)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+pg.ID, map[string]any{"sort_order": 3}), 200, nil) // no change
	list := e.revisionsOf("pages", pg.ID)
	if list.Pagination.Total != 1 || list.Items[0].Size != 3 {
		t.Fatalf("page revisions %+v", list)
	}
	var rev map[string]any
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+pg.ID+"/revisions/"+list.Items[0].ID, nil), 200, &rev)
	if rev["content_markdown"] != "old" || rev["template"] != "default" || rev["sort_order"] != float64(0) {
		t.Errorf("page revision %v", rev)
	}
	var restored struct {
		ContentMarkdown string `json:"content_markdown"`
		SortOrder       int    `json:"sort_order"`
	}
	data(t, e.admin.Do("POST", "/api/v1/admin/pages/"+pg.ID+"/revisions/"+list.Items[0].ID+"/restore", nil), 200, &restored)
	if restored.ContentMarkdown != "old" || restored.SortOrder != 0 {
		t.Errorf("restored page %+v", restored)
	}
	if list := e.revisionsOf("pages", pg.ID); list.Pagination.Total != 2 {
		t.Errorf("after restore: %d page revisions, want 2", list.Pagination.Total)
	}
}

func TestRevisionRoutesRefuseWrongIDs(t *testing.T) {
	e := newEnv(t)
	x := e.createPost(map[string]any{"title": "X"})
	y := e.createPost(map[string]any{"title": "Y"})
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+x.ID, map[string]any{"title": "X2"}), 200, nil)
	rev := e.revisionsOf("posts", x.ID).Items[0].ID
	var pg struct{ ID string }
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "P"}), 201, &pg)
	deleted := e.createPost(map[string]any{"title": "Gone"})
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+deleted.ID, nil), 200, nil)

	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/admin/posts/" + y.ID + "/revisions/" + rev},               // another post's
		{"POST", "/api/v1/admin/posts/" + y.ID + "/revisions/" + rev + "/restore"}, // another post's
		{"GET", "/api/v1/admin/pages/" + pg.ID + "/revisions/" + rev},              // a post's, asked as a page's
		{"GET", "/api/v1/admin/posts/" + sqlstore.NewID() + "/revisions"},
		{"GET", "/api/v1/admin/posts/" + deleted.ID + "/revisions"},
		{"GET", "/api/v1/admin/posts/not-an-id/revisions"},
		{"GET", "/api/v1/admin/posts/" + x.ID + "/revisions/not-an-id"},
		{"GET", "/api/v1/admin/posts/" + x.ID + "/revisions/" + sqlstore.NewID()},
		{"GET", "/api/v1/admin/posts/" + x.ID + "/other"},
		{"GET", "/api/v1/admin/pages/" + sqlstore.NewID() + "/revisions"},
		{"POST", "/api/v1/admin/pages/" + pg.ID + "/revisions/" + sqlstore.NewID() + "/restore"},
	} {
		expectError(t, e.admin.Do(c.method, c.path, nil), 404, "resource not found")
	}
	expectError(t, e.admin.Do("GET", "/api/v1/admin/posts/"+x.ID+"/revisions?page=x", nil), 400, "")

	user := e.anon.Clone()
	user.Header.Set("Authorization", "Bearer "+e.userToken())
	for _, path := range []string{
		"/api/v1/admin/posts/" + x.ID + "/revisions",
		"/api/v1/admin/posts/" + x.ID + "/revisions/" + rev,
		"/api/v1/admin/pages/" + pg.ID + "/revisions",
	} {
		expectError(t, e.anon.Do("GET", path, nil), 401, "")
		expectError(t, user.Do("GET", path, nil), 403, "")
	}
	expectError(t, e.anon.Do("POST", "/api/v1/admin/posts/"+x.ID+"/revisions/"+rev+"/restore", nil), 401, "")
	expectError(t, user.Do("POST", "/api/v1/admin/posts/"+x.ID+"/revisions/"+rev+"/restore", nil), 403, "")
}

func TestRestoreOfAStaleRevision(t *testing.T) {
	e := newEnv(t)
	cat := e.createTerm("categories", "Old")
	tag := e.createTerm("tags", "old")
	keep := e.createTerm("tags", "kept")
	p := e.createPost(map[string]any{"title": "Post", "slug": "wanted", "category_id": cat.ID, "tag_ids": []string{tag.ID, keep.ID}})
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"slug": "other", "category_id": "", "tag_ids": []string{}}), 200, nil)
	rev := e.revisionsOf("posts", p.ID).Items[0].ID

	// Its slug taken by another post: 409, and nothing changes.
	squatter := e.createPost(map[string]any{"title": "Squatter", "slug": "wanted"})
	expectError(t, e.admin.Do("POST", "/api/v1/admin/posts/"+p.ID+"/revisions/"+rev+"/restore", nil), 409, "duplicate slug")
	if n := e.revisionsOf("posts", p.ID).Pagination.Total; n != 1 {
		t.Errorf("a refused restore left %d revisions, want 1", n)
	}
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+squatter.ID, nil), 200, nil)

	// Its category and one tag deleted: restored without them.
	data(t, e.admin.Do("DELETE", "/api/v1/admin/categories/"+cat.ID, nil), 200, nil)
	data(t, e.admin.Do("DELETE", "/api/v1/admin/tags/"+tag.ID, nil), 200, nil)
	var got post
	data(t, e.admin.Do("POST", "/api/v1/admin/posts/"+p.ID+"/revisions/"+rev+"/restore", nil), 200, &got)
	if got.Slug != "wanted" || got.CategoryID != "" || len(got.Tags) != 1 || got.Tags[0].ID != keep.ID {
		t.Errorf("restored %+v", got)
	}
}
