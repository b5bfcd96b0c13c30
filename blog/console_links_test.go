package blog_test

import (
	"testing"
)

func TestBlogConsoleFriendLinks(t *testing.T) {
	e := newConsoleEnv(t)
	res, _ := consolePage(t, e.admin, "/console/blog/links", 200)
	if !has(res, "<title>Friend links · ", `<option value="active" selected>active</option>`, `<option value="pending">pending</option>`,
		`<option value="down">down</option>`, "No friend links yet.") {
		t.Fatalf("empty list: %s", res.Body)
	}
	consoleFlash(t, e.admin, e.submit("/console/blog/links", "name", "Friend", "url", "https://friend.example/",
		"description", "A friend", "logo", "", "sort", "2", "status", "pending"), "Added the friend link “Friend”.")
	var items page[map[string]any]
	data(t, e.admin.Do("GET", "/api/v1/admin/friend-links", nil), 200, &items)
	if len(items.Items) != 1 || items.Items[0]["status"] != "pending" || items.Items[0]["sort"] != 2.0 {
		t.Fatalf("stored: %+v", items.Items)
	}
	id := items.Items[0]["id"].(string)
	res, _ = consolePage(t, e.admin, "/console/blog/links", 200)
	if !has(res, `<a href="/console/blog/links/`+id+`">Friend</a>`, "https://friend.example/", `<td data-label="Status">pending</td>`, `<td data-label="Sort">2</td>`) {
		t.Fatalf("list: %s", res.Body)
	}

	for _, tc := range []struct {
		name   string
		fields []string
		status int
		msg    string
	}{
		{"duplicate url", []string{"name", "Twin", "url", "https://friend.example/"}, 409, "a friend link with that URL already exists"},
		{"no name", []string{"name", "", "url", "https://b.example/"}, 422, "Not saved: name"},
		{"relative url", []string{"name", "B", "url", "/local"}, 422, "Not saved: url"},
		{"bad sort", []string{"name", "B", "url", "https://b.example/", "sort", "first"}, 422, "Not saved: sort must be a whole number."},
		{"bad status", []string{"name", "B", "url", "https://b.example/", "status", "gone"}, 422, "Not saved: status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.submit("/console/blog/links", tc.fields...).Expect(tc.status)
			if !has(res, tc.msg, `value="`+tc.fields[1]+`"`) {
				t.Fatalf("%s", res.Body)
			}
		})
	}

	res, _ = consolePage(t, e.admin, "/console/blog/links/"+id, 200)
	if !has(res, `action="/console/blog/links/`+id+`"`, `value="Friend"`, "A friend</textarea>", `<option value="pending" selected>`) {
		t.Fatalf("edit page: %s", res.Body)
	}
	consoleFlash(t, e.admin, e.submit("/console/blog/links/"+id, "name", "Friend 2", "url", "https://friend.example/",
		"sort", "1", "status", "active"), "Saved.")
	data(t, e.anon.Do("GET", "/api/v1/friend-links", nil), 200, &items)
	if len(items.Items) != 1 || items.Items[0]["name"] != "Friend 2" {
		t.Fatalf("public: %+v", items.Items)
	}
	consoleFlash(t, e.admin, e.submit("/console/blog/links", "name", "Other", "url", "https://other.example/"), "")
	e.submit("/console/blog/links/"+id, "name", "Friend", "url", "https://other.example/").Expect(409)
	e.submit("/console/blog/links/"+id, "name", "", "url", "https://friend.example/").Expect(422)

	consoleFlash(t, e.admin, e.submit("/console/blog/links/"+id+"/delete"), "Deleted the friend link.")
	for _, lid := range []string{id, "nope"} {
		e.admin.Do("GET", "/console/blog/links/"+lid, nil).Expect(404)
		e.submit("/console/blog/links/"+lid, "name", "x", "url", "https://x.example/").Expect(404)
		e.submit("/console/blog/links/" + lid + "/delete").Expect(404)
	}
}
