package blog_test

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

// seeded is a row the paging tests put straight into the database, with
// what the lists filter and order it by.
type seeded struct {
	id, status, title string
	category, post    string
	tags              []string
	published         *int64
	created, sort     int64
	deleted           bool
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

// walkList reads every page of the list at path (its filters already in
// the query) with size rows a page, checking that each page reports the
// same total and the page after the last is empty; it returns the ids in
// the order the pages gave them.
func walkList(t *testing.T, c *httpxtest.Client, path string, size int) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var ids []string
	total := -1
	for n := 1; ; n++ {
		var pg page[struct {
			ID string `json:"id"`
		}]
		data(t, c.Do("GET", fmt.Sprintf("%s%spage=%d&page_size=%d", path, sep, n, size), nil), 200, &pg)
		if total >= 0 && pg.Pagination.Total != total {
			t.Fatalf("%s page %d: total %d, page 1 said %d", path, n, pg.Pagination.Total, total)
		}
		total = pg.Pagination.Total
		if len(pg.Items) == 0 {
			if len(ids) != total {
				t.Fatalf("%s: %d rows over %d pages, total says %d", path, len(ids), n-1, total)
			}
			return ids
		}
		if len(pg.Items) > size {
			t.Fatalf("%s page %d: %d items, page_size %d", path, n, len(pg.Items), size)
		}
		for _, it := range pg.Items {
			ids = append(ids, it.ID)
		}
	}
}

// expectIDs compares a list's ids with the wanted rows' ids, in order.
// expectEveryPage walks path at several page sizes and expects the rows
// of all that keep takes, in order.
func expectEveryPage(t *testing.T, c *httpxtest.Client, path string, all []seeded, keep func(seeded) bool, order func(a, b seeded) int) {
	t.Helper()
	var w []seeded
	for _, s := range all {
		if keep(s) {
			w = append(w, s)
		}
	}
	slices.SortFunc(w, order)
	if len(w) < 3 {
		t.Fatalf("the seed gives %s %d rows: too few to page", path, len(w))
	}
	for _, size := range []int{1, 4, 7, 100} {
		expectIDs(t, fmt.Sprintf("%s, %d a page", path, size), walkList(t, c, path, size), w)
	}
}

func expectIDs(t *testing.T, what string, got []string, want []seeded) {
	t.Helper()
	w := make([]string, len(want))
	for i, s := range want {
		w[i] = s.id
	}
	if !slices.Equal(got, w) {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, w)
	}
}

// plainIDs runs a query of ids with no paging at all.
func plainIDs(t *testing.T, db *sqlstore.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// seedPagingPosts inserts posts whose publication and creation times
// repeat (so that ids break ties), in every status, some deleted, some
// scheduled after now, in two categories or none, with two tags or fewer,
// a few of them titled "needle".
func seedPagingPosts(t *testing.T, e *env, r *rand.Rand, now time.Time, cats, tags []string) []seeded {
	t.Helper()
	base := sqlstore.FromTime(now.Add(-time.Hour))
	future := sqlstore.FromTime(now.Add(time.Hour))
	var posts []seeded
	for i, id := range pagingIDs(r, 70) {
		p := seeded{id: id, status: []string{"published", "published", "published", "draft", "archived"}[r.IntN(5)],
			created: base + int64(r.IntN(3))*1e6, deleted: r.IntN(8) == 0, title: fmt.Sprintf("post %d", i)}
		if i%9 == 0 {
			p.title = fmt.Sprintf("the needle %d", i)
		}
		if p.status == "published" {
			at := base + int64(r.IntN(4))*60e6
			if r.IntN(10) == 0 {
				at = future
			}
			p.published = &at
		}
		if k := r.IntN(3); k < len(cats) {
			p.category = cats[k]
		}
		for _, tag := range tags {
			if r.IntN(2) == 0 {
				p.tags = append(p.tags, tag)
			}
		}
		var deleted, category any
		if p.deleted {
			deleted = base
		}
		if p.category != "" {
			category = p.category
		}
		e.exec(`INSERT INTO posts (id, title, slug, status, published_at, category_id, created_at, updated_at, deleted_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
			p.id, p.title, fmt.Sprintf("p-%d", i), p.status, sqlstore.FromNullTime(nullTime(p.published)), category, p.created, deleted)
		for _, tag := range p.tags {
			e.exec("INSERT INTO post_tags (post_id, tag_id) VALUES ($1, $2)", p.id, tag)
		}
		posts = append(posts, p)
	}
	return posts
}

func nullTime(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := sqlstore.Time(*us)
	return &t
}

// Every page of every post list holds exactly the posts a plain query
// would, in its order with ties broken by id, whatever the page size and
// the filters, from the list's start or from an anchor; each page tells
// the full total.
func TestPostListPagesAreSlicesOfThePlainOrder(t *testing.T) {
	clock := &testClock{}
	log := &logBuffer{}
	e, b := newEnvWith(t, setup{now: clock.now, log: log})
	// Anchors every 3 posts: pages from the fourth post on start after one.
	b.SetAnchorEvery(3)
	defer func() {
		if strings.Contains(log.String(), "anchor out of date") {
			t.Errorf("a page was not found from its anchor with no post changing:\n%s", log)
		}
	}()
	r := rand.New(rand.NewPCG(1, 2))
	catA, catB := e.createTerm("categories", "A"), e.createTerm("categories", "B")
	tagX, tagY := e.createTerm("tags", "X"), e.createTerm("tags", "Y")
	now := clock.now()
	posts := seedPagingPosts(t, e, r, now, []string{catA.ID, catB.ID}, []string{tagX.ID, tagY.ID})

	public := func(p seeded) bool {
		return p.status == "published" && !p.deleted && *p.published <= sqlstore.FromTime(now)
	}
	publicOrder := func(a, b seeded) int {
		return cmp.Or(cmp.Compare(*b.published, *a.published), cmp.Compare(b.created, a.created), strings.Compare(b.id, a.id))
	}
	adminOrder := func(a, b seeded) int {
		return cmp.Or(cmp.Compare(b.created, a.created), strings.Compare(b.id, a.id))
	}
	want := func(keep func(seeded) bool, order func(a, b seeded) int) []seeded {
		var out []seeded
		for _, p := range posts {
			if keep(p) {
				out = append(out, p)
			}
		}
		slices.SortFunc(out, order)
		return out
	}
	hasTag := func(p seeded, tag string) bool { return slices.Contains(p.tags, tag) }
	needle := func(p seeded) bool { return strings.Contains(p.title, "needle") }

	// The model orders ids as the database does (UUID on PostgreSQL, text
	// on SQLite): the plain, unpaged queries agree with it.
	expectIDs(t, "plain public query", plainIDs(t, e.db, `SELECT id FROM posts
		WHERE status = 'published' AND deleted_at IS NULL AND published_at <= $1
		ORDER BY published_at DESC, created_at DESC, id DESC`, sqlstore.FromTime(now)), want(public, publicOrder))
	expectIDs(t, "plain admin query", plainIDs(t, e.db, `SELECT id FROM posts WHERE deleted_at IS NULL
		ORDER BY created_at DESC, id DESC`), want(func(p seeded) bool { return !p.deleted }, adminOrder))

	for _, tt := range []struct {
		name  string
		path  string
		keep  func(seeded) bool
		order func(a, b seeded) int
	}{
		{"public", "/api/v1/posts", public, publicOrder},
		{"public category", "/api/v1/posts?category_id=" + catA.ID,
			func(p seeded) bool { return public(p) && p.category == catA.ID }, publicOrder},
		{"public tag", "/api/v1/posts?tag_id=" + tagX.ID,
			func(p seeded) bool { return public(p) && hasTag(p, tagX.ID) }, publicOrder},
		{"public category and tag", "/api/v1/posts?category_id=" + catB.ID + "&tag_id=" + tagY.ID,
			func(p seeded) bool { return public(p) && p.category == catB.ID && hasTag(p, tagY.ID) }, publicOrder},
		{"public keyword", "/api/v1/posts?keyword=needle",
			func(p seeded) bool { return public(p) && needle(p) }, publicOrder},
		{"admin", "/api/v1/admin/posts", func(p seeded) bool { return !p.deleted }, adminOrder},
		{"admin drafts", "/api/v1/admin/posts?status=draft",
			func(p seeded) bool { return !p.deleted && p.status == "draft" }, adminOrder},
		{"admin published", "/api/v1/admin/posts?status=published",
			func(p seeded) bool { return !p.deleted && p.status == "published" }, adminOrder},
		{"admin category", "/api/v1/admin/posts?category_id=" + catB.ID,
			func(p seeded) bool { return !p.deleted && p.category == catB.ID }, adminOrder},
		{"admin tag and status", "/api/v1/admin/posts?status=archived&tag_id=" + tagY.ID,
			func(p seeded) bool { return !p.deleted && p.status == "archived" && hasTag(p, tagY.ID) }, adminOrder},
		{"admin keyword", "/api/v1/admin/posts?keyword=NEEDLE",
			func(p seeded) bool { return !p.deleted && needle(p) }, adminOrder},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := want(tt.keep, tt.order)
			if len(w) < 3 {
				t.Fatalf("the seed gives this list %d posts: too few to page", len(w))
			}
			for _, size := range []int{1, 4, 7, 100} {
				expectIDs(t, fmt.Sprintf("%s, %d a page", tt.path, size), walkList(t, e.admin, tt.path, size), w)
			}
		})
	}
}

// The comment lists page like the post lists: the public one a post's
// approved comments oldest first, the administrator's every comment of a
// live post newest first; ids break ties.
func TestCommentListPagesAreSlicesOfThePlainOrder(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(3, 4))
	first, second, gone := e.publish("First"), e.publish("Second"), e.publish("Gone")
	base := sqlstore.FromTime(time.Now().Add(-time.Hour))
	var comments []seeded // title holds the content
	for i, id := range pagingIDs(r, 60) {
		c := seeded{id: id, status: []string{"approved", "approved", "pending", "spam"}[r.IntN(4)],
			post:    []string{first.ID, first.ID, second.ID, gone.ID}[r.IntN(4)],
			created: base + int64(r.IntN(4))*1e6, title: fmt.Sprintf("comment %d", i)}
		if i%7 == 0 {
			c.title = fmt.Sprintf("a needle %d", i)
		}
		e.exec(`INSERT INTO comments (id, post_id, author, email, content, status, created_at, updated_at)
			VALUES ($1, $2, 'Ann', 'ann@example.com', $3, $4, $5, $5)`, c.id, c.post, c.title, c.status, c.created)
		comments = append(comments, c)
	}
	e.admin.Do("DELETE", "/api/v1/admin/posts/"+gone.ID, nil).Expect(200)

	oldest := func(a, b seeded) int { return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id)) }
	newest := func(a, b seeded) int { return oldest(b, a) }
	live := func(c seeded) bool { return c.post != gone.ID }
	for _, tt := range []struct {
		name  string
		path  string
		keep  func(seeded) bool
		order func(a, b seeded) int
	}{
		{"public", "/api/v1/posts/" + first.ID + "/comments",
			func(c seeded) bool { return c.post == first.ID && c.status == "approved" }, oldest},
		{"admin", "/api/v1/admin/comments", live, newest},
		{"admin pending", "/api/v1/admin/comments?status=pending",
			func(c seeded) bool { return live(c) && c.status == "pending" }, newest},
		{"admin post", "/api/v1/admin/comments?post_id=" + second.ID,
			func(c seeded) bool { return c.post == second.ID }, newest},
		{"admin keyword", "/api/v1/admin/comments?keyword=needle",
			func(c seeded) bool { return live(c) && strings.Contains(c.title, "needle") }, newest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectEveryPage(t, e.admin, tt.path, comments, tt.keep, tt.order)
		})
	}
}

// The page lists page the same way: published pages by sort order, the
// administrator's newest first.
func TestPageListPagesAreSlicesOfThePlainOrder(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(5, 6))
	base := sqlstore.FromTime(time.Now().Add(-time.Hour))
	var pages []seeded
	for i, id := range pagingIDs(r, 40) {
		p := seeded{id: id, status: []string{"published", "published", "draft", "archived"}[r.IntN(4)],
			created: base + int64(r.IntN(3))*1e6, deleted: r.IntN(8) == 0, sort: int64(r.IntN(3))}
		var deleted any
		if p.deleted {
			deleted = base
		}
		e.exec(`INSERT INTO pages (id, title, slug, status, sort_order, created_at, updated_at, deleted_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`, p.id, fmt.Sprintf("Page %d", i), fmt.Sprintf("page-%d", i),
			p.status, p.sort, p.created, deleted)
		pages = append(pages, p)
	}
	bySort := func(a, b seeded) int {
		return cmp.Or(cmp.Compare(a.sort, b.sort), cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id))
	}
	newest := func(a, b seeded) int { return cmp.Or(cmp.Compare(b.created, a.created), strings.Compare(b.id, a.id)) }
	for _, tt := range []struct {
		name  string
		path  string
		keep  func(seeded) bool
		order func(a, b seeded) int
	}{
		{"public", "/api/v1/pages", func(p seeded) bool { return !p.deleted && p.status == "published" }, bySort},
		{"admin", "/api/v1/admin/pages", func(p seeded) bool { return !p.deleted }, newest},
		{"admin drafts", "/api/v1/admin/pages?status=draft", func(p seeded) bool { return !p.deleted && p.status == "draft" }, newest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectEveryPage(t, e.admin, tt.path, pages, tt.keep, tt.order)
		})
	}
}

// The post lists page their ids in a covering index: the rows OFFSET skips
// are index entries, never posts read whole. A plan check, on SQLite.
func TestPostListPagesIDsInACoveringIndex(t *testing.T) {
	e, b := newEnvWith(t, setup{})
	cat, tag := e.createTerm("categories", "C"), e.createTerm("tags", "T")
	anchor := e.publish("Anchor", "category_id", cat.ID, "tag_ids", []string{tag.ID})
	for _, tt := range []struct {
		name                   string
		public                 bool
		status, category, tags string
		index                  string
	}{
		{"public", true, "", "", "", "posts_public_paging"},
		{"public category", true, "", cat.ID, "", "posts_public_category_paging"},
		{"public tag", true, "", "", tag.ID, "posts_public_paging"},
		{"admin", false, "", "", "", "posts_admin_paging"},
		{"admin status", false, "draft", "", "", "posts_admin_paging"},
		{"admin category", false, "", cat.ID, "", "posts_category_paging"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, args := b.PostPageQuery(tt.public, tt.status, tt.category, tt.tags, 10, 49_990)
			expectCoveringPage(t, sqlstoretest.QueryPlan(t, e.db, q, args...), "p", tt.index, "")
			// After an anchor, the index is entered at the anchor: the
			// bound on the whole order key is a range of the search.
			q, args, err := b.AnchoredPostPageQuery(t.Context(), tt.public, tt.status, tt.category, tt.tags, anchor.ID, "v", 10, 990)
			if err != nil {
				t.Fatal(err)
			}
			key := "(published_at,created_at,id)<(?,?,?)"
			if !tt.public {
				key = "(created_at,id)<(?,?)"
			}
			expectCoveringPage(t, sqlstoretest.QueryPlan(t, e.db, q, args...), "p", tt.index, key)
		})
	}
}

// A page found from an anchor is empty once the posts have changed since
// the anchor's version, which sends listPosts the plain way: the anchor
// may no longer stand where it stood.
func TestAnchoredPageIsEmptyOnceThePostsChange(t *testing.T) {
	e, b := newEnvWith(t, setup{})
	for i := range 5 {
		e.publish(fmt.Sprintf("Post %d", i))
	}
	newest := e.publish("Newest")
	q, args, err := b.AnchoredPostPageQuery(t.Context(), true, "", "", "", newest.ID, b.PostsVersion(t.Context()), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := func() int {
		rs, err := e.db.Query(t.Context(), q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		n := 0
		for rs.Next() {
			n++
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 5 {
		t.Fatalf("after the newest post, at its version: %d posts, want 5", n)
	}
	e.publish("Newer still")
	if n := rows(); n != 0 {
		t.Fatalf("after the newest post, at a version since changed: %d posts, want none", n)
	}
}

// expectCoveringPage checks that the subquery "page" of plan reads table
// alias only from the covering index, in its order (no sort), searching it
// by a range that mentions bound when that is not empty.
func expectCoveringPage(t *testing.T, plan []string, alias, index, bound string) {
	t.Helper()
	sub := sqlstoretest.Subplan(plan, "CO-ROUTINE page", "MATERIALIZE page")
	text := strings.Join(plan, "\n")
	if !slices.ContainsFunc(sub, func(s string) bool {
		return (strings.HasPrefix(s, "SCAN "+alias+" USING COVERING INDEX "+index) ||
			strings.HasPrefix(s, "SEARCH "+alias+" USING COVERING INDEX "+index)) && strings.Contains(s, bound)
	}) {
		t.Fatalf("the page's ids do not come from the covering index %s %s:\n%s", index, bound, text)
	}
	for _, s := range sub {
		if strings.Contains(s, "TEMP B-TREE") || (strings.HasPrefix(s, "S") && !strings.Contains(s, "COVERING INDEX")) {
			t.Fatalf("the page's ids need more than a covering index (%q):\n%s", s, text)
		}
	}
}
