package filehost

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
)

// seedFile describes a file record that seedConsoleFiles inserts.
type seedFile struct {
	Name    string
	Type    string // image, video, audio or file
	AlbumID string
	Public  bool
}

// seedConsoleFiles inserts file records, each over its own object, for one
// user straight into the database, one second apart with the last newest,
// and returns their ids in order.
func (e *testEnv) seedConsoleFiles(userID string, files ...seedFile) []string {
	e.t.Helper()
	ctx := context.Background()
	start := time.Now().Add(-time.Duration(len(files)+10) * time.Second)
	ids := make([]string, len(files))
	err := e.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		for i, f := range files {
			at := sqlstore.FromTime(start.Add(time.Duration(i) * time.Second))
			mime, ext, w, h := "application/pdf", "pdf", 0, 0
			switch f.Type {
			case "image":
				mime, ext, w, h = "image/png", "png", 64, 48
			case "video":
				mime, ext = "video/mp4", "mp4"
			case "audio":
				mime, ext = "audio/mpeg", "mp3"
			}
			objectID := sqlstore.NewID()
			sum := strings.ReplaceAll(objectID, "-", "")
			if _, err := tx.Exec(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, width, height, ref_count, created_at)
				VALUES ($1, $2, $2, $3, $4, 2048, $5, $6, $7, $8, $9, 1, $10)`,
				objectID, sum, sum[20:], "seed/"+sum+"."+ext, mime, ext, f.Type, w, h, at); err != nil {
				return err
			}
			var album any
			if f.AlbumID != "" {
				album = f.AlbumID
			}
			ids[i] = sqlstore.NewID()
			if _, err := tx.Exec(ctx, `INSERT INTO files (id, user_id, object_id, album_id, origin_name, size, visibility, is_public, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, 2048, $6, $7, $8, $8)`, ids[i], userID, objectID, album, f.Name, visibilityOf(f.Public), f.Public, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatalf("seed files: %v", err)
	}
	return ids
}

// fileRow reads what the edit form changes of a file.
func (e *testEnv) fileRow(id string) (name, albumID, visibility string) {
	e.t.Helper()
	var album *string
	var public bool
	if err := e.db.QueryRow(context.Background(), "SELECT origin_name, album_id, visibility, is_public FROM files WHERE id = $1", id).
		Scan(&name, &album, &visibility, &public); err != nil {
		e.t.Fatalf("file %s: %v", id, err)
	}
	if public != (visibility == "public") {
		e.t.Fatalf("file %s: is_public %v beside visibility %s", id, public, visibility)
	}
	if album != nil {
		albumID = *album
	}
	return name, albumID, visibility
}

// postFrom sends a url-encoded form as if from origin.
func postFrom(c *httpxtest.Client, origin, path string, fields ...string) *httpxtest.Response {
	c.T.Helper()
	form := url.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Add(fields[i], fields[i+1])
	}
	req, err := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	return c.Send(req)
}

// cards counts the file cards of a grid page.
func cards(res *httpxtest.Response) int {
	return strings.Count(string(res.Body), `<li class="file-card"`)
}

func TestConsoleFilesGridPagesAndFilters(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	trips := e.createAlbum(ann, "Trips")
	bobsAlbum := e.createAlbum(bob, "Bob's")
	var files []seedFile
	for i := range 41 {
		f := seedFile{Name: fmt.Sprintf("pic-%02d.png", i), Type: "image", Public: i%2 == 0}
		if i < 7 {
			f.AlbumID = trips
		}
		files = append(files, f)
	}
	files = append(files, seedFile{Name: "clip-1.mp4", Type: "video"}, seedFile{Name: "clip-2.mp4", Type: "video", AlbumID: trips},
		seedFile{Name: "song.mp3", Type: "audio"}, seedFile{Name: "Report Q3.pdf", Type: "file"})
	e.seedConsoleFiles(ann, files...)
	e.seedConsoleFiles(bob, seedFile{Name: "bobs-secret.png", Type: "image"})

	tests := []struct {
		name  string
		query string
		cards int
		has   []string
	}{
		{"first page holds 40, newest first", "", 40, []string{`Report Q3.pdf`, "Page 1 of 2", `href="/console/files?page=2"`, `src="/t/`}},
		{"second page holds the rest", "?page=2", 5, []string{"pic-00.png", "Page 2 of 2", `href="/console/files?page=1"`}},
		{"a page past the end is empty", "?page=9", 0, []string{"This page is empty"}},
		{"type image", "?type=image", 40, []string{`href="/console/files?page=2&amp;type=image"`, `<option value="image" selected>`}},
		{"type image, second page", "?type=image&page=2", 1, []string{"pic-00.png"}},
		{"type video", "?type=video", 2, []string{"clip-1.mp4", "clip-2.mp4"}},
		{"type audio", "?type=audio", 1, []string{"song.mp3", `<span class="file-badge">MP3</span>`}},
		{"type file", "?type=file", 1, []string{"Report Q3.pdf", `<span class="file-badge">PDF</span>`}},
		{"album", "?album=" + trips, 8, []string{"clip-2.mp4", `<option value="` + trips + `" selected>Trips</option>`}},
		{"album in upper case", "?album=" + strings.ToUpper(trips), 8, nil},
		{"no album", "?album=none", 37, []string{"clip-1.mp4", `<option value="none" selected>`}},
		{"keyword", "?q=report", 1, []string{"Report Q3.pdf", `value="report"`}},
		{"keyword matches case-insensitively", "?q=CLIP", 2, nil},
		{"keyword with LIKE characters is literal", "?q=%25", 0, []string{"No file matches"}},
		{"filters combine", "?album=" + trips + "&type=video&q=clip", 1, []string{"clip-2.mp4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := b.Do("GET", "/console/files"+tc.query, nil).Expect(http.StatusOK)
			if got := cards(res); got != tc.cards {
				t.Fatalf("%d cards, want %d", got, tc.cards)
			}
			if !contains(res, tc.has...) {
				t.Fatalf("page lacks one of %q:\n%s", tc.has, res.Body)
			}
			if contains(res, "bobs-secret") || contains(res, "Bob&#39;s") {
				t.Fatal("another user's file or album shows")
			}
			if res.Header.Get("Content-Security-Policy") != auth.ConsoleCSP {
				t.Fatalf("CSP %q", res.Header.Get("Content-Security-Policy"))
			}
		})
	}

	t.Run("the page follows the DOM contract", func(t *testing.T) {
		res := b.Do("GET", "/console/files", nil).Expect(http.StatusOK)
		parts := []string{
			`<title>My files · `,
			`<form id="files-filter" method="get" action="/console/files"`,
			`<select name="album" id="filter-album">`, `<select name="type" id="filter-type">`,
			`<input type="search" name="q" id="filter-q"`, `<button type="submit">Filter</button>`,
			`<form id="files-batch" method="post" action="/console/files/batch">`, `<ul class="file-grid">`,
			`data-select-all="ids"`, `<select id="batch-album" name="album_id">`, `<button type="submit" name="action" value="move" class="secondary">Move</button>`,
			`<select id="batch-visibility" name="visibility">`, `<button type="submit" name="action" value="visibility" class="secondary">Set</button>`,
			`<button id="delete-selected" type="submit" name="action" value="delete" class="danger" data-confirm="Delete the selected files? Their links stop working.">`,
			`<dialog id="viewer" class="viewer" aria-labelledby="viewer-name">`, `data-viewer-tile`, `src="/console/static/files.`,
			`data-name="Report Q3.pdf"`, `aria-label="Select Report Q3.pdf"`, `name="ids" value="`,
			`<a href="/console/files/`, `<span class="file-tag file-tag-public">Public</span>`, `<span class="file-tag">Unlisted</span>`, "2 KiB",
		}
		for _, p := range parts {
			if !contains(res, p) {
				t.Errorf("page lacks %s", p)
			}
		}
		if contains(res, "style=") {
			t.Error("page has a style attribute")
		}
	})

	bad := []struct {
		name, query string
		status      int
	}{
		{"unknown type", "?type=exe", http.StatusBadRequest},
		{"page not a number", "?page=x", http.StatusBadRequest},
		{"album not an id", "?album=holidays", http.StatusNotFound},
		{"another user's album", "?album=" + bobsAlbum, http.StatusNotFound},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			res := b.Do("GET", "/console/files"+tc.query, nil).Expect(tc.status)
			if !contains(res, "<h1>") || contains(res, "sql") {
				t.Fatalf("not a clean error page: %s", res.Body)
			}
		})
	}
}

func TestConsoleFilesNeedSignIn(t *testing.T) {
	e := newTestEnv(t)
	for _, path := range []string{"/console/files", "/console/files/" + sqlstore.NewID(), "/console/albums", "/console/albums/" + sqlstore.NewID()} {
		res := e.c.Clone().Do("GET", path, nil).Expect(http.StatusSeeOther)
		if want := "/console/login?next=" + url.QueryEscape(path); res.Location() != want {
			t.Errorf("%s: Location %q, want %q", path, res.Location(), want)
		}
	}
}

func TestConsoleFileDetail(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	up := mustUpload(t, e.clientFor(ann), "cat <1>.png", pngBytes(t, 20, 10))
	ids := e.seedConsoleFiles(ann, seedFile{Name: "clip.mp4", Type: "video"}, seedFile{Name: "song.mp3", Type: "audio"},
		seedFile{Name: "notes.pdf", Type: "file"})

	tests := []struct {
		name, id string
		has      []string
	}{
		{"image", up.ID, []string{
			"<title>cat &lt;1&gt;.png · ", "<h1 class=\"file-title\">cat &lt;1&gt;.png</h1>",
			`<img src="/i/` + up.hash() + `" alt="cat &lt;1&gt;.png" width="20" height="10">`,
			"20 × 10 px", "image/png",
			`id="link-url" type="text" readonly value="` + up.Links.URL + `"`,
			`id="link-markdown"`, `id="link-html"`, `id="link-bbcode"`,
			`id="link-thumb" type="text" readonly value="` + up.Links.ThumbnailURL + `"`, `data-copy="link-url"`,
			`<form id="file-edit" method="post" action="/console/files/` + up.ID + `">`,
			`<input id="edit-name" name="origin_name" type="text" value="cat &lt;1&gt;.png"`,
			`<select name="album_id" id="edit-album">`, `<option value="">No album</option>`,
			`<select id="edit-visibility" name="visibility">`, `<option value="unlisted" selected>Unlisted: anyone with the link</option>`,
			`<option value="restricted">Restricted: only you, and your share links</option>`,
			`<form id="file-delete" method="post" action="/console/files/` + up.ID + `/delete"`,
		}},
		{"video", ids[0], []string{`<video controls preload="metadata" src="/v/`}},
		{"audio", ids[1], []string{`<audio controls preload="metadata" src="/a/`}},
		{"other file", ids[2], []string{`<a href="/f/`, "Download the file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := b.Do("GET", "/console/files/"+tc.id, nil).Expect(http.StatusOK)
			for _, p := range tc.has {
				if !contains(res, p) {
					t.Errorf("page lacks %s", p)
				}
			}
			if contains(res, "style=") {
				t.Error("page has a style attribute")
			}
		})
	}
	t.Run("the preview and thumbnail are served to the browser", func(t *testing.T) {
		b.Do("GET", "/i/"+up.hash(), nil).Expect(http.StatusOK)
		b.Do("GET", "/t/"+up.hash(), nil).Expect(http.StatusOK)
	})
}

func TestConsoleFileEdit(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	trips := e.createAlbum(ann, "Trips")
	work := e.createAlbum(ann, "Work")
	bobsAlbum := e.createAlbum(bob, "Bob's")
	id := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image", AlbumID: trips})[0]
	path := "/console/files/" + id

	type state struct{ name, album, visibility string }
	tests := []struct {
		name   string
		fields []string
		status int
		want   state
		has    string
	}{
		{"rename", []string{"origin_name", "  holiday.png ", "album_id", trips}, 303, state{"holiday.png", trips, "unlisted"}, ""},
		{"move to another album", []string{"origin_name", "holiday.png", "album_id", work, "visibility", "unlisted"}, 303, state{"holiday.png", work, "unlisted"}, ""},
		{"make public", []string{"origin_name", "holiday.png", "album_id", work, "visibility", "public"}, 303, state{"holiday.png", work, "public"}, ""},
		{"restrict, out of its album", []string{"origin_name", "holiday.png", "album_id", "", "visibility", "restricted"}, 303, state{"holiday.png", "", "restricted"}, ""},
		{"unlisted again", []string{"origin_name", "holiday.png", "album_id", "", "visibility", "unlisted"}, 303, state{"holiday.png", "", "unlisted"}, ""},
		{"unknown visibility", []string{"origin_name", "holiday.png", "album_id", "", "visibility", "private"}, 422, state{"holiday.png", "", "unlisted"}, "Choose a visibility"},
		{"empty name", []string{"origin_name", "  ", "album_id", trips, "visibility", "public"}, 422, state{"holiday.png", "", "unlisted"}, "Enter a name"},
		{"name too long", []string{"origin_name", strings.Repeat("n", 256), "album_id", trips}, 422, state{"holiday.png", "", "unlisted"}, strings.Repeat("n", 256)},
		{"name with a slash", []string{"origin_name", "a/b.png"}, 422, state{"holiday.png", "", "unlisted"}, `value="a/b.png"`},
		{"another user's album", []string{"origin_name", "x.png", "album_id", bobsAlbum}, 422, state{"holiday.png", "", "unlisted"}, "Choose one of your albums"},
		{"album id that is no id", []string{"origin_name", "x.png", "album_id", "trips"}, 422, state{"holiday.png", "", "unlisted"}, "Choose one of your albums"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := pageToken(b, path)
			res := b.PostForm(path, append([]string{"form_token", tok}, tc.fields...)...).Expect(tc.status)
			if tc.status == 303 {
				if res.Location() != path {
					t.Fatalf("Location %q", res.Location())
				}
				if !contains(b.Do("GET", path, nil).Expect(200), `<p class="flash" role="status">Saved.</p>`) {
					t.Fatal("no flash after the redirect")
				}
			} else if !contains(res, `<p class="error" role="alert">`, tc.has) {
				t.Fatalf("the form is not shown again with the problem and the input: %s", res.Body)
			}
			name, album, visibility := e.fileRow(id)
			if got := (state{name, album, visibility}); got != tc.want {
				t.Fatalf("file is %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestConsoleFilesOfAnotherUserAreNotFound(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	theirs := e.seedConsoleFiles(bob, seedFile{Name: "bob.png", Type: "image"})[0]
	tok := pageToken(b, "/console/files")

	for _, path := range []string{"/console/files/" + theirs, "/console/files/" + sqlstore.NewID(), "/console/files/nope"} {
		if res := b.Do("GET", path, nil).Expect(http.StatusNotFound); !contains(res, "There is no such file.") {
			t.Errorf("GET %s: %s", path, res.Body)
		}
		b.PostForm(path, "form_token", tok, "origin_name", "mine.png").Expect(http.StatusNotFound)
		b.PostForm(path+"/delete", "form_token", tok).Expect(http.StatusNotFound)
	}
	if name, _, _ := e.fileRow(theirs); name != "bob.png" {
		t.Fatalf("another user's file was renamed to %q", name)
	}
}

func TestConsoleFileFormsRefuseForeignRequests(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	id := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image"})[0]
	tok := pageToken(b, "/console/files")
	forms := []struct {
		path   string
		fields []string
	}{
		{"/console/files/delete", []string{"ids", id}},
		{"/console/files/" + id, []string{"origin_name", "b.png"}},
		{"/console/files/" + id + "/delete", nil},
	}
	for _, f := range forms {
		t.Run(f.path, func(t *testing.T) {
			b.PostForm(f.path, f.fields...).Expect(http.StatusForbidden)
			b.PostForm(f.path, append([]string{"form_token", "forged"}, f.fields...)...).Expect(http.StatusForbidden)
			postFrom(b, "https://evil.example", f.path, append([]string{"form_token", tok}, f.fields...)...).Expect(http.StatusForbidden)
		})
	}
	if e.count("SELECT COUNT(*) FROM files WHERE id = $1 AND origin_name = 'a.png'", id) != 1 {
		t.Fatal("a refused form changed the file")
	}
}

func TestConsoleBatchDelete(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	mine := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image"}, seedFile{Name: "b.png", Type: "image"},
		seedFile{Name: "c.pdf", Type: "file"})
	theirs := e.seedConsoleFiles(bob, seedFile{Name: "bob.png", Type: "image"})[0]
	tok := pageToken(b, "/console/files?type=image")

	res := b.PostForm("/console/files/delete", "form_token", tok, "back", "/console/files?type=image&page=1",
		"ids", mine[0], "ids", strings.ToUpper(mine[1]), "ids", mine[0], "ids", theirs, "ids", "not-an-id").Expect(http.StatusSeeOther)
	if res.Location() != "/console/files?page=1&type=image" {
		t.Fatalf("Location %q", res.Location())
	}
	if !contains(b.Do("GET", res.Location(), nil).Expect(200), "Deleted 2 files.") {
		t.Fatal("no flash after the redirect")
	}
	if n := e.count("SELECT COUNT(*) FROM files WHERE id IN ($1, $2)", mine[0], mine[1]); n != 0 {
		t.Fatalf("%d selected files left", n)
	}
	if e.count("SELECT COUNT(*) FROM files WHERE id = $1", theirs) != 1 {
		t.Fatal("another user's file was deleted")
	}
	if e.count("SELECT COUNT(*) FROM files WHERE id = $1", mine[2]) != 1 {
		t.Fatal("a file that was not selected was deleted")
	}

	t.Run("one file", func(t *testing.T) {
		res := b.PostForm("/console/files/delete", "form_token", tok, "ids", mine[2]).Expect(http.StatusSeeOther)
		if res.Location() != "/console/files" {
			t.Fatalf("Location %q", res.Location())
		}
		if !contains(b.Do("GET", "/console/files", nil).Expect(200), "Deleted 1 file.", "No files yet") {
			t.Fatal("no flash or the file is still listed")
		}
	})
	t.Run("no files selected", func(t *testing.T) {
		res := b.PostForm("/console/files/delete", "form_token", tok).Expect(http.StatusUnprocessableEntity)
		if !contains(res, "Select at least one file") {
			t.Fatalf("%s", res.Body)
		}
	})
	t.Run("back leads only to the grid", func(t *testing.T) {
		for _, back := range []string{"https://evil.example/console/files", "//evil.example/console/files", "/console/albums", "/console/files/x"} {
			res := b.PostForm("/console/files/delete", "form_token", tok, "ids", theirs, "back", back).Expect(http.StatusSeeOther)
			if res.Location() != "/console/files" {
				t.Errorf("back %q: Location %q", back, res.Location())
			}
		}
	})
}

func TestConsoleDeleteFile(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	up := mustUpload(t, e.clientFor(ann), "cat.png", pngBytes(t, 8, 8))
	tok := pageToken(b, "/console/files/"+up.ID)
	res := b.PostForm("/console/files/"+up.ID+"/delete", "form_token", tok).Expect(http.StatusSeeOther)
	if res.Location() != "/console/files" {
		t.Fatalf("Location %q", res.Location())
	}
	if !contains(b.Do("GET", "/console/files", nil).Expect(200), `<p class="flash" role="status">Deleted.</p>`) {
		t.Fatal("no flash")
	}
	if used, n := e.usage(ann); used != 0 || n != 0 {
		t.Fatalf("usage %d bytes, %d files after the delete", used, n)
	}
	b.Do("GET", "/i/"+up.hash(), nil).Expect(http.StatusNotFound)
	b.PostForm("/console/files/"+up.ID+"/delete", "form_token", tok).Expect(http.StatusNotFound)
}

func TestConsoleGalleryAndFilePageLoadTheNarrowestFittingWidth(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	c := e.clientFor(ann)
	wide := mustUpload(t, c, "wide.jpg", jpegBytes(t, 700, 350))
	tall := mustUpload(t, c, "tall.png", pngBytes(t, 400, 800))
	small := mustUpload(t, c, "small.png", pngBytes(t, 100, 80))
	gif := mustUpload(t, c, "moving.gif", gifBytes(t, 900, 300))
	set := func(path string, widths ...int) string {
		var parts []string
		for _, w := range widths[:len(widths)-1] {
			parts = append(parts, fmt.Sprintf("%s?w=%d %dw", path, w, w))
		}
		return strings.Join(append(parts, fmt.Sprintf("%s %dw", path, widths[len(widths)-1])), ", ")
	}
	wideSet := set("/i/"+wide.hash(), 160, 320, 480, 640, 700)
	grid := b.Do("GET", "/console/files", nil).Expect(http.StatusOK)
	for _, want := range []string{
		// A wide picture covers its square tile: drawn twice the tile's width.
		`<img src="/t/` + wide.hash() + `" srcset="` + wideSet + `" sizes="(max-width: 600px) 100vw, 32.0rem" alt="" loading="lazy">`,
		`<img src="/t/` + tall.hash() + `" srcset="` + set("/i/"+tall.hash(), 160, 320, 400) + `" sizes="(max-width: 600px) 50vw, 16.0rem" alt="" loading="lazy">`,
		// Narrower than every listed width, or a GIF: the thumbnail only.
		`<img src="/t/` + small.hash() + `" alt="" loading="lazy">`,
		`<img src="/t/` + gif.hash() + `" alt="" loading="lazy">`,
	} {
		if !contains(grid, want) {
			t.Errorf("grid lacks %s:\n%s", want, grid.Body)
		}
	}
	page := b.Do("GET", "/console/files/"+wide.ID, nil).Expect(http.StatusOK)
	want := `<img src="/i/` + wide.hash() + `" srcset="` + wideSet + `" sizes="(max-width: 800px) 100vw, 42rem" alt="wide.jpg" width="700" height="350">`
	if !contains(page, want) {
		t.Errorf("file page lacks %s:\n%s", want, page.Body)
	}
	if page := b.Do("GET", "/console/files/"+gif.ID, nil).Expect(http.StatusOK); contains(page, "srcset") {
		t.Errorf("a GIF's page has a srcset:\n%s", page.Body)
	}
	admin := e.consoleAdmin()
	if all := admin.Do("GET", "/console/admin/files", nil).Expect(http.StatusOK); !contains(all, `srcset="`+wideSet+`"`) {
		t.Errorf("the administrator's grid lacks the srcset:\n%s", all.Body)
	}
}
