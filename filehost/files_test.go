package filehost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

func TestFilePatchCleanTrimsAndChecksTheName(t *testing.T) {
	str := func(s string) *string { return &s }
	const bad = "origin_name must be a non-empty file name"
	for _, tt := range []struct {
		name      string
		patch     filePatch
		wantName  *string
		wantAlbum *string
		wantErr   string
	}{
		{"nothing sent", filePatch{}, nil, nil, ""},
		{"name trimmed", filePatch{OriginName: str("  a.png ")}, str("a.png"), nil, ""},
		{"empty name", filePatch{OriginName: str("  ")}, nil, nil, bad},
		{"name with a folder", filePatch{OriginName: str("x/a.png")}, nil, nil, bad},
		{"name with a control character", filePatch{OriginName: str("a\tb.png")}, nil, nil, bad},
		{"name too long", filePatch{OriginName: str(strings.Repeat("a", 1025))}, nil, nil, bad},
		{"album normalized", filePatch{AlbumID: str(" ABC-1 ")}, nil, str("abc-1"), ""},
		{"album cleared", filePatch{AlbumID: str(" ")}, nil, str(""), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.patch
			err := p.clean()
			if tt.wantErr != "" {
				var ii *invalidInput
				if !errors.As(err, &ii) || ii.msg != tt.wantErr {
					t.Fatalf("clean() = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("clean() = %v", err)
			}
			for _, f := range []struct {
				field     string
				got, want *string
			}{{"origin_name", p.OriginName, tt.wantName}, {"album_id", p.AlbumID, tt.wantAlbum}} {
				if (f.got == nil) != (f.want == nil) || f.got != nil && *f.got != *f.want {
					t.Fatalf("%s = %v, want %v", f.field, f.got, f.want)
				}
			}
		})
	}
}

func TestBatchDeleteTakesOneToAThousandIDs(t *testing.T) {
	for _, tt := range []struct {
		n       int
		wantErr string
	}{
		{0, "ids must list at least one file id"},
		{1, ""},
		{maxBatch, ""},
		{maxBatch + 1, "ids may list at most 1000 file ids"},
	} {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			err := checkBatch(make([]string, tt.n))
			if got := fmt.Sprint(err); tt.wantErr == "" && err != nil || tt.wantErr != "" && got != tt.wantErr {
				t.Fatalf("checkBatch(%d ids) = %v, want %q", tt.n, err, tt.wantErr)
			}
		})
	}
}

func TestDedupIDsNormalizesAndKeepsTheFirst(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []string
		want []string
	}{
		{"distinct", []string{"a", "b"}, []string{"a", "b"}},
		{"case and spaces", []string{" A ", "a", "B", "b "}, []string{"a", "b"}},
		{"order kept", []string{"c", "a", "c", "b"}, []string{"c", "a", "b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := dedupIDs(tt.in); !slices.Equal(got, tt.want) {
				t.Fatalf("dedupIDs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLinksUseTheTypePrefixAndTheUploadName(t *testing.T) {
	for _, tt := range []struct {
		name      string
		file      fileRecord
		url       string
		thumbnail string
		markdown  string
	}{
		{"image with a thumbnail",
			fileRecord{ID: "id1", hash: "abcd1234", FileType: "image", Mimetype: "image/png", Width: 10, Height: 10, OriginName: "cat [1].png"},
			"https://x.test/i/abcd1234", "https://x.test/t/abcd1234", `![cat \[1\].png](https://x.test/i/abcd1234)`},
		{"image without known size",
			fileRecord{ID: "id2", hash: "abcd1235", FileType: "image", Mimetype: "image/png", OriginName: "a.png"},
			"https://x.test/i/abcd1235", "", "![a.png](https://x.test/i/abcd1235)"},
		{"video", fileRecord{ID: "id3", hash: "abcd1236", FileType: "video", Mimetype: "video/mp4", OriginName: "v.mp4"},
			"https://x.test/v/abcd1236", "", "![v.mp4](https://x.test/v/abcd1236)"},
		{"audio", fileRecord{ID: "id4", hash: "abcd1237", FileType: "audio", Mimetype: "audio/ogg", OriginName: "s.ogg"},
			"https://x.test/a/abcd1237", "", "![s.ogg](https://x.test/a/abcd1237)"},
		{"other file named by its stored name when it has no upload name",
			fileRecord{ID: "id5", hash: "abcd1238", FileType: "file", Mimetype: "application/pdf", Name: "k.pdf"},
			"https://x.test/f/abcd1238", "", "![k.pdf](https://x.test/f/abcd1238)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.file
			f.setLinks("https://x.test")
			if f.Links.URL != tt.url || f.Links.ThumbnailURL != tt.thumbnail || f.Links.Markdown != tt.markdown {
				t.Fatalf("links = %+v, want url %q, thumbnail %q, markdown %q", f.Links, tt.url, tt.thumbnail, tt.markdown)
			}
			if f.Links.DeleteURL != "https://x.test/api/v1/files/"+f.ID {
				t.Fatalf("delete_url = %q", f.Links.DeleteURL)
			}
		})
	}
}

func TestKeyBaseIsTheLastPathSegment(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"2024/01/02/a.png", "a.png"},
		{"a.png", "a.png"},
		{"dir/", ""},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := keyBase(tt.in); got != tt.want {
				t.Fatalf("keyBase(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
