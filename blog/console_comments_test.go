package blog_test

import (
	"fmt"
	"strings"
	"testing"
)

func TestBlogConsoleCommentsModeration(t *testing.T) {
	e := newConsoleSiteEnv(t)
	p := e.publish("Hello", "slug", "hello")
	var ids []string
	for i, who := range []string{"Ann", "Bob", "Cy"} {
		var rc struct{ ID string }
		data(t, e.visitor("10.0.0."+string(rune('1'+i))).Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{
			"author": who, "email": strings.ToLower(who) + "@example.com", "content": "Line one <i>x</i>\nLine two by " + who}), 201, &rc)
		ids = append(ids, rc.ID)
	}

	res, tok := consolePage(t, e.admin, "/console/blog/comments", 200)
	if !has(res, "<title>Comments: Pending · ", `aria-current="page">Pending <span class="blog-count">(3)</span>`,
		`Approved <span class="blog-count">(0)</span>`, `All <span class="blog-count">(3)</span>`,
		"ann@example.com", "Line one &lt;i&gt;x&lt;/i&gt;\nLine two by Ann", `<a href="/posts/hello">Hello</a>`,
		`name="ids" value="`+ids[0]+`" form="comments-batch"`, `data-select-all="ids"`) {
		t.Fatalf("queue: %s", res.Body)
	}
	// The queue is oldest first.
	if a, c := strings.Index(string(res.Body), "Line two by Ann"), strings.Index(string(res.Body), "Line two by Cy"); a > c {
		t.Error("the pending queue is not oldest first")
	}

	// A mix of ids: two comments, a malformed id and one that names nothing.
	res = e.admin.PostForm("/console/blog/comments/batch", "form_token", tok, "action", "approve",
		"ids", ids[0], "ids", ids[1], "ids", "nope", "ids", "0190aaaa-0000-7000-8000-000000000000")
	if res.Expect(303).Location() != "/console/blog/comments" {
		t.Errorf("back to %q", res.Location())
	}
	consoleFlash(t, e.admin, res, "Approved 2 comments.")
	site := e.anon.Do("GET", "/posts/hello", nil).Expect(200)
	if !has(site, "Line two by Ann", "Line two by Bob") || has(site, "Line two by Cy") {
		t.Fatalf("post page after approving: %s", site.Body)
	}

	res = e.admin.PostForm("/console/blog/comments/batch", "form_token", tok, "action", "spam", "ids", ids[2], "status", "all", "page", "1")
	if res.Location() != "/console/blog/comments?status=all" {
		t.Errorf("back to %q", res.Location())
	}
	consoleFlash(t, e.admin, res, "Marked 1 comment as spam.")
	res, _ = consolePage(t, e.admin, "/console/blog/comments?status=spam", 200)
	if !has(res, "Line two by Cy", `aria-current="page">Spam <span class="blog-count">(1)</span>`) || has(res, "Line two by Ann") {
		t.Fatalf("spam tab: %s", res.Body)
	}
	res, _ = consolePage(t, e.admin, "/console/blog/comments", 200)
	if !has(res, "No comments are waiting.") {
		t.Fatalf("empty queue: %s", res.Body)
	}

	consoleFlash(t, e.admin, e.admin.PostForm("/console/blog/comments/batch", "form_token", tok, "action", "delete", "ids", ids[0]), "Deleted 1 comment.")
	site = e.anon.Do("GET", "/posts/hello", nil).Expect(200)
	if has(site, "Line two by Ann") || !has(site, "Line two by Bob") {
		t.Fatalf("post page after deleting: %s", site.Body)
	}

	// Nothing ticked, an unknown action, an unknown tab.
	res = e.admin.PostForm("/console/blog/comments/batch", "form_token", tok, "action", "approve").Expect(422)
	if !has(res, "Tick at least one comment first.") {
		t.Fatalf("no ids: %s", res.Body)
	}
	e.admin.PostForm("/console/blog/comments/batch", "form_token", tok, "action", "burn", "ids", ids[1]).Expect(422)
	e.admin.Do("GET", "/console/blog/comments?status=nope", nil).Expect(400)
	e.admin.Do("GET", "/console/blog/comments?page=x", nil).Expect(400)
}

func TestBlogConsoleCommentsPages(t *testing.T) {
	e := newConsoleEnv(t)
	p := e.publish("Busy")
	for i := range 25 {
		data(t, e.visitor(fmt.Sprintf("10.1.0.%d", i+1)).Do("POST", "/api/v1/posts/"+p.ID+"/comments", map[string]string{
			"author": "A", "email": "a@example.com", "content": "c"}), 201, nil)
	}
	res, _ := consolePage(t, e.admin, "/console/blog/comments", 200)
	if !has(res, "Page 1 of 2", `href="/console/blog/comments?page=2" rel="next"`) {
		t.Fatalf("page 1: %s", res.Body)
	}
	res, _ = consolePage(t, e.admin, "/console/blog/comments?page=2", 200)
	if !has(res, "Page 2 of 2", `href="/console/blog/comments" rel="prev"`, `name="page" value="2"`) {
		t.Fatalf("page 2: %s", res.Body)
	}
}
