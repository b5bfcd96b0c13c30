package filehost

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"folio/auth"
	"folio/sqlstore"
)

// albumRow reads an album's editable fields.
func (e *testEnv) albumRow(id string) (name, description string, public bool) {
	e.t.Helper()
	if err := e.db.QueryRow(context.Background(), "SELECT name, description, is_public FROM albums WHERE id = $1", id).
		Scan(&name, &description, &public); err != nil {
		e.t.Fatalf("album %s: %v", id, err)
	}
	return name, description, public
}

func TestConsoleAlbumCreate(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")

	res := b.Do("GET", "/console/albums", nil).Expect(http.StatusOK)
	if !contains(res, "<title>Albums · ", `<form id="album-create" method="post" action="/console/albums"`, "No albums yet.",
		`<label for="album-name">`, `<label for="album-description">`, `id="album-public"`) {
		t.Fatalf("page: %s", res.Body)
	}
	if res.Header.Get("Content-Security-Policy") != auth.ConsoleCSP {
		t.Fatal("no CSP")
	}
	tok := res.FormToken()

	res = b.PostForm("/console/albums", "form_token", tok, "name", "  Trips <2024> ", "description", "Sea and hills", "is_public", "1").
		Expect(http.StatusSeeOther)
	id := strings.TrimPrefix(res.Location(), "/console/albums/")
	if !sqlstore.ValidID(id) {
		t.Fatalf("Location %q", res.Location())
	}
	if name, desc, public := e.albumRow(id); name != "Trips <2024>" || desc != "Sea and hills" || !public {
		t.Fatalf("album %q %q %v", name, desc, public)
	}
	if e.count("SELECT COUNT(*) FROM albums WHERE id = $1 AND user_id = $2", id, ann) != 1 {
		t.Fatal("the album is not the user's")
	}
	page := b.Do("GET", res.Location(), nil).Expect(http.StatusOK)
	if !contains(page, "Album created.", "<h1>Trips &lt;2024&gt;</h1>", `<a href="/console/files?album=`+id+`">Show its files</a>`) {
		t.Fatalf("album page: %s", page.Body)
	}

	bad := []struct {
		name   string
		fields []string
		has    string
	}{
		{"empty name", []string{"name", "   ", "description", "kept text"}, "kept text"},
		{"name too long", []string{"name", strings.Repeat("é", 101)}, "1 to 100 characters"},
		{"description too long", []string{"name", "Fine", "description", strings.Repeat("d", 1001)}, "at most 1000 characters"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			res := b.PostForm("/console/albums", append([]string{"form_token", tok}, tc.fields...)...).Expect(http.StatusUnprocessableEntity)
			if !contains(res, `<p class="error" role="alert">`, tc.has) {
				t.Fatalf("form not shown again with the problem: %s", res.Body)
			}
		})
	}
	if n := e.count("SELECT COUNT(*) FROM albums WHERE user_id = $1", ann); n != 1 {
		t.Fatalf("%d albums after refused forms", n)
	}
}

func TestConsoleAlbumListPagesAndCounts(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	e.createAlbum(bob, "Bob's album")
	var first string
	for i := range 25 {
		id := e.createAlbum(ann, fmt.Sprintf("Album %02d", i))
		if i == 0 {
			first = id
		}
	}
	e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image", AlbumID: first}, seedFile{Name: "b.png", Type: "image", AlbumID: first})

	p1 := b.Do("GET", "/console/albums", nil).Expect(http.StatusOK)
	p2 := b.Do("GET", "/console/albums?page=2", nil).Expect(http.StatusOK)
	rows := func(body []byte) int {
		return strings.Count(string(body), `<td data-label="Name"><a href="/console/albums/`)
	}
	if rows(p1.Body) != 20 || rows(p2.Body) != 5 {
		t.Fatalf("%d and %d rows, want 20 and 5", rows(p1.Body), rows(p2.Body))
	}
	if !contains(p1, "Page 1 of 2") || !contains(p2, "Album 00", `<a href="/console/files?album=`+first+`">2<span class="visually-hidden"> files in Album 00</span>`) {
		t.Fatalf("page 2: %s", p2.Body)
	}
	if contains(p1, "Bob&#39;s") || contains(p2, "Bob&#39;s") {
		t.Fatal("another user's album is listed")
	}
	b.Do("GET", "/console/albums?page=x", nil).Expect(http.StatusBadRequest)
}

func TestConsoleAlbumEdit(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	id := e.createAlbum(ann, "Trips")
	path := "/console/albums/" + id

	res := b.Do("GET", path, nil).Expect(http.StatusOK)
	if !contains(res, `<form id="album-edit" method="post" action="`+path+`"`, `<form id="album-delete" method="post" action="`+path+`/delete"`,
		`value="Trips"`, "0 files") {
		t.Fatalf("page: %s", res.Body)
	}
	type state struct {
		name, desc string
		public     bool
	}
	tests := []struct {
		name   string
		fields []string
		status int
		want   state
		has    string
	}{
		{"rename and describe", []string{"name", "Holidays", "description", " By the sea "}, 303, state{"Holidays", "By the sea", false}, ""},
		{"make public", []string{"name", "Holidays", "description", "By the sea", "is_public", "1"}, 303, state{"Holidays", "By the sea", true}, ""},
		{"private again, description cleared", []string{"name", "Holidays"}, 303, state{"Holidays", "", false}, ""},
		{"empty name", []string{"name", "", "description", "keep me"}, 422, state{"Holidays", "", false}, "keep me"},
		{"name too long", []string{"name", strings.Repeat("x", 101)}, 422, state{"Holidays", "", false}, "1 to 100 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := pageToken(b, path)
			res := b.PostForm(path, append([]string{"form_token", tok}, tc.fields...)...).Expect(tc.status)
			if tc.status == 303 {
				if res.Location() != path || !contains(b.Do("GET", path, nil).Expect(200), "Saved.") {
					t.Fatalf("Location %q, or no flash", res.Location())
				}
			} else if !contains(res, `<p class="error" role="alert">`, tc.has) {
				t.Fatalf("form not shown again: %s", res.Body)
			}
			if n, d, p := e.albumRow(id); (state{n, d, p}) != tc.want {
				t.Fatalf("album is %+v, want %+v", state{n, d, p}, tc.want)
			}
		})
	}
}

func TestConsoleAlbumDeleteKeepsItsFiles(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	id := e.createAlbum(ann, "Trips")
	files := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image", AlbumID: id}, seedFile{Name: "b.png", Type: "image", AlbumID: id})
	tok := pageToken(b, "/console/albums/"+id)

	res := b.PostForm("/console/albums/"+id+"/delete", "form_token", tok).Expect(http.StatusSeeOther)
	if res.Location() != "/console/albums" {
		t.Fatalf("Location %q", res.Location())
	}
	if !contains(b.Do("GET", "/console/albums", nil).Expect(200), "Album deleted") {
		t.Fatal("no flash")
	}
	if e.count("SELECT COUNT(*) FROM albums WHERE id = $1", id) != 0 {
		t.Fatal("album still there")
	}
	for _, f := range files {
		if _, album, _ := e.fileRow(f); album != "" {
			t.Fatalf("file %s still in album %s", f, album)
		}
	}
	b.Do("GET", "/console/albums/"+id, nil).Expect(http.StatusNotFound)
	b.PostForm("/console/albums/"+id+"/delete", "form_token", tok).Expect(http.StatusNotFound)
}

func TestConsoleAlbumsOfAnotherUserAreNotFound(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	theirs := e.createAlbum(bob, "Bob's")
	tok := pageToken(b, "/console/albums")
	for _, path := range []string{"/console/albums/" + theirs, "/console/albums/" + sqlstore.NewID(), "/console/albums/nope"} {
		if res := b.Do("GET", path, nil).Expect(http.StatusNotFound); !contains(res, "There is no such album.") {
			t.Errorf("GET %s: %s", path, res.Body)
		}
		b.PostForm(path, "form_token", tok, "name", "Mine").Expect(http.StatusNotFound)
		b.PostForm(path+"/delete", "form_token", tok).Expect(http.StatusNotFound)
	}
	if name, _, _ := e.albumRow(theirs); name != "Bob's" {
		t.Fatalf("another user's album was renamed to %q", name)
	}
}

func TestConsoleAlbumFormsRefuseForeignRequests(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	id := e.createAlbum(ann, "Trips")
	tok := pageToken(b, "/console/albums")
	for _, path := range []string{"/console/albums", "/console/albums/" + id, "/console/albums/" + id + "/delete"} {
		t.Run(path, func(t *testing.T) {
			b.PostForm(path, "name", "Changed").Expect(http.StatusForbidden)
			postFrom(b, "https://evil.example", path, "form_token", tok, "name", "Changed").Expect(http.StatusForbidden)
		})
	}
	if n := e.count("SELECT COUNT(*) FROM albums WHERE user_id = $1 AND name = 'Trips'", ann); n != 1 {
		t.Fatalf("refused forms changed the albums (%d left as they were)", n)
	}
	if n := e.count("SELECT COUNT(*) FROM albums WHERE user_id = $1", ann); n != 1 {
		t.Fatalf("%d albums", n)
	}
}
