package filehost

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// pagedFile is a file record the paging tests put straight into the
// database, with what the lists filter and order it by.
type pagedFile struct {
	id, user, album, typ, name string
	size, created              int64
	public, expired            bool
}

// pagingIDs returns n new ids in an order unrelated to the order they were
// made in, so that a tie broken by id is not also broken by insertion.
func pagingIDs(r *rand.Rand, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = sqlstore.NewID()
	}
	r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// seedPagedFiles inserts n records of user, each over its own object,
// whose creation times, sizes and names repeat (so that ids break ties),
// of every type, in one of albums or none, some public, some expired and
// some expiring later.
func (e *testEnv) seedPagedFiles(r *rand.Rand, user string, albums []string, n int) []pagedFile {
	e.t.Helper()
	ctx := context.Background()
	now := time.Now()
	base := sqlstore.FromTime(now.Add(-time.Hour))
	var out []pagedFile
	for _, id := range pagingIDs(r, n) {
		f := pagedFile{id: id, user: user, typ: []string{"image", "image", "video", "file"}[r.IntN(4)],
			name: []string{"alpha.png", "beta.png", "gamma.png"}[r.IntN(3)], size: int64(100 * (1 + r.IntN(3))),
			created: base + int64(r.IntN(4))*1e6, public: r.IntN(2) == 0}
		if k := r.IntN(len(albums) + 1); k < len(albums) {
			f.album = albums[k]
		}
		var expires, album any
		switch r.IntN(8) {
		case 0:
			f.expired, expires = true, sqlstore.FromTime(now.Add(-time.Minute))
		case 1:
			expires = sqlstore.FromTime(now.Add(time.Hour))
		}
		if f.album != "" {
			album = f.album
		}
		objectID := sqlstore.NewID()
		sum := strings.ReplaceAll(objectID, "-", "")
		if _, err := e.db.Exec(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, ref_count, created_at)
			VALUES ($1, $2, $2, $3, $4, $5, 'application/octet-stream', 'bin', $6, 1, $7)`,
			objectID, sum, sum[20:], "seed/"+sum, f.size, f.typ, f.created); err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.db.Exec(ctx, `INSERT INTO files (id, user_id, object_id, album_id, origin_name, size, is_public, created_at, updated_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`, f.id, user, objectID, album, f.name, f.size, f.public, f.created, expires); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// pageReader fetches page n of a list at size rows a page: the ids in
// order and the total.
type pageReader func(t *testing.T, n, size int) ([]string, int)

// apiPages reads a list of the FileAPI envelope at path with client c;
// sizeParam names its page size.
func apiPages(c *httpxtest.Client, path, sizeParam string) pageReader {
	return func(t *testing.T, n, size int) ([]string, int) {
		var p struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			Total int `json:"total"`
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		httpxtest.Into(t, within(t, c).Do("GET", fmt.Sprintf("%s%spage=%d&%s=%d", path, sep, n, sizeParam, size), nil).Expect(200).A().Data, &p)
		ids := make([]string, len(p.Items))
		for i, it := range p.Items {
			ids[i] = it.ID
		}
		return ids, p.Total
	}
}

// walkPages reads every page of a list, checking that each tells the same
// total and that the page after the last is empty, and returns the ids in
// the order the pages gave them.
func walkPages(t *testing.T, read pageReader, size int) []string {
	t.Helper()
	var all []string
	total := -1
	for n := 1; ; n++ {
		ids, tot := read(t, n, size)
		if total >= 0 && tot != total {
			t.Fatalf("page %d: total %d, page 1 said %d", n, tot, total)
		}
		total = tot
		if len(ids) == 0 {
			if len(all) != total {
				t.Fatalf("%d rows over %d pages, total says %d", len(all), n-1, total)
			}
			return all
		}
		if len(ids) > size {
			t.Fatalf("page %d: %d rows, size %d", n, len(ids), size)
		}
		all = append(all, ids...)
	}
}

// Every page of every file list holds exactly the records a plain query
// would, in its order with ties broken by id, whatever the page size, the
// order and the filters; each page tells the full total.
func TestFileListPagesAreSlicesOfThePlainOrder(t *testing.T) {
	e := newTestEnv(t)
	r := rand.New(rand.NewPCG(7, 8))
	alice, aliceC := e.newUser("alice", 0)
	bob, _ := e.newUser("bob", 0)
	a1, a2 := e.createAlbum(alice, "One"), e.createAlbum(alice, "Two")
	files := append(e.seedPagedFiles(r, alice, []string{a1, a2}, 80), e.seedPagedFiles(r, bob, nil, 30)...)

	live := func(f pagedFile) bool { return !f.expired }
	of := func(user string) func(pagedFile) bool {
		return func(f pagedFile) bool { return live(f) && f.user == user }
	}
	by := func(key func(f pagedFile) int, desc bool) func(a, b pagedFile) int {
		return func(a, b pagedFile) int {
			c := cmp.Or(key(a)-key(b), strings.Compare(a.id, b.id))
			if desc {
				return -c
			}
			return c
		}
	}
	created := func(f pagedFile) int { return int(f.created - files[0].created) }
	size := func(f pagedFile) int { return int(f.size) }
	name := func(f pagedFile) int { return int(f.name[0]) } // alpha < beta < gamma in every collation
	newest := by(created, true)

	// The model orders ids as the database does (UUID on PostgreSQL, text
	// on SQLite): a plain, unpaged query agrees with it.
	var want []string
	for _, f := range slices.SortedFunc(slices.Values(files), newest) {
		want = append(want, f.id)
	}
	rows, err := e.db.Query(context.Background(), "SELECT id FROM files ORDER BY created_at DESC, id DESC")
	if err != nil {
		t.Fatal(err)
	}
	var plain []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		plain = append(plain, id)
	}
	rows.Close()
	if !slices.Equal(plain, want) {
		t.Fatalf("plain query:\n got  %v\n want %v", plain, want)
	}

	lsky := func(t *testing.T, n, size int) ([]string, int) {
		var p struct {
			Total int `json:"total"`
			Data  []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		httpxtest.Into(t, within(t, aliceC).Do("GET", fmt.Sprintf("/api/v1/images?page=%d&per_page=%d", n, size), nil).Expect(200).U().Data, &p)
		ids := make([]string, len(p.Data))
		for i, it := range p.Data {
			ids[i] = it.ID
		}
		return ids, p.Total
	}
	noAlbum := func(t *testing.T, n, size int) ([]string, int) {
		fs, total, err := e.svc.listFiles(context.Background(), fileQuery{UserID: alice, NoAlbum: true, OrderBy: "created_at", Desc: true,
			Limit: size, Offset: (n - 1) * size})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(fs))
		for i, f := range fs {
			ids[i] = f.ID
		}
		return ids, total
	}
	for _, tt := range []struct {
		name  string
		read  pageReader
		keep  func(pagedFile) bool
		order func(a, b pagedFile) int
	}{
		{"user", apiPages(aliceC, "/api/v1/files", "size"), of(alice), newest},
		{"user oldest first", apiPages(aliceC, "/api/v1/files?order=ASC", "size"), of(alice), by(created, false)},
		{"user by size", apiPages(aliceC, "/api/v1/files?order_by=size", "size"), of(alice), by(size, true)},
		{"user by size ascending", apiPages(aliceC, "/api/v1/files?order_by=size&order=asc", "size"), of(alice), by(size, false)},
		{"user by name", apiPages(aliceC, "/api/v1/files?order_by=origin_name", "size"), of(alice), by(name, true)},
		{"user by name ascending", apiPages(aliceC, "/api/v1/files?order_by=origin_name&order=ASC", "size"), of(alice), by(name, false)},
		{"user album", apiPages(aliceC, "/api/v1/files?album_id="+a1, "size"),
			func(f pagedFile) bool { return of(alice)(f) && f.album == a1 }, newest},
		{"user no album", noAlbum, func(f pagedFile) bool { return of(alice)(f) && f.album == "" }, newest},
		{"user type", apiPages(aliceC, "/api/v1/files?file_type=image", "size"),
			func(f pagedFile) bool { return of(alice)(f) && f.typ == "image" }, newest},
		{"user keyword", apiPages(aliceC, "/api/v1/files?keyword=ALP", "size"),
			func(f pagedFile) bool { return of(alice)(f) && f.name == "alpha.png" }, newest},
		{"user type, album and order", apiPages(aliceC, "/api/v1/files?file_type=video&album_id="+a2+"&order_by=size&order=ASC", "size"),
			func(f pagedFile) bool { return of(alice)(f) && f.typ == "video" && f.album == a2 }, by(size, false)},
		{"lsky", lsky, of(alice), newest},
		{"gallery", apiPages(e.c, "/api/v1/public/plaza", "size"),
			func(f pagedFile) bool { return live(f) && f.public && f.typ == "image" }, newest},
		{"admin", apiPages(e.admin, "/api/v1/admin/files", "size"), live, newest},
		{"admin user", apiPages(e.admin, "/api/v1/admin/files?user_id="+bob, "size"), of(bob), newest},
		{"admin type", apiPages(e.admin, "/api/v1/admin/files?file_type=file", "size"),
			func(f pagedFile) bool { return live(f) && f.typ == "file" }, newest},
		{"admin by size", apiPages(e.admin, "/api/v1/admin/files?order_by=size&order=ASC", "size"), live, by(size, false)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, f := range files {
				if tt.keep(f) {
					want = append(want, f.id)
				}
			}
			slices.SortFunc(want, func(a, b string) int { return tt.order(fileOf(files, a), fileOf(files, b)) })
			if len(want) < 3 {
				t.Fatalf("the seed gives this list %d records: too few to page", len(want))
			}
			for _, size := range []int{1, 4, 7, 100} {
				if got := walkPages(t, tt.read, size); !slices.Equal(got, want) {
					t.Fatalf("%d a page:\n got  %v\n want %v", size, got, want)
				}
			}
		})
	}
}

func fileOf(files []pagedFile, id string) pagedFile {
	i := slices.IndexFunc(files, func(f pagedFile) bool { return f.id == id })
	return files[i]
}

// The album list pages the same way, in each of its orders.
func TestAlbumListPagesAreSlicesOfThePlainOrder(t *testing.T) {
	e := newTestEnv(t)
	r := rand.New(rand.NewPCG(9, 10))
	alice, c := e.newUser("alice", 0)
	type seeded struct {
		id, name         string
		created, updated int64
	}
	base := sqlstore.FromTime(time.Now().Add(-time.Hour))
	var albums []seeded
	for _, id := range pagingIDs(r, 25) {
		a := seeded{id: id, name: []string{"alpha", "beta", "gamma"}[r.IntN(3)],
			created: base + int64(r.IntN(3))*1e6, updated: base + int64(r.IntN(3))*1e6}
		if _, err := e.db.Exec(context.Background(), `INSERT INTO albums (id, user_id, name, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5)`, a.id, alice, a.name, a.created, a.updated); err != nil {
			t.Fatal(err)
		}
		albums = append(albums, a)
	}
	for _, tt := range []struct {
		query string
		key   func(a seeded) int64
		desc  bool
	}{
		{"", func(a seeded) int64 { return a.created }, true},
		{"?order=ASC", func(a seeded) int64 { return a.created }, false},
		{"?order_by=updated_at", func(a seeded) int64 { return a.updated }, true},
		{"?order_by=name&order=ASC", func(a seeded) int64 { return int64(a.name[0]) }, false},
	} {
		t.Run(tt.query, func(t *testing.T) {
			sorted := slices.SortedFunc(slices.Values(albums), func(a, b seeded) int {
				c := cmp.Or(cmp.Compare(tt.key(a), tt.key(b)), strings.Compare(a.id, b.id))
				if tt.desc {
					return -c
				}
				return c
			})
			var want []string
			for _, a := range sorted {
				want = append(want, a.id)
			}
			for _, size := range []int{1, 4, 7, 100} {
				if got := walkPages(t, apiPages(c, "/api/v1/albums"+tt.query, "size"), size); !slices.Equal(got, want) {
					t.Fatalf("%d a page:\n got  %v\n want %v", size, got, want)
				}
			}
		})
	}
}

// The file lists page their ids in a covering index: the rows OFFSET skips
// are index entries, never records read whole or joined to their objects.
// A plan check, on SQLite.
func TestFileListPagesIDsInACoveringIndex(t *testing.T) {
	e := newTestEnv(t)
	alice := e.createUser("alice", 0)
	for _, tt := range []struct {
		name  string
		q     fileQuery
		index string
	}{
		{"user", fileQuery{UserID: alice, OrderBy: "created_at", Desc: true}, "files_user_paging"},
		{"user oldest first", fileQuery{UserID: alice, OrderBy: "created_at"}, "files_user_paging"},
		{"user album", fileQuery{UserID: alice, AlbumID: alice, OrderBy: "created_at", Desc: true}, "files_user_paging"},
		{"user no album", fileQuery{UserID: alice, NoAlbum: true, OrderBy: "created_at", Desc: true}, "files_user_paging"},
		{"user type", fileQuery{UserID: alice, FileType: "image", OrderBy: "created_at", Desc: true}, "files_user_paging"},
		{"admin", fileQuery{OrderBy: "created_at", Desc: true}, "files_paging"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Limit, tt.q.Offset = 10, 49_990
			count, page, countArgs, pageArgs := e.svc.filePage(tt.q)
			plan := sqlstoretest.QueryPlan(t, e.db, page, pageArgs...)
			text := strings.Join(plan, "\n")
			sub := sqlstoretest.Subplan(plan, "CO-ROUTINE page", "MATERIALIZE page")
			if !slices.ContainsFunc(sub, func(s string) bool {
				return strings.HasPrefix(s, "SEARCH f USING COVERING INDEX "+tt.index) ||
					strings.HasPrefix(s, "SCAN f USING COVERING INDEX "+tt.index)
			}) {
				t.Fatalf("the page's ids do not come from the covering index %s:\n%s", tt.index, text)
			}
			for _, s := range sub {
				if strings.Contains(s, "TEMP B-TREE") || (strings.HasPrefix(s, "S") && !strings.Contains(s, "COVERING INDEX")) {
					t.Fatalf("the page's ids need more than covering indexes (%q):\n%s", s, text)
				}
			}
			for _, s := range sqlstoretest.QueryPlan(t, e.db, count, countArgs...) {
				if strings.HasPrefix(s, "S") && !strings.Contains(s, "COVERING INDEX") {
					t.Fatalf("the count reads more than covering indexes (%q):\n%s", s, text)
				}
			}
		})
	}
}
