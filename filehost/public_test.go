package filehost

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
)

type statsJSON struct {
	Files        int64 `json:"files"`
	Users        int64 `json:"users"`
	StorageBytes int64 `json:"storage_bytes"`
	Images       int64 `json:"images"`
	TodayUploads int64 `json:"today_uploads"`
}

func TestPublicStatsCountStoredBytesOnce(t *testing.T) {
	e := newTestEnv(t)
	var st statsJSON
	acctOK(t, e.c.Do(http.MethodGet, "/api/v1/public/stats", nil), 200, &st)
	if st != (statsJSON{Users: 1}) { // the administrator; the guest is no user
		t.Fatalf("empty stats = %+v", st)
	}

	_, a := e.newUser("rita", 0)
	_, b := e.newUser("sam", 0)
	shared := pngBytes(t, 6, 6)
	x := mustUpload(t, a, "x.png", shared)
	mustUpload(t, b, "x-again.png", shared) // de-duplicated
	y := mustUpload(t, a, "y.png", pngBytes(t, 7, 7))
	doc := mustUpload(t, b, "doc.pdf", pdfBytes)
	// One record from yesterday.
	if _, err := e.db.Exec(context.Background(), "UPDATE files SET created_at = $1 WHERE id = $2",
		sqlstore.FromTime(time.Now().UTC().Truncate(24*time.Hour).Add(-time.Hour)), y.ID); err != nil {
		t.Fatal(err)
	}

	acctOK(t, e.c.Do(http.MethodGet, "/api/v1/public/stats", nil), 200, &st)
	want := statsJSON{Files: 4, Users: 3, StorageBytes: x.Size + y.Size + doc.Size, Images: 3, TodayUploads: 3}
	if st != want {
		t.Fatalf("stats = %+v, want %+v", st, want)
	}
}

type plazaJSON struct {
	Items []map[string]any `json:"items"`
	Total int              `json:"total"`
	Page  int              `json:"page"`
	Size  int              `json:"size"`
}

func TestPlazaShowsPublicImagesNewestFirstWithoutEmails(t *testing.T) {
	e := newTestEnv(t)
	_, a := e.newUser("tara", 0)
	_, b := e.newUser("umar", 0)
	first := mustUpload(t, a, "first.png", pngBytes(t, 8, 8), "permission", "1")
	mustUpload(t, a, "private.png", pngBytes(t, 9, 9))
	mustUpload(t, b, "public.pdf", pdfBytes, "permission", "1")
	second := mustUpload(t, b, "second.jpg", jpegBytes(t, 10, 10), "permission", "1")

	r := e.c.Do(http.MethodGet, "/api/v1/public/plaza", nil)
	var page plazaJSON
	acctOK(t, r, 200, &page)
	if page.Total != 2 || len(page.Items) != 2 || page.Page != 1 || page.Size != 20 {
		t.Fatalf("plaza = %+v", page)
	}
	if page.Items[0]["id"] != second.ID || page.Items[1]["id"] != first.ID {
		t.Fatalf("order: %v, %v", page.Items[0]["id"], page.Items[1]["id"])
	}
	it := page.Items[0]
	if it["username"] != "umar" || it["is_public"] != true || it["file_type"] != "image" || it["origin_name"] != "second.jpg" {
		t.Fatalf("item = %v", it)
	}
	links, _ := it["links"].(map[string]any)
	if links["url"] != second.Links.URL || links["thumbnail_url"] == "" || links["delete_url"] != "" {
		t.Fatalf("links = %v", links)
	}
	if strings.Contains(string(r.Body), "@example.com") || strings.Contains(string(r.Body), "email") {
		t.Fatalf("plaza shows an email: %s", r.Body)
	}

	acctOK(t, e.c.Do(http.MethodGet, "/api/v1/public/plaza?size=1&page=2", nil), 200, &page)
	if page.Total != 2 || len(page.Items) != 1 || page.Items[0]["id"] != first.ID || page.Size != 1 || page.Page != 2 {
		t.Fatalf("page 2 = %+v", page)
	}
	acctErr(t, e.c.Do(http.MethodGet, "/api/v1/public/plaza?page=x", nil), 400, 40000)
}
