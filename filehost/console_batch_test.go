package filehost

import (
	"net/http"
	"strings"
	"testing"

	"folio/httpx"
	"folio/sqlstore"
)

func TestConsoleBatchActionsChangeOnlyTheUsersFiles(t *testing.T) {
	tests := []struct {
		name   string
		fields func(holidays string) []string
		flash  string
		check  string // a count query over the three selected files that must give 3; $1 is the album
	}{
		{"move to an album", func(a string) []string { return []string{"action", "move", "album_id", a} },
			"Moved 3 files to Holidays &amp; more.", "SELECT COUNT(*) FROM files WHERE album_id = $1"},
		{"move to an album, its id in capitals", func(a string) []string { return []string{"action", "move", "album_id", strings.ToUpper(a)} },
			"Moved 3 files to Holidays &amp; more.", "SELECT COUNT(*) FROM files WHERE album_id = $1"},
		{"take out of albums", func(string) []string { return []string{"action", "move", "album_id", ""} },
			"Took 3 files out of their albums.", "SELECT COUNT(*) FROM files WHERE album_id IS NULL AND origin_name IN ('a.png', 'b.png', 'c.pdf') AND $1 <> ''"},
		{"make public", func(string) []string { return []string{"action", "visibility", "visibility", "public"} },
			"Made 3 files public.", "SELECT COUNT(*) FROM files WHERE visibility = 'public' AND is_public AND $1 <> ''"},
		{"make restricted", func(string) []string { return []string{"action", "visibility", "visibility", "restricted"} },
			"Made 3 files restricted.", "SELECT COUNT(*) FROM files WHERE visibility = 'restricted' AND NOT is_public AND $1 <> ''"},
		{"delete", func(string) []string { return []string{"action", "delete"} },
			"Deleted 3 files.", "SELECT 3 - COUNT(*) FROM files WHERE origin_name IN ('a.png', 'b.png', 'c.pdf') AND $1 <> ''"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			ann, b := e.consoleUser("ann")
			bob := e.createUser("bob", 0)
			old := e.createAlbum(ann, "Old")
			holidays := e.createAlbum(ann, "Holidays & more")
			mine := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image", AlbumID: old}, seedFile{Name: "b.png", Type: "image"},
				seedFile{Name: "c.pdf", Type: "file", Public: true}, seedFile{Name: "kept.png", Type: "image", AlbumID: old})
			theirs := e.seedConsoleFiles(bob, seedFile{Name: "bob.png", Type: "image"})[0]
			tok := pageToken(b, "/console/files")

			fields := append([]string{"form_token", tok, "back", "/console/files?type=image",
				"ids", mine[0], "ids", strings.ToUpper(mine[1]), "ids", mine[2], "ids", mine[0], "ids", theirs, "ids", "not-an-id"},
				tc.fields(holidays)...)
			res := b.PostForm("/console/files/batch", fields...).Expect(http.StatusSeeOther)
			if res.Location() != "/console/files?type=image" {
				t.Fatalf("Location %q", res.Location())
			}
			if page := b.Do("GET", res.Location(), nil).Expect(200); !contains(page, `<p class="flash" role="status">`+tc.flash+`</p>`) {
				t.Fatalf("no flash %q:\n%s", tc.flash, page.Body)
			}
			if n := e.count(tc.check, holidays); n != 3 {
				t.Fatalf("%s: %d, want 3", tc.check, n)
			}
			if e.count("SELECT COUNT(*) FROM files WHERE id = $1 AND album_id = $2 AND visibility = 'unlisted'", mine[3], old) != 1 {
				t.Fatal("a file that was not selected changed")
			}
			if e.count("SELECT COUNT(*) FROM files WHERE id = $1 AND album_id IS NULL AND visibility = 'unlisted'", theirs) != 1 {
				t.Fatal("another user's file changed")
			}
		})
	}
}

func TestConsoleBatchActionsSayHowManyInTheRightNumber(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	album := e.createAlbum(ann, "Trip")
	id := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image"})[0]
	for _, tc := range []struct {
		fields []string
		flash  string
	}{
		{[]string{"action", "move", "album_id", album}, "Moved 1 file to Trip."},
		{[]string{"action", "visibility", "visibility", "unlisted"}, "Made 1 file unlisted."},
		{[]string{"action", "delete"}, "Deleted 1 file."},
	} {
		tok := pageToken(b, "/console/files")
		res := b.PostForm("/console/files/batch", append([]string{"form_token", tok, "ids", id}, tc.fields...)...).Expect(http.StatusSeeOther)
		if !contains(b.Do("GET", res.Location(), nil).Expect(200), tc.flash) {
			t.Errorf("no flash %q", tc.flash)
		}
	}
}

func TestConsoleBatchActionsRefuseBadInputAndChangeNothing(t *testing.T) {
	e := newTestEnv(t)
	ann, b := e.consoleUser("ann")
	bob := e.createUser("bob", 0)
	bobsAlbum := e.createAlbum(bob, "Bob's")
	mine := e.seedConsoleFiles(ann, seedFile{Name: "a.png", Type: "image"}, seedFile{Name: "b.png", Type: "image"})
	theirs := e.seedConsoleFiles(bob, seedFile{Name: "bob.png", Type: "image"})[0]
	tooMany := make([]string, 0, 2*1001)
	for range 1001 {
		tooMany = append(tooMany, "ids", sqlstore.NewID())
	}

	tests := []struct {
		name   string
		fields []string
		status int
		want   string
	}{
		{"nothing selected", []string{"action", "delete"}, http.StatusUnprocessableEntity, "Select at least one file first."},
		{"too many selected", append([]string{"action", "delete"}, tooMany...), http.StatusUnprocessableEntity, "Select at most 1000 files at a time."},
		{"no action", []string{"ids", mine[0]}, http.StatusUnprocessableEntity, "Choose what to do with the selected files."},
		{"an unknown action", []string{"ids", mine[0], "action", "rename"}, http.StatusUnprocessableEntity, "Choose what to do with the selected files."},
		{"an unknown album", []string{"ids", mine[0], "action", "move", "album_id", sqlstore.NewID()}, http.StatusUnprocessableEntity, "Choose one of your albums."},
		{"an album that is no id", []string{"ids", mine[0], "action", "move", "album_id", "holidays"}, http.StatusUnprocessableEntity, "Choose one of your albums."},
		{"another user's album", []string{"ids", mine[0], "action", "move", "album_id", bobsAlbum}, http.StatusUnprocessableEntity, "Choose one of your albums."},
		{"no visibility", []string{"ids", mine[0], "action", "visibility"}, http.StatusUnprocessableEntity, "Choose a visibility"},
		{"a bad visibility", []string{"ids", mine[0], "action", "visibility", "visibility", "secret"}, http.StatusUnprocessableEntity, "Choose a visibility"},
		{"only another user's file, moved", []string{"ids", theirs, "action", "move", "album_id", ""}, http.StatusNotFound, "None of the selected files is yours"},
		{"only another user's file, made public", []string{"ids", theirs, "action", "visibility", "visibility", "public"}, http.StatusNotFound, "None of the selected files is yours"},
		{"only another user's file, deleted", []string{"ids", theirs, "action", "delete"}, http.StatusNotFound, "None of the selected files is yours"},
		{"only ids that are none", []string{"ids", "x", "ids", sqlstore.NewID(), "action", "delete"}, http.StatusNotFound, "None of the selected files is yours"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := pageToken(b, "/console/files")
			res := b.PostForm("/console/files/batch", append([]string{"form_token", tok, "back", "/console/files?type=image"}, tc.fields...)...)
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %.500s", res.Status, tc.status, res.Body)
			}
			// The grid again, with the problem and the selection kept.
			if !contains(res, `<p class="error" role="alert">`+tc.want, `<form id="files-batch"`, `<option value="image" selected>`) {
				t.Fatalf("answer: %s", res.Body)
			}
			if len(tc.fields) > 1 && tc.fields[0] == "ids" && tc.fields[1] == mine[0] &&
				!contains(res, `value="`+mine[0]+`" aria-label="Select a.png" checked>`) {
				t.Error("the selection was not kept")
			}
		})
	}
	if e.count("SELECT COUNT(*) FROM files WHERE album_id IS NULL AND visibility = 'unlisted'") != 3 {
		t.Fatal("a refused form changed a file")
	}

	t.Run("a foreign request", func(t *testing.T) {
		b.PostForm("/console/files/batch", "ids", mine[0], "action", "delete").Expect(http.StatusForbidden)
		postFrom(b, "https://evil.example", "/console/files/batch", "form_token", pageToken(b, "/console/files"),
			"ids", mine[0], "action", "delete").Expect(http.StatusForbidden)
		if e.count("SELECT COUNT(*) FROM files") != 3 {
			t.Fatal("a foreign request deleted a file")
		}
	})
}

func TestUploadProblemNamesTheLimit(t *testing.T) {
	set := UploadSettings{MaxFileSize: 10 << 20, AllowedTypes: List{"image/*", "pdf"}, ForbiddenExts: List{"exe", "php"}}
	tests := []struct {
		name              string
		err               error
		size, used, quota int64
		want              string
	}{
		{"too large, size known", errFileTooLarge, 12_900_000, 0, 0, "12.3 MiB is over the 10 MiB limit."},
		{"too large, size unknown", errFileTooLarge, -1, 0, 0, "Over the 10 MiB limit for one file."},
		{"a refused type", &forbiddenType{"text/html"}, 10, 0, 0, "File type not allowed: text/html. Allowed types: image/*, pdf. Never taken: .exe, .php."},
		{"quota full", errQuotaFull, 3 << 20, 9 << 20, 10 << 20, "Not enough room: 1 MiB of your 10 MiB is left, and this file is 3 MiB."},
		{"quota over, nothing left", errQuotaFull, -1, 11 << 20, 10 << 20, "Not enough room: 0 B of your 10 MiB is left."},
		{"empty", invalid("file is empty"), 0, 0, 0, "Empty file (0 bytes): nothing to upload."},
		{"anything else", errBadAlbum, 10, 0, 0, "Album_id is not one of your albums."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := uploadProblem(httpx.AsError(httpError(tc.err)), set, tc.size, tc.used, tc.quota); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
