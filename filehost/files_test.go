package filehost

import (
	"context"
	"net/http"
	"testing"

	"folio/httpx/httpxtest"
	"folio/sqlstore"
)

type filePage struct {
	Items []struct {
		ID         string `json:"id"`
		Key        string `json:"key"`
		Name       string `json:"name"`
		OriginName string `json:"origin_name"`
		Size       int64  `json:"size"`
		FileType   string `json:"file_type"`
		Width      int    `json:"width"`
		Height     int    `json:"height"`
		AlbumID    string `json:"album_id"`
		IsPublic   bool   `json:"is_public"`
		UserID     string `json:"user_id"`
		Username   string `json:"username"`
		Links      struct {
			URL string `json:"url"`
		} `json:"links"`
	} `json:"items"`
	Total int `json:"total"`
	Page  int `json:"page"`
	Size  int `json:"size"`
}

func listFilesOf(t *testing.T, c *httpxtest.Client, path string) filePage {
	t.Helper()
	var p filePage
	httpxtest.Into(t, c.Do("GET", path, nil).Expect(200).A().Data, &p)
	return p
}

func TestFileListFiltersAndOrders(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	album := e.createAlbum(uid, "trip")
	mustUpload(t, c, "beach.png", pngBytes(t, 10, 10), "album_id", album)
	mustUpload(t, c, "notes.txt", []byte("some notes"))
	mustUpload(t, c, "clip.mp4", mp4Bytes)
	mustUpload(t, bob, "bobs.png", pngBytes(t, 11, 11))

	p := listFilesOf(t, c, "/api/v1/files")
	if p.Total != 3 || len(p.Items) != 3 || p.Page != 1 || p.Size != 20 || p.Items[0].OriginName != "clip.mp4" {
		t.Fatalf("default list: %+v", p)
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"?file_type=image", []string{"beach.png"}},
		{"?album_id=" + album, []string{"beach.png"}},
		{"?keyword=NOTE", []string{"notes.txt"}},
		{"?keyword=%25", nil},
		{"?order_by=origin_name&order=ASC", []string{"beach.png", "clip.mp4", "notes.txt"}},
		{"?order_by=size&order=desc&size=1", []string{"clip.mp4"}},
		{"?order_by=origin_name&order=asc&size=1&page=2", []string{"clip.mp4"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			p := listFilesOf(t, c, "/api/v1/files"+tc.query)
			var got []string
			for _, it := range p.Items {
				got = append(got, it.OriginName)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
	for _, bad := range []string{"?order_by=password", "?order=sideways", "?album_id=x", "?file_type=exe", "?page=x"} {
		if r := c.Do("GET", "/api/v1/files"+bad, nil).Expect(400).A(); r.Code != 40000 {
			t.Fatalf("%s: code %d", bad, r.Code)
		}
	}
	e.c.Do("GET", "/api/v1/files", nil).Expect(401)
}

func TestFileGetPatchDelete(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	bobAlbum := e.createAlbum(e.createUser("carol", 0), "carol's")
	album := e.createAlbum(uid, "trip")
	u := mustUpload(t, c, "a.png", pngBytes(t, 12, 7))

	var f map[string]any
	httpxtest.Into(t, c.Do("GET", "/api/v1/files/"+u.ID, nil).Expect(200).A().Data, &f)
	for _, k := range []string{"id", "key", "name", "origin_name", "size", "mimetype", "extension", "md5", "file_type",
		"width", "height", "album_id", "is_public", "links", "created_at"} {
		if _, ok := f[k]; !ok {
			t.Errorf("record lacks %q", k)
		}
	}
	if f["width"] != 12.0 || f["height"] != 7.0 || f["album_id"] != "" || f["file_type"] != "image" {
		t.Fatalf("record %v", f)
	}
	bob.Do("GET", "/api/v1/files/"+u.ID, nil).Expect(404)
	bob.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"is_public": true}).Expect(404)
	bob.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(404)
	c.Do("GET", "/api/v1/files/not-a-uuid", nil).Expect(404)

	patch := func(body any) map[string]any {
		var out map[string]any
		httpxtest.Into(t, c.Do("PATCH", "/api/v1/files/"+u.ID, body).Expect(200).A().Data, &out)
		return out
	}
	got := patch(map[string]any{"origin_name": "renamed.png", "album_id": album, "is_public": true})
	if got["origin_name"] != "renamed.png" || got["album_id"] != album || got["is_public"] != true {
		t.Fatalf("patched %v", got)
	}
	got = patch(map[string]any{"album_id": ""})
	if got["album_id"] != "" || got["origin_name"] != "renamed.png" || got["is_public"] != true {
		t.Fatalf("patched %v", got)
	}
	c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"album_id": bobAlbum}).Expect(400)
	c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"origin_name": ""}).Expect(400)
	c.Do("PATCH", "/api/v1/files/"+u.ID, `{"is_public": "yes"}`).Expect(400)

	c.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(200)
	c.Do("GET", "/api/v1/files/"+u.ID, nil).Expect(404)
	c.Do("DELETE", "/api/v1/files/"+u.ID, nil).Expect(404)
	e.c.Do("GET", u.path(), nil).Expect(404)
	if used, n := e.usage(uid); used != 0 || n != 0 {
		t.Fatalf("usage %d/%d", used, n)
	}
}

func TestBatchDeleteTouchesOnlyOwnFiles(t *testing.T) {
	e := newTestEnv(t)
	uid, c := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	a := mustUpload(t, c, "a.txt", []byte("a"))
	b := mustUpload(t, c, "b.txt", []byte("bb"))
	keep := mustUpload(t, c, "c.txt", []byte("ccc"))
	other := mustUpload(t, bob, "d.txt", []byte("dddd"))
	var res struct{ Deleted int }
	httpxtest.Into(t, c.Do("POST", "/api/v1/files/batch-delete",
		map[string]any{"ids": []string{a.ID, b.ID, other.ID, "junk", a.ID}}).Expect(200).A().Data, &res)
	if res.Deleted != 2 {
		t.Fatalf("deleted %d, want 2", res.Deleted)
	}
	bob.Do("GET", "/api/v1/files/"+other.ID, nil).Expect(200)
	c.Do("GET", "/api/v1/files/"+keep.ID, nil).Expect(200)
	if used, n := e.usage(uid); used != 3 || n != 1 {
		t.Fatalf("usage %d/%d", used, n)
	}
	c.Do("POST", "/api/v1/files/batch-delete", map[string]any{"ids": []string{}}).Expect(400)
}

func TestAdminFiles(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	a := mustUpload(t, alice, "alice.txt", []byte("alice"))
	mustUpload(t, bob, "bob.txt", []byte("bob"))

	p := listFilesOf(t, e.admin, "/api/v1/admin/files")
	if p.Total != 2 {
		t.Fatalf("admin sees %d files", p.Total)
	}
	p = listFilesOf(t, e.admin, "/api/v1/admin/files?user_id="+aliceID)
	if p.Total != 1 || p.Items[0].Username != "alice" || p.Items[0].UserID != aliceID {
		t.Fatalf("filtered: %+v", p)
	}
	if p := listFilesOf(t, e.admin, "/api/v1/admin/files?keyword=bob"); p.Total != 1 {
		t.Fatalf("keyword: %+v", p)
	}
	alice.Do("GET", "/api/v1/admin/files", nil).Expect(http.StatusForbidden)
	e.c.Do("GET", "/api/v1/admin/files", nil).Expect(http.StatusUnauthorized)
	alice.Do("DELETE", "/api/v1/admin/files/"+a.ID, nil).Expect(http.StatusForbidden)
	e.admin.Do("DELETE", "/api/v1/admin/files/"+a.ID, nil).Expect(200)
	e.admin.Do("DELETE", "/api/v1/admin/files/"+a.ID, nil).Expect(404)
	if used, n := e.usage(aliceID); used != 0 || n != 0 {
		t.Fatalf("usage %d/%d", used, n)
	}
}

func TestDeleteUserFilesReleasesContent(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	shared := pngBytes(t, 9, 9)
	mine := mustUpload(t, alice, "mine.png", pngBytes(t, 8, 8))
	mustUpload(t, alice, "shared.png", shared)
	mustUpload(t, alice, "shared-again.png", shared)
	theirs := mustUpload(t, bob, "shared.png", shared)
	e.c.Do("GET", "/t/"+mine.hash(), nil).Expect(200)

	if err := e.svc.deleteUserFiles(context.Background(), aliceID); err != nil {
		t.Fatal(err)
	}
	if used, n := e.usage(aliceID); used != 0 || n != 0 {
		t.Fatalf("usage %d/%d", used, n)
	}
	e.c.Do("GET", mine.path(), nil).Expect(404)
	e.c.Do("GET", theirs.path(), nil).Expect(200)
	if refs := e.count("SELECT ref_count FROM objects WHERE storage_key = $1", theirs.Key); refs != 1 {
		t.Fatalf("shared object ref_count %d", refs)
	}
	if files := e.storedFiles(); len(files) != 1 || files[0] != theirs.Key {
		t.Fatalf("stored %v", files)
	}
	if n := e.count("SELECT COUNT(*) FROM files WHERE user_id = $1", aliceID); n != 0 {
		t.Fatalf("%d records left", n)
	}
	_ = sqlstore.ValidID
}
