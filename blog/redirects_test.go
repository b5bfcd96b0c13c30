package blog_test

import (
	"encoding/json"
	"testing"
	"time"
)

// rename changes a post's or page's slug through the API.
func (e *env) rename(res, id, slug string) {
	e.t.Helper()
	data(e.t, e.admin.Do("PATCH", "/api/v1/admin/"+res+"/"+id, map[string]any{"slug": slug}), 200, nil)
}

// expectMoved checks an API 301: its Location and its envelope-B body.
func expectMoved(t *testing.T, e *env, path, id, slug, location string) {
	t.Helper()
	r := e.admin.Do("GET", path, nil).Expect(301)
	if got := r.Location(); got != location {
		t.Errorf("GET %s: Location %q, want %q", path, got, location)
	}
	var body struct {
		Code int `json:"code"`
		Msg  string
		Data struct {
			ID, Slug, Location string
		}
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Code != 301 || body.Msg != "moved permanently" || body.Data.ID != id || body.Data.Slug != slug || body.Data.Location != location {
		t.Errorf("GET %s: body %s", path, r.Body)
	}
}

func TestSlugChangesOfVisiblePostsRedirect(t *testing.T) {
	e := newSiteEnv(t)
	p := e.publish("Moving", "slug", "a")
	e.rename("posts", p.ID, "b")
	e.rename("posts", p.ID, "c")

	// A→B→C: both old slugs lead straight to C, in the API and the site,
	// the query kept.
	for _, old := range []string{"a", "b"} {
		expectMoved(t, e.env, "/api/v1/posts/slug/"+old, p.ID, "c", "/api/v1/posts/slug/c")
		expectMoved(t, e.env, "/api/v1/admin/posts/slug/"+old, p.ID, "c", "/api/v1/admin/posts/slug/c")
		r := e.anon.Do("GET", "/posts/"+old+"?utm=x", nil).Expect(301)
		if r.Location() != "/posts/c?utm=x" || r.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET /posts/%s: Location %q, Cache-Control %q", old, r.Location(), r.Header.Get("Cache-Control"))
		}
	}
	expectMoved(t, e.env, "/api/v1/posts/slug/a?x=1", p.ID, "c", "/api/v1/posts/slug/c?x=1")
	e.html("/posts/c", 200)

	// A live post with an old slug wins over the redirect.
	other := e.publish("Squatter", "slug", "a")
	data(t, e.anon.Do("GET", "/api/v1/posts/slug/a", nil), 200, nil)
	siteHas(t, "squatter", e.html("/posts/a", 200), "Squatter")
	// ...and once it is gone the slug is simply missing.
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+other.ID, nil), 200, nil)
	expectError(t, e.anon.Do("GET", "/api/v1/posts/slug/a", nil), 404, "resource not found")

	// Taking an old slug back removes its redirect, and the other one
	// follows.
	e.rename("posts", p.ID, "b")
	data(t, e.anon.Do("GET", "/api/v1/posts/slug/b", nil), 200, nil)
	expectMoved(t, e.env, "/api/v1/posts/slug/c", p.ID, "b", "/api/v1/posts/slug/b")

	// A target no longer visible: public 404, the administrator still
	// redirected; deleted: 404 everywhere.
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+p.ID, map[string]any{"status": "draft"}), 200, nil)
	expectError(t, e.anon.Do("GET", "/api/v1/posts/slug/c", nil), 404, "resource not found")
	e.html("/posts/c", 404)
	expectMoved(t, e.env, "/api/v1/admin/posts/slug/c", p.ID, "b", "/api/v1/admin/posts/slug/b")
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)
	expectError(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/c", nil), 404, "resource not found")
	e.html("/posts/c", 404)

	// An unknown slug stays a plain 404.
	expectError(t, e.anon.Do("GET", "/api/v1/posts/slug/never", nil), 404, "resource not found")
	e.html("/posts/never", 404)
}

func TestSlugChangesOfInvisiblePostsDoNotRedirect(t *testing.T) {
	e := newSiteEnv(t)
	draft := e.createPost(map[string]any{"title": "Draft", "slug": "draft-a"})
	e.rename("posts", draft.ID, "draft-b")
	scheduled := e.publish("Later", "slug", "later-a", "published_at", time.Now().Add(time.Hour))
	e.rename("posts", scheduled.ID, "later-b")
	data(t, e.admin.Do("PATCH", "/api/v1/admin/posts/"+draft.ID, map[string]any{"status": "published"}), 200, nil)
	e.clock.advance(2 * time.Hour)
	for _, path := range []string{"/api/v1/posts/slug/draft-a", "/api/v1/posts/slug/later-a", "/api/v1/admin/posts/slug/draft-a"} {
		expectError(t, e.admin.Do("GET", path, nil), 404, "resource not found")
	}
	e.html("/posts/draft-a", 404)
	e.html("/posts/later-a", 404)
}

func TestSlugChangesOfPagesRedirect(t *testing.T) {
	e := newSiteEnv(t)
	var pg struct{ ID string }
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "About", "slug": "about", "status": "published"}), 201, &pg)
	e.rename("pages", pg.ID, "about-me")
	expectMoved(t, e.env, "/api/v1/pages/slug/about", pg.ID, "about-me", "/api/v1/pages/slug/about-me")
	if r := e.anon.Do("GET", "/pages/about", nil).Expect(301); r.Location() != "/pages/about-me" {
		t.Errorf("GET /pages/about: Location %q", r.Location())
	}
	var draft struct{ ID string }
	data(t, e.admin.Do("POST", "/api/v1/admin/pages", map[string]any{"title": "Draft", "slug": "draft"}), 201, &draft)
	e.rename("pages", draft.ID, "draft-2")
	expectError(t, e.anon.Do("GET", "/api/v1/pages/slug/draft", nil), 404, "resource not found")
	// Unpublished: the redirect leads nowhere.
	data(t, e.admin.Do("PATCH", "/api/v1/admin/pages/"+pg.ID, map[string]any{"status": "archived"}), 200, nil)
	expectError(t, e.anon.Do("GET", "/api/v1/pages/slug/about", nil), 404, "resource not found")
	e.html("/pages/about", 404)
}
