package blog_test

import (
	"testing"
	"time"
)

// The post lists' totals are cached; every change must show at once, in
// every list it touches.
func TestPostListTotalsFollowEveryChange(t *testing.T) {
	clock := &testClock{}
	e, _ := newEnvWith(t, setup{now: clock.now})
	cat, tag := e.createTerm("categories", "C"), e.createTerm("tags", "T")
	total := func(path string) int {
		var pg page[post]
		data(t, e.admin.Do("GET", path, nil), 200, &pg)
		return pg.Pagination.Total
	}
	lists := []string{"/api/v1/posts", "/api/v1/posts?category_id=" + cat.ID, "/api/v1/posts?tag_id=" + tag.ID,
		"/api/v1/admin/posts", "/api/v1/admin/posts?status=draft", "/api/v1/admin/posts?category_id=" + cat.ID}
	expect := func(step string, want ...int) {
		t.Helper()
		for i, path := range lists {
			if n := total(path); n != want[i] {
				t.Fatalf("after %s: %s total = %d, want %d", step, path, n, want[i])
			}
		}
	}
	expect("nothing", 0, 0, 0, 0, 0, 0)
	first := e.publish("First", "category_id", cat.ID, "tag_ids", []string{tag.ID})
	expect("publishing", 1, 1, 1, 1, 0, 1)
	e.admin.Do("PATCH", "/api/v1/admin/posts/"+first.ID, map[string]any{"status": "draft"}).Expect(200)
	expect("unpublishing", 0, 0, 0, 1, 1, 1)
	e.admin.Do("PATCH", "/api/v1/admin/posts/"+first.ID, map[string]any{"status": "published"}).Expect(200)
	second := e.publish("Second")
	expect("a second post", 2, 1, 1, 2, 0, 1)
	e.admin.Do("PATCH", "/api/v1/admin/posts/"+second.ID, map[string]any{"category_id": cat.ID, "tag_ids": []string{tag.ID}}).Expect(200)
	expect("filing the second", 2, 2, 2, 2, 0, 2)
	e.admin.Do("DELETE", "/api/v1/admin/posts/"+second.ID, nil).Expect(200)
	expect("deleting", 1, 1, 1, 1, 0, 1)

	at := clock.now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	e.publish("Scheduled", "published_at", at, "category_id", cat.ID, "tag_ids", []string{tag.ID})
	expect("scheduling", 1, 1, 1, 2, 0, 2)
	clock.advance(2 * time.Hour)
	expect("the schedule passing", 2, 2, 2, 2, 0, 2)

	e.admin.Do("DELETE", "/api/v1/admin/tags/"+tag.ID, nil).Expect(200)
	expect("deleting the tag", 2, 2, 0, 2, 0, 2)
	e.admin.Do("DELETE", "/api/v1/admin/categories/"+cat.ID, nil).Expect(200)
	expect("deleting the category", 2, 0, 0, 2, 0, 0)
}
