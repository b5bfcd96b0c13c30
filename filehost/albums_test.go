package filehost

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"folio/sqlstore"
)

// albumJSON is an album as the API shows it.
type albumJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"is_public"`
	FileCount   int    `json:"file_count"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

type albumPage struct {
	Items []albumJSON `json:"items"`
	Total int         `json:"total"`
	Page  int         `json:"page"`
	Size  int         `json:"size"`
}

func TestAlbumCRUD(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("mia", 0)
	var a albumJSON
	r := c.Do(http.MethodPost, "/api/v1/albums", map[string]any{"name": "  Trips ", "description": "2026", "is_public": true})
	acctOK(t, r, http.StatusCreated, &a)
	if !sqlstore.ValidID(a.ID) || a.Name != "Trips" || a.Description != "2026" || !a.IsPublic || a.FileCount != 0 ||
		a.CreatedAt == "" || a.CreatedAt != a.UpdatedAt {
		t.Fatalf("album = %+v", a)
	}
	if k := acctKeys(t, r.A().Data); len(k) != 7 {
		t.Fatalf("album keys = %v", k)
	}

	var got albumJSON
	acctOK(t, c.Do(http.MethodGet, "/api/v1/albums/"+a.ID, nil), 200, &got)
	if got != a {
		t.Fatalf("get = %+v, want %+v", got, a)
	}

	// PATCH changes only what is sent.
	acctOK(t, c.Do(http.MethodPatch, "/api/v1/albums/"+a.ID, map[string]any{"is_public": false}), 200, &got)
	if got.Name != "Trips" || got.Description != "2026" || got.IsPublic {
		t.Fatalf("patched = %+v", got)
	}
	acctOK(t, c.Do(http.MethodPatch, "/api/v1/albums/"+a.ID, map[string]any{"name": "Travel", "description": ""}), 200, &got)
	if got.Name != "Travel" || got.Description != "" || got.IsPublic {
		t.Fatalf("patched = %+v", got)
	}

	acctOK(t, c.Do(http.MethodDelete, "/api/v1/albums/"+a.ID, nil), 200, nil)
	acctErr(t, c.Do(http.MethodGet, "/api/v1/albums/"+a.ID, nil), 404, 40400)
	acctErr(t, c.Do(http.MethodDelete, "/api/v1/albums/"+a.ID, nil), 404, 40400)
}

func TestAlbumValidationAndOwnership(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("noah", 0)
	_, other := e.newUser("olga", 0)
	var a albumJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]any{"name": "mine"}), 201, &a)

	for _, tc := range []struct {
		name, method, path string
		body               any
		status, code       int
	}{
		{"create without name", "POST", "/api/v1/albums", map[string]any{"description": "x"}, 400, 40000},
		{"create with blank name", "POST", "/api/v1/albums", map[string]any{"name": " "}, 400, 40000},
		{"create with long name", "POST", "/api/v1/albums", map[string]any{"name": strings.Repeat("é", 101)}, 400, 40000},
		{"create with long description", "POST", "/api/v1/albums", map[string]any{"name": "x", "description": strings.Repeat("d", 1001)}, 400, 40000},
		{"create with wrong types", "POST", "/api/v1/albums", `{"name": "x", "is_public": "yes"}`, 400, 40000},
		{"patch to empty name", "PATCH", "/api/v1/albums/" + a.ID, map[string]any{"name": ""}, 400, 40000},
		{"bad list order", "GET", "/api/v1/albums?order_by=size", nil, 400, 40000},
		{"bad id", "GET", "/api/v1/albums/123", nil, 404, 40400},
		{"unknown id", "GET", "/api/v1/albums/" + sqlstore.NewID(), nil, 404, 40400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, c.Do(tc.method, tc.path, tc.body), tc.status, tc.code)
		})
	}
	acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]any{"name": strings.Repeat("é", 100)}), 201, nil)

	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		t.Run("another user's album "+m, func(t *testing.T) {
			acctErr(t, other.Do(m, "/api/v1/albums/"+a.ID, map[string]any{"name": "theirs"}), 404, 40400)
		})
	}
	acctOK(t, c.Do(http.MethodGet, "/api/v1/albums/"+a.ID, nil), 200, &a)
	if a.Name != "mine" {
		t.Fatalf("another user changed the album: %+v", a)
	}
	var page albumPage
	acctOK(t, other.Do(http.MethodGet, "/api/v1/albums", nil), 200, &page)
	if page.Total != 0 || len(page.Items) != 0 {
		t.Fatalf("other sees %+v", page)
	}
	acctErr(t, e.c.Do(http.MethodGet, "/api/v1/albums", nil), 401, 40100)
}

func TestAlbumListPagesAndOrders(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("paul", 0)
	for _, n := range []string{"b", "c", "a"} {
		acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]any{"name": n}), 201, nil)
	}
	for _, tc := range []struct {
		query string
		want  string
		total int
	}{
		{"", "a,c,b", 3},
		{"?order=ASC", "b,c,a", 3},
		{"?order_by=name&order=asc", "a,b,c", 3},
		{"?order_by=name&size=2&page=2", "a", 3},
		{"?keyword=C", "c", 1},
	} {
		t.Run(tc.query, func(t *testing.T) {
			var page albumPage
			acctOK(t, c.Do(http.MethodGet, "/api/v1/albums"+tc.query, nil), 200, &page)
			var names []string
			for _, a := range page.Items {
				names = append(names, a.Name)
			}
			if strings.Join(names, ",") != tc.want || page.Total != tc.total {
				t.Fatalf("got %v total %d, want %s total %d", names, page.Total, tc.want, tc.total)
			}
		})
	}
}

func TestDeletingAnAlbumKeepsItsFiles(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("quinn", 0)
	var a albumJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]any{"name": "holiday"}), 201, &a)
	f1 := mustUpload(t, c, "one.png", pngBytes(t, 3, 3), "album_id", a.ID)
	f2 := mustUpload(t, c, "two.png", pngBytes(t, 4, 4), "album_id", a.ID)
	mustUpload(t, c, "loose.png", pngBytes(t, 5, 5))
	acctOK(t, c.Do(http.MethodGet, "/api/v1/albums/"+a.ID, nil), 200, &a)
	if a.FileCount != 2 {
		t.Fatalf("file_count = %d, want 2", a.FileCount)
	}
	used, count := e.usage(id)

	acctOK(t, c.Do(http.MethodDelete, "/api/v1/albums/"+a.ID, nil), 200, nil)
	for _, f := range []uploaded{f1, f2} {
		var file struct {
			ID      string `json:"id"`
			AlbumID string `json:"album_id"`
		}
		acctOK(t, c.Do(http.MethodGet, "/api/v1/files/"+f.ID, nil), 200, &file)
		if file.ID != f.ID || file.AlbumID != "" {
			t.Fatalf("file after album delete = %+v", file)
		}
		if r := e.c.Do(http.MethodGet, f.path(), nil); r.Status != http.StatusOK {
			t.Fatalf("short link of %s: %d", f.ID, r.Status)
		}
	}
	if u, n := e.usage(id); u != used || n != count || n != 3 {
		t.Fatalf("usage %d/%d, want %d/%d", u, n, used, count)
	}
}

func TestAlbumNameAndDescriptionAreTrimmedAndBounded(t *testing.T) {
	const badName, badDesc = "name must be 1-100 characters", "description must be at most 1000 characters"
	for _, tt := range []struct {
		name    string
		check   func(string) (string, error)
		in      string
		want    string
		wantErr string
	}{
		{"name trimmed", validAlbumName, "  Trips  ", "Trips", ""},
		{"name of 100 characters", validAlbumName, strings.Repeat("é", 100), strings.Repeat("é", 100), ""},
		{"empty name", validAlbumName, "   ", "", badName},
		{"name too long", validAlbumName, strings.Repeat("é", 101), "", badName},
		{"empty description", validAlbumDescription, "  ", "", ""},
		{"description of 1000 characters", validAlbumDescription, strings.Repeat("é", 1000), strings.Repeat("é", 1000), ""},
		{"description too long", validAlbumDescription, strings.Repeat("é", 1001), "", badDesc},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.check(tt.in)
			if tt.wantErr != "" {
				var ii *invalidInput
				if !errors.As(err, &ii) || ii.msg != tt.wantErr {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}
