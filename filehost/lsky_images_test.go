package filehost

import (
	"net/http"
	"testing"

	"folio/httpx/httpxtest"
)

func TestLskyImageListAndDelete(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	first := mustUpload(t, c, "a.png", pngBytes(t, 6, 4))
	mustUpload(t, c, "b.txt", []byte("text"))
	mustUpload(t, bob, "c.txt", []byte("bob's"))

	env := c.Do("GET", "/api/v1/images?page=1&per_page=1", nil).Expect(200).U()
	var page struct {
		CurrentPage int `json:"current_page"`
		LastPage    int `json:"last_page"`
		PerPage     int `json:"per_page"`
		Total       int `json:"total"`
		Data        []map[string]any
	}
	httpxtest.Into(t, env.Data, &page)
	if !env.Status || page.CurrentPage != 1 || page.LastPage != 2 || page.PerPage != 1 || page.Total != 2 || len(page.Data) != 1 {
		t.Fatalf("page %+v", page)
	}
	httpxtest.Into(t, c.Do("GET", "/api/v1/images?page=2&per_page=1", nil).Expect(200).U().Data, &page)
	img := page.Data[0]
	for _, k := range []string{"key", "name", "origin_name", "size", "mimetype", "extension", "md5", "links", "width", "height", "date"} {
		if _, ok := img[k]; !ok {
			t.Errorf("image lacks %q: %v", k, img)
		}
	}
	if img["key"] != first.Key || img["width"] != 6.0 || img["height"] != 4.0 {
		t.Fatalf("image %v", img)
	}

	r := bob.Do("DELETE", "/api/v1/images/"+first.Key, nil).Expect(http.StatusNotFound)
	if r.U().Status {
		t.Fatal("status true on 404")
	}
	bob.Do("DELETE", "/api/v1/images/no/such/key.png", nil).Expect(http.StatusNotFound)
	env = c.Do("DELETE", "/api/v1/images/"+first.Key, nil).Expect(200).U()
	if !env.Status || string(env.Data) != "{}" {
		t.Fatalf("delete: %+v", env)
	}
	c.Do("GET", "/api/v1/files/"+first.ID, nil).Expect(404)
	e.c.Do("GET", "/api/v1/images", nil).Expect(http.StatusUnauthorized)
}
