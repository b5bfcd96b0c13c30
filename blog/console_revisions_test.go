package blog_test

import (
	"strings"
	"testing"

	"folio/sqlstore"
)

func TestConsoleRevisionPages(t *testing.T) {
	e := newConsoleEnv(t)
	p := e.createPost(map[string]any{"title": "Journal", "slug": "journal", "content_markdown": "alpha\nbeta\ngamma", "status": "published"})
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"title": "Journal, revised", "content_markdown": "alpha\nBETA\ngamma\ndelta"}), 200, nil)
	rev := e.revisionsOf("posts", p.ID).Items[0]
	base := "/console/blog/posts/" + p.ID

	list, _ := consolePage(t, e.admin, base+"/revisions", 200)
	if !has(list, "<h1>Revisions of “Journal, revised”</h1>", `href="`+base+`/revisions/`+rev.ID+`"`, "<td>Journal</td>", `aria-current="page">Posts`) {
		t.Errorf("revisions list: %s", list.Body)
	}
	page, tok := consolePage(t, e.admin, base+"/revisions/"+rev.ID, 200)
	if !has(page, `<th scope="row">Title</th><td>Journal</td><td>Journal, revised</td>`,
		`<li class="diff-del"><span class="diff-mark" aria-hidden="true">−</span><del><span class="visually-hidden">Removed: </span>beta</del></li>`,
		`<ins><span class="visually-hidden">Added: </span>BETA</ins>`, `<ins><span class="visually-hidden">Added: </span>delta</ins>`,
		`action="`+base+`/revisions/`+rev.ID+`/restore"`, "Restore this version") {
		t.Errorf("revision page: %s", page.Body)
	}
	if tok == "" {
		t.Fatal("revision page has no form token")
	}

	// Without the token the restore is refused; with it, it saves and
	// goes back to the editor with a flash.
	e.admin.PostForm(base + "/revisions/" + rev.ID + "/restore").Expect(403)
	r := e.admin.PostForm(base+"/revisions/"+rev.ID+"/restore", "form_token", tok).Expect(303)
	if r.Location() != base {
		t.Errorf("restore went to %q, want %q", r.Location(), base)
	}
	var got post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+p.ID, nil), 200, &got)
	if got.Title != "Journal" || *got.ContentMarkdown != "alpha\nbeta\ngamma" {
		t.Errorf("after restore: %+v", got)
	}
	after, _ := consolePage(t, e.admin, base+"/revisions", 200)
	if !has(after, "Restored the version of "+rev.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")+".", "<td>Journal, revised</td>") {
		t.Errorf("after restore, list: %s", after.Body)
	}
}

func TestConsoleRevisionRefusedRestoreShowsWhy(t *testing.T) {
	e := newConsoleEnv(t)
	p := e.createPost(map[string]any{"title": "Mine", "slug": "mine"})
	e.rename("posts", p.ID, "mine-2")
	rev := e.revisionsOf("posts", p.ID).Items[0]
	e.createPost(map[string]any{"title": "Other", "slug": "mine"})
	base := "/console/blog/posts/" + p.ID
	_, tok := consolePage(t, e.admin, base+"/revisions/"+rev.ID, 200)
	r := e.admin.PostForm(base+"/revisions/"+rev.ID+"/restore", "form_token", tok).Expect(409)
	if !has(r, "another one now has its slug", `<th scope="row">Slug</th><td>mine</td><td>mine-2</td>`) {
		t.Errorf("refused restore: %s", r.Body)
	}
}

func TestConsolePageRevisions(t *testing.T) {
	e := newConsoleEnv(t)
	var pg struct{ ID string }
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "About", "content_markdown": "same"}), 201, &pg)
	data(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+pg.ID, map[string]any{"title": "About us"}), 200, nil)
	rev := e.revisionsOf("pages", pg.ID).Items[0]
	base := "/console/blog/pages/" + pg.ID
	list, _ := consolePage(t, e.admin, base+"/revisions", 200)
	if !has(list, `aria-current="page">Pages`, `href="`+base+`/revisions/`+rev.ID+`"`) {
		t.Errorf("page revisions: %s", list.Body)
	}
	page, tok := consolePage(t, e.admin, base+"/revisions/"+rev.ID, 200)
	if !has(page, "The Markdown is the same as now.", `<th scope="row">Title</th><td>About</td><td>About us</td>`) {
		t.Errorf("page revision: %s", page.Body)
	}
	if r := e.admin.PostForm(base+"/revisions/"+rev.ID+"/restore", "form_token", tok).Expect(303); r.Location() != base {
		t.Errorf("restore went to %q", r.Location())
	}
}

func TestConsoleRevisionPagesRefuseWrongIDsAndOthers(t *testing.T) {
	e := newConsoleEnv(t)
	x := e.createPost(map[string]any{"title": "X"})
	y := e.createPost(map[string]any{"title": "Y"})
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+x.ID, map[string]any{"title": "X2"}), 200, nil)
	rev := e.revisionsOf("posts", x.ID).Items[0].ID
	for _, path := range []string{
		"/console/blog/posts/" + y.ID + "/revisions/" + rev,
		"/console/blog/pages/" + x.ID + "/revisions",
		"/console/blog/posts/" + sqlstore.NewID() + "/revisions",
		"/console/blog/posts/nope/revisions",
		"/console/blog/posts/" + x.ID + "/revisions/nope",
		"/console/blog/posts/" + x.ID + "/revisions/" + sqlstore.NewID(),
	} {
		consolePage(t, e.admin, path, 404)
	}
	_, tok := consolePage(t, e.admin, "/console/blog/posts/"+x.ID+"/revisions", 200)
	e.admin.PostForm("/console/blog/posts/"+y.ID+"/revisions/"+rev+"/restore", "form_token", tok).Expect(404)

	user := e.userSession()
	for _, path := range []string{
		"/console/blog/posts/" + x.ID + "/revisions",
		"/console/blog/posts/" + x.ID + "/revisions/" + rev,
		"/console/blog/pages/" + x.ID + "/revisions",
	} {
		user.Do("GET", path, nil).Expect(403)
		r := e.anon.Do("GET", path, nil).Expect(303)
		if !strings.HasPrefix(r.Location(), "/console/login") {
			t.Errorf("signed out %s: to %q", path, r.Location())
		}
	}
	user.PostForm("/console/blog/posts/" + x.ID + "/revisions/" + rev + "/restore").Expect(403)
}
