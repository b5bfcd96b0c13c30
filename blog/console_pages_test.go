package blog_test

import (
	"strings"
	"testing"
)

func TestBlogConsolePageEditorShowsEveryTemplatesFieldset(t *testing.T) {
	e := newConsoleEnv(t)
	res, _ := consolePage(t, e.admin, "/console/blog/pages/new", 200)
	if !has(res, "<title>New page · ", `data-editor data-draft-key="page:new"`,
		`left empty, it is made from the title when saved.`, `data-md-source`, `<div class="article" data-md-preview></div>`, `/static/editor.`,
		`<option value="about">about</option>`, `<option value="default" selected>default</option>`,
		`data-template-config="about"`, `data-template-config="default"`,
		`name="config.about.email" type="text" value="" data-required>`, `email <span class="blog-required">(required)</span>`,
		`name="config.about.location"`, `/static/pages.`) {
		t.Fatalf("editor: %s", res.Body)
	}
	if has(res, "/revisions") {
		t.Error("a new page links to revisions")
	}
	// The editor never fills the slug in from the title (docs/console.md#posts-and-the-editor).
	if has(res, "data-slug-source") || has(res, "data-slug-target") || has(res, "slug-note") {
		t.Error("a new page's slug follows its title or says it is published")
	}
}

func TestBlogConsolePagesCreateEditDelete(t *testing.T) {
	e := newConsoleSiteEnv(t)
	// The required key missing: 422 naming it, what was typed kept.
	res := e.submit("/console/blog/pages", "title", "About me", "slug", "about", "content_markdown", "Hi *there*",
		"status", "published", "template", "about", "config.about.location", "Paris", "config.default.x", "y")
	res.Expect(422)
	if !has(res, `missing required key &#34;email&#34;`, `value="About me"`, `value="Paris"`, "Hi *there*",
		`<option value="about" selected>about</option>`, `name="config.about.email" type="text" value="" data-required required aria-invalid="true"`) {
		t.Fatalf("422 page: %s", res.Body)
	}
	res = e.submit("/console/blog/pages", "title", "About me", "slug", "about", "content_markdown", "Hi *there*",
		"status", "published", "template", "about", "config.about.email", "me@example.com", "config.about.location", "Paris",
		"show_in_nav", "1", "sort_order", "3")
	page := consoleFlash(t, e.admin, res, "Page created.")
	id := strings.TrimPrefix(res.Location(), "/console/blog/pages/")
	if !has(page, `data-draft-key="page:`+id+`"`, `href="/console/blog/pages/`+id+`/revisions"`, `href="/pages/about"`,
		`value="me@example.com"`, `value="Paris"`, `id="page-nav" name="show_in_nav" value="1" checked`, `value="3"`) {
		t.Fatalf("editor: %s", page.Body)
	}
	if site := e.anon.Do("GET", "/pages/about", nil).Expect(200); !has(site, "me@example.com", "<em>there</em>") {
		t.Fatalf("site page: %s", site.Body)
	}
	var api map[string]any
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+id, nil), 200, &api)
	if api["config"] != `{"email":"me@example.com","location":"Paris"}` || api["template"] != "about" || api["sort_order"] != 3.0 {
		t.Fatalf("stored: %v", api)
	}

	list, _ := consolePage(t, e.admin, "/console/blog/pages", 200)
	if !has(list, `<a href="/console/blog/pages/`+id+`">About me</a>`, `<td data-label="Slug" class="blog-url">about</td>`, `<td data-label="Status">published</td>`, `<td data-label="In navigation">Yes</td>`, `<td data-label="Sort">3</td>`) {
		t.Fatalf("list: %s", list.Body)
	}

	// Another template: only its config is saved.
	consoleFlash(t, e.admin, e.submit("/console/blog/pages/"+id, "title", "About", "slug", "about", "status", "published",
		"template", "default", "config.about.email", "ignored@example.com"), "Page saved.")
	data(t, e.admin.Do("GET", "/api/v1/admin/pages/"+id, nil), 200, &api)
	if api["config"] != `{}` || api["template"] != "default" || api["title"] != "About" {
		t.Fatalf("after the switch: %v", api)
	}

	// A taken slug: 409; a bad one and a bad sort order: 422.
	other := e.submit("/console/blog/pages", "title", "Other", "template", "default").Expect(303)
	otherID := strings.TrimPrefix(other.Location(), "/console/blog/pages/")
	e.submit("/console/blog/pages/"+otherID, "title", "Other", "slug", "about", "template", "default").Expect(409)
	for _, f := range [][]string{{"slug", "Not Valid"}, {"sort_order", "x"}, {"title", " "}, {"status", "gone"}, {"template", "nope"}} {
		fields := map[string]string{"title": "Other", "template": "default", f[0]: f[1]}
		var pairs []string
		for k, v := range fields {
			pairs = append(pairs, k, v)
		}
		res := e.submit("/console/blog/pages/"+otherID, pairs...)
		res.Expect(422)
		if !has(res, "Not saved: "+f[0]) {
			t.Errorf("%s: %s", f[0], res.Body)
		}
	}

	consoleFlash(t, e.admin, e.submit("/console/blog/pages/"+id+"/delete"), "Deleted the page.")
	e.anon.Do("GET", "/pages/about", nil).Expect(404)
	for _, p := range []string{"/console/blog/pages/" + id, "/console/blog/pages/nope"} {
		e.admin.Do("GET", p, nil).Expect(404)
		e.submit(p, "title", "x").Expect(404)
		e.submit(p + "/delete").Expect(404)
	}
}
