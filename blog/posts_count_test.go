package blog_test

import (
	"testing"
	"time"
)

// The public list's total is cached; these changes must show at once.
func TestPublicListTotalFollowsEveryChange(t *testing.T) {
	e := newEnv(t)
	total := func() int {
		var page struct {
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, &page)
		return page.Pagination.Total
	}
	if n := total(); n != 0 {
		t.Fatalf("empty blog total = %d", n)
	}
	first := e.publish("First")
	if n := total(); n != 1 {
		t.Fatalf("after publishing: total = %d, want 1", n)
	}
	e.admin.Do("PATCH", "/api/v1/admin/posts/"+first.ID, map[string]any{"status": "draft"}).Expect(200)
	if n := total(); n != 0 {
		t.Fatalf("after unpublishing: total = %d, want 0", n)
	}
	e.admin.Do("PATCH", "/api/v1/admin/posts/"+first.ID, map[string]any{"status": "published"}).Expect(200)
	second := e.publish("Second")
	if n := total(); n != 2 {
		t.Fatalf("after two posts: total = %d, want 2", n)
	}
	e.admin.Do("DELETE", "/api/v1/admin/posts/"+second.ID, nil).Expect(200)
	if n := total(); n != 1 {
		t.Fatalf("after delete: total = %d, want 1", n)
	}
	soon := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	e.publish("Future", "published_at", soon)
	if n := total(); n != 1 {
		t.Fatalf("future-dated post counted early: total = %d", n)
	}
	time.Sleep(1200 * time.Millisecond)
	if n := total(); n != 2 {
		t.Fatalf("future-dated post not counted once due: total = %d, want 2", n)
	}
}
