package blog_test

import (
	"testing"
)

func TestBlogConsoleTermsCreateRenameDelete(t *testing.T) {
	for _, tc := range []struct{ table, one, title string }{
		{"categories", "category", "Categories"},
		{"tags", "tag", "Tags"},
	} {
		t.Run(tc.table, func(t *testing.T) {
			e := newConsoleEnv(t)
			base := "/console/blog/" + tc.table
			consoleFlash(t, e.admin, e.submit(base, "name", "Go Notes"), "Added the "+tc.one+" “Go Notes”.")
			var items page[ref]
			data(t, e.admin.Do("GET", "/api/v1/admin/"+tc.table, nil), 200, &items)
			if len(items.Items) != 1 || items.Items[0].Slug != "go-notes" {
				t.Fatalf("stored: %+v", items.Items)
			}
			term := items.Items[0]
			field := "category_id"
			var value any = term.ID
			if tc.table == "tags" {
				field, value = "tag_ids", []string{term.ID}
			}
			e.createPost(map[string]any{"title": "Filed", field: value})

			res, _ := consolePage(t, e.admin, base, 200)
			if !has(res, "<title>"+tc.title+" · ", `aria-current="page">`+tc.title+`</a>`, `action="`+base+`/`+term.ID+`"`,
				`value="Go Notes"`, `value="go-notes"`, `<td data-label="Posts">1</td>`, `data-confirm="Delete “Go Notes”?`) {
				t.Fatalf("list: %s", res.Body)
			}

			// Refused: 422 with the input kept, 409 for a taken slug.
			res = e.submit(base, "name", " ", "slug", "kept-slug").Expect(422)
			if !has(res, "Not saved: name must not be empty.", `value="kept-slug"`, `value=" " aria-invalid="true"`) {
				t.Fatalf("422: %s", res.Body)
			}
			e.submit(base, "name", "Bad", "slug", "Bad Slug").Expect(422)
			res = e.submit(base, "name", "Again", "slug", "go-notes").Expect(409)
			if !has(res, "that slug is already taken", `value="Again"`) {
				t.Fatalf("409: %s", res.Body)
			}
			consoleFlash(t, e.admin, e.submit(base, "name", "Other"), "")
			res = e.submit(base+"/"+term.ID, "name", "Renamed", "slug", "other").Expect(409)
			if !has(res, `value="Renamed"`) {
				t.Fatalf("409 on edit: %s", res.Body)
			}

			consoleFlash(t, e.admin, e.submit(base+"/"+term.ID, "name", "Renamed", "slug", "renamed"), "Saved the "+tc.one+" “Renamed”.")
			var got ref
			data(t, e.admin.Do("GET", "/api/v1/admin/"+tc.table+"/"+term.ID, nil), 200, &got)
			if got.Name != "Renamed" || got.Slug != "renamed" {
				t.Fatalf("renamed: %+v", got)
			}

			consoleFlash(t, e.admin, e.submit(base+"/"+term.ID+"/delete"), "Deleted the "+tc.one+".")
			e.admin.Do("GET", "/api/v1/admin/"+tc.table+"/"+term.ID, nil).Expect(404)
			for _, id := range []string{term.ID, "nope"} {
				e.submit(base+"/"+id, "name", "x").Expect(404)
				e.submit(base + "/" + id + "/delete").Expect(404)
			}
		})
	}
}
