package filehost

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkConsoleFilesPage measures a whole GET /console/files, through
// HTTP with a signed-in browser, for a user with 1,000 files in 10 albums:
// the time to the page's last byte, which bounds its first. The page costs
// the same few queries whatever it holds.
func BenchmarkConsoleFilesPage(b *testing.B) {
	e := newTestEnv(b)
	userID, browser := e.consoleUser("bench")
	albums := make([]string, 10)
	for i := range albums {
		albums[i] = e.createAlbum(userID, fmt.Sprintf("Album %d", i))
	}
	types := []string{"image", "image", "image", "video", "audio", "file"}
	files := make([]seedFile, 1000)
	for i := range files {
		files[i] = seedFile{Name: fmt.Sprintf("file-%04d.png", i), Type: types[i%len(types)], Public: i%3 == 0}
		if i%2 == 0 {
			files[i].AlbumID = albums[i%len(albums)]
		}
	}
	e.seedConsoleFiles(userID, files...)
	pages := []struct{ name, path string }{
		{"first", "/console/files"},
		{"page20", "/console/files?page=20"},
		{"filtered", "/console/files?type=image&q=file-0"},
	}
	for _, pg := range pages {
		path := pg.path
		b.Run(pg.name, func(b *testing.B) {
			for b.Loop() {
				if r := browser.Do(http.MethodGet, path, nil); r.Status != http.StatusOK || cards(r) == 0 {
					b.Fatalf("status %d, %d cards", r.Status, cards(r))
				}
			}
		})
	}
}
